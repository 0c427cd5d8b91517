/**
 * Probe (not part of `npm run bench`): the OTLP ingestion path of `loopguard serve` without HTTP,
 * for profiles — the serve bench's requests (100 GenAI tool spans of ~2 KB, one run per
 * request) read, collected and fed to the engine one after another, as the receiver does.
 * `resend` delivers every request twice in a row, as an exporter retrying a batch whose answer
 * it never got does (the copy should cost next to nothing: live-span-runs.ts).
 *   npx tsc -p bench/tsconfig.json && node --cpu-prof --cpu-prof-dir=.tmp/prof .tmp/bench-build/bench/probes/serve-ingestion.js [requests] [once|resend]
 */
import { LoopGuard } from '../../src/core/loop-guard.js';
import { OtlpSpanCollector } from '../../src/replay/collect-otlp-spans.js';
import { LiveSpanRuns } from '../../src/server/live-span-runs.js';
import { readOtlpProtobufSpans } from '../../src/server/read-otlp-protobuf-spans.js';
import { buildOtlpBenchRequests } from '../lib/otlp-bench-requests.js';

const count = Number(process.argv[2] ?? 400);
const copies = process.argv[3] === 'resend' ? 2 : 1;
const requests = buildOtlpBenchRequests(count, 100);
// An idle gap in the profile between building the requests and ingesting them.
await new Promise((resolve) => setTimeout(resolve, 300));
const guard = new LoopGuard();
const live = new LiveSpanRuns({ guard });
const stages = { read: 0, collect: 0, ingest: 0 };
let spans = 0;
const started = process.hrtime.bigint();
let rejected = 0;
for (const body of requests.flatMap((request) => Array<Buffer>(copies).fill(request))) {
  let t = process.hrtime.bigint();
  const request = readOtlpProtobufSpans(body);
  stages.read += Number(process.hrtime.bigint() - t);
  t = process.hrtime.bigint();
  const collector = new OtlpSpanCollector();
  collector.addRequest(request, 'request', 1);
  stages.collect += Number(process.hrtime.bigint() - t);
  t = process.hrtime.bigint();
  rejected += (await live.ingest(collector.spans)).rejected;
  stages.ingest += Number(process.hrtime.bigint() - t);
  spans += collector.spans.length;
}
const seconds = Number(process.hrtime.bigint() - started) / 1e9;
const perSpan = (ns: number) => `${(ns / spans / 1000).toFixed(2)} µs`;
console.log(`${spans} spans in ${seconds.toFixed(2)} s: ${(spans / seconds).toFixed(0)} spans/s; per span: read ${perSpan(stages.read)}, collect ${perSpan(stages.collect)}, ingest ${perSpan(stages.ingest)}`);
const decided = guard.stats();
console.log(`open runs ${decided.openRuns}, spans rejected ${rejected}`);
