import type { RunContext } from '@openai/agents';
import type { RunGuard } from '../../core/run-guard.js';
import type { RunDecision } from '../../core/types.js';
import { getOpenAIAgentsRunState } from './openai-agents-run-state.js';
import { recordAgentUsage } from './record-agent-usage.js';

/**
 * Opens the loopguard round for the model call the SDK is preparing, once per model call, and
 * returns loopguard's decision for that call (continue with disabled tools and maybe a nudge,
 * or stop).
 *
 * The SDK has no "before model call" hook that also carries the RunContext, so every per-turn
 * hook calls this and the first one wins: a turn is identified by the number of model requests
 * made so far (`runContext.usage.requests`), which grows by one per model call. Without a
 * RunContext (the input filter of an agent with no function tools) the filter opens the round.
 *
 * Order matters: the previous round's token usage is recorded and the run is judged while that
 * round is still current (so a nudge can name the tools that repeated), then the new round opens.
 */
export function beginAgentRound(run: RunGuard, runContext: RunContext<unknown> | undefined): RunDecision {
  const state = getOpenAIAgentsRunState(run);
  if (runContext !== undefined) state.runContext = runContext;
  const context = state.runContext;
  if (context !== undefined) {
    const requests = context.usage.requests;
    if (requests === state.roundOpenedAtRequests && state.decision !== undefined) return state.decision;
    state.roundOpenedAtRequests = requests;
  }
  recordAgentUsage(run);
  const decision = run.shouldStop();
  run.beginRound();
  state.decision = decision;
  state.roundPendingFilter = true;
  return decision;
}
