/**
 * Every span attribute the convention readers (span-conventions/*.ts) and the replay reader
 * (collect-otlp-spans.ts, otlp-spans-to-replay-calls.ts) can read: exact names, plus the
 * prefixes whose attributes collect-otlp-spans.ts keeps on a span. A decoder may drop every
 * other attribute unread (the protobuf reader of `loopguard serve` skips their bytes), and
 * the readers decide the same. test/replay/span-reader-attributes.test.ts reads a span of each
 * convention through a Proxy that records every name asked for, and fails on one not listed
 * here: a reader that starts reading a new attribute must add it.
 */
export const SPAN_READER_ATTRIBUTES: ReadonlySet<string> = new Set([
  // GenAI (gen_ai.tool.* and gen_ai.conversation.id are prefixes below)
  'gen_ai.operation.name',
  // OpenInference
  'openinference.span.kind',
  'session.id',
  'tool.name',
  'input.value',
  'output.value',
  'tool_call.id',
  'llm.token_count.prompt',
  'llm.token_count.completion',
  // OpenLLMetry / Traceloop
  'traceloop.span.kind',
  'traceloop.entity.name',
  'traceloop.entity.input',
  'traceloop.entity.output',
  'traceloop.association.properties.session_id',
  'llm.request.type',
  // Pydantic Logfire
  'tool_arguments',
  'tool_response',
  // The AI SDK (its ai.toolCall.* / ai.usage.* are prefixes below)
  'ai.operationId',
]);

/** Attributes kept on a collected span for the rest of the replay reader, by prefix. */
export const SPAN_READER_ATTRIBUTE_PREFIXES: readonly string[] = [
  'loopguard.',
  'gen_ai.tool.',
  'gen_ai.usage.',
  'gen_ai.conversation.id',
  'error.type',
  'ai.toolCall.',
  'ai.usage.',
  'ai.response.toolCalls',
  'ai.telemetry.metadata.runId',
  // AI SDK 7 has no telemetry metadata: @ai-sdk/otel's LegacyOpenTelemetry records the run id
  // given as runtime context (`runtimeContext`, `includeRuntimeContext`) here.
  'ai.settings.context.runId',
];

/** Attributes of an `exception` span event the replay reader reads. */
export const EXCEPTION_EVENT_ATTRIBUTES: ReadonlySet<string> = new Set(['exception.type', 'exception.message']);

/** Whether a reader can read this span attribute (see {@link SPAN_READER_ATTRIBUTES}). */
export function isSpanReaderAttribute(key: string): boolean {
  if (SPAN_READER_ATTRIBUTES.has(key)) return true;
  for (const prefix of SPAN_READER_ATTRIBUTE_PREFIXES) if (key.startsWith(prefix)) return true;
  return false;
}
