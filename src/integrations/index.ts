// Framework adapters. They import their SDK's types only, so loading loopguard never loads
// the AI SDK or the OpenAI Agents SDK: install the one you use.
export * from './ai-sdk/index.js';
export * from './openai-agents/index.js';
export { getLoopGuardOutcome, type LoopGuardOutcome } from './get-loop-guard-outcome.js';
export type { DeliveredRefusal } from './delivered-refusals.js';
