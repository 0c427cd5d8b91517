import type { RunContext } from '@openai/agents';
import type { RunGuard } from '../../core/run-guard.js';
import type { RunDecision } from '../../core/types.js';
import { getOpenAIAgentsRunState } from './openai-agents-run-state.js';
import { recordAgentUsage } from './record-agent-usage.js';
import { settleUnreturnedCalls } from './settle-unreturned-calls.js';

/**
 * Opens the loopguard round for the model call the SDK is preparing, once per model call, and
 * returns loopguard's decision for that call (continue with disabled tools and maybe a nudge,
 * or stop).
 *
 * The SDK has no single "before model call" hook that also carries the RunContext. Per turn it
 * asks every function tool `isEnabled` (with the RunContext), then runs `callModelInputFilter`
 * once, then calls the model. So the first `isEnabled` after a filter opens the round, the
 * other tools of that turn reuse it, and the filter closes the turn; with no function tools
 * the filter opens the round itself. Counting on this order rather than on the usage counter
 * keeps rounds right for providers that report no usage.
 *
 * Order matters inside: the previous round's token usage is recorded and the run is judged
 * while that round is still current (so a nudge can name the tools that repeated), then the
 * new round opens.
 */
export function beginAgentRound(run: RunGuard, runContext: RunContext<unknown> | undefined): RunDecision {
  const state = getOpenAIAgentsRunState(run);
  if (runContext !== undefined) state.runContext = runContext;
  if (state.roundPendingFilter && state.decision !== undefined) return state.decision;
  // The SDK is done with the last turn's calls: one still open never handed back its output.
  settleUnreturnedCalls(run, 'turn');
  recordAgentUsage(run);
  const decision = run.shouldStop();
  run.beginRound();
  state.decision = decision;
  state.roundPendingFilter = true;
  return decision;
}
