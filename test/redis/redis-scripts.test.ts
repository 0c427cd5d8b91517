// The business-key scripts on a real server, given key hashes loopguard did not write (an audit
// of the Redis store): what one script answers, the next must accept.
import { expect } from 'chai';
import type { Redis } from 'ioredis';
import { LoopGuard } from '../../src/core/loop-guard.js';
import type { BusinessKey } from '../../src/core/shared-ledger/run-store.js';
import { createRedisRunStore } from '../../src/redis/index.js';
import { startRedisServer, type RedisServer } from '../helpers/redis-servers.js';

describe('redis scripts: business keys loopguard did not write', function () {
  this.timeout(120_000);
  let server: RedisServer;
  let client: Redis;

  before(async () => {
    server = await startRedisServer();
    client = await server.client();
  });
  after(async () => {
    await server?.stop();
  });

  // The claim script answers a pending key with no `owner` field as owned by '', and the
  // take-over compared the field itself (nil) to '': it never matched, and the key was
  // refused "another worker has just taken over" for its whole ttl (audit p10).
  it('a pending key with no owner whose lease ran out can be taken over', async () => {
    const store = createRedisRunStore({ client, keyPrefix: 'p10a' });
    const key: BusinessKey = { tool: 'send_email', scope: 'global', runId: 'A', value: '"x"' };
    expect(await store.claimBusinessKey(key, 'A/1', 60_000, 3_600_000)).to.deep.equal({ state: 'claimed' });
    const [hash] = await client.keys('p10a:key:*');
    await client.hdel(hash!, 'owner');
    await client.hset(hash!, 'lease', '1');
    const expired = await store.claimBusinessKey(key, 'B/1', 60_000, 3_600_000);
    expect(expired).to.include({ state: 'expired', owner: '' });
    expect(await store.takeOverBusinessKey(key, expired.state === 'expired' ? expired.owner : 'unreachable', 'B/1', 60_000)).to.equal(true);
    expect(await client.hget(hash!, 'owner')).to.equal('B/1');
    // Taken over once: an owner of '' no longer matches.
    expect(await store.takeOverBusinessKey(key, '', 'C/1', 60_000)).to.equal(false);
  });

  // A lease that is no number made the claim script compare nil with a number: a Lua error, read
  // as a Redis outage, so with storeFailure.idempotentWrites 'open' the write ran unguarded.
  it('a pending key whose lease is not a number is expired (its outcome unknown), not a script error', async () => {
    const store = createRedisRunStore({ client, keyPrefix: 'lease' });
    const warnings: string[] = [];
    const guard = new LoopGuard({ store, logger: { warn: (message) => warnings.push(message) }, storeFailure: { idempotentWrites: 'open' }, idempotentWrites: { send_email: { key: ['to'] } } });
    expect((await guard.startRun('A').claimCall({ tool: 'send_email', args: { to: 'x' } })).decision.action).to.equal('allow');
    const [hash] = await client.keys('lease:key:*');
    await client.hset(hash!, 'lease', 'soon');
    // Before: a script error, read as a Redis outage, and under 'open' the write ran again.
    const again = await guard.startRun('B').claimCall({ tool: 'send_email', args: { to: 'x' } });
    expect(again.decision.action === 'refuse' && again.decision.reason).to.equal('write.outcome_unknown');
    expect(warnings).to.deep.equal([]);
  });

  it('an engine whose verify says "not done" runs the write once, then refuses it as in flight', async () => {
    let verifies = 0;
    const store = createRedisRunStore({ client, keyPrefix: 'p10b' });
    const guard = new LoopGuard({
      store,
      logger: { warn: () => undefined },
      idempotentWrites: { send_email: { key: ['to'], verify: () => (verifies++, { done: false }) } },
    });
    expect((await guard.startRun('A').claimCall({ tool: 'send_email', args: { to: 'x' } })).decision.action).to.equal('allow');
    const [hash] = await client.keys('p10b:key:*');
    await client.hdel(hash!, 'owner');
    await client.hset(hash!, 'lease', '1');
    expect((await guard.startRun('B0').claimCall({ tool: 'send_email', args: { to: 'x' } })).decision.action).to.equal('allow');
    const again = await guard.startRun('B1').claimCall({ tool: 'send_email', args: { to: 'x' } });
    expect(again.decision.action === 'refuse' && again.decision.reason).to.equal('repeat.in_flight');
    expect(verifies).to.equal(1);
  });
});
