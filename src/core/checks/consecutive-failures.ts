import type { StopCheck } from './stop-check.js';

/**
 * Consecutive failures (document 000): the same tool failing `consecutiveFailures` (5)
 * times in a row stops the run — with different arguments or the same error, overloaded and
 * timed-out calls included. In the chat profile, refusals of a call the model insists on
 * count as failures of that tool (run-guard.ts), which is how chat stops an agent that
 * keeps asking for the same refused call. Identical retries inside the tool's retry budget
 * count only once the budget is spent (document 003, condition 3; retry-budget.ts).
 */
export const stopOnConsecutiveFailures: StopCheck = ({ ledger, options }) => {
  for (const [tool, streak] of ledger.failureStreakByTool) {
    if (streak >= options.consecutiveFailures) {
      return { reason: 'consecutive_failures', detail: `${tool} failed ${streak} times in a row` };
    }
  }
  return undefined;
};
