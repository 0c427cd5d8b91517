import type { RunGuard } from '../core/run-guard.js';
import { reportToDiag } from '../otel/report-to-diag.js';

/**
 * Per-run settings kept past `end()` (an agent built once and called again, say) belong to a
 * run that is over: their tools are hidden and every call is refused `run.stopped`. Loopguard
 * does not quietly open a new run behind the caller's back (`run`, `outcome()` and `end()`
 * would then describe a different run than the one the caller holds, and two concurrent
 * calls of one agent would share it); the returned function says what happened, once per
 * run, on `diag`. A run the engine evicted is not warned about here: it fails open and the
 * engine warns. `what` names the reused object and `howToFix` the adapter's way to make one
 * per run.
 */
export function warnOnReuseAfterEnd(run: RunGuard, what: string, consequence: string, howToFix: string): () => void {
  let warned = false;
  return () => {
    if (warned || !run.isEnded || run.isUnguarded) return;
    warned = true;
    reportToDiag('warn', `loopguard: the ${what} of run ${JSON.stringify(run.id)} were used after end(). That run is over, so ${consequence}. ${howToFix}`);
  };
}
