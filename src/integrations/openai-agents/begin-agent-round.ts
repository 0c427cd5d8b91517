import type { RunContext } from '@openai/agents';
import type { RunGuard } from '../../core/run-guard.js';
import { getOpenAIAgentsRunState } from './openai-agents-run-state.js';
import { recordAgentUsage } from './record-agent-usage.js';

/**
 * Opens the loopguard round for the model call the SDK is preparing, once per model call.
 *
 * The SDK has no "before model call" hook that also carries the RunContext, so every per-turn
 * hook calls this and the first one wins: a turn is identified by the number of model requests
 * made so far (`runContext.usage.requests`), which grows by one per model call. Without a
 * RunContext (the input filter of an agent with no function tools) the filter opens the round.
 * The previous round's token usage is recorded first, as the difference since the last record.
 */
export function beginAgentRound(run: RunGuard, runContext: RunContext<unknown> | undefined): void {
  const state = getOpenAIAgentsRunState(run);
  if (runContext !== undefined) state.runContext = runContext;
  const context = state.runContext;
  if (context !== undefined) {
    const requests = context.usage.requests;
    if (requests === state.roundOpenedAtRequests) return;
    recordAgentUsage(run);
    state.roundOpenedAtRequests = requests;
  }
  run.beginRound();
  state.roundPendingFilter = true;
}
