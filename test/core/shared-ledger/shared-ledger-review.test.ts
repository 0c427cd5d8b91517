// Defects a review of the shared ledger found (issue 12), each with the test that failed before
// its fix. "review #N" is the finding's number in the closing note of issue 12.
import { expect } from 'chai';
import { LoopGuard } from '../../../src/core/loop-guard.js';
import { createMemoryRunStore } from '../../../src/core/shared-ledger/create-memory-run-store.js';
import { decodeRunEvent, encodeRunEvent } from '../../../src/core/shared-ledger/run-event.js';
import type { AppendResult, RunStore } from '../../../src/core/shared-ledger/run-store.js';
import type { CallDecision } from '../../../src/core/types.js';
import { LoopGuardSpanProcessor } from '../../../src/otel/loop-guard-span-processor.js';
import { TracerProvider } from '../../helpers/otel-sdk.js';

const quiet = { warn: () => undefined };
const reasonOf = (decision: CallDecision): string => (decision.action === 'allow' ? `allow(${decision.kind})` : decision.reason);
const tick = () => new Promise((resolve) => setImmediate(resolve));

/** The memory store, with faults to arm: an append that runs and then "times out", one that fails, a read that fails. */
function faultyStore(now?: () => number) {
  const inner = createMemoryRunStore(now === undefined ? {} : { now });
  const faults = { executeThenThrow: 0, throwBefore: 0, readThrow: 0, beforeAppend: undefined as undefined | ((runId: string) => Promise<void>) };
  const store: RunStore & { faults: typeof faults; types(runId: string): Promise<string[]> } = {
    ...inner,
    faults,
    async appendRunEvents(runId, expected, entries, summary): Promise<AppendResult> {
      await faults.beforeAppend?.(runId);
      if (faults.throwBefore > 0) {
        faults.throwBefore -= 1;
        throw new Error('ECONNREFUSED');
      }
      const result = await inner.appendRunEvents(runId, expected, entries, summary);
      if (faults.executeThenThrow > 0 && result.accepted) {
        faults.executeThenThrow -= 1;
        throw new Error('timeout (the script ran)');
      }
      return result;
    },
    async readRunEvents(runId, from) {
      if (faults.readThrow > 0) {
        faults.readThrow -= 1;
        throw new Error('read timeout');
      }
      return inner.readRunEvents(runId, from);
    },
    async types(runId) {
      return (await inner.readRunEvents(runId, 0)).map((entry, index) => {
        const event = decodeRunEvent(entry, String(index));
        return event.type === 'call' || event.type === 'finish' ? `${event.type} ${event.key.split('.')[1]}` : event.type;
      });
    },
  };
  return store;
}

describe('shared ledger review (issue 12)', () => {
  it('review #1: an append that timed out but ran is not appended again after another process appended', async () => {
    const store = faultyStore();
    const a = new LoopGuard({ store, logger: quiet });
    const runA = a.startRun('job');
    runA.beginRound();
    const search = runA.startCall({ tool: 'search', args: { q: 'x' } });
    await a.flush();
    const fetch = runA.startCall({ tool: 'fetch', args: { url: 'u' } });
    store.faults.executeThenThrow = 1;
    await a.flush();
    const b = new LoopGuard({ store, logger: quiet });
    (await b.resumeRun('job')).beginRound();
    await b.flush();
    runA.finishCall(search, { result: 'r1' });
    runA.finishCall(fetch, { result: 'r2' });
    await a.flush();
    expect(await store.types('job')).to.deep.equal(['round', 'call 1', 'call 2', 'round', 'finish 1', 'finish 2']);
    const fresh = await new LoopGuard({ store, logger: quiet }).resumeRun('job');
    expect(fresh.inFlight).to.equal(0);
    expect(fresh.round).to.equal(2);
    expect(reasonOf((await fresh.claimCall({ tool: 'fetch', args: { url: 'u' } })).decision)).to.match(/^allow/);
  });

  it('review #2: a business key that says "done" still refuses the write when the claim cannot reach the log', async () => {
    const store = faultyStore();
    const idempotentWrites = { send_email: { key: ['to'] } };
    const first = new LoopGuard({ store, logger: quiet, idempotentWrites }).startRun('a');
    const sent = await first.claimCall({ tool: 'send_email', args: { to: 'x@example.com' } });
    first.finishCall(sent, { result: 'ok' });
    await tick();
    const second = new LoopGuard({ store, logger: quiet, idempotentWrites }).startRun('b');
    store.faults.throwBefore = 1; // the run's log is on a node that is down; the key's node answers
    expect(reasonOf((await second.claimCall({ tool: 'send_email', args: { to: 'x@example.com' } })).decision)).to.equal('write.already_done');
  });

  it('review #2: after eight lost claims the write keeps its business key (no second execution meanwhile)', async () => {
    const store = faultyStore();
    const idempotentWrites = { send_email: { key: ['to'] } };
    let contend = true;
    store.faults.beforeAppend = async (runId) => {
      // Another process appends just before each of ours.
      if (contend && runId === 'busy') await createMemoryRunStoreAppend(store, runId);
    };
    const busy = new LoopGuard({ store, logger: quiet, idempotentWrites }).startRun('busy');
    const ticket = await busy.claimCall({ tool: 'send_email', args: { to: 'y@example.com' } });
    contend = false;
    expect(ticket.decision.action).to.equal('allow');
    const other = new LoopGuard({ store, logger: quiet, idempotentWrites }).startRun('other');
    expect(reasonOf((await other.claimCall({ tool: 'send_email', args: { to: 'y@example.com' } })).decision)).to.equal('repeat.in_flight');
  });

  it('review #3: a transient error (connection reset) keeps the business key: the write may have happened', async () => {
    const store = faultyStore();
    const idempotentWrites = { send_email: { key: ['to'] } };
    const first = new LoopGuard({ store, logger: quiet, idempotentWrites }).startRun('a');
    const sent = await first.claimCall({ tool: 'send_email', args: { to: 'z@example.com' } });
    first.finishCall(sent, { error: Object.assign(new Error('socket hang up'), { code: 'ECONNRESET' }) });
    await first.claimCall({ tool: 'noop', args: {} });
    const again = await new LoopGuard({ store, logger: quiet, idempotentWrites }).startRun('b').claimCall({ tool: 'send_email', args: { to: 'z@example.com' } });
    expect(reasonOf(again.decision)).to.equal('repeat.in_flight');
  });

  it('review #4: a run another process ended leaves the open runs, and startRun at the cap returns', async () => {
    const store = faultyStore();
    const other = new LoopGuard({ store, logger: quiet }).startRun('done');
    other.beginRound();
    other.end();
    await tick();
    const guard = new LoopGuard({ store, logger: quiet, maxOpenRuns: 2 });
    const resumed = await guard.resumeRun('done');
    expect(resumed.isEnded).to.equal(true);
    expect(guard.stats().openRuns).to.equal(0);
    guard.startRun('x');
    guard.startRun('y');
    guard.startRun('z'); // evicts, and returns
    expect(guard.stats().openRuns).to.equal(2);
  });

  it('review #5: a failed read during a rebase never rejects into the host; the write is refused, not run', async () => {
    const store = faultyStore();
    const idempotentWrites = { send_email: { key: ['to'] } };
    const a = new LoopGuard({ store, logger: quiet, idempotentWrites, storeFailure: { calls: 'closed' } });
    const run = a.startRun('job');
    run.beginRound();
    await a.flush();
    const b = new LoopGuard({ store, logger: quiet });
    (await b.resumeRun('job')).beginRound();
    await b.flush();
    run.beginRound(); // pending: the next claim is rejected and must rebuild from a full read
    store.faults.readThrow = 5;
    const ticket = await run.claimCall({ tool: 'send_email', args: { to: 'w@example.com' } });
    expect(reasonOf(ticket.decision)).to.equal('store.unavailable');
    await a.flush();
  });

  it('review #6: a claim whose append timed out but ran is one call in the log, finished once', async () => {
    let clock = 1_000_000;
    const now = () => clock;
    const store = faultyStore(now);
    const guard = new LoopGuard({ store, logger: quiet, now, profile: 'researcher' });
    const run = guard.startRun('job');
    run.beginRound();
    await guard.flush();
    store.faults.executeThenThrow = 1;
    const ticket = await run.claimCall({ tool: 'fetch', args: { url: 'u' } });
    expect(ticket.decision.action, 'fails open').to.equal('allow');
    run.finishCall(ticket, { outcome: 'error', errorType: 'HTTP 503', transient: true });
    run.beginRound();
    await guard.flush();
    expect(await store.types('job')).to.deep.equal(['round', 'call 1', 'finish 1', 'round']);
    clock += 60 * 60_000;
    expect(run.inFlight).to.equal(0);
    const fresh = await new LoopGuard({ store, logger: quiet, now, profile: 'researcher' }).resumeRun('job');
    expect(fresh.inFlight).to.equal(0);
  });

  it('review #7: what this process records while its claim is in flight comes after the claim, here as in the log', async () => {
    const store = faultyStore();
    const guard = new LoopGuard({ store, logger: quiet });
    const run = guard.startRun('job');
    run.beginRound();
    await guard.flush();
    let during: (() => void) | undefined = () => run.beginRound();
    store.faults.beforeAppend = async () => {
      await new Promise((resolve) => setTimeout(resolve, 2));
      const action = during;
      during = undefined;
      action?.();
    };
    const ticket = await run.claimCall({ tool: 'search', args: { q: 'x' } });
    run.finishCall(ticket, { result: ['d1'] });
    await guard.flush();
    const replayed = await new LoopGuard({ store, logger: quiet }).resumeRun('job');
    expect(run.partial()).to.deep.equal(replayed.partial());
  });

  it('review #8: events recorded during an outage reach the log by themselves once the store is back', async () => {
    const store = faultyStore();
    const guard = new LoopGuard({ store, logger: quiet });
    const run = guard.startRun('job');
    // Down for the explicit flush (its append) and the background one (its read of the log).
    store.faults.throwBefore = 1;
    store.faults.readThrow = 1;
    run.beginRound();
    run.finishCall(run.startCall({ tool: 'x', args: {} }), { result: 1 });
    run.end();
    await guard.flush(); // fails: the store is down
    await new Promise((resolve) => setTimeout(resolve, 50));
    expect(await store.types('job')).to.deep.equal([]);
    await new Promise((resolve) => setTimeout(resolve, 1_200)); // the first retry
    expect(await store.types('job')).to.deep.equal(['round', 'call 1', 'finish 1', 'end']);
  });

  it("review #9: a span processor's shutdown lets go of shared runs without ending them; forceFlush flushes the store", async () => {
    const store = faultyStore();
    const processor = new LoopGuardSpanProcessor({ store, logger: quiet });
    const provider = new TracerProvider({ spanProcessors: [processor] });
    const tracer = provider.getTracer('t');
    const agent = tracer.startSpan('invoke_agent', { attributes: { 'gen_ai.operation.name': 'invoke_agent', 'gen_ai.conversation.id': 'job', 'loopguard.run.id': 'job' } });
    void agent;
    const run = processor.guard.getRun([...processor.guard.runs()][0]?.id ?? '')!;
    run.finishCall(run.startCall({ tool: 'x', args: {} }), { result: 1 });
    await processor.forceFlush();
    expect((await store.types(run.id)).length).to.be.greaterThan(0);
    await provider.shutdown();
    expect(await store.types(run.id)).not.to.include('end');
    const other = await new LoopGuard({ store, logger: quiet }).resumeRun(run.id);
    expect(other.isEnded).to.equal(false);
  });

  it('review #10: a run the engine evicted still cannot repeat a write another run did', async () => {
    let clock = 1_000_000;
    const now = () => clock;
    const store = faultyStore(now);
    const idempotentWrites = { send_email: { key: ['to'] } };
    const first = new LoopGuard({ store, logger: quiet, now, idempotentWrites }).startRun('r1');
    first.finishCall(await first.claimCall({ tool: 'send_email', args: { to: 'v@example.com' } }), { result: 'ok' });
    await tick();
    const guard = new LoopGuard({ store, logger: quiet, now, idempotentWrites });
    const held = guard.startRun('r2');
    clock += 31 * 60_000;
    guard.startRun('other'); // sweeps r2 as idle
    expect(held.isUnguarded).to.equal(true);
    expect(reasonOf((await held.claimCall({ tool: 'send_email', args: { to: 'v@example.com' } })).decision)).to.equal('write.already_done');
  });

  it('review #11: a write that outlived its lease is still recorded as done when it returns', async () => {
    let clock = 1_000_000;
    const now = () => clock;
    const store = faultyStore(now);
    const idempotentWrites = { send_email: { key: ['to'], leaseMs: 1_000 } };
    const slow = new LoopGuard({ store, logger: quiet, now, idempotentWrites }).startRun('job');
    const ticket = await slow.claimCall({ tool: 'send_email', args: { to: 'u@example.com' } });
    await tick();
    clock += 5_000;
    // Another process times the slow call out in the log; this process catches up before it returns.
    const other = new LoopGuard({ store, logger: quiet, now, idempotentWrites }).startRun('job');
    await other.claimCall({ tool: 'noop', args: {} });
    await tick();
    await slow.claimCall({ tool: 'noop2', args: {} });
    slow.finishCall(ticket, { result: 'sent' });
    await tick();
    const again = await new LoopGuard({ store, logger: quiet, now, idempotentWrites }).startRun('later').claimCall({ tool: 'send_email', args: { to: 'u@example.com' } });
    expect(reasonOf(again.decision)).to.equal('write.already_done');
  });

  it('review #12: the synchronous path lets a dead process\'s call go after its lease', async () => {
    let clock = 1_000_000;
    const now = () => clock;
    const store = faultyStore(now);
    const dead = new LoopGuard({ store, logger: quiet, now, profile: 'researcher' }).startRun('job');
    await dead.claimCall({ tool: 'fetch', args: { url: 'u' } });
    const live = await new LoopGuard({ store, logger: quiet, now, profile: 'researcher' }).resumeRun('job');
    clock += 60 * 60_000;
    expect(reasonOf(live.startCall({ tool: 'fetch', args: { url: 'u' } }).decision)).to.match(/^allow/);
  });

  it('review #13: events recorded while a capped backlog is being sent are not the ones dropped', async () => {
    const store = faultyStore();
    const guard = new LoopGuard({ store, logger: quiet });
    const run = guard.startRun('job');
    store.faults.throwBefore = 1;
    for (let index = 0; index < 10_000; index++) run.reportState(`s${index}`);
    await guard.flush();
    let during: (() => void) | undefined = () => {
      for (let index = 0; index < 3; index++) run.beginRound();
    };
    store.faults.beforeAppend = async () => {
      const action = during;
      during = undefined;
      action?.();
    };
    await guard.flush();
    await guard.flush();
    const types = await store.types('job');
    expect(types.filter((type) => type === 'round')).to.have.length(3);
  });
});

/** Appends one entry as "another process" would, at the log's current length. */
async function createMemoryRunStoreAppend(store: RunStore, runId: string): Promise<void> {
  const length = (await store.readRunEvents(runId, 0)).length;
  const inner = store as unknown as { faults: { beforeAppend: unknown } };
  const hook = inner.faults.beforeAppend;
  inner.faults.beforeAppend = undefined;
  try {
    await store.appendRunEvents(runId, length, [encodeRunEvent({ type: 'usage', usage: { inputTokens: 1 } })]);
  } finally {
    inner.faults.beforeAppend = hook;
  }
}
