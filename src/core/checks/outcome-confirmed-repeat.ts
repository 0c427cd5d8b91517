import { CallState } from '../run-ledger.js';
import type { CallCheck } from './call-check.js';

/** Identical executions, each returning the same outcome with nothing written between, that confirm a call changes nothing. */
export const CONFIRMING_EXECUTIONS = 2;

/**
 * Outcome-confirmed repeats (document 003: a loop is identical(call) ∧ identical(outcome) ∧
 * no state advance; repetition of a call is not the signal). A call that may write, or whose
 * effect is unknown, may run again: `python reproduce.py` re-run after a fix prints "FIXED"
 * where it printed "BUG", and a status check answers differently once the job is done. It
 * is refused only once its own executions have confirmed that nothing changes: the same
 * call returned the same outcome {@link CONFIRMING_EXECUTIONS} times in a row, and nothing
 * else that may write ran in between or since. The first identical call runs (the state may
 * have moved), the second confirms, the third is refused — the same point at which the chat
 * check refuses a back-to-back repeat (document 000), but only when the outcome agrees.
 */
export const refuseConfirmedRepeat: CallCheck = ({ record, epoch, options, effect, policy }) => {
  // A read is refused at its first repeat (run-wide-repeat.ts), unless it was answered with an error.
  if (record === undefined || record.state !== CallState.Succeeded || (effect === 'read' && !record.answeredError) || !options.runWideRepeat) return undefined;
  if (record.confirmations >= CONFIRMING_EXECUTIONS && record.epoch === epoch) {
    // A shell command re-run at once is often a wait (`kubectl get pods` until Running): the
    // message tells the model how to wait instead, with a command that sleeps first (a poll).
    const facts: Record<string, number> = { times: record.confirmations };
    if (policy.shellArg !== undefined) facts.shell = 1;
    return { refuse: 'repeat.unchanged', facts };
  }
  return undefined;
};
