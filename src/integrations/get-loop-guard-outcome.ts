import type { RunGuard } from '../core/run-guard.js';
import type { PartialResults, StopDecision, StopReason } from '../core/types.js';
import { type DeliveredRefusal, deliveredRefusals } from './delivered-refusals.js';

/** Why and where a guarded framework run ended, as loopguard saw it. */
export interface LoopGuardOutcome {
  /** loopguard's stop reason; undefined when the model finished on its own. */
  stopReason: StopReason | undefined;
  /** The full stop decision (message given to the model, one-line detail, round). */
  stop: StopDecision | undefined;
  /** Every refusal delivered to the model, in order. */
  refusals: readonly DeliveredRefusal[];
  /** What the run learned: rounds, calls, new facts, wasted tokens, per-tool tallies. */
  partial: PartialResults;
}

/**
 * Frameworks report that the model stopped (`finishReason: 'stop'`, a final output) but not
 * that loopguard made it stop, nor why; read it here after the run returns.
 */
export function getLoopGuardOutcome(run: RunGuard): LoopGuardOutcome {
  const stop = run.stopped;
  return {
    stopReason: stop?.reason,
    stop,
    refusals: [...deliveredRefusals(run)],
    partial: run.partial(),
  };
}
