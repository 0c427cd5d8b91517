/**
 * Probe (not part of `npm run bench`): memory a live trace holds in `loopguard serve` — the
 * serve bench's requests (100 GenAI tool spans of ~2 KB, one run each) ingested as the receiver
 * does, the runs left open, retained heap per trace after gc.
 *   npx tsc -p bench/tsconfig.json && node --expose-gc .tmp/bench-build/bench/probes/serve-trace-memory.js [traces]
 */
import { LoopGuard } from '../../src/core/loop-guard.js';
import { OtlpSpanCollector } from '../../src/replay/collect-otlp-spans.js';
import { LiveSpanRuns } from '../../src/server/live-span-runs.js';
import { readOtlpProtobufSpans } from '../../src/server/read-otlp-protobuf-spans.js';
import { heapAfterGc } from '../lib/harness.js';
import { buildOtlpBenchRequests } from '../lib/otlp-bench-requests.js';

const traces = Number(process.argv[2] ?? 200);
const requests = buildOtlpBenchRequests(traces, 100);
const guard = new LoopGuard();
const live = new LiveSpanRuns({ guard });
const before = heapAfterGc();
for (const body of requests) {
  const collector = new OtlpSpanCollector();
  collector.addRequest(readOtlpProtobufSpans(body), 'request', 1);
  await live.ingest(collector.spans);
}
const after = heapAfterGc();
if (live.traceCount !== traces) throw new Error('traces were let go');
console.log(`${((after - before) / traces / 1024).toFixed(1)} KiB per open trace of 100 tool spans (${traces} traces)`);
