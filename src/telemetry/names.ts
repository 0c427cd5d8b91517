// Instrument, label and event names of loopguard's telemetry, and the Prometheus series they
// become. Both export paths (app -> OTLP -> Collector -> Prometheus, and Prometheus scraping
// the app's PrometheusExporter) apply the same translation: dots become underscores and
// monotonic counters gain `_total`. Units are curly-brace annotations only, which the
// Collector's translator drops, so no `_seconds`/`_ratio`-style suffix appears on one path and
// not the other. The dashboard, the alert rules and docs/operations/telemetry.md quote the Prometheus names.

import type { CallDecision, EvictionCause, Profile, RefusalReason, RoundVerdict, StopReason } from '../core/types.js';
import type { StoreOperation } from '../core/shared-ledger/shared-run-link.js';
import {
  ATTR_GEN_AI_TOOL_NAME,
  ATTR_REFUSAL_REASON,
  ATTR_STOP_REASON,
  ATTR_DECISION,
} from '../otel/attributes.js';

/** Meter and logger scope name. */
export const TELEMETRY_SCOPE = 'loopguard';

/** Counter: tool calls the guard decided on. Labels: decision, tool, profile. */
export const METRIC_TOOL_CALLS = 'loopguard.tool.calls';
/** Counter: refused tool calls. Labels: refusal reason, tool. */
export const METRIC_REFUSALS = 'loopguard.refusals';
/** Counter: closed rounds. Labels: verdict, profile. */
export const METRIC_ROUNDS = 'loopguard.rounds';
/** Counter: runs opened. Labels: profile. The denominator of the stop ratio. */
export const METRIC_RUNS_STARTED = 'loopguard.runs.started';
/**
 * Counter: runs the engine evicted (past `maxOpenRuns`, or idle `maxIdleMs`). An evicted run
 * fails open: its later calls run unguarded. Labels: cause, profile.
 */
export const METRIC_RUNS_EVICTED = 'loopguard.runs.evicted';
/**
 * Counter: failed operations of the shared run store (`loopguard/redis`): unreachable, slow
 * past its timeout, failing over. The engine then follows `storeFailure` (ordinary calls fail
 * open, business-key writes closed, by default), so this is the one signal that runs are no
 * longer shared. Labels: operation. No profile: the store is the process's, not a policy's.
 */
export const METRIC_STORE_ERRORS = 'loopguard.store.errors';
/** Counter: runs the guard stopped. Labels: stop reason, profile. */
export const METRIC_RUN_STOPS = 'loopguard.run.stops';
/** Counter: executed tool calls whose result had already been seen in the run. Labels: tool. */
export const METRIC_WASTED_CALLS = 'loopguard.wasted.calls';
/** Counter: model tokens of stale rounds (as PartialResults.wastedTokens). Labels: profile. */
export const METRIC_WASTED_TOKENS = 'loopguard.wasted.tokens';
/** Gauge: runs open in the engine. */
export const METRIC_RUNS_OPEN = 'loopguard.runs.open';
/** Gauge: open runs with a stale or refused round streak >= 2 (the early warning before a stop). */
export const METRIC_RUNS_AT_RISK = 'loopguard.runs.at_risk';

/** Metric label keys. Shared with the span attributes so spanmetrics dimensions line up. */
export const LABEL_DECISION = ATTR_DECISION;
/** Why a run was evicted: `max_open_runs` or `max_idle`. */
export const LABEL_EVICTION_CAUSE = 'loopguard.eviction.cause';
export const EVICTION_CAUSES = Object.keys({ max_open_runs: 1, max_idle: 1 } satisfies Record<EvictionCause, 1>) as EvictionCause[];
/** The tool name (`gen_ai.tool.name`); at most `maxToolNames` distinct values, then `_other`. */
export const LABEL_TOOL = ATTR_GEN_AI_TOOL_NAME;
/** The engine's profile: `general`, `researcher` or `chat`. */
export const LABEL_PROFILE = 'loopguard.profile';
/** Why a call was refused (`REFUSAL_REASONS`). */
export const LABEL_REFUSAL_REASON = ATTR_REFUSAL_REASON;
/** Why a run was stopped (`STOP_REASONS`). */
export const LABEL_STOP_REASON = ATTR_STOP_REASON;
/** A closed round's verdict (`ROUND_VERDICTS`). */
export const LABEL_VERDICT = 'loopguard.round.verdict';
/** Which store operation failed: claim, append, read or business_key (`STORE_OPERATIONS`). */
export const LABEL_STORE_OPERATION = 'loopguard.store.operation';

/** Log record `eventName`s. */
export const EVENT_RUN_STOP = 'loopguard.run.stop';
/** Log record `eventName` of a refused call; its body is the message the model got. */
export const EVENT_TOOL_REFUSED = 'loopguard.tool.refused';
/**
 * A store failure, at most one record per `storeErrorEventIntervalMs`: a Redis outage fails
 * every call, and one log record per call would flood the log pipeline exactly when it matters.
 */
export const EVENT_STORE_ERROR = 'loopguard.store.error';

/**
 * Metric the Collector's count connector derives from `loopguard.run.stop` log records
 * (collector/otel-collector.yaml), labelled by stop reason: the stop count for apps that export
 * logs but no metrics.
 */
export const METRIC_RUN_STOP_EVENTS = 'loopguard.run.stop.events';

/**
 * The OTel -> Prometheus name translation both paths perform for loopguard's names
 * (which contain only `[a-z0-9._]`): dots to underscores, `_total` on monotonic counters.
 */
export function prometheusName(otelName: string, kind: 'counter' | 'gauge'): string {
  const base = otelName.replace(/[^a-zA-Z0-9_:]/g, '_').replace(/_+/g, '_');
  return kind === 'counter' && !base.endsWith('_total') ? `${base}_total` : base;
}

/** Every series name loopguard's own instruments produce, as Prometheus sees them. */
export const PROMETHEUS_METRICS: Readonly<Record<string, string>> = Object.freeze({
  [METRIC_TOOL_CALLS]: prometheusName(METRIC_TOOL_CALLS, 'counter'),
  [METRIC_REFUSALS]: prometheusName(METRIC_REFUSALS, 'counter'),
  [METRIC_ROUNDS]: prometheusName(METRIC_ROUNDS, 'counter'),
  [METRIC_RUNS_STARTED]: prometheusName(METRIC_RUNS_STARTED, 'counter'),
  [METRIC_RUN_STOPS]: prometheusName(METRIC_RUN_STOPS, 'counter'),
  [METRIC_RUNS_EVICTED]: prometheusName(METRIC_RUNS_EVICTED, 'counter'),
  [METRIC_STORE_ERRORS]: prometheusName(METRIC_STORE_ERRORS, 'counter'),
  [METRIC_WASTED_CALLS]: prometheusName(METRIC_WASTED_CALLS, 'counter'),
  [METRIC_WASTED_TOKENS]: prometheusName(METRIC_WASTED_TOKENS, 'counter'),
  [METRIC_RUNS_OPEN]: prometheusName(METRIC_RUNS_OPEN, 'gauge'),
  [METRIC_RUNS_AT_RISK]: prometheusName(METRIC_RUNS_AT_RISK, 'gauge'),
});

// Every value of the bounded labels. Counters start at 0 for these (see telemetry.ts): a series
// that first appears already at 1 has no earlier sample, so rate()/increase() never count that
// first event — a run's first stop of a kind would be invisible to the alert rules. The
// `satisfies Record<...>` makes the compiler flag a value added to the engine's unions.
/** Every profile: the values of `loopguard.profile`. */
export const PROFILES = Object.keys({ general: 1, chat: 1, researcher: 1 } satisfies Record<Profile, 1>) as Profile[];
/**
 * Every loop or budget stop reason (`run_ended` is not one): the values of
 * `loopguard.stop.reason`.
 */
export const STOP_REASONS = Object.keys({
  stale_rounds: 1,
  refused_rounds: 1,
  consecutive_failures: 1,
  max_tool_calls: 1,
  max_rounds: 1,
  max_run_ms: 1,
  stalled_progress: 1,
  // run_ended is no loop verdict and never a runStopped event: no stop metric carries it.
} satisfies Record<Exclude<StopReason, 'run_ended'>, 1>) as StopReason[];
/** Every refusal reason: the values of `loopguard.refusal.reason`. */
export const REFUSAL_REASONS = Object.keys({
  'repeat.back_to_back': 1,
  'repeat.run_wide': 1,
  'repeat.in_flight': 1,
  'repeat.unchanged': 1,
  'repeat.same_error': 1,
  'pagination.cursor_not_advanced': 1,
  'retry.budget_exhausted': 1,
  'poll.deadline_passed': 1,
  'poll.too_soon': 1,
  'tool.disabled': 1,
  'budget.tool_calls': 1,
  'budget.rounds': 1,
  'budget.run_time': 1,
  'run.stopped': 1,
  'write.outcome_unknown': 1,
  'write.already_done': 1,
  'store.unavailable': 1,
} satisfies Record<RefusalReason, 1>) as RefusalReason[];
/**
 * What the engine reports in `storeError(operation, ...)`: a claim (one call's
 * compare-and-append), an append (the background flush), a read (joining or catching up with
 * a run), a business key (claiming or settling an idempotent write).
 */
export const STORE_OPERATIONS = Object.keys({ claim: 1, append: 1, read: 1, business_key: 1 } satisfies Record<StoreOperation, 1>) as StoreOperation[];
/** Every round verdict: the values of `loopguard.round.verdict`. */
export const ROUND_VERDICTS = Object.keys({ new: 1, stale: 1, refused: 1, neutral: 1, empty: 1 } satisfies Record<RoundVerdict, 1>) as RoundVerdict[];
/** `would_refuse`: decided refuse on a call that only was watched (observe-only spans), so it ran. */
export const DECISIONS = ['allow', 'refuse', 'would_refuse'] as const;
