// `loopguard/ai-sdk`: needs `ai` (AI SDK 6 or 7) and `@opentelemetry/api`, nothing else optional.
// Every symbol by name; the adapters import only their SDK's types, so loading this entry
// never loads the SDK itself.
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
export { getLoopGuardOutcome, type LoopGuardOutcome } from '../get-loop-guard-outcome.js';
export type { DeliveredRefusal } from '../delivered-refusals.js';
