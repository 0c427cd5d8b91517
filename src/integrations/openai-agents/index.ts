// `loopguard/openai-agents`: needs `@openai/agents` and `@opentelemetry/api`, nothing else optional.
// Every symbol by name; the adapters import only their SDK's types, so loading this entry
// never loads the SDK itself.
export { guardAgentTools, type GuardAgentToolsOptions } from './guard-agent-tools.js';
export { loopGuardToolInputGuardrail, LOOP_GUARD_INPUT_GUARDRAIL_NAME } from './loop-guard-tool-input-guardrail.js';
export { loopGuardToolOutputGuardrail, AgentToolError } from './loop-guard-tool-output-guardrail.js';
export { loopGuardCallModelInputFilter } from './loop-guard-call-model-input-filter.js';
export { loopGuardToolErrorFormatter } from './loop-guard-tool-error-formatter.js';
export {
  createGuardedAgentRun,
  type CreateGuardedAgentRunOptions,
  type GuardedAgentRun,
} from './create-guarded-agent-run.js';
export { getLoopGuardOutcome, type LoopGuardOutcome } from '../get-loop-guard-outcome.js';
export type { DeliveredRefusal } from '../delivered-refusals.js';
