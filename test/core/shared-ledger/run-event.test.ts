// Reading back log entries that loopguard did not write (an audit of the Redis store: data a
// store holds may come from anyone). An entry the decoder accepts is trusted by the engine, so
// the decoder is where a malformed one must stop: it is skipped with a warning naming it.
import { expect } from 'chai';
import { LoopGuard } from '../../../src/core/loop-guard.js';
import { createMemoryRunStore } from '../../../src/core/shared-ledger/create-memory-run-store.js';
import { decodeRunEvent, encodeRunEvent, RunEventDecodeError, runEventTime } from '../../../src/core/shared-ledger/run-event.js';
import type { PartialResults, StopDecision } from '../../../src/core/types.js';

const partial: PartialResults = {
  rounds: 1,
  toolCalls: 2,
  executed: 2,
  refused: 0,
  newFacts: 1,
  seenResults: 1,
  staleRoundStreak: 0,
  refusedRoundStreak: 0,
  lastNewFactRound: 1,
  wastedTokens: 0,
  tools: { get_order: { calls: 2, executed: 2, refused: 0, newFacts: 1, seen: 1, failures: 0 } },
};
const stop: StopDecision = { action: 'stop', reason: 'max_tool_calls', detail: 'tool calls 2/2', message: 'Tool use has ended.', round: 1, partial };
const stopEntry = (fields: object) => JSON.stringify(['t', { ...stop, ...fields }]);

describe('shared-ledger/run-event: entries loopguard did not write', () => {
  describe('a stop decision whose fields are not of their types is unreadable (audit d2)', () => {
    it('a stop written by loopguard reads back as written', () => {
      expect(decodeRunEvent(encodeRunEvent({ type: 'stop', decision: stop }), 'log[1]')).to.deep.equal({ type: 'stop', decision: stop });
      // What JSON makes of a NaN token count (a host's odd usage) is still loopguard's own stop.
      const odd = decodeRunEvent(encodeRunEvent({ type: 'stop', decision: { ...stop, partial: { ...partial, wastedTokens: Number.NaN } } }), 'log[2]');
      expect(odd.type === 'stop' && Number.isNaN(odd.decision.partial.wastedTokens)).to.equal(true);
      const proto = decodeRunEvent(stopEntry({ partial: { ...partial, tools: JSON.parse('{"__proto__":{"calls":1,"executed":1,"refused":0,"newFacts":1,"seen":0,"failures":0}}') } }), 'log[3]');
      expect(proto.type === 'stop' && Object.keys(proto.decision.partial.tools)).to.deep.equal(['__proto__']);
    });

    it('a stop with no reason, message, detail, round or partial, or with any of them of another type, is an error naming the entry', () => {
      const bad: Array<[string, object]> = [
        ['bare', { reason: undefined, message: undefined, detail: undefined, round: undefined, partial: undefined }],
        ['detail an object', { detail: { toString: 1 } }],
        ['reason a number', { reason: 7 }],
        ['message null', { message: null }],
        ['round a string', { round: '1' }],
        ['round negative', { round: -1 }],
        ['partial missing', { partial: undefined }],
        ['partial an array', { partial: [] }],
        ['partial.executed a string', { partial: { ...partial, executed: '2' } }],
        ['partial.tools missing', { partial: { ...partial, tools: undefined } }],
        ['partial.tools entry not a tally', { partial: { ...partial, tools: { get_order: 3 } } }],
        ['partial.tools entry count a string', { partial: { ...partial, tools: { get_order: { ...partial.tools.get_order, calls: 'x' } } } }],
      ];
      for (const [label, fields] of bad) {
        expect(() => decodeRunEvent(stopEntry(fields), 'loopguard:{R}:log[1]'), label).to.throw(RunEventDecodeError, /loopguard:\{R\}:log\[1\]: /);
      }
      expect(() => decodeRunEvent('["t",{"action":"stop"}]', 'log[2]')).to.throw(RunEventDecodeError, /log\[2\]: /);
    });

    it('an engine skips such an entry with a warning naming it: no exception into the host, no stop without a reason', async () => {
      const store = createMemoryRunStore();
      const t = Date.now();
      await store.appendRunEvents('R', 0, [JSON.stringify(['r', t]), '["t",{"action":"stop","reason":"max_tool_calls","detail":{"toString":1},"message":"m","round":1}]']);
      await store.appendRunEvents('S', 0, [JSON.stringify(['r', t]), '["t",{"action":"stop"}]']);
      const warnings: string[] = [];
      const guard = new LoopGuard({ store, logger: { warn: (message: string) => void warnings.push(message) } });
      const r = await guard.resumeRun('R');
      const claimed = await r.claimCall({ tool: 'get_order', args: { id: 2 } });
      expect(claimed.decision.action).to.equal('allow');
      expect(() => r.startCall({ tool: 'get_order', args: { id: 3 } })).not.to.throw();
      const s = await guard.resumeRun('S');
      expect(s.shouldStop().action).to.equal('continue');
      expect(warnings.some((w) => w.includes('run "R" log[1]'))).to.equal(true);
      expect(warnings.some((w) => w.includes('run "S" log[1]'))).to.equal(true);
    });
  });

  describe('a time outside epoch milliseconds (0 to the end of year 9999) is unreadable (audit d5)', () => {
    const MAX = 253_402_300_799_999;

    it('rounds, calls, outcomes, compactions and ends with such a time are errors naming the entry; the bounds themselves read', () => {
      for (const time of [1e300, MAX + 1, -1, 1e15]) {
        for (const entry of [
          ['r', time],
          ['c', 'k.1', time, 'get_order', 'h', 0, 0, 0, 0, 'a', 'new'],
          ['f', 'k.1', time, 'success', 'r1', 0, 0],
          ['k', time],
          ['e', time],
        ]) {
          expect(() => decodeRunEvent(JSON.stringify(entry), 'log[3]'), JSON.stringify(entry)).to.throw(RunEventDecodeError, /log\[3\]: time /);
        }
        expect(runEventTime(JSON.stringify(['r', time])), `runEventTime ${time}`).to.equal(undefined);
      }
      expect(decodeRunEvent(JSON.stringify(['r', 0]), 'log[0]')).to.deep.equal({ type: 'round', time: 0 });
      expect(decodeRunEvent(JSON.stringify(['e', MAX]), 'log[0]')).to.deep.equal({ type: 'end', time: MAX });
    });

    it('an engine skips such an entry: it neither stops the run on maxRunMs nor becomes the time of later entries, and a dead call logged with it still expires', async () => {
      let now = 1_700_000_000_000;
      const clock = () => now;
      const store = createMemoryRunStore({ now: clock });
      await store.appendRunEvents('A', 0, [JSON.stringify(['r', now]), JSON.stringify(['r', 1e300])]);
      const warnings: string[] = [];
      const logger = { warn: (message: string) => void warnings.push(message) };
      const guard = new LoopGuard({ store, logger, now: clock, maxRunMs: 3_600_000, claimLeaseMs: 1000 });
      const a = await guard.resumeRun('A');
      const claimed = await a.claimCall({ tool: 'get_order', args: { id: 1 } });
      expect(claimed.decision.action).to.equal('allow');
      expect(a.shouldStop().action).to.equal('continue');
      await guard.flush();
      for (const entry of await store.readRunEvents('A', 2)) expect(runEventTime(entry) ?? now, entry).to.be.at.most(now);
      expect(warnings.some((w) => w.includes('run "A" log[1]') && w.includes('time'))).to.equal(true);

      // Another process's call, in flight, "started" at a time far ahead; its process died.
      const probe = guard.startRun('probe');
      const hash = (await probe.claimCall({ tool: 'get_order', args: { id: 7 } })).call.argsHash;
      await store.appendRunEvents('B', 0, [JSON.stringify(['r', now - 600_000]), JSON.stringify(['c', 'dead.1', 1e15, 'get_order', hash, 0, 0, 0, 0, 'a', 'new'])]);
      const b = await new LoopGuard({ store, logger, now: clock, claimLeaseMs: 1000 }).resumeRun('B');
      now += 2000;
      expect((await b.claimCall({ tool: 'get_order', args: { id: 7 } })).decision.action).to.equal('allow');
    });
  });
});
