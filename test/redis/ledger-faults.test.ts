// Issue 23 #3–#5: the shared ledger under a stalled Redis (DEBUG SLEEP on a real
// redis-server) and with runs that already left the engine's lists.
import { expect } from 'chai';
import type { Redis } from 'ioredis';
import { LoopGuard, type LoopGuardEngineOptions } from '../../src/core/loop-guard.js';
import { createRedisRunStore, type RedisRunStore } from '../../src/redis/index.js';
import { startRedisServer, type RedisServer } from '../helpers/redis-servers.js';

/** Stalls the server for `ms` (DEBUG SLEEP on its own connection); resolves when it answers again. */
export async function stall(server: RedisServer, ms: number): Promise<{ over: Promise<unknown> }> {
  const sleeper = await server.client();
  const over = sleeper.call('DEBUG', 'SLEEP', String(ms / 1000)).finally(() => sleeper.disconnect());
  // The sleep has begun once another connection's PING waits.
  await new Promise((resolve) => setTimeout(resolve, 20));
  return { over };
}

describe('issue 23: the shared ledger under a stalled Redis (real redis-server)', function () {
  this.timeout(30_000);
  let server: RedisServer;
  let client: Redis;
  let prefix = '';
  let trial = 0;
  before(async () => {
    server = await startRedisServer();
    client = await server.client();
  });
  after(async () => {
    await server.stop();
  });
  beforeEach(() => {
    trial += 1;
    prefix = `ledger-faults-${trial}`;
  });

  async function engine(options: Omit<LoopGuardEngineOptions, 'store'> = {}, timeoutMs = 2000): Promise<{ guard: LoopGuard; store: RedisRunStore; warnings: string[] }> {
    const warnings: string[] = [];
    const store = createRedisRunStore({ client: await server.client(), keyPrefix: prefix, timeoutMs });
    return { guard: new LoopGuard({ ...options, store, logger: { warn: (message) => warnings.push(message) } }), store, warnings };
  }

  it('issue 23 #3: a business-key write refused store.unavailable while Redis stalls can be retried once it is back', async () => {
    const { guard } = await engine({ idempotentWrites: { send_email: { key: ['to'] } } }, 200);
    const run = guard.startRun('stalled-write');
    const args = { to: 'ops@example.com' };
    // A first write loads the scripts: a script the server has never seen fails NOSCRIPT and
    // never lands, which would hide the late claim this test is about.
    const warm = await run.claimCall({ tool: 'send_email', args: { to: 'warm@example.com' } });
    run.finishCall(warm, { result: 'sent' });
    await guard.flush();
    const { over } = await stall(server, 600);
    const refused = await run.claimCall({ tool: 'send_email', args });
    expect(refused.decision.action).to.equal('refuse');
    expect(refused.decision.action === 'refuse' && refused.decision.reason).to.equal('store.unavailable');
    await over;
    await guard.flush();
    // The caller was told it did not run: its retry must run, not wait out a lease and a day.
    const retried = await run.claimCall({ tool: 'send_email', args });
    expect(retried.decision.action === 'refuse' ? retried.decision.reason : 'allow').to.equal('allow');
    run.finishCall(retried, { result: 'sent' });
    await guard.flush();
    const again = await run.claimCall({ tool: 'send_email', args });
    expect(again.decision.action === 'refuse' && again.decision.reason).to.equal('write.already_done');
  });
});
