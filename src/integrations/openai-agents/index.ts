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
