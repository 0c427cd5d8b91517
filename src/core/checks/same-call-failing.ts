import type { StopCheck } from './stop-check.js';

/**
 * The identical call failing again and again (issue 18 #3; OpenHands' stuck detector): the
 * same call, failing deterministically {@link IDENTICAL_FAILURES_STUCK} times in a row with
 * nothing that may write finished in between, is stuck even when each error says something
 * else (a shell command failing with a new message each time). Document 003 halts its
 * 340-iteration loop "at iteration 4" too. Not counted: transient failures (the retry budget
 * governs those: 503 four times then success is correct), tools that declare `retries`, and
 * a re-run after an edit (the world moved: a failing test re-run after each fix is debugging).
 */
export const IDENTICAL_FAILURES_STUCK = 4;

export const stopOnSameCallFailing: StopCheck = ({ ledger }) => {
  const failing = ledger.failingCall;
  if (failing === undefined || failing.times < IDENTICAL_FAILURES_STUCK) return undefined;
  return { reason: 'consecutive_failures', detail: `the same ${failing.tool} call failed ${failing.times} times in a row with nothing changed in between` };
};
