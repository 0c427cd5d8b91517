/**
 * How a run's replay is scored and a set of runs summed up, shared by `npm run eval` (the corpus,
 * EVAL.md) and `npm run eval:wide` (whole sources, eval/WIDE.md), so the two report the same
 * measures.
 */
import type { StopReason } from '../src/core/types.js';
import { scoreRun, type EvaluatedRun } from './eval-run.js';

export type Label = 'healthy' | 'looping' | 'failed_no_loop';

/** What scoring needs of a run's label: the label, and where a loop starts. */
export interface LabelledEntry {
  label: Label;
  /** Looping runs: index of the loop's first call. */
  loopStart?: number;
}

export const BUDGET_STOPS: ReadonlySet<string> = new Set<StopReason>(['max_tool_calls', 'max_rounds', 'max_run_ms']);
/** Every loop must be caught within this many stale calls (issue 18). */
export const STALE_CALL_TARGET = 5;

/** One run's outcome under one configuration, in the same terms for loopguard and the baselines. */
export interface RunOutcome<Entry extends LabelledEntry = LabelledEntry> {
  entry: Entry;
  calls: number;
  /** Stop reason, or undefined when the run was not stopped. */
  stop?: string;
  stopRound?: number;
  /** Stopped by a loop rule rather than a budget. */
  byLoopRule: boolean;
  refusals: number;
  /** Refused calls whose recorded result the run had never seen before that call. */
  withheldNew: Array<{ call: number; tool: string; reason: string }>;
  /**
   * Not stopped, but every call from some point to the end of the recording was refused by a
   * loop rule: the loop was halted, and the recording ended (the agent's own step limit)
   * before the refused-rounds stop would have come.
   */
  halted: boolean;
  /** Looping runs: calls that ran after the loop's first call until the stop (or the halt). */
  staleCallsBeforeStop?: number;
}

/** loopguard's decisions on one recorded run, scored against what the run recorded. */
export function outcomeFromReplay<Entry extends LabelledEntry>(entry: Entry, run: EvaluatedRun): RunOutcome<Entry> {
  const score = scoreRun(run, entry.loopStart);
  const stop = run.report.stop;
  const outcome: RunOutcome<Entry> = {
    entry,
    calls: run.calls.length,
    byLoopRule: stop !== null && !BUDGET_STOPS.has(stop.reason),
    refusals: score.refusals,
    withheldNew: score.withheldNew,
    halted: score.halted,
  };
  if (stop !== null) {
    outcome.stop = stop.reason;
    outcome.stopRound = stop.round;
  }
  if (entry.label === 'looping') outcome.staleCallsBeforeStop = score.staleCalls;
  return outcome;
}

export interface Totals<Entry extends LabelledEntry = LabelledEntry> {
  healthy: number;
  healthyStopped: RunOutcome<Entry>[];
  healthyCalls: number;
  healthyRefusals: number;
  healthyWithRefusals: number;
  withheld: Array<{ outcome: RunOutcome<Entry>; call: number; tool: string; reason: string }>;
  loops: number;
  loopsStopped: number;
  loopsStoppedByLoopRule: number;
  loopsHalted: number;
  loopsWithinTarget: number;
  staleCalls: number[];
  loopsMissed: RunOutcome<Entry>[];
  failedRuns: number;
  failedStopped: number;
}

/** A set of runs' outcomes summed up as EVAL.md reports them. */
export function total<Entry extends LabelledEntry>(outcomes: RunOutcome<Entry>[]): Totals<Entry> {
  const totals: Totals<Entry> = {
    healthy: 0, healthyStopped: [], healthyCalls: 0, healthyRefusals: 0, healthyWithRefusals: 0, withheld: [],
    loops: 0, loopsStopped: 0, loopsStoppedByLoopRule: 0, loopsHalted: 0, loopsWithinTarget: 0, staleCalls: [], loopsMissed: [],
    failedRuns: 0, failedStopped: 0,
  };
  for (const outcome of outcomes) {
    const label = outcome.entry.label;
    if (label === 'healthy') {
      totals.healthy++;
      totals.healthyCalls += outcome.calls;
      totals.healthyRefusals += outcome.refusals;
      if (outcome.refusals > 0) totals.healthyWithRefusals++;
      if (outcome.stop !== undefined) totals.healthyStopped.push(outcome);
      for (const withheld of outcome.withheldNew) totals.withheld.push({ outcome, ...withheld });
    } else if (label === 'looping') {
      totals.loops++;
      if (outcome.halted) {
        totals.loopsHalted++;
        if ((outcome.staleCallsBeforeStop ?? 0) <= STALE_CALL_TARGET) totals.loopsWithinTarget++;
        totals.staleCalls.push(outcome.staleCallsBeforeStop ?? 0);
      } else if (outcome.stop === undefined) totals.loopsMissed.push(outcome);
      else {
        totals.loopsStopped++;
        if (outcome.byLoopRule) {
          totals.loopsStoppedByLoopRule++;
          if ((outcome.staleCallsBeforeStop ?? 0) <= STALE_CALL_TARGET) totals.loopsWithinTarget++;
        }
        totals.staleCalls.push(outcome.staleCallsBeforeStop ?? 0);
      }
    } else {
      totals.failedRuns++;
      if (outcome.stop !== undefined) totals.failedStopped++;
    }
  }
  return totals;
}

export function median(values: number[]): string {
  if (values.length === 0) return '–';
  const sorted = [...values].sort((a, b) => a - b);
  const middle = Math.floor(sorted.length / 2);
  return String(sorted.length % 2 === 1 ? sorted[middle] : (sorted[middle - 1]! + sorted[middle]!) / 2);
}

export function percent(part: number, whole: number): string {
  return whole === 0 ? '–' : `${((100 * part) / whole).toFixed(2)} %`;
}
