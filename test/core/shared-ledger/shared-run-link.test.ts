// The shared ledger's semantics, on the in-process store (the same contract the Redis store
// implements; test/redis/ runs them on real servers): several engines stand for several processes.
import { expect } from 'chai';
import { LoopGuardConfigError } from '../../../src/core/errors.js';
import { LoopGuard } from '../../../src/core/loop-guard.js';
import { createMemoryRunStore } from '../../../src/core/shared-ledger/create-memory-run-store.js';
import { decodeRunEvent, encodeRunEvent, RunEventDecodeError, type RunEvent } from '../../../src/core/shared-ledger/run-event.js';
import type { BusinessKeyState, RunStore } from '../../../src/core/shared-ledger/run-store.js';
import type { CallDecision, LoopGuardListener } from '../../../src/core/types.js';

const quiet = { warn: () => undefined };
const reasonOf = (decision: CallDecision): string => (decision.action === 'allow' ? 'allow' : decision.reason);

describe('shared run ledger (issue 12)', () => {
  describe('log entries', () => {
    it('every event reads back as written', () => {
      const events: RunEvent[] = [
        { type: 'round', time: 1000, usage: { inputTokens: 10, outputTokens: 2 } },
        { type: 'round', time: 1001 },
        { type: 'usage', usage: { inputTokens: 5 } },
        {
          type: 'call',
          key: 'ab.1',
          time: 1002,
          call: { tool: 'bash', argsHash: 'XHHDb4lrA88-0AfHT0nYqg', callId: 'call_1', effect: 'read', family: 'grep', terminal: true, startTime: 1002 },
          decision: { action: 'allow', kind: 'reread', tool: 'bash', argsHash: 'XHHDb4lrA88-0AfHT0nYqg' },
        },
        {
          type: 'call',
          key: 'ab.2',
          time: 1003,
          call: { tool: 'search', argsHash: 'h2', observeOnly: true, startTime: 1003 },
          decision: { action: 'refuse', reason: 'repeat.run_wide', tool: 'search', argsHash: 'h2', message: 'Not run: …', previousCallId: 'call_1', previousRound: 2 },
        },
        { type: 'finish', key: 'ab.1', time: 1004, outcome: { outcome: 'success', resultHash: 'r1', items: [1, 2 ** 52 + 3], endTime: 1004 } },
        { type: 'finish', key: 'ab.3', time: 1005, outcome: { outcome: 'error', errorType: 'HTTP 503', transient: true, endTime: 1005 } },
        { type: 'finish', key: 'ab.4', time: 1006, outcome: { outcome: 'error', transient: false, unfingerprintable: true, endTime: 1006 } },
        { type: 'state', digest: 'd1' },
        { type: 'compacted', time: 1006 },
        {
          type: 'stop',
          decision: {
            action: 'stop',
            reason: 'stale_rounds',
            detail: 'x',
            message: 'y',
            round: 3,
            partial: {
              rounds: 3,
              toolCalls: 2,
              executed: 2,
              refused: 0,
              newFacts: 1,
              seenResults: 1,
              staleRoundStreak: 2,
              refusedRoundStreak: 0,
              lastNewFactRound: 1,
              wastedTokens: 0,
              tools: { bash: { calls: 2, executed: 2, refused: 0, newFacts: 1, seen: 1, failures: 0 } },
            },
          },
        },
        { type: 'end', time: 1007 },
      ];
      for (const event of events) expect(decodeRunEvent(encodeRunEvent(event), 'test')).to.deep.equal(event);
    });

    it('an unreadable entry is an error naming where it is', () => {
      expect(() => decodeRunEvent('{', 'loopguard:{r}:log[3]')).to.throw(RunEventDecodeError, 'loopguard:{r}:log[3]: not JSON');
      expect(() => decodeRunEvent('["z"]', 'log[4]')).to.throw(RunEventDecodeError, /log\[4\]: unknown event type "z"/);
      expect(() => decodeRunEvent('["c","k",1,5,"h",0,0,0,0,"a","new"]', 'log[5]')).to.throw(RunEventDecodeError, /log\[5\]: tool must be a string/);
    });
  });

  describe('an entry no process can read', () => {
    for (const named of [true, false]) {
      it(`is said once per process, however often the log is applied again, and named by ${named ? "the store's own key (keysOf)" : 'the run id'}`, async () => {
        const memory = createMemoryRunStore();
        const store: RunStore = named ? Object.assign(Object.create(memory) as RunStore, { keysOf: (runId: string) => ({ log: `myapp:{${encodeURIComponent(runId)}}:log` }) }) : memory;
        await store.appendRunEvents('run{1}', 0, [encodeRunEvent({ type: 'round', time: Date.now() }), 'not json at all']);
        const warningsOf = (warnings: string[]) => warnings.filter((warning) => warning.startsWith('run log entry'));
        const [aWarnings, bWarnings]: string[][] = [[], []];
        const a = new LoopGuard({ store, logger: { warn: (message) => aWarnings.push(message) } });
        const b = new LoopGuard({ store, logger: { warn: (message) => bWarnings.push(message) } });
        const [runA, runB] = [await a.resumeRun('run{1}'), await b.resumeRun('run{1}')];
        // Two processes taking turns: each claim finds the other's entries, and the replica is rebuilt.
        for (let index = 0; index < 25; index++) {
          runA.finishCall(await runA.claimCall({ tool: 'get_order', args: { id: index } }), { result: index });
          runB.finishCall(await runB.claimCall({ tool: 'get_order', args: { id: 1000 + index } }), { result: index });
        }
        await a.flush();
        await b.flush();
        // Before: 25 and 26 times, under a made-up "loopguard:{run{1}} log[1]".
        expect(warningsOf(aWarnings)).to.deep.equal([`run log entry ${named ? 'myapp:{run%7B1%7D}:log' : 'run "run{1}" log'}[1]: not JSON`]);
        expect(warningsOf(bWarnings)).to.have.length(1);
      });
    }
  });

  describe('one run, many processes', () => {
    it('a call executed in process A is a repeat in process B; stale and refused streaks are shared', async () => {
      const store = createMemoryRunStore();
      const a = new LoopGuard({ store, profile: 'researcher', logger: quiet });
      const b = new LoopGuard({ store, profile: 'researcher', logger: quiet });
      const runA = a.startRun('job');
      runA.beginRound();
      const first = await runA.claimCall({ tool: 'search', args: { q: 'refunds' } });
      runA.finishCall(first, { result: ['doc-1', 'doc-2'] });
      await a.flush();
      const runB = await b.resumeRun('job');
      runB.beginRound();
      const again = await runB.claimCall({ tool: 'search', args: { q: 'refunds' } });
      expect(reasonOf(again.decision)).to.equal('repeat.run_wide');
      // Reworded, same documents: stale rounds count in whichever process plays them.
      const reworded = await runB.claimCall({ tool: 'search', args: { q: 'refund policy' } });
      runB.finishCall(reworded, { result: ['doc-2', 'doc-1'] });
      expect(runB.staleRoundStreak).to.equal(1);
      await b.flush();
      runA.beginRound();
      const third = await runA.claimCall({ tool: 'search', args: { q: 'refunds rules' } });
      runA.finishCall(third, { result: ['doc-1'] });
      expect(runA.staleRoundStreak, 'A counts the stale round B played').to.equal(2);
    });

    it('a result seen whole already is logged without its items, and a replica built from the log judges later results as the writer does', async () => {
      const store = createMemoryRunStore();
      const a = new LoopGuard({ store, profile: 'researcher', logger: quiet });
      const runA = a.startRun('items');
      runA.beginRound();
      const documents = (ids: number[]) => ({ hits: ids.map((id) => ({ id: `doc-${id}`, title: `Configuring retries, part ${id}` })) });
      const call = async (run: typeof runA, q: string, ids: number[]) => {
        const ticket = await run.claimCall({ tool: 'search', args: { q } });
        return run.finishCall(ticket, { result: documents(ids) });
      };
      expect(await call(runA, 'one', [1, 2, 3])).to.equal('new');
      expect(await call(runA, 'two', [1, 2, 3])).to.equal('seen');
      expect(await call(runA, 'three', [3, 2])).to.equal('seen');
      await a.flush();
      const finishes = (await store.readRunEvents('items', 0)).map((entry) => decodeRunEvent(entry, 'test')).filter((event) => event.type === 'finish');
      const itemsOf = (event: RunEvent | undefined) => (event?.type === 'finish' ? event.outcome.items : 'not a finish');
      expect(itemsOf(finishes[0])).to.have.length(3);
      // Seen whole before: its items are never read, by the writer or by any replica.
      expect(itemsOf(finishes[1])).to.equal(undefined);
      expect(itemsOf(finishes[2])).to.have.length(2);
      // Another process, its replica built from the log, judges as the writer would.
      const b = new LoopGuard({ store, profile: 'researcher', logger: quiet });
      const runB = b.startRun('items');
      expect(await call(runB, 'four', [2, 1])).to.equal('seen');
      expect(await call(runB, 'five', [1, 2, 3])).to.equal('seen');
      expect(await call(runB, 'six', [1, 4])).to.equal('new');
      await b.flush();
      expect(await call(runA, 'seven', [4, 1])).to.equal('seen');
    });

    it('a stop latched in one process is seen by every other at its next decision', async () => {
      const store = createMemoryRunStore();
      const a = new LoopGuard({ store, logger: quiet, staleRounds: 2 });
      const b = new LoopGuard({ store, logger: quiet, staleRounds: 2 });
      const runA = a.startRun('job');
      for (let round = 0; round < 3; round++) {
        runA.beginRound();
        const ticket = await runA.claimCall({ tool: 'search', args: { q: `q${round}` } });
        runA.finishCall(ticket, { result: ['same'] });
      }
      expect(runA.shouldStop().action).to.equal('stop');
      await a.flush();
      const runB = b.startRun('job');
      const next = await runB.claimCall({ tool: 'fetch', args: { url: 'x' } });
      expect(reasonOf(next.decision)).to.equal('run.stopped');
      expect(runB.shouldStop()).to.include({ action: 'stop', reason: 'stale_rounds' });
    });

    it('two processes claiming the same call at once: exactly one runs it, the other is refused as in flight', async () => {
      const store = createMemoryRunStore();
      const runs = [0, 1, 2].map(() => new LoopGuard({ store, logger: quiet, profile: 'researcher' }).startRun('job'));
      const tickets = await Promise.all(runs.map((run) => run.claimCall({ tool: 'fetch', args: { url: 'https://example.com' } })));
      expect(tickets.map((ticket) => reasonOf(ticket.decision)).sort()).to.deep.equal(['allow', 'repeat.in_flight', 'repeat.in_flight']);
    });

    it('the synchronous path (span processor) converges: a replica rebased after another process appended equals the log replayed', async () => {
      const store = createMemoryRunStore();
      const a = new LoopGuard({ store, logger: quiet });
      const b = new LoopGuard({ store, logger: quiet });
      const runA = a.startRun('job');
      const runB = b.startRun('job');
      // Both record without waiting (startCall/finishCall are synchronous), interleaved.
      for (let index = 0; index < 5; index++) {
        runA.beginRound();
        runA.finishCall(runA.startCall({ tool: 'read_file', args: { path: `a${index}` } }), { result: `text ${index}` });
        runB.beginRound();
        runB.finishCall(runB.startCall({ tool: 'read_file', args: { path: `b${index}` } }), { result: `text ${index}` });
      }
      await a.flush();
      await b.flush();
      await a.flush();
      const fresh = await new LoopGuard({ store, logger: quiet }).resumeRun('job');
      const replayed = fresh.partial();
      expect(replayed.toolCalls).to.equal(10);
      expect(replayed.rounds).to.equal(10);
      // B appended last after a rebase: its replica is exactly the log; A catches up at its next claim.
      expect(runB.partial()).to.deep.equal(replayed);
      await runA.claimCall({ tool: 'noop', args: {} });
      await a.flush();
      const again = await new LoopGuard({ store, logger: quiet }).resumeRun('job');
      expect(runA.partial()).to.deep.equal(again.partial());
    });

    it('listeners hear only their own process: a call made elsewhere is not counted twice', async () => {
      const store = createMemoryRunStore();
      const heard: string[] = [];
      const listener: LoopGuardListener = { callDecided: (_run, call) => heard.push(call.tool) };
      const a = new LoopGuard({ store, logger: quiet });
      const b = new LoopGuard({ store, logger: quiet, listeners: [listener] });
      const runA = a.startRun('job');
      runA.finishCall(await runA.claimCall({ tool: 'from_a', args: {} }), { result: 1 });
      await a.flush();
      const runB = await b.resumeRun('job');
      runB.finishCall(await runB.claimCall({ tool: 'from_b', args: {} }), { result: 2 });
      expect(heard).to.deep.equal(['from_b']);
      expect(runB.partial().toolCalls).to.equal(2);
    });

    it('a call another process started and never finished stops blocking after claimLeaseMs, recorded as timed out', async () => {
      let now = 1_000_000;
      const clock = () => now;
      const store = createMemoryRunStore({ now: clock });
      const dead = new LoopGuard({ store, logger: quiet, now: clock, profile: 'researcher' }).startRun('job');
      await dead.claimCall({ tool: 'fetch', args: { url: 'x' } }); // its process dies here
      const live = new LoopGuard({ store, logger: quiet, now: clock, profile: 'researcher', claimLeaseMs: 60_000 }).startRun('job');
      expect(reasonOf((await live.claimCall({ tool: 'fetch', args: { url: 'x' } })).decision)).to.equal('repeat.in_flight');
      now += 61_000;
      const after = await live.claimCall({ tool: 'fetch', args: { url: 'x' } });
      expect(reasonOf(after.decision)).to.equal('allow');
      expect(live.partial().tools.fetch).to.include({ executed: 2, failures: 1 });
    });
  });

  describe('a log lost and written again by other processes', () => {
    // The memory store drops a log runTtlMs after its last change, as Redis does with a
    // run's key (test/redis/replaced-log.test.ts has a log lost in a real redis-server).
    async function rewritten(newLength: (seen: number) => number) {
      let now = 1_000_000;
      const clock = () => now;
      const store = createMemoryRunStore({ now: clock, runTtlMs: 1_000 });
      const warnings: string[] = [];
      const a = new LoopGuard({ store, logger: { warn: (message) => warnings.push(message) }, now: clock });
      const runA = a.startRun('job');
      for (const q of ['one', 'two', 'three']) runA.finishCall(await runA.claimCall({ tool: 'search', args: { q } }), { result: `hits for ${q}` });
      await a.flush();
      const seen = (await store.readRunEvents('job', 0)).length;
      now += 1_001;
      const runB = await new LoopGuard({ store, logger: quiet, now: clock }).resumeRun('job');
      expect(reasonOf((await runB.claimCall({ tool: 'deploy', args: { version: 2 } })).decision)).to.equal('allow');
      const length = (await store.readRunEvents('job', 0)).length;
      const usage = encodeRunEvent({ type: 'usage', usage: { inputTokens: 1 } });
      await store.appendRunEvents('job', length, Array.from({ length: newLength(seen) - length }, () => usage));
      return { a, runA, warnings };
    }

    it('a claim at the length this process saw is decided on the new log: the call running elsewhere is refused in flight', async () => {
      const { runA, warnings } = await rewritten((seen) => seen);
      expect(reasonOf((await runA.claimCall({ tool: 'deploy', args: { version: 2 } })).decision)).to.equal('repeat.in_flight');
      expect(warnings.filter((warning) => warning.includes('not the one this process saw'))).to.have.length(1);
    });

    it('resuming the run rebuilds it from the new log, not from the new log\'s tail', async () => {
      const { a, warnings } = await rewritten((seen) => seen + 2);
      const runA = await a.resumeRun('job');
      expect(reasonOf((await runA.claimCall({ tool: 'deploy', args: { version: 2 } })).decision)).to.equal('repeat.in_flight');
      expect(warnings.filter((warning) => warning.includes('not the one this process saw'))).to.have.length(1);
    });
  });

  describe('business-key writes', () => {
    const policy = { idempotentWrites: { send_email: { key: ['to', 'subject'] } }, logger: quiet };

    it('a second write with the same business key, from another run, is not executed and says when it was done', async () => {
      const store = createMemoryRunStore();
      const first = new LoopGuard({ store, ...policy }).startRun('run-1');
      const sent = await first.claimCall({ tool: 'send_email', args: { to: 'a@example.com', subject: 'Hi', body: 'one' } });
      expect(sent.decision.action).to.equal('allow');
      first.finishCall(sent, { result: { id: 'msg-1' } });
      await new Promise((resolve) => setImmediate(resolve));
      const second = new LoopGuard({ store, ...policy }).startRun('run-2');
      const again = await second.claimCall({ tool: 'send_email', args: { to: 'a@example.com', subject: 'Hi', body: 'reworded' } });
      expect(reasonOf(again.decision)).to.equal('write.already_done');
      expect(again.decision.action === 'refuse' && again.decision.message).to.match(/already done by run "run-1" at \d{4}-/);
      const other = await second.claimCall({ tool: 'send_email', args: { to: 'a@example.com', subject: 'Other' } });
      expect(other.decision.action, 'another business key is another write').to.equal('allow');
    });

    it('run scope: the same key in another run is another write', async () => {
      const store = createMemoryRunStore();
      const options = { store, logger: quiet, idempotentWrites: { charge: { key: ['order'], scope: 'run' as const } } };
      const one = new LoopGuard(options).startRun('a');
      one.finishCall(await one.claimCall({ tool: 'charge', args: { order: 7 } }), { result: 'ok' });
      await new Promise((resolve) => setImmediate(resolve));
      expect(reasonOf((await one.claimCall({ tool: 'charge', args: { order: 7 } })).decision)).to.equal('write.already_done');
      const two = new LoopGuard(options).startRun('b');
      expect((await two.claimCall({ tool: 'charge', args: { order: 7 } })).decision.action).to.equal('allow');
    });

    // `loopguard serve` replicas: the decision API claims a write on one replica and may take its
    // outcome on another. Before, only the claiming engine held the key, so it stayed pending
    // until its lease ran out and then read as a write of unknown outcome.
    describe('finished by another engine than the one that claimed it', () => {
      const args = { to: 'b@example.com', subject: 'Invoice' };
      /** What the decision API on another replica does: the call as the log knows it, by its key. */
      const foreignTicket = (key: string | undefined) =>
        ({ decision: { action: 'allow', kind: 'new', tool: 'send_email', argsHash: '' }, round: 1, call: { tool: 'send_email', argsHash: '' }, finished: false, key }) as const;

      it('the claiming engine settles the key from the log when it catches up', async () => {
        const store = createMemoryRunStore();
        const claiming = new LoopGuard({ store, ...policy });
        const claimed = await claiming.startRun('shared').claimCall({ tool: 'send_email', args });
        expect(claimed.decision.action).to.equal('allow');
        await claiming.flush();
        const finishing = new LoopGuard({ store, ...policy });
        (await finishing.resumeRun('shared')).finishCall({ ...foreignTicket(claimed.key) }, { result: { id: 'msg-2' } });
        await finishing.flush();
        const observer = new LoopGuard({ store, ...policy });
        expect(reasonOf((await observer.startRun('before-catch-up').claimCall({ tool: 'send_email', args })).decision)).to.equal('repeat.in_flight');
        await claiming.resumeRun('shared');
        await claiming.flush();
        expect(reasonOf((await observer.startRun('after-catch-up').claimCall({ tool: 'send_email', args })).decision)).to.equal('write.already_done');
      });

      it('the finishing engine settles it at once when handed the key (heldKeyOf → adoptHeldKey)', async () => {
        const store = createMemoryRunStore();
        const claiming = new LoopGuard({ store, ...policy });
        const run = claiming.startRun('handed');
        const claimed = await run.claimCall({ tool: 'send_email', args });
        const held = run.shared!.heldKeyOf(claimed.key!);
        expect(held?.key).to.include({ tool: 'send_email', scope: 'global', runId: 'handed' });
        await claiming.flush();
        const finishing = await new LoopGuard({ store, ...policy }).resumeRun('handed');
        finishing.shared!.adoptHeldKey(claimed.key!, held!.key, held!.owner);
        finishing.finishCall({ ...foreignTicket(claimed.key) }, { result: { id: 'msg-3' } });
        await new Promise((resolve) => setImmediate(resolve));
        const observer = new LoopGuard({ store, ...policy });
        expect(reasonOf((await observer.startRun('later').claimCall({ tool: 'send_email', args })).decision)).to.equal('write.already_done');
        // A failure that proves nothing was written frees the key, wherever it is recorded.
        const retry = await observer.startRun('retry').claimCall({ tool: 'send_email', args: { ...args, subject: 'Other' } });
        const heldRetry = observer.getRun('retry')!.shared!.heldKeyOf(retry.key!)!;
        await observer.flush();
        const elsewhere = await new LoopGuard({ store, ...policy }).resumeRun('retry');
        elsewhere.shared!.adoptHeldKey(retry.key!, heldRetry.key, heldRetry.owner);
        elsewhere.finishCall({ ...foreignTicket(retry.key), call: { tool: 'send_email', argsHash: '' } }, { error: Object.assign(new Error('mailbox unknown'), { name: 'ValidationError' }) });
        await new Promise((resolve) => setImmediate(resolve));
        expect((await new LoopGuard({ store, ...policy }).startRun('honest').claimCall({ tool: 'send_email', args: { ...args, subject: 'Other' } })).decision.action).to.equal('allow');
      });
    });

    // verify is the only thing standing between a lost claim and a second write: an answer that
    // is neither { done: true } nor { done: false } (a bare boolean from `async () => wasSent()`,
    // { done: 'yes' }, a JS caller's {}) once read as "not done", so the write ran again.
    it('verify answering anything but { done: true | false }: refused of unknown outcome, never run again', async () => {
      const answers: unknown[] = [true, 'done', { done: 'yes' }, { done: 1 }, {}, { sent: true }, null, undefined];
      for (const answer of answers) {
        let now = 0;
        const warnings: string[] = [];
        const store = createMemoryRunStore({ now: () => now });
        const verify = (() => answer) as unknown as () => { done: boolean };
        const guard = new LoopGuard({ store, now: () => now, logger: { warn: (m: string) => void warnings.push(m) }, idempotentWrites: { send: { key: ['to'], leaseMs: 1000, verify } } });
        const lost = await guard.startRun('crashed').claimCall({ tool: 'send', args: { to: 'x' } });
        expect(lost.decision.action).to.equal('allow');
        now += 2000; // its worker died: the lease ran out
        const next = await guard.startRun('next').claimCall({ tool: 'send', args: { to: 'x' } });
        expect(reasonOf(next.decision), JSON.stringify(answer) ?? 'undefined').to.equal('write.outcome_unknown');
        expect(warnings.some((w) => w.includes('verify of send')), JSON.stringify(answer) ?? 'undefined').to.equal(true);
      }
    });

    // Every other step of a claim is bounded (the store's timeoutMs); a verify that never
    // answered (a hung request to the system of record) held the tool call, and the agent's
    // whole step, forever.
    it('verify that never answers: refused of unknown outcome once the write\'s lease has passed, with a warning, and nothing left unhandled', async () => {
      const warnings: string[] = [];
      const store = createMemoryRunStore();
      let lateFailure: (error: Error) => void = () => undefined;
      const verify = () => new Promise<{ done: boolean }>((_resolve, reject) => (lateFailure = reject));
      const guard = new LoopGuard({ store, logger: { warn: (m: string) => void warnings.push(m) }, idempotentWrites: { send: { key: ['to'], leaseMs: 100, verify } } });
      expect((await guard.startRun('crashed').claimCall({ tool: 'send', args: { to: 'x' } })).decision.action).to.equal('allow');
      await new Promise((resolve) => setTimeout(resolve, 150)); // its worker died: the lease ran out
      const started = Date.now();
      const next = await Promise.race([
        guard.startRun('next').claimCall({ tool: 'send', args: { to: 'x' } }),
        new Promise<'still waiting'>((resolve) => setTimeout(() => resolve('still waiting'), 2000)),
      ]);
      expect(next === 'still waiting' ? next : reasonOf(next.decision)).to.equal('write.outcome_unknown');
      expect(Date.now() - started).to.be.lessThan(1000);
      expect(warnings.some((w) => w.includes('verify of send') && w.includes('100 ms'))).to.equal(true);
      lateFailure(new Error('the records answered at last, with an error')); // must not be an unhandled rejection
      await new Promise((resolve) => setImmediate(resolve));
    });

    // A key the policy cannot read must never become "no key" in silence. A key function that
    // threw (a field the model left out, a bug in it) read as "no key", so the write ran without
    // exactly-once protection on both doors, and a second one ran again.
    describe('a key function that throws or answers something other than a string', () => {
      const throwing = (args: unknown): string => (args as { to: { address: string } }).to.address.toLowerCase();

      it('a key function that throws: the write is refused on both doors, with a warning naming the field and the error', async () => {
        const warnings: string[] = [];
        const store = createMemoryRunStore();
        const guard = new LoopGuard({ store, logger: { warn: (m: string) => void warnings.push(m) }, idempotentWrites: { send_email: { key: throwing } } });
        const run = guard.startRun('job');
        const claimed = await run.claimCall({ tool: 'send_email', args: { subject: 'no recipient' } });
        expect(reasonOf(claimed.decision)).to.equal('store.unavailable');
        expect(claimed.decision.action === 'refuse' && claimed.decision.message).to.match(/^Not run: this send_email must be checked/);
        expect(reasonOf(run.startCall({ tool: 'send_email', args: { subject: 'no recipient' } }).decision), 'the synchronous door').to.equal('store.unavailable');
        const warning = warnings.find((w) => w.includes('idempotentWrites.send_email.key'));
        expect(warning).to.match(/threw/).and.to.include("reading 'address'");
        // Once per tool and run: a model retrying the call does not flood the log.
        await run.claimCall({ tool: 'send_email', args: { subject: 'still none' } });
        expect(warnings.filter((w) => w.includes('idempotentWrites.send_email.key'))).to.have.length(1);
        // A call it can read is claimed as usual.
        expect((await run.claimCall({ tool: 'send_email', args: { to: { address: 'A@x' } } })).decision.action).to.equal('allow');
      });

      it("a key function that throws, with storeFailure.idempotentWrites 'open': the write runs unguarded, as on a store outage", async () => {
        const store = createMemoryRunStore();
        const guard = new LoopGuard({ store, logger: quiet, storeFailure: { idempotentWrites: 'open' }, idempotentWrites: { send_email: { key: throwing } } });
        const run = guard.startRun('job');
        expect((await run.claimCall({ tool: 'send_email', args: {} })).decision.action).to.equal('allow');
        expect(run.startCall({ tool: 'send_email', args: { body: 'another' } }).decision.action, 'the synchronous door').to.equal('allow');
      });

      it('a key function answering a list or an object: different values are different writes, equal ones the same write', async () => {
        const store = createMemoryRunStore();
        const key = (args: unknown) => {
          const { to, subject } = args as { to: string; subject: string };
          return [to, subject] as unknown as string;
        };
        const guard = new LoopGuard({ store, logger: quiet, idempotentWrites: { send_email: { key }, notify: { key: (args) => args as string } } });
        const run = guard.startRun('job');
        const send = async (tool: string, args: object) => {
          const claimed = await run.claimCall({ tool, args });
          if (claimed.decision.action === 'allow') run.finishCall(claimed, { result: { id: JSON.stringify(args) } });
          await guard.flush();
          return reasonOf(claimed.decision);
        };
        expect(await send('send_email', { to: 'a,b', subject: 'c' })).to.equal('allow');
        // String(['a', 'b,c']) is 'a,b,c' too: read as text, this was refused as already done.
        expect(await send('send_email', { to: 'a', subject: 'b,c' })).to.equal('allow');
        expect(await send('send_email', { to: 'a', subject: 'b,c' })).to.equal('write.already_done');
        expect(await send('notify', { user: 1 })).to.equal('allow');
        // Both objects read as '[object Object]': every notification after the first was refused.
        expect(await send('notify', { user: 2 })).to.equal('allow');
      });

      it('a key function answering a promise (not an async function): refused with a warning, not one key for every call', async () => {
        const warnings: string[] = [];
        const store = createMemoryRunStore();
        const key = (args: unknown) => Promise.resolve((args as { to: string }).to) as unknown as string;
        const guard = new LoopGuard({ store, logger: { warn: (m: string) => void warnings.push(m) }, idempotentWrites: { send_email: { key } } });
        const claimed = await guard.startRun('job').claimCall({ tool: 'send_email', args: { to: 'a@x' } });
        expect(reasonOf(claimed.decision)).to.equal('store.unavailable');
        expect(warnings.find((w) => w.includes('idempotentWrites.send_email.key'))).to.include('synchronous');
        // One that rejects is read, not left an unhandled rejection (which ends a Node host).
        const unhandled: unknown[] = [];
        const record = (reason: unknown) => void unhandled.push(reason);
        process.on('unhandledRejection', record);
        try {
          const rejecting = new LoopGuard({ store, logger: quiet, idempotentWrites: { send_email: { key: () => Promise.reject(new Error('no key')) as unknown as string } } });
          expect(reasonOf((await rejecting.startRun('job-2').claimCall({ tool: 'send_email', args: {} })).decision)).to.equal('store.unavailable');
          await new Promise((resolve) => setTimeout(resolve, 10));
        } finally {
          process.off('unhandledRejection', record);
        }
        expect(unhandled).to.deep.equal([]);
      });

      // String() of an object without a prototype throws: building the warning threw out of
      // claimCall, into the host, for a key function, a verify or a store failing that way.
      it('a key function, a verify or a store throwing something String() cannot read: decided as for any error, nothing thrown', async () => {
        const odd = () => Object.create(null) as unknown;
        const warnings: string[] = [];
        const logger = { warn: (m: string) => void warnings.push(m) };
        const keyed = new LoopGuard({ store: createMemoryRunStore(), logger, idempotentWrites: { send_email: { key: () => { throw odd(); } } } });
        expect(reasonOf((await keyed.startRun('key').claimCall({ tool: 'send_email', args: {} })).decision)).to.equal('store.unavailable');
        let now = 0;
        const store = createMemoryRunStore({ now: () => now });
        const verifying = new LoopGuard({ store, now: () => now, logger, idempotentWrites: { send: { key: ['to'], leaseMs: 1000, verify: () => Promise.reject(odd()) } } });
        expect((await verifying.startRun('crashed').claimCall({ tool: 'send', args: { to: 'x' } })).decision.action).to.equal('allow');
        now += 2000;
        expect(reasonOf((await verifying.startRun('next').claimCall({ tool: 'send', args: { to: 'x' } })).decision)).to.equal('write.outcome_unknown');
        const down = (): Promise<never> => Promise.reject(odd());
        const failing: RunStore = { appendRunEvents: down, readRunEvents: down, claimBusinessKey: down, takeOverBusinessKey: down, completeBusinessKey: down, releaseBusinessKey: down };
        const open = new LoopGuard({ store: failing, logger });
        expect((await open.startRun('down').claimCall({ tool: 'search', args: { q: 1 } })).decision.action).to.equal('allow');
        await open.flush();
        expect(warnings.some((w) => w.startsWith('the shared store failed')), warnings.join('\n')).to.equal(true);
      });

      it('a key function answering null or undefined: no key, the write runs unprotected with a warning', async () => {
        const warnings: string[] = [];
        const store = createMemoryRunStore();
        const guard = new LoopGuard({ store, logger: { warn: (m: string) => void warnings.push(m) }, idempotentWrites: { send_email: { key: () => null as unknown as string } } });
        const run = guard.startRun('job');
        for (const body of ['one', 'two']) {
          const claimed = await run.claimCall({ tool: 'send_email', args: { body } });
          expect(claimed.decision.action, 'null is no key: "null" would make every such call one write').to.equal('allow');
          run.finishCall(claimed, { result: { id: body } });
          await guard.flush();
        }
        expect(warnings.some((w) => w.includes('no business key') && w.includes('idempotentWrites.send_email.key'))).to.equal(true);
      });
    });

    it('a failed write frees its key for an honest retry; a timed-out one does not', async () => {
      let now = 0;
      const store = createMemoryRunStore({ now: () => now });
      const guard = new LoopGuard({ store, logger: quiet, now: () => now, idempotentWrites: { pay: { key: ['invoice'], leaseMs: 1000 } } });
      const run = guard.startRun('job');
      const failed = await run.claimCall({ tool: 'pay', args: { invoice: 1 } });
      run.finishCall(failed, { error: Object.assign(new Error('card declined'), { name: 'PaymentError' }) });
      await guard.flush();
      expect((await run.claimCall({ tool: 'pay', args: { invoice: 1, retry: true } })).decision.action).to.equal('allow');
      const timedOut = await run.claimCall({ tool: 'pay', args: { invoice: 2 } });
      run.finishCall(timedOut, { outcome: 'timeout' });
      await guard.flush();
      now += 2000;
      const blind = await run.claimCall({ tool: 'pay', args: { invoice: 2 } });
      expect(reasonOf(blind.decision)).to.equal('write.outcome_unknown');
    });
  });

  // A business key the store answers normally, holding what loopguard did not write (audit d1):
  // building the refusal's message threw on a time that is no time, inside the catch meant for
  // the store call, so the key read as a store outage, and with idempotentWrites 'open' a
  // finished write ran again.
  describe('business keys holding a time that is no time', () => {
    const write = { send_email: { key: ['to'] } };
    const args = { to: 'cfo@example.com' };
    /** The memory store, answering every claim with `state` (and completes with `complete`). */
    function storeAnswering(state: BusinessKeyState, complete?: () => Promise<boolean>): RunStore {
      const store = createMemoryRunStore();
      return { ...store, claimBusinessKey: async () => state, completeBusinessKey: complete ?? store.completeBusinessKey };
    }

    for (const mode of ['closed', 'open'] as const) {
      it(`storeFailure.idempotentWrites ${mode}: done at a time that is no time is refused write.already_done, naming no store failure`, async () => {
        for (const at of [Number.NaN, 1e20, -1e20]) {
          const warnings: string[] = [];
          const guard = new LoopGuard({ store: storeAnswering({ state: 'done', at, runId: 'A' }), idempotentWrites: write, storeFailure: { idempotentWrites: mode }, logger: { warn: (m: string) => void warnings.push(m) } });
          const claimed = await guard.startRun('C').claimCall({ tool: 'send_email', args });
          expect(reasonOf(claimed.decision), `at ${at}`).to.equal('write.already_done');
          expect(claimed.decision.action === 'refuse' && claimed.decision.message).to.match(/already done by run "A" at an unknown time/);
          expect(warnings.filter((w) => /store/.test(w)), `at ${at}`).to.deep.equal([]);
        }
      });
    }

    it('pending, or expired with no verify, since a time that is no time: refused in flight / of unknown outcome', async () => {
      const pending = new LoopGuard({ store: storeAnswering({ state: 'pending', owner: 'o', claimedAt: Number.NaN, runId: 'A' }), idempotentWrites: write, storeFailure: { idempotentWrites: 'open' }, logger: quiet });
      const inFlight = await pending.startRun('C').claimCall({ tool: 'send_email', args });
      expect(reasonOf(inFlight.decision)).to.equal('repeat.in_flight');
      expect(inFlight.decision.action === 'refuse' && inFlight.decision.message).to.include('since an unknown time');
      const expired = new LoopGuard({ store: storeAnswering({ state: 'expired', owner: 'o', claimedAt: 1e20, runId: 'A' }), idempotentWrites: write, storeFailure: { idempotentWrites: 'open' }, logger: quiet });
      const unknown = await expired.startRun('C').claimCall({ tool: 'send_email', args });
      expect(reasonOf(unknown.decision)).to.equal('write.outcome_unknown');
      expect(unknown.decision.action === 'refuse' && unknown.decision.message).to.include('started at an unknown time');
    });

    it('verify says done and recording it fails: still refused write.already_done, even with idempotentWrites "open"', async () => {
      const warnings: string[] = [];
      const guard = new LoopGuard({
        store: storeAnswering({ state: 'expired', owner: 'o', claimedAt: Number.NaN, runId: 'A' }, () => Promise.reject(new Error('ECONNRESET'))),
        idempotentWrites: { send_email: { key: ['to'], verify: () => ({ done: true }) } },
        storeFailure: { idempotentWrites: 'open' },
        logger: { warn: (m: string) => void warnings.push(m) },
      });
      const claimed = await guard.startRun('C').claimCall({ tool: 'send_email', args });
      expect(reasonOf(claimed.decision)).to.equal('write.already_done');
      expect(claimed.decision.action === 'refuse' && claimed.decision.message).to.match(/at an unknown time \(checked in the records\)/);
      expect(warnings.some((w) => w.includes('ECONNRESET')), 'the failed store call is still reported').to.equal(true);
    });
  });

  describe('the store failing', () => {
    function failingStore(): RunStore {
      const fail = () => Promise.reject(new Error('ECONNREFUSED'));
      return { appendRunEvents: fail, readRunEvents: fail, claimBusinessKey: fail, takeOverBusinessKey: fail, completeBusinessKey: fail, releaseBusinessKey: fail };
    }

    it('storeFailure.calls "closed" refuses calls; idempotent writes fail closed by default, open when asked', async () => {
      const closed = new LoopGuard({ store: failingStore(), logger: quiet, storeFailure: { calls: 'closed' } }).startRun('job');
      expect(reasonOf((await closed.claimCall({ tool: 'search', args: {} })).decision)).to.equal('store.unavailable');
      const open = new LoopGuard({ store: failingStore(), logger: quiet, idempotentWrites: { send: { key: ['to'] } } }).startRun('job');
      expect(reasonOf((await open.claimCall({ tool: 'search', args: {} })).decision)).to.equal('allow');
      expect(reasonOf((await open.claimCall({ tool: 'send', args: { to: 'x' } })).decision)).to.equal('store.unavailable');
      const writesOpen = new LoopGuard({ store: failingStore(), logger: quiet, idempotentWrites: { send: { key: ['to'] } }, storeFailure: { idempotentWrites: 'open' } }).startRun('job');
      expect(reasonOf((await writesOpen.claimCall({ tool: 'send', args: { to: 'x' } })).decision)).to.equal('allow');
    });

    // The audit's d4/d7 (Redis at maxmemory: OOM on every write; the run hash or a business key
    // holding a string: WRONGTYPE) on a fake store whose reads work and whose writes fail. The
    // settling read of the failed append used to count as "the store is back", which flushed at
    // once, failed again, and so on: thousands of warnings and appends a second.
    describe('reads work, writes fail', () => {
      const wait = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

      /**
       * The memory store with its writes failing as `mode` says. `oom`: every append is turned
       * away before it writes. `landed`: an append carrying a summary writes its entries, then
       * fails on the summary (a run hash that holds a string: Redis's script stops at the HSET).
       * `key`: completing a business key fails, everything else works.
       */
      function writesFailing(mode: 'oom' | 'landed' | 'key') {
        const inner = createMemoryRunStore();
        const calls = { append: 0, emptyAppend: 0, read: 0, complete: 0 };
        const store: RunStore = {
          ...inner,
          async appendRunEvents(runId, expected, entries, summary) {
            calls.append += 1;
            if (entries.length === 0) calls.emptyAppend += 1;
            if (mode === 'oom') throw new Error("OOM command not allowed when used memory > 'maxmemory'");
            const result = await inner.appendRunEvents(runId, expected, entries, summary);
            if (mode === 'landed' && summary !== undefined) throw new Error('WRONGTYPE Operation against a key holding the wrong kind of value');
            return result;
          },
          async readRunEvents(runId, from) {
            calls.read += 1;
            return inner.readRunEvents(runId, from);
          },
          async completeBusinessKey(key, owner, resultHash, ttlMs) {
            calls.complete += 1;
            if (mode === 'key') throw new Error('WRONGTYPE Operation against a key holding the wrong kind of value');
            return inner.completeBusinessKey(key, owner, resultHash, ttlMs);
          },
        };
        return { store, calls };
      }

      for (const mode of ['oom', 'landed'] as const) {
        it(`appends failing (${mode}) while reads work: one warning, and the failing append retried on its backoff, not in a loop`, async () => {
          const { store, calls } = writesFailing(mode);
          const warnings: string[] = [];
          const storeErrors: string[] = [];
          const guard = new LoopGuard({ store, logger: { warn: (message) => warnings.push(message) }, listeners: [{ storeError: (operation) => storeErrors.push(operation) }] });
          const run = guard.startRun('job');
          const ticket = await run.claimCall({ tool: 'search', args: { q: 1 } });
          run.finishCall(ticket, { result: 1 });
          await guard.flush();
          if (mode === 'oom') expect(calls.append).to.be.greaterThan(0);
          run.end(); // a summary ({ ended }) rides on the next append
          await guard.flush();
          const before = { ...calls, storeErrors: storeErrors.length };
          await wait(2_500); // the first retry is 1 s after the failure, the next 2 s after that
          const appends = calls.append - before.append;
          const reads = calls.read - before.read;
          expect(warnings.filter((warning) => warning.includes('the shared store failed')), warnings.slice(0, 6).join('\n')).to.have.length(1);
          expect(warnings.length, warnings.slice(0, 6).join('\n')).to.be.at.most(2);
          expect(appends, 'appends in 2.5 s').to.be.at.most(2);
          // Still retried by itself (1 s after the failure): an outage's entries reach the log once it ends.
          if (mode === 'oom') expect(appends, 'retries in 2.5 s').to.be.at.least(1);
          expect(reads, 'reads in 2.5 s').to.be.at.most(2);
          expect(storeErrors.length - before.storeErrors, 'storeError events in 2.5 s').to.be.at.most(2);
          // A summary alone is never sent as an append with no entries.
          expect(calls.emptyAppend, 'appends with no entries').to.equal(0);
          if (mode === 'landed') {
            // The entries landed with the append that failed: in the log exactly once.
            const types = (await store.readRunEvents('job', 0)).map((entry, index) => decodeRunEvent(entry, String(index)).type);
            expect(types).to.deep.equal(['call', 'finish', 'end']);
          }
        });
      }

      it('completing a business key failing while the log works: one warning naming the tool, not two per later call', async () => {
        const { store, calls } = writesFailing('key');
        const warnings: string[] = [];
        const guard = new LoopGuard({ store, idempotentWrites: { send_email: { key: ['to'] } }, logger: { warn: (message) => warnings.push(message) } });
        const run = guard.startRun('job');
        const write = await run.claimCall({ tool: 'send_email', args: { to: 'x@y' } });
        run.finishCall(write, { result: 'sent' });
        await guard.flush();
        for (let index = 0; index < 20; index++) {
          const ticket = await run.claimCall({ tool: 'search', args: { q: index } });
          run.finishCall(ticket, { result: index });
          await wait(5);
        }
        await guard.flush();
        expect(warnings, warnings.slice(0, 6).join('\n')).to.have.length(1);
        expect(warnings[0]).to.include('the shared store failed').and.to.include('send_email');
        expect(calls.complete, 'completion is still retried').to.be.greaterThan(1);
      });
    });
  });

  describe('configuration', () => {
    const field = (options: object): string => {
      try {
        new LoopGuard(options as never);
      } catch (error) {
        if (error instanceof LoopGuardConfigError) return error.field;
        throw error;
      }
      return 'no error';
    };

    it('rejects bad shared-ledger options naming the field', () => {
      expect(field({ idempotentWrites: { send: { key: ['to'] } } })).to.equal('idempotentWrites');
      expect(field({ store: {} })).to.equal('store.appendRunEvents');
      expect(field({ store: createMemoryRunStore(), idempotentWrites: { send: { key: [] } } })).to.equal('idempotentWrites.send.key');
      // Its promise would be every call's key: one write, every later one refused as done.
      expect(field({ store: createMemoryRunStore(), idempotentWrites: { send: { key: (async (args: { to: string }) => args.to) as unknown as () => string } } })).to.equal('idempotentWrites.send.key');
      expect(field({ store: createMemoryRunStore(), idempotentWrites: { send: { key: ['to'], scope: 'tenant' } } })).to.equal('idempotentWrites.send.scope');
      expect(field({ store: createMemoryRunStore(), idempotentWrites: { send: { key: ['to'], leaseMs: 0 } } })).to.equal('idempotentWrites.send.leaseMs');
      expect(field({ store: createMemoryRunStore(), idempotentWrites: { send: { key: ['to'], verfy: () => ({ done: true }) } } })).to.equal('idempotentWrites.send.verfy');
      expect(field({ store: createMemoryRunStore(), storeFailure: { calls: 'maybe' } })).to.equal('storeFailure.calls');
      expect(field({ store: createMemoryRunStore(), claimLeaseMs: -1 })).to.equal('claimLeaseMs');
      expect(field({ store: createMemoryRunStore(), idempotentWrites: { send: { key: ['to'], verify: async () => ({ done: false }) } } })).to.equal('no error');
    });
  });
});
