import { decodeOtlpAttributes, OtlpValueTooDeepError } from './otlp-any-value.js';
import { otlpSpanPath } from './otlp-span-path.js';
import { isPlainObject } from './parse-transcript-line.js';
import { ReplayInputError } from './replay-input-error.js';
import { readSpanConvention } from './span-conventions/read-span-convention.js';
import { SPAN_READER_ATTRIBUTE_PREFIXES } from './span-conventions/span-reader-attributes.js';
import type { CollectedSpanRole } from './span-conventions/span-reading.js';

// What a span means (run, round, tool, other) is decided by one reader per convention in
// span-conventions/ (GenAI, OpenInference, OpenLLMetry/Traceloop, Logfire, the AI SDK); the
// same readers serve `loopguard replay` and `loopguard serve`.
export type { CollectedSpanRole };

/** A span reduced to what replay needs; `other` spans keep only their ids. */
export interface CollectedSpan {
  traceId: string;
  spanId: string;
  parentSpanId: string | undefined;
  role: CollectedSpanRole;
  /** `genai` for gen_ai / loopguard spans (and conventions read onto their names), `vercel` for Vercel AI SDK `ai.*` spans. */
  flavor: 'genai' | 'vercel';
  /** The convention that recognised the span (`gen_ai`, `openinference`, `traceloop`, `logfire`, `ai_sdk`, `none`). */
  convention: string;
  name: string;
  line: number;
  /** Order of the span in the file: the last tie-breaker when timestamps are equal. */
  seq: number;
  /** Span path inside the request, for messages: resourceSpans[0].scopeSpans[0].spans[3]. */
  path: string;
  startNanos: bigint;
  endNanos: bigint;
  attributes: Record<string, unknown>;
  statusError: boolean;
  statusMessage: string | undefined;
  exceptionType: string | undefined;
  exceptionMessage: string | undefined;
  /**
   * Set by `loopguard serve` once the span's call was fed to the engine: its arguments and
   * result were dropped (a live trace may be re-read as spans arrive, and the engine already
   * holds what it needs of them), so the reader gives its call without them.
   */
  settled?: true;
  /**
   * `traceId/spanId` and `traceId/parentSpanId`, made on first use by the replay reader and kept:
   * `loopguard serve` re-reads a live trace as its spans arrive, and a string made once keeps
   * its hash, so map lookups by it cost no rehash of a new string each time. Measured
   * (bench/probes/serve-long-trace.ts, one trace of 4000 spans, 10 per request): 5 200 → 7 500 spans/s.
   */
  key?: string;
  parentKey?: string;
}

// Prefixes of the attributes replay reads after the convention readers (one list with the
// readers' own names, so a decoder knows what it may skip).
const KEPT_ATTRIBUTE_PREFIXES = SPAN_READER_ATTRIBUTE_PREFIXES;


/**
 * Buffers the spans of an OTLP JSON file (one ExportTraceServiceRequest per line). Spans of
 * one run can arrive in any order and in any request, so nothing can be replayed before the
 * file ends; only spans that matter are kept with their attributes, every other span keeps
 * just its ids so parent chains still resolve.
 */
export class OtlpSpanCollector {
  readonly spans: CollectedSpan[] = [];

  /** Parses one request line. Throws for a line that is not a request; returns span-level problems. */
  addRequestLine(text: string, file: string, line: number): ReplayInputError[] {
    let request: unknown;
    try {
      request = JSON.parse(text);
    } catch (error) {
      throw new ReplayInputError({ file, line, problem: `not valid JSON (${(error as Error).message})` });
    }
    return this.addRequest(request, file, line);
  }

  /**
   * Collects the spans of one decoded ExportTraceServiceRequest (OTLP/JSON, or protobuf decoded
   * to the JSON shape). Throws for a value that is not a request; returns span-level problems.
   */
  addRequest(request: unknown, file: string, line: number): ReplayInputError[] {
    if (!isPlainObject(request) || !Array.isArray(request.resourceSpans)) {
      throw new ReplayInputError({
        file,
        line,
        field: 'resourceSpans',
        problem: 'expected an OTLP ExportTraceServiceRequest: an object with a "resourceSpans" array (this file started as OTLP JSON)',
      });
    }
    const problems: ReplayInputError[] = [];
    request.resourceSpans.forEach((resourceSpans: unknown, r: number) => {
      const scopeSpansList = isPlainObject(resourceSpans) ? resourceSpans.scopeSpans : undefined;
      if (!Array.isArray(scopeSpansList)) return;
      scopeSpansList.forEach((scopeSpans: unknown, s: number) => {
        const spans = isPlainObject(scopeSpans) ? scopeSpans.spans : undefined;
        if (!Array.isArray(spans)) return;
        spans.forEach((span: unknown, i: number) => {
          const path = otlpSpanPath(r, s, i);
          const collected = collectSpan(span, path, file, line, problems);
          if (collected) {
            collected.seq = this.spans.length;
            this.spans.push(collected);
          }
        });
      });
    });
    return problems;
  }
}

function collectSpan(
  span: unknown,
  path: string,
  file: string,
  line: number,
  problems: ReplayInputError[],
): CollectedSpan | undefined {
  const problem = (field: string, what: string): undefined => {
    problems.push(new ReplayInputError({ file, line, field: `${path}.${field}`, problem: `${path}.${field} ${what}` }));
    return undefined;
  };
  if (!isPlainObject(span)) return problem('', 'must be an object');
  const traceId = span.traceId;
  const spanId = span.spanId;
  if (typeof traceId !== 'string' || traceId.length === 0) return problem('traceId', 'must be a non-empty string');
  if (typeof spanId !== 'string' || spanId.length === 0) return problem('spanId', 'must be a non-empty string');
  const parentSpanId = typeof span.parentSpanId === 'string' && span.parentSpanId.length > 0 ? span.parentSpanId : undefined;
  const name = typeof span.name === 'string' ? span.name : '';

  let attributes: Record<string, unknown>;
  try {
    attributes = decodeOtlpAttributes(span.attributes);
  } catch (error) {
    if (error instanceof OtlpValueTooDeepError) return problem('attributes', `${error.message.replace(/^attribute /, 'has attribute ')}: the span is skipped`);
    throw error;
  }
  const { role, flavor, convention } = readSpanConvention(name, attributes);

  if (role === 'other') {
    return {
      traceId, spanId, parentSpanId, role, flavor, convention, name, line, seq: 0, path,
      startNanos: 0n, endNanos: 0n, attributes: {},
      statusError: false, statusMessage: undefined, exceptionType: undefined, exceptionMessage: undefined,
      settled: undefined, key: undefined, parentKey: undefined,
    };
  }

  const startNanos = parseNanos(span.startTimeUnixNano);
  if (startNanos === undefined) return problem('startTimeUnixNano', 'must be epoch nanoseconds (a string or number of digits)');
  const endNanos = parseNanos(span.endTimeUnixNano) ?? startNanos;

  const status = isPlainObject(span.status) ? span.status : {};
  const statusError = status.code === 2 || status.code === 'STATUS_CODE_ERROR';
  const statusMessage = typeof status.message === 'string' && status.message.length > 0 ? status.message : undefined;
  let exceptionType: string | undefined;
  let exceptionMessage: string | undefined;
  if (Array.isArray(span.events)) {
    for (const event of span.events) {
      if (!isPlainObject(event) || event.name !== 'exception') continue;
      let eventAttributes: Record<string, unknown>;
      try {
        eventAttributes = decodeOtlpAttributes(event.attributes);
      } catch (error) {
        // An exception event only types a failure: one too deep to read is left out.
        if (error instanceof OtlpValueTooDeepError) continue;
        throw error;
      }
      if (typeof eventAttributes['exception.type'] === 'string') exceptionType = eventAttributes['exception.type'];
      if (typeof eventAttributes['exception.message'] === 'string') exceptionMessage = eventAttributes['exception.message'];
    }
  }
  // Only the attributes replay reads are buffered until the file ends; everything else an
  // instrumentation puts on a span (prompts, model parameters, ...) is dropped here.
  const kept: Record<string, unknown> = {};
  for (const key of Object.keys(attributes)) {
    if (isKeptAttribute(key)) kept[key] = attributes[key];
  }
  return {
    traceId, spanId, parentSpanId, role, flavor, convention, name, line, seq: 0, path, startNanos, endNanos, attributes: kept,
    statusError, statusMessage, exceptionType, exceptionMessage,
    // Set later (serve, the replay reader); declared here so they sit inside the object
    // instead of in a property array made for each span when the first is set.
    settled: undefined, key: undefined, parentKey: undefined,
  };
}

/**
 * Whether an attribute is kept, cached per key: keys repeat span after span (and arrive as one
 * string each: interned by the protobuf reader, internalized by JSON.parse). Bounded, so a
 * client sending random keys cannot grow it. Measured (bench/serve.ts ingestion, --cpu-prof):
 * a closure and a prefix scan per attribute were most of collectSpan's 1.1–1.5 % self time.
 */
const keptAttributeCache = new Map<string, boolean>();
function isKeptAttribute(key: string): boolean {
  let kept = keptAttributeCache.get(key);
  if (kept === undefined) {
    kept = false;
    for (const prefix of KEPT_ATTRIBUTE_PREFIXES) {
      if (key.startsWith(prefix)) {
        kept = true;
        break;
      }
    }
    if (keptAttributeCache.size >= 4096) keptAttributeCache.clear();
    keptAttributeCache.set(key, kept);
  }
  return kept;
}

function parseNanos(value: unknown): bigint | undefined {
  // The protobuf reader of `loopguard serve` gives fixed64 times as bigints.
  if (typeof value === 'bigint') return value >= 0n ? value : undefined;
  if (typeof value === 'string' && /^\d+$/.test(value)) return BigInt(value);
  if (typeof value === 'number' && Number.isFinite(value) && value >= 0) return BigInt(Math.round(value));
  return undefined;
}
