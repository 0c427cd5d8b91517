// The parts of the OpenTelemetry trace SDK's span and span-processor types that loopguard's
// processors read, written against @opentelemetry/api alone. The SDK's own types live in
// `@opentelemetry/sdk-trace-base` (JS SDK 1.x/2.x) or `@opentelemetry/sdk-trace` (2.9+ and
// 3.x, where sdk-trace-base and sdk-trace-node are gone): importing either would tie the
// published declarations to one line and make the SDK a type dependency of the core entry.
// A processor typed with these is structurally a `SpanProcessor` of every line: the SDK's span
// has all of these members (and more), and method parameters are checked bivariantly.
import type { Attributes, Context, HrTime, Span, SpanContext, SpanStatus } from '@opentelemetry/api';

/** A span as the SDK hands it to `onEnd` (read-only). */
export interface ProcessedReadableSpan {
  readonly name: string;
  readonly attributes: Attributes;
  readonly status: SpanStatus;
  readonly events: ReadonlyArray<{ readonly name: string; readonly attributes?: Attributes | undefined; readonly time: HrTime }>;
  readonly ended: boolean;
  spanContext(): SpanContext;
}

/** A span as the SDK hands it to `onStart` and `onEnding` (still writable). */
export type ProcessedSpan = Span & ProcessedReadableSpan;

/** The SDK's `SpanProcessor` contract (`onEnding` since JS SDK 2.1). */
export interface SdkSpanProcessor {
  onStart(span: ProcessedSpan, parentContext: Context): void;
  onEnding?(span: ProcessedSpan): void;
  onEnd(span: ProcessedReadableSpan): void;
  forceFlush(): Promise<void>;
  shutdown(): Promise<void>;
}
