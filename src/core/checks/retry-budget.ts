import { CallState } from '../run-ledger.js';
import type { CallCheck } from './call-check.js';

/**
 * Retry vs recursion (document 003): an identical call whose previous execution *failed* is
 * a retry, not a repeat — a 503 four times then success on the fifth is correct behaviour.
 * Retries are allowed within the tool's `retries` budget (default: the shared threshold);
 * past it, retrying unchanged is refused. Consecutive-failure detection bounds it from the
 * other side, and the identical error body makes each failed retry an already-seen result.
 */
export const checkRetryBudget: CallCheck = ({ record, policy }) => {
  if (record === undefined || record.state !== CallState.Failed) return undefined;
  if (record.retries >= policy.retries) return { refuse: 'retry.budget_exhausted', facts: { retries: record.retries } };
  return { allow: 'retry' };
};
