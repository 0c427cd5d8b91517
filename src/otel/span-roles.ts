import { fingerprintError, fingerprintResult } from '../core/result-fingerprint.js';
import type { ResolvedToolPolicy } from '../core/policy.js';
import type { OutcomeClass, PrehashedOutcome } from '../core/types.js';
import {
  ATTR_ARGS_HASH,
  ATTR_ERROR_TYPE,
  ATTR_GEN_AI_CONVERSATION_ID,
  ATTR_GEN_AI_OPERATION_NAME,
  ATTR_GEN_AI_TOOL_CALL_ARGUMENTS,
  ATTR_GEN_AI_TOOL_CALL_ID,
  ATTR_GEN_AI_TOOL_CALL_RESULT,
  ATTR_GEN_AI_TOOL_NAME,
  ATTR_GEN_AI_USAGE_INPUT_TOKENS,
  ATTR_GEN_AI_USAGE_OUTPUT_TOKENS,
  ATTR_OUTCOME,
  ATTR_RESULT_HASH,
  ATTR_RUN_ID,
  ATTR_UNFINGERPRINTABLE,
  MODEL_CALL_OPERATIONS,
  OPERATION_EXECUTE_TOOL,
  OPERATION_INVOKE_AGENT,
} from './attributes.js';

/**
 * Attribute values as the SDK and decoded OTLP JSON give them. `unknown`: from
 * `@opentelemetry/api` 1.10 (OTel JS 3.x) an attribute may hold any value (maps, bytes, nested
 * arrays), so readers check the type of what they read.
 */
export type SpanAttributeValue = unknown;
export type SpanAttributeMap = Readonly<Record<string, SpanAttributeValue>>;

/** What a span means to the ledger. Pure data, shared by the span processor and replay. */
export type SpanRole =
  | {
      kind: 'run';
      runId: string | undefined;
      /**
       * True when `runId` names a conversation (`gen_ai.conversation.id`) rather than one run:
       * a conversation can have several runs open at once (two requests of one chat), so a
       * span that is not nested in the open run of that id opens a run of its own.
       */
      conversation?: boolean;
    }
  | { kind: 'round' }
  | {
      kind: 'call';
      tool: string;
      callId: string | undefined;
      argsHash: string | undefined;
      rawArguments: string | undefined;
      /** Where this convention keeps the raw result. Default `gen_ai.tool.call.result`. */
      resultAttribute?: string;
    };

/**
 * An extra mapping for spans of other conventions (e.g. the Vercel AI SDK's `ai.toolCall`).
 * Returns undefined for spans it does not know.
 */
export type SpanInterpreter = (name: string, attributes: SpanAttributeMap) => SpanRole | undefined;

function text(value: SpanAttributeValue): string | undefined {
  if (typeof value === 'string') return value;
  if (typeof value === 'number' || typeof value === 'boolean') return String(value);
  return undefined;
}

/**
 * OpenTelemetry GenAI conventions: `invoke_agent` opens a run, a model-call operation
 * (chat / generate_content / text_completion) opens a round, `execute_tool` is a call.
 * The operation name attribute decides; the span name prefix is the fallback for spans that
 * only follow the naming half of the convention.
 */
export const interpretGenAiSpan: SpanInterpreter = (name, attributes) => {
  const operation = text(attributes[ATTR_GEN_AI_OPERATION_NAME]) ?? name.split(' ', 1)[0];
  if (operation === OPERATION_INVOKE_AGENT) {
    const runId = text(attributes[ATTR_RUN_ID]);
    if (runId !== undefined) return { kind: 'run', runId };
    const conversationId = text(attributes[ATTR_GEN_AI_CONVERSATION_ID]);
    return conversationId === undefined ? { kind: 'run', runId: undefined } : { kind: 'run', runId: conversationId, conversation: true };
  }
  if (operation !== undefined && MODEL_CALL_OPERATIONS.has(operation)) return { kind: 'round' };
  if (operation === OPERATION_EXECUTE_TOOL) {
    const tool = text(attributes[ATTR_GEN_AI_TOOL_NAME]) ?? name.slice(OPERATION_EXECUTE_TOOL.length + 1);
    if (!tool) return undefined;
    return {
      kind: 'call',
      tool,
      callId: text(attributes[ATTR_GEN_AI_TOOL_CALL_ID]),
      argsHash: text(attributes[ATTR_ARGS_HASH]),
      rawArguments: text(attributes[ATTR_GEN_AI_TOOL_CALL_ARGUMENTS]),
    };
  }
  return undefined;
};

/** Runs the interpreters in order; the first that recognises the span wins. */
export function interpretSpan(name: string, attributes: SpanAttributeMap, interpreters: readonly SpanInterpreter[]): SpanRole | undefined {
  for (const interpreter of interpreters) {
    const role = interpreter(name, attributes);
    if (role !== undefined) return role;
  }
  return undefined;
}

const OUTCOMES: ReadonlySet<string> = new Set<OutcomeClass>(['success', 'empty', 'error', 'overloaded', 'timeout']);

/**
 * The outcome of an ended call span: loopguard's own attributes when the instrumentation set
 * them; otherwise an ERROR status with `error.type` (values `overloaded` and `timeout` keep
 * their meaning); otherwise the raw `gen_ai.tool.call.result` when it was recorded; otherwise
 * "succeeded, content unknown" — unfingerprintable, which leans to a new fact.
 */
export function readCallOutcome(
  attributes: SpanAttributeMap,
  status: { code: number; message?: string | undefined },
  policy: ResolvedToolPolicy,
  maxBytes: number,
  resultAttribute: string = ATTR_GEN_AI_TOOL_CALL_RESULT,
): PrehashedOutcome {
  const recorded = text(attributes[ATTR_OUTCOME]);
  if (recorded !== undefined && OUTCOMES.has(recorded)) {
    const outcome: PrehashedOutcome = { outcome: recorded as PrehashedOutcome['outcome'] };
    const hash = text(attributes[ATTR_RESULT_HASH]);
    if (hash !== undefined) outcome.resultHash = hash;
    if (attributes[ATTR_UNFINGERPRINTABLE] === true) outcome.unfingerprintable = true;
    const errorType = text(attributes[ATTR_ERROR_TYPE]);
    if (errorType !== undefined) outcome.errorType = errorType;
    return outcome;
  }
  // SpanStatusCode.ERROR === 2 in every OTel API version.
  if (status.code === 2) {
    return fingerprintError({ type: text(attributes[ATTR_ERROR_TYPE]) ?? 'error', message: status.message ?? '' });
  }
  const raw = attributes[resultAttribute];
  if (typeof raw === 'string') {
    if (isTruncatedJson(raw)) return { outcome: 'success', unfingerprintable: true };
    return fingerprintResult(raw, policy, maxBytes);
  }
  return { outcome: 'success', unfingerprintable: true };
}

/**
 * Raw text read off a span that looks like JSON but does not parse was most likely cut by
 * the SDK's attribute length limit (`spanLimits.attributeValueLengthLimit`). Two different
 * values cut to the same prefix would look identical, so such text is no identity at all:
 * the call is judged new rather than a repeat, the result new rather than seen.
 */
export function isTruncatedJson(text: string): boolean {
  const start = text.trimStart()[0];
  if (start !== '{' && start !== '[') return false;
  try {
    JSON.parse(text);
    return false;
  } catch (error) {
    // Only JSON that runs out mid-value is cut; text that merely starts with a bracket
    // ("[1] Refund policy…", "[ -f x ] && …") fails earlier and is compared as text.
    const message = error instanceof Error ? error.message : '';
    if (/end of JSON input|Unterminated string/.test(message)) return true;
    const position = /at position (\d+)/.exec(message);
    return position !== null && Number(position[1]) >= text.length;
  }
}

/** Token usage recorded on a model-call span. */
export function readUsage(attributes: SpanAttributeMap): { inputTokens?: number; outputTokens?: number } | undefined {
  const input = Number(attributes[ATTR_GEN_AI_USAGE_INPUT_TOKENS]);
  const output = Number(attributes[ATTR_GEN_AI_USAGE_OUTPUT_TOKENS]);
  const usage: { inputTokens?: number; outputTokens?: number } = {};
  if (Number.isFinite(input)) usage.inputTokens = input;
  if (Number.isFinite(output)) usage.outputTokens = output;
  return usage.inputTokens === undefined && usage.outputTokens === undefined ? undefined : usage;
}
