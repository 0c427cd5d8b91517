import { expect } from 'chai';
import { startRedisServer, type RedisServer } from '../helpers/redis-servers.js';
import { getJson, LOOPING_RUN, playInProcess, playOverHttp, postJson } from './server-test-helpers.js';
import { startServeProcess, type ServeProcess } from './serve-process.js';

describe('loopguard serve --redis: two replicas over one real Redis', function () {
  this.timeout(60_000);
  let redis: RedisServer;
  let replicas: ServeProcess[] = [];

  before(async () => {
    redis = await startRedisServer();
    replicas = await Promise.all([startServeProcess(['--redis', redis.url]), startServeProcess(['--redis', redis.url])]);
  });
  after(async () => {
    const codes = await Promise.all(replicas.map((replica) => replica.stop()));
    await redis.stop();
    expect(codes, 'clean shutdown on SIGTERM').to.deep.equal([0, 0]);
  });

  it('calls of one run alternating between the replicas get the decisions of one in-process engine', async () => {
    // Every request of the run goes to the other replica than the one before: rounds, claims,
    // outcomes (a ticket given by one, finished on the other) and shouldStop.
    const alternating = (step: number): string => replicas[step % 2]!.url;
    const overReplicas = await playOverHttp(alternating, 'shared-run', LOOPING_RUN);
    const reference = await playInProcess(LOOPING_RUN);
    expect(overReplicas).to.deep.equal(reference);
    expect(overReplicas.at(-1)).to.match(/ stop /);
    // Both replicas see the stop: it is in the shared log, not in one process.
    for (const replica of replicas) {
      const claim = await postJson(`${replica.url}/v1/runs/shared-run/calls`, { tool: 'search', arguments: { q: 'new' } });
      expect(claim.body.decision, replica.url).to.equal('stop');
      const view = await getJson(`${replica.url}/v1/runs/shared-run`);
      expect(view.body.stopped.reason).to.equal(overReplicas.at(-1)!.split(' ')[2]);
    }
  });

  it('readiness says the replica is shared', async () => {
    const ready = await getJson(`${replicas[0]!.url}/readyz`);
    expect(ready.body).to.deep.equal({ status: 'ready', shared: true });
  });
});
