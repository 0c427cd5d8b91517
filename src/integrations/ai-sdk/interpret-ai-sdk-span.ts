import type { ModelUsage, ToolErrorInfo } from '../../core/types.js';

/** The parts of a span the interpretation reads; plain data, so no OpenTelemetry types. */
export interface AiSdkSpanInput {
  /** Span name, e.g. `ai.generateText`, `ai.generateText.doGenerate`, `ai.toolCall`. */
  name: string;
  attributes: Readonly<Record<string, unknown>>;
  /** The parent span, when known: a generateText under a tool call is a sub-agent's run. */
  parent?: { name: string } | undefined;
  /** At span end: `code` 2 is OpenTelemetry's ERROR. */
  status?: { code: number; message?: string } | undefined;
  /** At span end: the SDK records a thrown error as an `exception` event. */
  events?: ReadonlyArray<{ name: string; attributes?: Readonly<Record<string, unknown>> }> | undefined;
}

/** An `ai.generateText` / `ai.streamText` span: one agent run. */
export interface AiSdkRunSpan {
  role: 'run';
  /**
   * From `experimental_telemetry.metadata.runId` (or `conversationId`, `sessionId`); with AI
   * SDK 7, from the runtime context's `runId` (same keys) when telemetry includes it.
   */
  runId: string | undefined;
  /** `experimental_telemetry.functionId`: names the agent, not the run. */
  agentName: string | undefined;
  /** True when the parent span is a tool call: a sub-agent run. */
  nested: boolean;
}

/** An `ai.generateText.doGenerate` / `ai.streamText.doStream` span: one model call, one round. */
export interface AiSdkRoundSpan {
  role: 'round';
  /** Present at span end. */
  usage: ModelUsage | undefined;
}

/** An `ai.toolCall` span: one tool call. */
export interface AiSdkCallSpan {
  role: 'call';
  tool: string;
  callId: string | undefined;
  /** Parsed `ai.toolCall.args`; undefined when the SDK records no outputs (it files the arguments under outputs: `recordOutputs: false` drops them). */
  args: unknown;
  argsRecorded: boolean;
  /**
   * At span end: what the call returned. `undefined` while the span is open, and when the call
   * succeeded but outputs are not recorded (`recordOutputs: false`): the result is unknown,
   * which loopguard treats as unfingerprintable (a new fact) rather than as empty.
   */
  outcome: { result: unknown } | { error: ToolErrorInfo } | undefined;
}

/**
 * What an AI SDK span is to loopguard: a run (`ai.generateText` / `ai.streamText`), a round (a
 * model call), or a tool call with its arguments and outcome.
 */
export type AiSdkSpanRole = AiSdkRunSpan | AiSdkRoundSpan | AiSdkCallSpan;

const RUN_OPERATIONS = new Set(['ai.generateText', 'ai.streamText']);
const MODEL_CALL_OPERATIONS = new Set(['ai.generateText.doGenerate', 'ai.streamText.doStream']);
const TOOL_CALL_OPERATION = 'ai.toolCall';
const RUN_ID_METADATA_KEYS = ['runId', 'conversationId', 'sessionId'];
const STATUS_CODE_ERROR = 2;

/**
 * Maps a span of the Vercel AI SDK's own telemetry (`experimental_telemetry: { isEnabled: true }`,
 * AI SDK 5 and 6; AI SDK 7 with @ai-sdk/otel's `LegacyOpenTelemetry` integration) to the role
 * loopguard gives it, so a user who already traces gets a ledger
 * without wrapping anything: the span processor calls this on span start (run, round, call
 * with its arguments) and on span end (usage, call outcome). Returns undefined for spans that
 * are not the SDK's (or that loopguard has no use for, such as embeddings).
 *
 * The operation is read from `ai.operationId` (the name can carry a functionId suffix in
 * `operation.name`; the span name itself is the bare operation).
 */
export function interpretAiSdkSpan(span: AiSdkSpanInput): AiSdkSpanRole | undefined {
  const attributes = span.attributes;
  const operation = typeof attributes['ai.operationId'] === 'string' ? attributes['ai.operationId'] : span.name;

  if (RUN_OPERATIONS.has(operation)) {
    return {
      role: 'run',
      runId: runIdFrom(attributes),
      agentName: stringAttribute(attributes, 'ai.telemetry.functionId'),
      nested: span.parent?.name === TOOL_CALL_OPERATION,
    };
  }

  if (MODEL_CALL_OPERATIONS.has(operation)) {
    const inputTokens = numberAttribute(attributes, 'ai.usage.inputTokens') ?? numberAttribute(attributes, 'gen_ai.usage.input_tokens');
    const outputTokens = numberAttribute(attributes, 'ai.usage.outputTokens') ?? numberAttribute(attributes, 'gen_ai.usage.output_tokens');
    return {
      role: 'round',
      usage: inputTokens === undefined && outputTokens === undefined ? undefined : { inputTokens, outputTokens },
    };
  }

  if (operation === TOOL_CALL_OPERATION) {
    const tool = stringAttribute(attributes, 'ai.toolCall.name');
    if (tool === undefined) return undefined;
    const argsText = stringAttribute(attributes, 'ai.toolCall.args');
    return {
      role: 'call',
      tool,
      callId: stringAttribute(attributes, 'ai.toolCall.id'),
      args: argsText === undefined ? undefined : parseJsonText(argsText),
      argsRecorded: argsText !== undefined,
      outcome: callOutcome(span),
    };
  }
  return undefined;
}

function callOutcome(span: AiSdkSpanInput): AiSdkCallSpan['outcome'] {
  if (span.status?.code === STATUS_CODE_ERROR) {
    const exception = span.events?.find((event) => event.name === 'exception')?.attributes;
    return {
      error: {
        type: typeof exception?.['exception.type'] === 'string' ? exception['exception.type'] : undefined,
        message: span.status.message ?? (typeof exception?.['exception.message'] === 'string' ? exception['exception.message'] : undefined),
      },
    };
  }
  const resultText = stringAttribute(span.attributes, 'ai.toolCall.result');
  if (resultText !== undefined) return { result: parseJsonText(resultText) };
  return undefined;
}

// AI SDK 5/6: `experimental_telemetry.metadata`. AI SDK 7 dropped telemetry metadata: the run
// id is runtime context (`runtimeContext` listed in `includeRuntimeContext`), recorded by
// @ai-sdk/otel's LegacyOpenTelemetry as `ai.settings.context.*`.
const RUN_ID_PREFIXES = ['ai.telemetry.metadata.', 'ai.settings.context.'];

function runIdFrom(attributes: Readonly<Record<string, unknown>>): string | undefined {
  for (const prefix of RUN_ID_PREFIXES) {
    for (const key of RUN_ID_METADATA_KEYS) {
      const value = attributes[`${prefix}${key}`];
      if (typeof value === 'string' && value !== '') return value;
      if (typeof value === 'number') return String(value);
    }
  }
  return undefined;
}

/** The SDK records args and results as JSON text; a value that is not JSON stays text. */
function parseJsonText(text: string): unknown {
  try {
    return JSON.parse(text);
  } catch {
    return text;
  }
}

function stringAttribute(attributes: Readonly<Record<string, unknown>>, key: string): string | undefined {
  const value = attributes[key];
  return typeof value === 'string' ? value : undefined;
}

function numberAttribute(attributes: Readonly<Record<string, unknown>>, key: string): number | undefined {
  const value = attributes[key];
  return typeof value === 'number' && Number.isFinite(value) ? value : undefined;
}
