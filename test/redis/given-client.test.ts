// A client the user gives the store, as the README makes it: `new Redis(url, {
// enableOfflineQueue: false })` passed at once, still connecting (or never connected:
// lazyConnect). Without an offline queue ioredis fails a command sent before the client is
// ready, so the store must wait for it, within timeoutMs, as it does for a client it makes.
import { expect } from 'chai';
import { Redis } from 'ioredis';
import { LoopGuard } from '../../src/core/loop-guard.js';
import { createRedisRunStore } from '../../src/redis/index.js';
import { startRedisServer, type RedisServer } from '../helpers/redis-servers.js';

describe('a client given to the store before it is ready', function () {
  this.timeout(30_000);
  let server: RedisServer;
  let trial = 0;
  before(async () => {
    server = await startRedisServer({ port: 6713, appendOnly: true });
  });
  after(async () => {
    await server.stop();
  });

  for (const { label, options } of [
    { label: 'connecting (the README\'s new Redis(url, { enableOfflineQueue: false }))', options: { enableOfflineQueue: false } },
    { label: 'lazyConnect, never connected', options: { enableOfflineQueue: false, lazyConnect: true } },
  ]) {
    it(`${label}: the first business-key write is claimed, with no outage warning`, async () => {
      trial += 1;
      const client = new Redis(server.url, options);
      client.on('error', () => undefined);
      const warnings: string[] = [];
      const store = createRedisRunStore({ client, keyPrefix: `given-client-${trial}` });
      const guard = new LoopGuard({ store, idempotentWrites: { send_email: { key: ['to'] } }, logger: { warn: (message) => warnings.push(message) } });
      try {
        const run = guard.startRun('first-write');
        const ticket = await run.claimCall({ tool: 'send_email', args: { to: 'ops@example.com' } });
        expect(ticket.decision.action === 'refuse' ? `${ticket.decision.reason}: ${ticket.decision.message}` : 'allow').to.equal('allow');
        expect(warnings).to.deep.equal([]);
        run.finishCall(ticket, { result: 'sent' });
        await guard.flush();
      } finally {
        client.disconnect();
      }
    });
  }

  it('a client with an offline queue (enableOfflineQueue: true, maxRetriesPerRequest: null): an outage queues nothing, and what it held lands once it is back', async () => {
    trial += 1;
    const client = new Redis(server.url, { enableOfflineQueue: true, maxRetriesPerRequest: null });
    client.on('error', () => undefined);
    const warnings: string[] = [];
    const store = createRedisRunStore({ client, keyPrefix: `given-client-${trial}`, timeoutMs: 100 });
    const guard = new LoopGuard({ store, idempotentWrites: { send_email: { key: ['to'] } }, logger: { warn: (message) => warnings.push(message) } });
    try {
      const runs = Array.from({ length: 20 }, (_, index) => guard.startRun(`run-${index}`));
      for (const run of runs) run.finishCall(await run.claimCall({ tool: 'search', args: { q: 'before' } }), { result: ['a'] });
      await guard.flush();
      await server.crash();
      for (let call = 0; call < 10; call++) {
        await Promise.all(
          runs.map(async (run) => {
            const ticket = await run.claimCall(call % 2 === 0 ? { tool: 'search', args: { q: `during ${call}` } } : { tool: 'send_email', args: { to: `${run.id}-${call}@example.com` } });
            if (ticket.decision.action === 'allow') run.finishCall(ticket, { result: ['b'] });
          }),
        );
      }
      // ioredis keeps every command sent while it is disconnected (its offline queue, which
      // the README's client turns off): each retry of each run, each claim, for the whole
      // outage, all run at once when Redis is back, long after the engine stopped waiting.
      // What was sent as Redis died (about one command a run) may stay; nothing since.
      const queued = (client as unknown as { offlineQueue: { length: number } }).offlineQueue.length;
      expect(queued, 'commands held in the client for the outage').to.be.at.most(runs.length);
      await server.restart();
      await new Promise<void>((resolve) => (client.status === 'ready' ? resolve() : client.once('ready', () => resolve())));
      await guard.flush();
      const lengths = await Promise.all(runs.map((run) => client.llen(store.keysOf(run.id).log)));
      // The first call and its outcome, and five reads during the outage with theirs (the
      // writes were refused store.unavailable: one entry each).
      expect(new Set(lengths)).to.deep.equal(new Set([2 + 5 * 2 + 5]));
    } finally {
      client.disconnect();
    }
  });
});
