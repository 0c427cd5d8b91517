import { CallState } from '../run-ledger.js';
import type { CallCheck, CallCheckResult } from './call-check.js';
import { CONFIRMING_EXECUTIONS } from './outcome-confirmed-repeat.js';

/**
 * Retry vs recursion (document 003): an identical call whose previous execution *failed* is
 * a retry, not a repeat.
 * - A transient failure (overloaded, timed out, a 5xx, a dropped connection) may pass by
 *   itself: 503 four times then success on the fifth is correct behaviour. Retries are
 *   allowed within the tool's `retries` budget (default: the shared threshold); past it,
 *   retrying unchanged is refused.
 * - A deterministic failure (a 404, a validation error, `command not found`, a syntax error)
 *   comes back the same: the identical call failing with the identical error
 *   {@link CONFIRMING_EXECUTIONS} times, with nothing written in between, is recursion, and
 *   the third attempt is refused. A tool that declares `retries` keeps its declared budget
 *   for every failure (document 003, condition 3: the budget is declared out of band).
 * Consecutive-failure detection bounds both from the other side — but a failed retry the
 * budget covers is not counted toward it, nor toward stale rounds, until the failure that
 * spends the budget counts them all at once (run-guard.ts finishCall). Otherwise any budget
 * at or above `consecutiveFailures` (the default included) could never be used.
 */
export const checkRetryBudget: CallCheck = ({ record, policy, epoch }): CallCheckResult => {
  if (record === undefined || (record.state !== CallState.Failed && record.state !== CallState.FailedTransient)) return undefined;
  if (record.state === CallState.Failed && !policy.retriesDeclared) {
    if (record.confirmations >= CONFIRMING_EXECUTIONS && record.epoch === epoch) {
      return { refuse: 'repeat.same_error', facts: { times: record.confirmations } };
    }
    return { allow: 'retry' };
  }
  if (record.retries >= policy.retries) return { refuse: 'retry.budget_exhausted', facts: { retries: record.retries } };
  return { allow: 'retry' };
};
