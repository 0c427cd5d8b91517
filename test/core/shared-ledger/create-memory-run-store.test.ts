import { expect } from 'chai';
import { LoopGuardConfigError } from '../../../src/core/errors.js';
import { createMemoryRunStore } from '../../../src/core/shared-ledger/create-memory-run-store.js';
import { MemoryRunStoreFullError } from '../../../src/core/shared-ledger/memory-run-store-full-error.js';
import type { BusinessKey } from '../../../src/core/shared-ledger/run-store.js';

const keyFor = (value: string): BusinessKey => ({ tool: 'send_email', scope: 'global', runId: 'r', value });

describe('createMemoryRunStore: bounded (a long-lived server must not grow without bound)', () => {
  it('drops a run log runTtlMs after its last change; the next append of that run sees it truncated', async () => {
    let time = 1_000;
    const store = createMemoryRunStore({ now: () => time, runTtlMs: 100 });
    expect(await store.appendRunEvents('a', 0, ['e1'])).to.deep.equal({ accepted: true, length: 1 });
    time += 99;
    expect(await store.appendRunEvents('a', 1, ['e2'])).to.deep.equal({ accepted: true, length: 2 });
    time += 99; // 99 ms after the last change: still there
    expect(await store.readRunEvents('a', 0)).to.deep.equal(['e1', 'e2']);
    time += 1;
    expect(await store.readRunEvents('a', 0)).to.deep.equal([]);
    expect(await store.appendRunEvents('a', 2, ['e3'])).to.deep.equal({ accepted: false, length: 0, entries: [], truncated: true });
  });

  it('answers a log dropped and written again truncated when the entry the caller saw last is not where it saw it', async () => {
    let time = 1_000;
    const store = createMemoryRunStore({ now: () => time, runTtlMs: 100 });
    await store.appendRunEvents('a', 0, ['old1', 'old2']);
    time += 100; // dropped; other clients write a new log as long as the old one
    await store.appendRunEvents('a', 0, ['new1', 'new2']);
    // Before: accepted, the caller's replica then missing new1 and new2.
    expect(await store.appendRunEvents('a', 2, ['e3'], undefined, 'old2')).to.deep.equal({ accepted: false, length: 2, entries: ['new1', 'new2'], truncated: true });
    expect(await store.appendRunEvents('a', 1, ['e3'], undefined, 'old1')).to.deep.equal({ accepted: false, length: 2, entries: ['new1', 'new2'], truncated: true });
    expect(await store.appendRunEvents('a', 1, ['e3'], undefined, 'new1')).to.deep.equal({ accepted: false, length: 2, entries: ['new2'] });
    expect(await store.appendRunEvents('a', 2, ['e3'], undefined, 'new2')).to.deep.equal({ accepted: true, length: 3 });
    // Without it (a caller that does not send it), lengths alone decide, as before.
    expect(await store.appendRunEvents('a', 3, ['e4'])).to.deep.equal({ accepted: true, length: 4 });
  });

  it('keeps at most maxRuns logs, dropping the least recently changed', async () => {
    const store = createMemoryRunStore({ maxRuns: 2 });
    await store.appendRunEvents('a', 0, ['a1']);
    await store.appendRunEvents('b', 0, ['b1']);
    await store.appendRunEvents('a', 1, ['a2']); // a is now the most recently changed
    await store.appendRunEvents('c', 0, ['c1']);
    expect(await store.readRunEvents('b', 0)).to.deep.equal([]);
    expect(await store.readRunEvents('a', 0)).to.deep.equal(['a1', 'a2']);
    expect(await store.readRunEvents('c', 0)).to.deep.equal(['c1']);
  });

  it('rejects a new business key past maxBusinessKeys (never forgets a done write to make room), and takes it once one expires', async () => {
    let time = 0;
    const store = createMemoryRunStore({ now: () => time, maxBusinessKeys: 2 });
    expect(await store.claimBusinessKey(keyFor('1'), 'o1', 1_000, 10_000)).to.deep.equal({ state: 'claimed' });
    expect(await store.completeBusinessKey(keyFor('1'), 'o1', 'h', 10_000)).to.equal(true);
    expect(await store.claimBusinessKey(keyFor('2'), 'o2', 1_000, 50_000)).to.deep.equal({ state: 'claimed' });
    const error = await store.claimBusinessKey(keyFor('3'), 'o3', 1_000, 10_000).then(
      () => undefined,
      (failure: unknown) => failure,
    );
    expect(error).to.be.instanceOf(MemoryRunStoreFullError);
    expect((error as Error).message).to.contain('maxBusinessKeys');
    // The done write is still remembered: its repeat is refused, not run again.
    expect((await store.claimBusinessKey(keyFor('1'), 'o4', 1_000, 10_000)).state).to.equal('done');
    time = 10_000; // key 1 expires
    expect(await store.claimBusinessKey(keyFor('3'), 'o3', 1_000, 10_000)).to.deep.equal({ state: 'claimed' });
  });

  it('appends a batch of any length (loopguard serve lends it to remote ledgers: a client may send 500,000 entries at once)', async () => {
    const store = createMemoryRunStore();
    const entries = Array.from({ length: 500_000 }, (_, index) => `e${index}`);
    // Before: RangeError (Maximum call stack size exceeded) from spreading the batch into push(),
    // which serve answered as a retryable 503, so the client sent it again forever.
    expect(await store.appendRunEvents('a', 0, ['first'])).to.deep.equal({ accepted: true, length: 1 });
    expect(await store.appendRunEvents('a', 1, entries)).to.deep.equal({ accepted: true, length: 500_001 });
    expect((await store.readRunEvents('a', 499_999)).length).to.equal(2);
  });

  it('rejects misconfiguration naming the field', () => {
    for (const [options, field] of [
      [{ runTtlMs: 0 }, 'runTtlMs'],
      [{ maxRuns: 1.5 }, 'maxRuns'],
      [{ maxBusinessKeys: -1 }, 'maxBusinessKeys'],
      [{ now: 5 }, 'now'],
    ] as const) {
      expect(() => createMemoryRunStore(options as never), field).to.throw(LoopGuardConfigError).with.property('field', field);
    }
  });
});
