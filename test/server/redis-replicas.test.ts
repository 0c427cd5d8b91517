import { expect } from 'chai';
import { createRemoteRunStore } from '../../src/client/index.js';
import { LoopGuard } from '../../src/core/loop-guard.js';
import { createRedisRunStore } from '../../src/redis/index.js';
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

  it('loopguard/client engines on either replica share one ledger, kept in Redis: a write is claimed once across them', async () => {
    const engines = [0, 1, 2, 3].map(
      (index) =>
        new LoopGuard({
          store: createRemoteRunStore({ url: replicas[index % 2]!.url }),
          idempotentWrites: { refund: { key: ['order'] } },
          logger: { warn: (message) => expect.fail(`store trouble: ${message}`) },
        }),
    );
    const tickets = await Promise.all(engines.map((guard, index) => guard.startRun(`refund-${index}`).claimCall({ tool: 'refund', args: { order: 'A-17' } })));
    expect(tickets.filter((ticket) => ticket.decision.action === 'allow'), 'claimed once').to.have.length(1);
    // A run played by an engine on replica 0 is read back from Redis itself, and by replica 1.
    const played = await playInProcess(LOOPING_RUN, engines[0]!, 'remote-over-redis');
    expect(played).to.deep.equal(await playInProcess(LOOPING_RUN));
    await engines[0]!.flush();
    const redisStore = createRedisRunStore({ url: redis.url });
    try {
      const inRedis = await redisStore.readRunEvents('remote-over-redis', 0);
      expect(inRedis.length).to.be.greaterThan(LOOPING_RUN.length);
      expect(await createRemoteRunStore({ url: replicas[1]!.url }).readRunEvents('remote-over-redis', 0)).to.deep.equal(inRedis);
    } finally {
      await redisStore.close();
    }
  });
});
