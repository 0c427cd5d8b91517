export { guardTools, type GuardToolsOptions } from './guard-tools.js';
export { loopGuardStopCondition } from './loop-guard-stop-condition.js';
export { loopGuardPrepareStep, type LoopGuardPrepareStepOptions } from './loop-guard-prepare-step.js';
export {
  createGuardedAgentSettings,
  type CreateGuardedAgentSettingsOptions,
  type GuardedAgentSettings,
} from './create-guarded-agent-settings.js';
export {
  interpretAiSdkSpan,
  type AiSdkSpanInput,
  type AiSdkSpanRole,
  type AiSdkRunSpan,
  type AiSdkRoundSpan,
  type AiSdkCallSpan,
} from './interpret-ai-sdk-span.js';
export { aiSdkSpanInterpreter } from './ai-sdk-span-interpreter.js';
export { loopGuardToolApproval, type LoopGuardApprovalStatus } from './loop-guard-tool-approval.js';
export { AiSdkGenAiSpanProcessor } from './ai-sdk-gen-ai-span-processor.js';
