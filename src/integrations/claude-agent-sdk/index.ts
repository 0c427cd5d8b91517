// `loopguard/claude-agent-sdk`: needs `@anthropic-ai/claude-agent-sdk` (types only) and
// `@opentelemetry/api`, nothing else optional. Every symbol by name; loading this entry never
// loads the SDK itself.
export {
  createLoopGuardHooks,
  type ClaudeAgentLoopGuardOutcome,
  type CreateLoopGuardHooksOptions,
  type LoopGuardHooks,
} from './create-loop-guard-hooks.js';
export { toolFailureOutcome, toolResponseOutcome } from './tool-response-outcome.js';
export { getLoopGuardOutcome, type LoopGuardOutcome } from '../get-loop-guard-outcome.js';
export type { DeliveredRefusal } from '../delivered-refusals.js';
