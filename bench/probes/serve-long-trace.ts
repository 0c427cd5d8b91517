/**
 * Probe (not part of `npm run bench`): one long trace arriving a few spans per request, as an
 * app's BatchSpanProcessor sends a long agent run. `loopguard serve` used to re-read a live trace
 * whole on each request, so the cost per span grew with the trace; it now reads spans in order
 * alone (appendSpansToReplayRuns): this checks the cost per span stays flat with length.
 * 2 KB tool spans, distinct calls, fed as the receiver feeds them.
 *   npx tsc -p bench/tsconfig.json && node .tmp/bench-build/bench/probes/serve-long-trace.js [spansPerRequest] [spans]
 */
import { LoopGuard } from '../../src/core/loop-guard.js';
import { OtlpSpanCollector } from '../../src/replay/collect-otlp-spans.js';
import { LiveSpanRuns } from '../../src/server/live-span-runs.js';

const perRequest = Number(process.argv[2] ?? 10);
const total = Number(process.argv[3] ?? 4000);
const TRACE = '4bf92f3577b34da6a3ce929d0e0e4736';
const padding = 'x'.repeat(900);
const live = new LiveSpanRuns({ guard: new LoopGuard() });
const started = process.hrtime.bigint();
for (let first = 0; first < total; first += perRequest) {
  const spans = [];
  for (let index = first; index < first + perRequest; index++) {
    const start = 1_700_000_000_000_000_000n + BigInt(index) * 1_000_000_000n;
    spans.push({
      traceId: TRACE,
      spanId: (index + 1).toString(16).padStart(16, '0'),
      name: 'execute_tool search',
      startTimeUnixNano: String(start),
      endTimeUnixNano: String(start + 1000n),
      attributes: [
        { key: 'gen_ai.operation.name', value: { stringValue: 'execute_tool' } },
        { key: 'gen_ai.tool.name', value: { stringValue: 'search' } },
        { key: 'gen_ai.tool.call.arguments', value: { stringValue: JSON.stringify({ q: `q${index}`, padding }) } },
        { key: 'gen_ai.tool.call.result', value: { stringValue: JSON.stringify({ hits: [`d${index}`], padding }) } },
      ],
    });
  }
  const collector = new OtlpSpanCollector();
  collector.addRequest({ resourceSpans: [{ scopeSpans: [{ spans }] }] }, 'request', 1);
  await live.ingest(collector.spans);
}
const seconds = Number(process.hrtime.bigint() - started) / 1e9;
console.log(`${total} spans of one trace, ${perRequest} per request: ${(total / seconds).toFixed(0)} spans/s`);
