// `loopguard/langchain`: needs `@langchain/core` and `@opentelemetry/api`, nothing else optional.
// `@langchain/langgraph` and `langchain` are never loaded: the middleware is a plain object of
// the shape langchain's `createMiddleware` returns, and LangGraph's `Command` and `END` are
// recognised structurally. Every symbol by name.
export { guardLangChainTools, type GuardLangChainToolsOptions } from './guard-lang-chain-tools.js';
export {
  loopGuardMiddleware,
  type LoopGuardMiddleware,
  type LoopGuardMiddlewareOptions,
  type LoopGuardModelRequest,
  type LoopGuardToolCallRequest,
} from './loop-guard-middleware.js';
export { createGuardedAgentRun, type CreateGuardedAgentRunOptions, type GuardedAgentRun } from './create-guarded-agent-run.js';
export { prepareLoopGuardModelCall, type PreparedModelCall } from './prepare-loop-guard-model-call.js';
export { loopGuardToolsCondition, type LoopGuardToolsConditionOptions } from './loop-guard-tools-condition.js';
export type { LoopGuardModelInput } from './apply-loop-guard-decision.js';
export {
  LoopGuardCallbackHandler,
  type LoopGuardCallbackHandlerOptions,
  type WouldRefuseDecision,
} from './loop-guard-callback-handler.js';
export { LangChainToolError } from './tool-result-outcome.js';
export { getLoopGuardOutcome, type LoopGuardOutcome } from '../get-loop-guard-outcome.js';
export type { DeliveredRefusal } from '../delivered-refusals.js';
