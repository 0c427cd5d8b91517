import type { LanguageModelUsage } from 'ai';
import type { RunGuard } from '../../core/run-guard.js';
import { getAiSdkRunState } from './ai-sdk-run-state.js';

/**
 * Records the token usage of finished step number `finishedSteps` (1-based) into the round that
 * is still current (a step's usage belongs to its round until the next beginRound). Called
 * from onStepFinish and again from prepareStep; whichever comes first records, the other sees
 * it done.
 */
export function recordStepUsage(run: RunGuard, finishedSteps: number, usage: LanguageModelUsage | undefined): void {
  const state = getAiSdkRunState(run);
  if (finishedSteps === 0 || finishedSteps <= state.usageRecordedSteps || usage === undefined) return;
  run.recordUsage({ inputTokens: usage.inputTokens, outputTokens: usage.outputTokens });
  state.usageRecordedSteps = finishedSteps;
}
