import type { CallCheck } from './call-check.js';

/**
 * A write whose outcome is unknown (document 001: "a network timeout does not establish that
 * a tool never executed"). An identical write after a timeout may do the thing twice — a
 * second email, a second payment — so it is not a retry like a timed-out read: it is refused
 * until another call has run since the timeout (the model had the chance to look), and the
 * refusal tells the model to check the existing records first. After that the identical
 * write may run again as a retry within the tool's retry budget: the guard cannot tell
 * whether the check found the record, the model can.
 *
 * Any other call counts as "looked", not only reads: shell calls that arrive as spans carry
 * no command line and are taken to write (run-guard.ts factsOf), so a bash-only agent would
 * otherwise never be allowed to re-run a command that timed out.
 *
 * Only calls that may write are held back: a timed-out read changes nothing and keeps its
 * honest retry (document 003). A write turned away by an overloaded server (429/503) did
 * not run and is not recorded (run-guard.ts records timeouts only).
 */
export const refuseBlindRetryOfTimedOutWrite: CallCheck = ({ ledger, argsHash, effect }) => {
  const timedOut = ledger.writesOfUnknownOutcome;
  if (timedOut === undefined || effect !== 'write') return undefined;
  const executedAtTimeout = timedOut.get(argsHash);
  if (executedAtTimeout === undefined || ledger.executed > executedAtTimeout) return undefined;
  return { refuse: 'write.outcome_unknown' };
};
