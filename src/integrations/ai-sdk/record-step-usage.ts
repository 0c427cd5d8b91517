import type { LanguageModelUsage } from 'ai';
import type { RunGuard } from '../../core/run-guard.js';
import { getAiSdkRunState } from './ai-sdk-run-state.js';

/**
 * Records the token usage of the step that just finished into the round that is still current
 * (each step's usage belongs to its round until the next beginRound). Called from onStepFinish
 * and again from prepareStep; whichever comes first records, the other sees it done.
 */
export function recordStepUsage(run: RunGuard, steps: ReadonlyArray<{ usage: LanguageModelUsage }>): void {
  const state = getAiSdkRunState(run);
  if (steps.length === 0 || steps.length <= state.usageRecordedSteps) return;
  const usage = steps[steps.length - 1].usage;
  run.recordUsage({ inputTokens: usage?.inputTokens, outputTokens: usage?.outputTokens });
  state.usageRecordedSteps = steps.length;
}
