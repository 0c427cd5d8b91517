// Reading back log entries that loopguard did not write (an audit of the Redis store: data a
// store holds may come from anyone). An entry the decoder accepts is trusted by the engine, so
// the decoder is where a malformed one must stop: it is skipped with a warning naming it.
import { expect } from 'chai';
import { LoopGuard } from '../../../src/core/loop-guard.js';
import { createMemoryRunStore } from '../../../src/core/shared-ledger/create-memory-run-store.js';
import { decodeRunEvent, encodeRunEvent, RunEventDecodeError } from '../../../src/core/shared-ledger/run-event.js';
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
      expect(warnings.some((w) => w.includes('{R} log[1]'))).to.equal(true);
      expect(warnings.some((w) => w.includes('{S} log[1]'))).to.equal(true);
    });
  });
});
