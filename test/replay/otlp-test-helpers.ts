// Builds OTLP JSON (ExportTraceServiceRequest, one per line) by hand, the way the Collector's
// file exporter writes it: ids as hex, int64 as strings, attributes as [{key, value}].

export interface SpanSpec {
  traceId: string;
  spanId: string;
  parentSpanId?: string;
  name: string;
  startMs: number;
  endMs: number;
  attributes?: Record<string, string | number | boolean>;
  status?: { code: number; message?: string };
  events?: Array<{ name: string; attributes: Record<string, string | number | boolean> }>;
}

export function encodeAttributes(attributes: Record<string, string | number | boolean>): object[] {
  return Object.entries(attributes).map(([key, value]) => ({
    key,
    value:
      typeof value === 'string'
        ? { stringValue: value }
        : typeof value === 'boolean'
          ? { boolValue: value }
          : Number.isInteger(value)
            ? { intValue: String(value) }
            : { doubleValue: value },
  }));
}

export function encodeSpan(span: SpanSpec): object {
  const encoded: Record<string, unknown> = {
    traceId: span.traceId,
    spanId: span.spanId,
    name: span.name,
    kind: 1,
    startTimeUnixNano: (BigInt(Math.round(span.startMs * 1000)) * 1000n).toString(),
    endTimeUnixNano: (BigInt(Math.round(span.endMs * 1000)) * 1000n).toString(),
    attributes: encodeAttributes(span.attributes ?? {}),
    status: span.status ?? { code: 0 },
  };
  if (span.parentSpanId) encoded.parentSpanId = span.parentSpanId;
  if (span.events) encoded.events = span.events.map((e) => ({ name: e.name, timeUnixNano: encoded.startTimeUnixNano, attributes: encodeAttributes(e.attributes) }));
  return encoded;
}

/** Splits spans into requests of `perLine` spans each; one JSON request per returned line. */
export function otlpLines(spans: SpanSpec[], perLine = 4): string[] {
  const lines: string[] = [];
  for (let i = 0; i < spans.length; i += perLine) {
    lines.push(
      JSON.stringify({
        resourceSpans: [
          {
            resource: { attributes: encodeAttributes({ 'service.name': 'agent' }) },
            scopeSpans: [{ scope: { name: 'test' }, spans: spans.slice(i, i + perLine).map(encodeSpan) }],
          },
        ],
      }),
    );
  }
  return lines;
}

/** Deterministic shuffle: exporters write spans as they end, so files are out of order. */
export function shuffled<T>(items: T[], seed = 7): T[] {
  const copy = [...items];
  let state = seed;
  for (let i = copy.length - 1; i > 0; i--) {
    state = (state * 1103515245 + 12345) & 0x7fffffff;
    const j = state % (i + 1);
    [copy[i], copy[j]] = [copy[j], copy[i]];
  }
  return copy;
}

interface TranscriptLine {
  run: string;
  round: number;
  tool: string;
  args?: unknown;
  result?: unknown;
  error?: { type?: string; message?: string };
  callId?: string;
  ts?: number;
  durationMs?: number;
  usage?: { inputTokens?: number; outputTokens?: number };
}

let idCounter = 0;
function nextId(width: number): string {
  idCounter += 1;
  return idCounter.toString(16).padStart(width, '0');
}

/**
 * Turns JSONL transcript lines into the spans a GenAI-instrumented agent (flavor `genai`) or
 * the Vercel AI SDK (flavor `vercel`) would have exported for the same run: one run span,
 * one model-call span per round (with its usage), one tool span per call with raw arguments
 * and result.
 */
export function transcriptToSpans(lines: TranscriptLine[], flavor: 'genai' | 'vercel'): SpanSpec[] {
  const spans: SpanSpec[] = [];
  const byRun = new Map<string, TranscriptLine[]>();
  for (const line of lines) byRun.set(line.run, [...(byRun.get(line.run) ?? []), line]);
  for (const [run, calls] of byRun) {
    const traceId = nextId(32);
    const rootId = nextId(16);
    const t0 = calls[0].ts ?? 1_700_000_000_000;
    const last = calls.at(-1)!;
    spans.push({
      traceId,
      spanId: rootId,
      name: flavor === 'genai' ? 'invoke_agent researcher' : 'ai.generateText',
      startMs: t0 - 1000,
      endMs: (last.ts ?? t0) + 10_000,
      attributes: flavor === 'genai' ? { 'gen_ai.operation.name': 'invoke_agent', 'loopguard.run.id': run } : { 'ai.operationId': 'ai.generateText', 'gen_ai.conversation.id': run },
    });
    let round = 0;
    let clock = t0;
    for (const call of calls) {
      const start = call.ts ?? (clock += 10);
      if (call.round !== round) {
        round = call.round;
        const usage = call.usage ?? {};
        const usageAttributes: Record<string, number> = {};
        if (flavor === 'genai') {
          if (usage.inputTokens !== undefined) usageAttributes['gen_ai.usage.input_tokens'] = usage.inputTokens;
          if (usage.outputTokens !== undefined) usageAttributes['gen_ai.usage.output_tokens'] = usage.outputTokens;
        } else {
          if (usage.inputTokens !== undefined) usageAttributes['ai.usage.inputTokens'] = usage.inputTokens;
          if (usage.outputTokens !== undefined) usageAttributes['ai.usage.outputTokens'] = usage.outputTokens;
        }
        spans.push({
          traceId,
          spanId: nextId(16),
          parentSpanId: rootId,
          name: flavor === 'genai' ? 'chat gpt-x' : 'ai.generateText.doGenerate',
          startMs: start - 500,
          endMs: start - 10,
          attributes: flavor === 'genai' ? { 'gen_ai.operation.name': 'chat', ...usageAttributes } : { 'ai.operationId': 'ai.generateText.doGenerate', ...usageAttributes },
        });
      }
      const args = typeof call.args === 'string' ? call.args : JSON.stringify(call.args ?? {});
      const attributes: Record<string, string | number | boolean> =
        flavor === 'genai'
          ? { 'gen_ai.operation.name': 'execute_tool', 'gen_ai.tool.name': call.tool, 'gen_ai.tool.call.arguments': args }
          : { 'ai.operationId': 'ai.toolCall', 'ai.toolCall.name': call.tool, 'ai.toolCall.args': args };
      if (call.callId) attributes[flavor === 'genai' ? 'gen_ai.tool.call.id' : 'ai.toolCall.id'] = call.callId;
      const span: SpanSpec = { traceId, spanId: nextId(16), parentSpanId: rootId, name: flavor === 'genai' ? `execute_tool ${call.tool}` : 'ai.toolCall', startMs: start, endMs: start + (call.durationMs ?? 1), attributes };
      if (call.error) {
        span.status = { code: 2, message: call.error.message };
        if (flavor === 'genai') attributes['error.type'] = call.error.type ?? 'error';
        else span.events = [{ name: 'exception', attributes: { 'exception.type': call.error.type ?? 'Error', 'exception.message': call.error.message ?? '' } }];
      } else {
        attributes[flavor === 'genai' ? 'gen_ai.tool.call.result' : 'ai.toolCall.result'] = JSON.stringify(call.result);
      }
      spans.push(span);
    }
  }
  return spans;
}
