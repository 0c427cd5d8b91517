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
    server = await startRedisServer({ port: 6713 });
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
});
