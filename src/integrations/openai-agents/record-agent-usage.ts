import type { RunGuard } from '../../core/run-guard.js';
import { getOpenAIAgentsRunState } from './openai-agents-run-state.js';

/** Records the token usage reported since the last record into the current round. */
export function recordAgentUsage(run: RunGuard): void {
  const state = getOpenAIAgentsRunState(run);
  const usage = state.runContext?.usage;
  if (usage === undefined) return;
  const inputTokens = usage.inputTokens - state.recordedInputTokens;
  const outputTokens = usage.outputTokens - state.recordedOutputTokens;
  if (inputTokens === 0 && outputTokens === 0) return;
  if (run.round > 0) run.recordUsage({ inputTokens, outputTokens });
  state.recordedInputTokens = usage.inputTokens;
  state.recordedOutputTokens = usage.outputTokens;
}
