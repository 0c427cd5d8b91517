// A run log that Redis lost (a restart without persistence, a failover to a replica that had
// not caught up, an expired key) and that other processes then wrote again. A process that
// saw the old log must not take the new one's tail for the continuation of what it saw: its
// replica would miss the new log's first entries, a call another process has in flight
// among them, and the same call would run twice. Real redis-server.
import { expect } from 'chai';
import { LoopGuard } from '../../src/core/loop-guard.js';
import { encodeRunEvent } from '../../src/core/shared-ledger/run-event.js';
import type { CallDecision } from '../../src/core/types.js';
import { createRedisRunStore, type RedisRunStore } from '../../src/redis/index.js';
import { redisServerPerSuite } from '../helpers/redis-servers.js';

const reasonOf = (decision: CallDecision): string => (decision.action === 'allow' ? 'allow' : decision.reason);
const deploy = { tool: 'deploy_service', args: { service: 'billing', version: '2.4.1' } };
const padding = encodeRunEvent({ type: 'usage', usage: { inputTokens: 1 } });

describe('a run log lost and written again by other processes (real Redis)', function () {
  this.timeout(30_000);
  const redis = redisServerPerSuite('replaced-log');

  async function engine(): Promise<{ guard: LoopGuard; store: RedisRunStore; warnings: string[] }> {
    const warnings: string[] = [];
    const store = createRedisRunStore({ client: await redis.server.client(), keyPrefix: redis.prefix, timeoutMs: 2000 });
    return { guard: new LoopGuard({ store, logger: { warn: (message) => warnings.push(message) } }), store, warnings };
  }

  /**
   * Process A records a few calls of run `r`; the log is then lost, and process B, starting
   * on the empty log, claims `deploy` (and keeps it running). Returns A's view of how long the
   * log was, so a test can grow the new log to any length against it.
   */
  async function lostThenRewritten() {
    const a = await engine();
    const runA = a.guard.startRun('r');
    for (const q of ['one', 'two', 'three']) {
      const ticket = await runA.claimCall({ tool: 'search', args: { q } });
      runA.finishCall(ticket, { result: `results for ${q}` });
    }
    await a.guard.flush();
    const seen = (await a.store.readRunEvents('r', 0)).length;
    const client = await redis.server.client();
    await client.del(a.store.keysOf('r').log);
    const b = await engine();
    const runB = await b.guard.resumeRun('r');
    const running = await runB.claimCall(deploy);
    expect(reasonOf(running.decision)).to.equal('allow');
    /** Grows the new log to `length` entries, as B's other work would. */
    const growTo = async (length: number) => {
      const now = (await b.store.readRunEvents('r', 0)).length;
      expect(now, 'the new log is still shorter than asked').to.be.at.most(length);
      await b.store.appendRunEvents('r', now, Array.from({ length: length - now }, () => padding));
    };
    return { a, runA, seen, growTo };
  }

  it('a claim appended at the length this process saw does not land on a log it never saw: the call in flight there is refused', async () => {
    const { a, runA, seen, growTo } = await lostThenRewritten();
    await growTo(seen);
    // Before: the new log had exactly the length A left, so A's append was accepted and
    // deploy, running in B, was allowed in A too.
    const second = await runA.claimCall(deploy);
    expect(reasonOf(second.decision)).to.equal('repeat.in_flight');
    expect(a.warnings.filter((warning) => warning.includes('not the one this process saw'))).to.have.length(1);
  });

  it('resuming a run reads the whole new log, not its tail past what this process saw', async () => {
    const { a, seen, growTo } = await lostThenRewritten();
    await growTo(seen + 3);
    // Before: resumeRun read the log from `seen` on and applied three padding entries to the
    // old replica; the claim then appended at seen + 3 and was accepted.
    const runA = await a.guard.resumeRun('r');
    const second = await runA.claimCall(deploy);
    expect(reasonOf(second.decision)).to.equal('repeat.in_flight');
    expect(a.warnings.filter((warning) => warning.includes('not the one this process saw'))).to.have.length(1);
  });

  it('the append script refuses an append whose last seen entry is not the log\'s, answering the whole log', async () => {
    const { store } = await engine();
    const first = encodeRunEvent({ type: 'usage', usage: { inputTokens: 1 } });
    const second = encodeRunEvent({ type: 'usage', usage: { inputTokens: 2 } });
    const third = encodeRunEvent({ type: 'usage', usage: { inputTokens: 3 } });
    expect(await store.appendRunEvents('s', 0, [first, second])).to.deep.equal({ accepted: true, length: 2 });
    expect(await store.appendRunEvents('s', 2, [third], undefined, first)).to.deep.equal({ accepted: false, length: 2, entries: [first, second], truncated: true });
    expect(await store.appendRunEvents('s', 2, [third], undefined, second)).to.deep.equal({ accepted: true, length: 3 });
    // A longer log whose entry at the expected place differs is not the same log either.
    expect(await store.appendRunEvents('s', 2, [third], undefined, first)).to.deep.equal({ accepted: false, length: 3, entries: [first, second, third], truncated: true });
    expect(await store.appendRunEvents('s', 2, [third], undefined, second)).to.deep.equal({ accepted: false, length: 3, entries: [third] });
  });
});
