// Public entry of loopguard. Each symbol is exported by name so the surface is reviewable
// in one place; everything else under src/ is internal.

// Pure core: engine, run ledger, policy, identities.
export { LoopGuard, type LoopGuardEngineOptions, type LoopGuardLogger } from './core/loop-guard.js';
export { RunGuard, type CallTicket } from './core/run-guard.js';
export { resolveOptions, validateOptions, DEFAULT_THRESHOLD, type ResolvedOptions, type ResolvedToolPolicy } from './core/policy.js';
export { LoopGuardConfigError } from './core/errors.js';
export { callSignature } from './core/call-signature.js';
export { canonicalJson } from './core/canonical-json.js';
export { classifyError, describeError, fingerprintError, fingerprintOutcome, fingerprintResult, isEmptyResult } from './core/result-fingerprint.js';
export { DEFAULT_VOLATILE_ARGS, DEFAULT_VOLATILE_RESULT, OPT_IN_TIME_ARGS } from './core/volatile-fields.js';
export type {
  AllowDecision,
  AllowKind,
  CallDecision,
  CallOutcome,
  ContinueDecision,
  EscalationOptions,
  LoopGuardListener,
  LoopGuardOptions,
  ModelUsage,
  Novelty,
  OutcomeClass,
  PartialResults,
  PrehashedOutcome,
  PrehashedToolCall,
  Profile,
  RefusalReason,
  RefuseDecision,
  RoundSummary,
  RoundVerdict,
  RunDecision,
  RunView,
  StopDecision,
  StopReason,
  ToolCall,
  ToolErrorInfo,
  ToolPolicy,
  ToolTally,
} from './core/types.js';

// OpenTelemetry front: span processor, tool instrumentation, run helper.
export { LoopGuardSpanProcessor, type LoopGuardSpanProcessorOptions } from './otel/loop-guard-span-processor.js';
export { instrumentTool, isLoopGuardRefusal, type InstrumentToolOptions, type GuardedTool, type GuardedCallOptions, type ToolCallExtras } from './otel/instrument-tool.js';
export { startAgentRun, type StartAgentRunOptions, type AgentRun } from './otel/start-agent-run.js';
export { ToolTimeoutError } from './otel/tool-timeout-error.js';
export { interpretGenAiSpan, type SpanInterpreter, type SpanRole } from './otel/span-roles.js';
export {
  ATTR_ARGS_HASH,
  ATTR_DECISION,
  ATTR_ENFORCED,
  ATTR_NOVELTY,
  ATTR_OUTCOME,
  ATTR_REFUSAL_REASON,
  ATTR_RESULT_HASH,
  ATTR_ROUND,
  ATTR_RUN_ID,
  ATTR_STOP_REASON,
  DECISION_WOULD_REFUSE,
} from './otel/attributes.js';

// Replay: recorded runs through the same engine (the CLI is `loopguard replay`).
export { replayInputs, type ReplayInputsOptions, type ReplaySummary } from './replay/replay-inputs.js';
export { ReplaySession } from './replay/replay-session.js';
export type { ReplayCall } from './replay/replay-call.js';
export type { RunReport, ReplayDecision, ReplayStop } from './replay/run-report.js';
export { ReplayInputError, ReplayFileError } from './replay/replay-input-error.js';

// Telemetry: metrics and stop/refusal events from the engine (API only: costs nothing
// without a MeterProvider / LoggerProvider). The one-call SDK setup, which loads the SDKs
// and OTLP exporters, lives on its own subpath: `import { setupLoopGuardTelemetry } from 'loopguard/telemetry'`.
export { createLoopGuardTelemetry, OTHER_TOOL, type LoopGuardTelemetry, type LoopGuardTelemetryOptions, type ObservableGuard } from './telemetry/telemetry.js';
export { PROMETHEUS_METRICS, EVENT_RUN_STOP, EVENT_TOOL_REFUSED } from './telemetry/names.js';

// Framework adapters: Vercel AI SDK (v6; v7 tool approval) and OpenAI Agents JS. They import
// only their SDK's types, so loading loopguard never loads either SDK.
export {
  createGuardedAgentSettings,
  type CreateGuardedAgentSettingsOptions,
  type GuardedAgentSettings,
  guardTools,
  type GuardToolsOptions,
  loopGuardPrepareStep,
  type LoopGuardPrepareStepOptions,
  loopGuardStopCondition,
  loopGuardToolApproval,
  type LoopGuardApprovalStatus,
  AiSdkGenAiSpanProcessor,
  aiSdkSpanInterpreter,
  interpretAiSdkSpan,
  type AiSdkSpanInput,
  type AiSdkSpanRole,
  type AiSdkRunSpan,
  type AiSdkRoundSpan,
  type AiSdkCallSpan,
  createGuardedAgentRun,
  type CreateGuardedAgentRunOptions,
  type GuardedAgentRun,
  guardAgentTools,
  type GuardAgentToolsOptions,
  loopGuardToolInputGuardrail,
  LOOP_GUARD_INPUT_GUARDRAIL_NAME,
  loopGuardToolOutputGuardrail,
  AgentToolError,
  loopGuardCallModelInputFilter,
  loopGuardToolErrorFormatter,
  getLoopGuardOutcome,
  type LoopGuardOutcome,
  type DeliveredRefusal,
} from './integrations/index.js';
