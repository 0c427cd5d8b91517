import { OtlpSpanCollector } from '../replay/collect-otlp-spans.js';
import { ReplayInputError } from '../replay/replay-input-error.js';
import { encodeExportTraceServiceResponse, encodeRpcStatus } from './encode-otlp-protobuf-answer.js';
import type { LiveSpanRuns } from './live-span-runs.js';
import { readOtlpProtobufSpans } from './read-otlp-protobuf-spans.js';
import { ServerRequestError } from './server-request-error.js';

export type OtlpEncoding = 'json' | 'protobuf';

/** What the receiver answers: status, content type and body, in the request's encoding. */
export interface OtlpAnswer {
  status: number;
  contentType: string;
  body: Buffer | string;
  /** Spans accepted and rejected, for the server's metrics. */
  received: number;
  rejected: number;
}

const CONTENT_TYPES: Record<OtlpEncoding, string> = { json: 'application/json', protobuf: 'application/x-protobuf' };

/** The request's encoding from its Content-Type (the OTLP/HTTP spec's two), or a 415. */
export function otlpEncodingOf(contentType: string | undefined): OtlpEncoding {
  const type = (contentType ?? '').split(';', 1)[0]!.trim().toLowerCase();
  if (type === 'application/x-protobuf' || type === 'application/protobuf') return 'protobuf';
  if (type === 'application/json') return 'json';
  throw new ServerRequestError({
    status: 415,
    code: 'unsupported_media_type',
    message: `Content-Type ${JSON.stringify(contentType ?? '')} is not OTLP: send application/x-protobuf or application/json (OTLP/HTTP)`,
  });
}

/**
 * OTLP/HTTP traces (`POST /v1/traces`), as the spec says: a success is 200 with an
 * ExportTraceServiceResponse in the request's encoding, carrying `partialSuccess` when some
 * spans were rejected (`rejectedSpans` and why); a request that cannot be read is 400 with a
 * google.rpc.Status, not retryable; more spans than `maxSpans` is 413 (split the batch).
 */
export async function receiveOtlpTraces(body: Buffer, encoding: OtlpEncoding, live: LiveSpanRuns, maxSpans: number, requestNumber: number): Promise<OtlpAnswer> {
  let request: unknown;
  try {
    request = encoding === 'protobuf' ? readOtlpProtobufSpans(body) : JSON.parse(body.toString('utf8'));
  } catch (error) {
    return otlpError(encoding, 400, `the body is not a valid ${encoding === 'protobuf' ? 'protobuf' : 'JSON'} ExportTraceServiceRequest: ${(error as Error).message}`);
  }
  // Absent repeated fields are empty in the protobuf JSON mapping: `{}` is an empty export.
  if (typeof request === 'object' && request !== null && !Array.isArray(request) && (request as { resourceSpans?: unknown }).resourceSpans === undefined) {
    request = { resourceSpans: [] };
  }
  const collector = new OtlpSpanCollector();
  let problems: ReplayInputError[];
  try {
    problems = collector.addRequest(request, 'request', requestNumber);
  } catch (error) {
    if (error instanceof ReplayInputError) return otlpError(encoding, 400, error.message);
    throw error;
  }
  const spans = collector.spans;
  if (spans.length + problems.length > maxSpans) {
    return otlpError(encoding, 413, `the request has ${spans.length + problems.length} spans, more than ${maxSpans} (maxSpansPerRequest, --max-spans); send smaller batches (a Collector's batch processor: send_batch_max_size)`);
  }
  const outcome = await live.ingest(spans);
  const rejected = problems.length + outcome.rejected;
  const messages = [...problems.map((problem) => problem.message), ...outcome.problems];
  const partial = rejected > 0 || messages.length > 0 ? { rejectedSpans: rejected, errorMessage: summarise(messages) } : undefined;
  const received = spans.length + problems.length;
  if (encoding === 'json') {
    return { status: 200, contentType: CONTENT_TYPES.json, body: JSON.stringify(partial === undefined ? {} : { partialSuccess: { rejectedSpans: String(partial.rejectedSpans), errorMessage: partial.errorMessage } }), received, rejected };
  }
  return { status: 200, contentType: CONTENT_TYPES.protobuf, body: encodeExportTraceServiceResponse(partial), received, rejected };
}

/** An OTLP error answer: google.rpc.Status in the request's encoding. */
export function otlpError(encoding: OtlpEncoding, status: number, message: string): OtlpAnswer {
  // google.rpc.Code: INVALID_ARGUMENT 3, RESOURCE_EXHAUSTED 8, UNAVAILABLE 14, UNAUTHENTICATED 16.
  const code = status === 401 ? 16 : status === 429 ? 8 : status === 503 ? 14 : 3;
  const body =
    encoding === 'json'
      ? JSON.stringify({ code, message })
      : encodeRpcStatus(code, message);
  return { status, contentType: CONTENT_TYPES[encoding], body, received: 0, rejected: 0 };
}

function summarise(messages: readonly string[]): string {
  // The exporter logs this once per request: the first few problems say enough.
  const shown = messages.slice(0, 5).join('; ');
  return messages.length > 5 ? `${shown}; and ${messages.length - 5} more` : shown;
}
