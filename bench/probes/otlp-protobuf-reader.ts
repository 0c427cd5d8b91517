/**
 * Probe (not part of `npm run bench`): the hand-written OTLP protobuf reader of `loopguard serve`
 * (src/server/read-otlp-protobuf-spans.ts) against the protobufjs decoding it replaced
 * (decode + toObject + hex ids, kept in test/helpers), on the serve bench's requests: 100 GenAI
 * tool spans of ~2 KB each. Decoding alone, and decoding + collecting the spans as the receiver does.
 *   npx tsc -p bench/tsconfig.json && node .tmp/bench-build/bench/probes/otlp-protobuf-reader.js
 */
import { OtlpSpanCollector } from '../../src/replay/collect-otlp-spans.js';
import { readOtlpProtobufSpans } from '../../src/server/read-otlp-protobuf-spans.js';
import { decodeOtlpProtobufTraces } from '../../test/helpers/decode-otlp-protobuf-traces-with-protobufjs.js';
import { compare, printComparison } from '../lib/compare.js';
import { buildOtlpBenchRequests } from '../lib/otlp-bench-requests.js';

const requests = buildOtlpBenchRequests(8, 100);
let next = 0;
const body = () => requests[next++ % requests.length]!;
const collect = (request: unknown) => new OtlpSpanCollector().addRequest(request, 'request', 1);
printComparison(
  'decode one request (100 spans, 2 KB each)',
  compare({ protobufjs: () => decodeOtlpProtobufTraces(body()), readOtlpProtobufSpans: () => readOtlpProtobufSpans(body()) }, { burst: 20 }),
  'protobufjs',
);
printComparison(
  'decode + collect one request',
  compare({ protobufjs: () => collect(decodeOtlpProtobufTraces(body())), readOtlpProtobufSpans: () => collect(readOtlpProtobufSpans(body())) }, { burst: 20 }),
  'protobufjs',
);
