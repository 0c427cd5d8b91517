// The cap on entries waiting for the store (10 000 a run) during an outage that began with an
// append of unknown fate: Redis ran it late, after the caller's timeout.
import { expect } from 'chai';
import { LoopGuard } from '../../src/core/loop-guard.js';
import { createRedisRunStore } from '../../src/redis/index.js';
import { startRedisServer, type RedisServer } from '../helpers/redis-servers.js';

describe('the pending-entry cap and an append of unknown fate (real redis-server)', function () {
  this.timeout(30_000);
  let server: RedisServer;
  before(async () => {
    server = await startRedisServer({ port: 6714 });
  });
  after(async () => {
    await server.stop();
  });

  it('entries of a late append that the cap only partly dropped are not appended a second time', async () => {
    const client = await server.client();
    const store = createRedisRunStore({ client: await server.client(), keyPrefix: 'pending-cap', timeoutMs: 200 });
    const guard = new LoopGuard({ store, logger: { warn: () => undefined } });
    const run = guard.startRun('capped');
    run.beginRound();
    const warm = await run.claimCall({ tool: 'search', args: { q: 'warm' } });
    run.finishCall(warm, { result: ['w'] });
    await guard.flush();
    const { over } = await server.stall(1500);
    // 100 entries recorded in one tick: one background append, which Redis runs when it wakes,
    // long after the 200 ms the link waited for it.
    for (let index = 0; index < 50; index++) run.finishCall(run.startCall({ tool: 'search', args: { q: `late ${index}` } }), { result: [index] });
    await new Promise((resolve) => setTimeout(resolve, 400));
    // 9 950 more while Redis sleeps: 50 past the cap, so the 50 oldest (half of that append) go.
    // (An allowed call is two entries, its call and its outcome; one refused, its call alone.)
    for (let entries = 0, index = 0; entries < 9_950; index++) {
      const ticket = run.startCall({ tool: 'search', args: { q: `during ${index}` } });
      if (ticket.decision.action === 'allow' && entries + 2 <= 9_950) {
        run.finishCall(ticket, { result: [index] });
        entries += 2;
      } else {
        entries += 1;
      }
    }
    await over;
    await guard.flush();
    await guard.flush();
    const log = await client.lrange(store.keysOf('capped').log, 0, -1);
    const twice = log.length - new Set(log).size;
    expect(twice, 'entries in the log twice').to.equal(0);
  });
});
