/**
 * In-process OTLP ingestion probe (not part of `npm run bench`): the bench's 2 KB tool-span
 * requests fed straight to receiveOtlpTraces, no HTTP, so a profile holds only decode, span
 * reading and the engine. `resend` delivers every request twice in a row, as an exporter
 * retrying a batch whose answer it never got does.
 *   node [--cpu-prof] .tmp/bench-build/bench/probes/ingest-inprocess.js [once|resend] [batches of 100 requests]
 */
import { LoopGuard } from '../../src/core/loop-guard.js';
import { LiveSpanRuns } from '../../src/server/live-span-runs.js';
import { receiveOtlpTraces } from '../../src/server/otlp-traces-receiver.js';
import { buildOtlpBenchRequests } from '../lib/otlp-bench-requests.js';

const mode = process.argv[2] ?? 'once';
const batches = Number(process.argv[3] ?? 10);
const guard = new LoopGuard({ logger: { warn: () => undefined } });
const live = new LiveSpanRuns({ guard });
let spans = 0;
let rejected = 0;
let elapsed = 0;
let number = 0;
for (let batch = 0; batch < batches; batch++) {
  const requests = buildOtlpBenchRequests(100, 100); // fresh trace ids: new runs
  const started = performance.now();
  for (const body of requests) {
    for (let copy = 0; copy < (mode === 'resend' ? 2 : 1); copy++) {
      const answer = await receiveOtlpTraces(body, 'protobuf', live, 10_000, number++);
      if (answer.status !== 200) throw new Error(`status ${answer.status}`);
      rejected += answer.rejected;
      spans += 100;
    }
  }
  elapsed += performance.now() - started;
}
console.log(`${mode}: ${((spans / elapsed) * 1000).toFixed(0)} spans/s received (${((elapsed * 1000) / spans).toFixed(2)} µs per span), ${rejected} rejected`);
