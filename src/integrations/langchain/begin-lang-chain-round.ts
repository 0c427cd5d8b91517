import type { RunGuard } from '../../core/run-guard.js';
import type { RunDecision } from '../../core/types.js';
import { getLangChainRunState } from './lang-chain-run-state.js';

/**
 * Opens the loopguard round of the model call about to happen and returns loopguard's
 * decision for it. The run is judged first, while the round that just finished is still
 * current (so a nudge can name the tools that repeated), then the new round opens.
 */
export function beginLangChainRound(run: RunGuard): RunDecision {
  const state = getLangChainRunState(run);
  const decision = run.shouldStop();
  run.beginRound();
  state.decision = decision;
  return decision;
}
