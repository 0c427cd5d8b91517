import type { StopCheck } from './stop-check.js';

/**
 * The same failure across tools (issue 24 #3): consecutive failures of the run, from at least
 * two tools, that all returned the same error once noise is removed (request ids, timestamps:
 * noise/). An expired token makes `list_issues`, `get_user` and `search_code` fail with the
 * same 401 in turn: one stuck state, which per-tool counting let run 13 failures. Stops at
 * `consecutiveFailures` (5). Only errors about the run's state count (an expired token, a
 * 401/403, a spent quota, a service down: `argumentIndependent`, result-fingerprint.ts):
 * "user not found" from `find_user_id_by_email`, then `find_user_id_by_name_zip`, is an
 * agent narrowing down (issue 18 #3).
 */
export const stopOnSameFailureAcrossTools: StopCheck = ({ ledger, options }) => {
  const same = ledger.sameFailure;
  if (same === undefined || same.count < options.consecutiveFailures || same.tools.size < 2) return undefined;
  return {
    reason: 'consecutive_failures',
    detail: `${same.count} failures in a row returned the same error from ${same.tools.size} tools (${[...same.tools].join(', ')})`,
  };
};
