import type { ResolvedOptions } from '../policy.js';
import type { RunLedger } from '../run-ledger.js';
import type { StopReason } from '../types.js';
import type { CallCheck } from './call-check.js';
import type { StopCheck } from './stop-check.js';

/**
 * Budgets (documents 000, 001): maxToolCalls, maxRounds and maxRunMs are checked *before*
 * execution, so no call starts past a limit. They are the backstop that needs no signature
 * at all (document 003's residual risk: a loop that mutates both call and outcome).
 *
 * Overloaded calls: up to `overloadedExemptMax` per run come off the call budget, and the
 * round limit grows by the number of rounds that had them (document 000), so a researcher
 * can still spend the calls it got back once the congestion passes.
 */
export const refuseOverBudget: CallCheck = ({ ledger, options, now }) => {
  const reason = budgetExceeded(ledger, options, now, ledger.round);
  if (reason === 'max_tool_calls') return { refuse: 'budget.tool_calls', facts: { limit: options.maxToolCalls } };
  if (reason === 'max_rounds') return { refuse: 'budget.rounds', facts: { limit: roundLimit(ledger, options) } };
  if (reason === 'max_run_ms') return { refuse: 'budget.run_time', facts: { limit: options.maxRunMs } };
  return undefined;
};

export function roundLimit(ledger: RunLedger, options: ResolvedOptions, overloadedRounds = ledger.overloadedRounds): number {
  return options.maxRounds + overloadedRounds;
}

/**
 * Which budget, if any, leaves no room for another call. `roundsUsed` is the round the next
 * call would belong to (pre-execution) or the rounds completed (shouldStop).
 */
export function budgetExceeded(
  ledger: RunLedger,
  options: ResolvedOptions,
  now: number,
  roundsUsed: number,
  overloadedRounds = ledger.overloadedRounds,
): StopReason | undefined {
  if (ledger.budgetedCalls >= options.maxToolCalls) return 'max_tool_calls';
  if (roundsUsed > roundLimit(ledger, options, overloadedRounds)) return 'max_rounds';
  if (ledger.startTime !== undefined && now - ledger.startTime >= options.maxRunMs) return 'max_run_ms';
  return undefined;
}

/** Budgets as a stop: nothing more may run, so end the run now rather than at the next refusal. */
export const stopOnBudget: StopCheck = ({ ledger, options, projection, now }) => {
  const reason = budgetExceeded(ledger, options, now, ledger.round + 1, projection.overloadedRounds);
  if (reason === undefined) return undefined;
  const detail =
    reason === 'max_tool_calls' ? `the run used its budget of ${options.maxToolCalls} tool calls`
    : reason === 'max_rounds' ? `the run used its ${roundLimit(ledger, options, projection.overloadedRounds)} rounds`
    : `the run reached its time limit of ${options.maxRunMs} ms`;
  return { reason, detail };
};
