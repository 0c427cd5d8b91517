import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
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
  let dir: string;

  before(async () => {
    redis = await startRedisServer();
    // Business keys an agent in any language gets through the decision API: the server's own.
    dir = await mkdtemp(join(tmpdir(), 'loopguard-replicas-'));
    const policy = join(dir, 'policy.json');
    await writeFile(policy, JSON.stringify({ idempotentWrites: { send_invoice: { key: ['customer', 'month'] } } }));
    replicas = await Promise.all([startServeProcess(['--redis', redis.url, '--policy', policy]), startServeProcess(['--redis', redis.url, '--policy', policy])]);
  });
  after(async () => {
    const codes = await Promise.all(replicas.map((replica) => replica.stop()));
    await redis.stop();
    await rm(dir, { recursive: true, force: true });
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

  it('a business-key write through the decision API (no library in the agent): two runs on two replicas at once, run once; a later run is told it is done', async () => {
    const args = { customer: 'C-41', month: '2026-11', amount: 120 };
    const claims = await Promise.all(
      replicas.map((replica, index) => postJson(`${replica.url}/v1/runs/invoice-run-${index}/calls`, { tool: 'send_invoice', arguments: args })),
    );
    const allowed = claims.filter((claim) => claim.body.decision === 'allow');
    expect(allowed, JSON.stringify(claims.map((claim) => claim.body))).to.have.length(1);
    const refused = claims.find((claim) => claim.body.decision === 'refuse')!;
    expect(refused.body.reason).to.equal('repeat.in_flight');
    expect(refused.body.message).to.match(/^Not run: the same send_invoice \(same business key\) is being done right now by another worker/);
    // The outcome goes to the other replica than the claim.
    const winner = claims.indexOf(allowed[0]!);
    const outcome = await postJson(`${replicas[1 - winner]!.url}/v1/runs/invoice-run-${winner}/calls/${encodeURIComponent(allowed[0]!.body.ticket)}/outcome`, { result: 'sent' });
    expect(outcome.status, JSON.stringify(outcome.body)).to.equal(200);
    for (const replica of replicas) {
      const later = await postJson(`${replica.url}/v1/runs/invoice-run-late/calls`, { tool: 'send_invoice', arguments: { ...args, amount: 120 } });
      expect(later.body, replica.url).to.include({ decision: 'refuse', reason: 'write.already_done' });
    }
    // Another month is another invoice.
    const next = await postJson(`${replicas[0]!.url}/v1/runs/invoice-run-late/calls`, { tool: 'send_invoice', arguments: { ...args, month: '2026-12' } });
    expect(next.body.decision).to.equal('allow');
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
