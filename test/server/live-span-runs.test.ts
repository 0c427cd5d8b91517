import { expect } from 'chai';
import { LoopGuard } from '../../src/core/loop-guard.js';
import { OtlpSpanCollector, type CollectedSpan } from '../../src/replay/collect-otlp-spans.js';
import { LiveSpanRuns } from '../../src/server/live-span-runs.js';

const TRACE = '4bf92f3577b34da6a3ce929d0e0e4736';
const base = 1_700_000_000_000_000_000n;

/** Tool spans of one trace (no run span: the run is `trace:<id>`), rounds 1..n, collected as the receiver does. */
function toolSpans(first: number, count: number, query: (round: number) => string): CollectedSpan[] {
  const spans = Array.from({ length: count }, (_, index) => {
    const round = first + index;
    return {
      traceId: TRACE,
      spanId: round.toString(16).padStart(16, '0'),
      name: 'execute_tool search',
      startTimeUnixNano: String(base + BigInt(round) * 1_000_000_000n),
      endTimeUnixNano: String(base + BigInt(round) * 1_000_000_000n + 1_000_000n),
      attributes: [
        { key: 'gen_ai.operation.name', value: { stringValue: 'execute_tool' } },
        { key: 'gen_ai.tool.name', value: { stringValue: 'search' } },
        { key: 'loopguard.round', value: { intValue: String(round) } },
        { key: 'gen_ai.tool.call.arguments', value: { stringValue: JSON.stringify({ q: query(round), padding: 'x'.repeat(1000) }) } },
        { key: 'gen_ai.tool.call.result', value: { stringValue: JSON.stringify({ hits: [`doc-${query(round)}`], padding: 'y'.repeat(1000) }) } },
      ],
    };
  });
  const collector = new OtlpSpanCollector();
  expect(collector.addRequest({ resourceSpans: [{ scopeSpans: [{ spans }] }] }, 'request', 1)).to.deep.equal([]);
  return collector.spans;
}

describe('LiveSpanRuns: tool spans once fed to the engine', () => {
  it('keep neither their arguments nor their result, and later batches of the trace decide as one batch would', async () => {
    const decisions = (guard: LoopGuard) => {
      const log: string[] = [];
      guard.addListener({ callDecided: (_run, call, decision, round) => void log.push(`${round} ${call.tool} ${decision.action}`), runStopped: (_run, stop) => void log.push(`stop ${stop.reason}`) });
      return log;
    };
    const query = (round: number) => (round <= 2 ? `q${round}` : 'same');
    const splitGuard = new LoopGuard();
    const split = decisions(splitGuard);
    const live = new LiveSpanRuns({ guard: splitGuard });
    const firstBatch = toolSpans(1, 3, query);
    await live.ingest(firstBatch);
    for (const span of firstBatch) {
      expect(span.settled, span.spanId).to.equal(true);
      expect(span.attributes).not.to.have.property('gen_ai.tool.call.arguments');
      expect(span.attributes).not.to.have.property('gen_ai.tool.call.result');
      // What places the call in its run stays.
      expect(span.attributes['gen_ai.tool.name']).to.equal('search');
      expect(span.attributes['loopguard.round']).to.equal(span === firstBatch[0] ? 1 : span === firstBatch[1] ? 2 : 3);
    }
    for (let round = 4; round <= 8; round++) await live.ingest(toolSpans(round, 1, query));

    const wholeGuard = new LoopGuard();
    const whole = decisions(wholeGuard);
    await new LiveSpanRuns({ guard: wholeGuard }).ingest(toolSpans(1, 8, query));
    expect(split).to.deep.equal(whole);
    expect(whole.some((line) => line.includes('refuse'))).to.equal(true);
  });
});
