// Public entry of loopguard (`import ... from 'loopguard'`). Each symbol is exported by name
// so the surface is reviewable in one place; everything else under src/ is internal. Nothing
// reachable from here imports an optional package, in code or in the emitted declarations:
// a project with only loopguard and @opentelemetry/api type-checks and runs it.

// Pure core: engine, run ledger, policy, identities.
export { LoopGuard, type LoopGuardEngineOptions, type LoopGuardLogger } from './core/loop-guard.js';
export { RunGuard, type CallTicket } from './core/run-guard.js';
export { resolveOptions, validateOptions, DEFAULT_THRESHOLD, type ResolvedOptions, type ResolvedToolPolicy } from './core/policy.js';
export { InvalidToolCallError, LoopGuardConfigError } from './core/errors.js';
// The shared ledger's contract and its in-process store (the Redis store is `loopguard/redis`).
export { createMemoryRunStore, type MemoryRunStoreOptions } from './core/shared-ledger/create-memory-run-store.js';
export { MemoryRunStoreFullError } from './core/shared-ledger/memory-run-store-full-error.js';
export type { AppendResult, BusinessKey, BusinessKeyState, RunLogSummary, RunStore } from './core/shared-ledger/run-store.js';
export type { IdempotentWritePolicy, SharedLedgerEngineOptions, StoreFailurePolicy, VerifiedWrite } from './core/shared-ledger/shared-ledger-options.js';
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
export { startAgentRun, type StartAgentRunOptions, type AgentRun, type ModelCallOptions } from './otel/start-agent-run.js';
export { ToolTimeoutError } from './otel/tool-timeout-error.js';
export { interpretGenAiSpan, type SpanInterpreter, type SpanRole } from './otel/span-roles.js';
export {
  ATTR_ARGS_HASH,
  ATTR_CONTEXT_COMPACTED,
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

// What a framework adapter's run ended with (returned by the adapters on `loopguard/ai-sdk`
// and `loopguard/openai-agents`, which re-export it); core types only.
export { getLoopGuardOutcome, type LoopGuardOutcome } from './integrations/get-loop-guard-outcome.js';
export type { DeliveredRefusal } from './integrations/delivered-refusals.js';

// Not here, each on its own subpath so this entry needs nothing but `@opentelemetry/api`:
//   loopguard/telemetry      metrics, events and the one-call SDK setup (OTel SDK peers)
//   loopguard/replay         recorded runs through the engine (Node streams; the CLI is `loopguard replay`)
//   loopguard/ai-sdk         Vercel AI SDK adapters (peer `ai`)
//   loopguard/openai-agents  OpenAI Agents JS adapters (peer `@openai/agents`)
