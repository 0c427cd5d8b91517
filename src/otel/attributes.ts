// Span attribute names and values shared by the instrumentation, the span processor, the
// replay reader and the telemetry. GenAI names follow the OpenTelemetry GenAI semantic
// conventions; loopguard's own live under `loopguard.*`.

export const ATTR_GEN_AI_OPERATION_NAME = 'gen_ai.operation.name';
export const ATTR_GEN_AI_TOOL_NAME = 'gen_ai.tool.name';
export const ATTR_GEN_AI_TOOL_CALL_ID = 'gen_ai.tool.call.id';
export const ATTR_GEN_AI_TOOL_TYPE = 'gen_ai.tool.type';
export const ATTR_GEN_AI_TOOL_CALL_ARGUMENTS = 'gen_ai.tool.call.arguments';
export const ATTR_GEN_AI_TOOL_CALL_RESULT = 'gen_ai.tool.call.result';
export const ATTR_GEN_AI_CONVERSATION_ID = 'gen_ai.conversation.id';
export const ATTR_GEN_AI_AGENT_NAME = 'gen_ai.agent.name';
export const ATTR_GEN_AI_USAGE_INPUT_TOKENS = 'gen_ai.usage.input_tokens';
export const ATTR_GEN_AI_USAGE_OUTPUT_TOKENS = 'gen_ai.usage.output_tokens';
export const ATTR_ERROR_TYPE = 'error.type';

/** `gen_ai.operation.name` values that loopguard reads. */
export const OPERATION_INVOKE_AGENT = 'invoke_agent';
export const OPERATION_EXECUTE_TOOL = 'execute_tool';
/** Model-call operations: each one opens a round. */
export const MODEL_CALL_OPERATIONS: ReadonlySet<string> = new Set(['chat', 'generate_content', 'text_completion']);

/** Names a run on the `invoke_agent` span (falls back to gen_ai.conversation.id, then the span id). */
export const ATTR_RUN_ID = 'loopguard.run.id';
/** Argument identity (see src/core/call-signature.ts), set at span start. */
export const ATTR_ARGS_HASH = 'loopguard.tool.args_hash';
/**
 * What was read from the call's arguments besides their hash (a shell command's effect and poll
 * window, a paged call's listing, a file window), as JSON (core/call-facts-text.ts), set at
 * span start; absent when there is nothing (most tools). Replay reads it with the args hash.
 */
export const ATTR_CALL_FACTS = 'loopguard.tool.call_facts';
/**
 * What was read from the result besides its hash (a transient failure, a rejected step, a last
 * page, the items of a new result), as JSON (core/outcome-facts-text.ts), set at span end;
 * absent when there is nothing. Replay reads it with the result hash.
 */
export const ATTR_OUTCOME_FACTS = 'loopguard.tool.outcome_facts';
/** Result fingerprint; absent when the result was empty or could not be fingerprinted. */
export const ATTR_RESULT_HASH = 'loopguard.tool.result_hash';
/** OutcomeClass of the call. */
export const ATTR_OUTCOME = 'loopguard.tool.outcome';
/** true when the result could not be fingerprinted. */
export const ATTR_UNFINGERPRINTABLE = 'loopguard.tool.unfingerprintable';
/**
 * Set by the span processor at span start: `allow`, `refuse` (the call was not run), or
 * `would_refuse` — the guard would have refused it, but nothing enforces the decision on this
 * span (observe-only: spans of another instrumentation, e.g. the AI SDK's `ai.toolCall`), so the
 * call ran.
 */
export const ATTR_DECISION = 'loopguard.decision';
/** {@link ATTR_DECISION} on a call whose decision nothing enforced. */
export const DECISION_WOULD_REFUSE = 'would_refuse';
/**
 * `true` at span start on spans whose maker enforces the processor's decision (reads
 * `decisionForSpan` and does not run a refused call), as loopguard's `instrumentTool` does.
 * Without it a span's refusals are recorded as {@link DECISION_WOULD_REFUSE}.
 */
export const ATTR_ENFORCED = 'loopguard.enforced';
/** RefusalReason when refused. */
export const ATTR_REFUSAL_REASON = 'loopguard.refusal.reason';
/** new | seen | neutral, set when the call ends. */
export const ATTR_NOVELTY = 'loopguard.novelty';
/** Round number the call belongs to. */
export const ATTR_ROUND = 'loopguard.round';
/** On the invoke_agent span when the run ends. */
export const ATTR_STOP_REASON = 'loopguard.stop.reason';
export const ATTR_RUN_ROUNDS = 'loopguard.run.rounds';
export const ATTR_RUN_REFUSALS = 'loopguard.run.refusals';
export const ATTR_RUN_TOOL_CALLS = 'loopguard.run.tool_calls';
/**
 * `true` on a model-call span whose prompt lost tool results the model had before: the
 * conversation was compacted, summarised or trimmed (RunGuard.contextCompacted). Read when the
 * span starts or, if set later, when it ends; once per span. Replay reads it from exports.
 */
export const ATTR_CONTEXT_COMPACTED = 'loopguard.context.compacted';
/** Marks spans produced by loopguard's own exporters/telemetry so the processor ignores them. */
export const ATTR_INTERNAL = 'loopguard.internal';
