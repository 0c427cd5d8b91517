// Metrics and events out of the engine. The telemetry is a LoopGuardListener: it sees every
// decision the engine makes, whichever front (span processor, replay, framework adapter) drove
// it, so the numbers on the dashboard are the numbers the guard acted on.

import { context, metrics } from '@opentelemetry/api';
import type {
  BatchObservableResult,
  Counter,
  Meter,
  MeterProvider,
  Observable,
  ObservableGauge,
} from '@opentelemetry/api';

import type {
  CallDecision,
  EvictionCause,
  LoopGuardListener,
  Novelty,
  OutcomeClass,
  PrehashedToolCall,
  RoundSummary,
  RunView,
  StopDecision,
} from '../core/types.js';
import {
  ATTR_GEN_AI_TOOL_CALL_ID,
  ATTR_GEN_AI_TOOL_NAME,
  ATTR_REFUSAL_REASON,
  ATTR_ROUND,
  ATTR_RUN_ID,
  ATTR_RUN_REFUSALS,
  ATTR_RUN_ROUNDS,
  ATTR_RUN_TOOL_CALLS,
  ATTR_STOP_REASON,
} from '../otel/attributes.js';
import {
  EVENT_RUN_STOP,
  EVENT_STORE_ERROR,
  EVENT_TOOL_REFUSED,
  LABEL_DECISION,
  LABEL_PROFILE,
  LABEL_REFUSAL_REASON,
  LABEL_STOP_REASON,
  LABEL_STORE_OPERATION,
  LABEL_TOOL,
  LABEL_VERDICT,
  METRIC_REFUSALS,
  METRIC_ROUNDS,
  METRIC_RUN_STOPS,
  METRIC_RUNS_AT_RISK,
  METRIC_RUNS_OPEN,
  METRIC_RUNS_STARTED,
  METRIC_RUNS_EVICTED,
  METRIC_STORE_ERRORS,
  EVICTION_CAUSES,
  LABEL_EVICTION_CAUSE,
  METRIC_TOOL_CALLS,
  METRIC_WASTED_CALLS,
  METRIC_WASTED_TOKENS,
  TELEMETRY_SCOPE,
  DECISIONS,
  PROFILES,
  REFUSAL_REASONS,
  ROUND_VERDICTS,
  STOP_REASONS,
  STORE_OPERATIONS,
} from './names.js';
import { LoopGuardConfigError } from '../core/errors.js';
import { thrownText } from '../core/thrown-text.js';
import { reportToDiag } from '../otel/report-to-diag.js';
import { logs, SEVERITY, type LogAttributes, type Logger, type LoggerProvider } from './logs-api.js';

/** What the telemetry needs from the engine: `LoopGuard` satisfies it. */
export interface ObservableGuard {
  /** Subscribes to decisions; returns the unsubscribe function. */
  addListener(listener: LoopGuardListener): () => void;
  /** Open runs, and those with a stale or refused round streak of 2 or more, for the gauges. */
  stats(): { openRuns: number; runsAtRisk: number };
  /** The tools named in the policy get their series started at 0 right away. */
  readonly options?: { readonly profile?: string; readonly tools?: Readonly<Record<string, unknown>> };
}

/** Options of {@link createLoopGuardTelemetry}. */
export interface LoopGuardTelemetryOptions {
  /**
   * The engine to observe. The telemetry subscribes with `guard.addListener` and reads
   * `guard.stats()` for the open-runs and runs-at-risk gauges. Optional only when the caller
   * registers the returned `listener` itself (then the gauges are not reported).
   */
  guard?: ObservableGuard;
  /**
   * Where metrics go. Default: the global MeterProvider, looked up again on every recording
   * until one is registered, because the Metrics API (unlike the Logs API) has no proxy provider
   * and telemetry is often created before the SDK starts. With none registered every instrument
   * is a no-op.
   */
  meterProvider?: MeterProvider;
  /** Where events go. Default: the global LoggerProvider (a proxy, so late registration works). */
  loggerProvider?: LoggerProvider;
  /** Emit `loopguard.tool.refused` log events (one per refused call). Default true. */
  refusalEvents?: boolean;
  /** Emit `loopguard.run.stop` log events. Default true. */
  stopEvents?: boolean;
  /**
   * Emit `loopguard.store.error` log events when the shared store fails. Default true. At most
   * one per `storeErrorEventIntervalMs`, carrying how many failures it stands for: during an
   * outage every call fails, and the counter (`loopguard.store.errors`) already counts each.
   */
  storeErrorEvents?: boolean;
  /** Least time between two `loopguard.store.error` events, in ms. Default 60 000. */
  storeErrorEventIntervalMs?: number;
  /**
   * Tool names whose per-tool series start at 0 as soon as metrics are set up rather than at
   * the tool's first call. A series born non-zero loses its first events to rate() and
   * increase(), so a tool whose very first calls are a burst of refusals would go unseen by
   * the refusal alert until its next burst. Default: the tools named in `guard.options.tools`.
   */
  toolNames?: string[];
  /**
   * Distinct tool names used as metric labels. Tool names come from the model, which can invent
   * them; past this many, further names are recorded as `_other` (one diag warning), so a
   * hallucinating model cannot grow the series without bound. Events keep the real name.
   * Default 200.
   */
  maxToolNames?: number;
}

/** The handle {@link createLoopGuardTelemetry} returns. */
export interface LoopGuardTelemetry {
  /** The engine listener; already registered when `guard` was given. */
  readonly listener: LoopGuardListener;
  /** Unsubscribes from the engine and removes the gauge callbacks. Idempotent; never throws. */
  shutdown(): void;
}

interface Instruments {
  provider: MeterProvider;
  meter: Meter;
  toolCalls: Counter;
  refusals: Counter;
  rounds: Counter;
  runsStarted: Counter;
  runsEvicted: Counter;
  storeErrors: Counter;
  runStops: Counter;
  wastedCalls: Counter;
  wastedTokens: Counter;
  /** The guard whose stats this instance added to the provider's gauges. */
  gaugeGuard?: ObservableGuard;
  /** `tool\u0000profile` pairs whose per-tool series were started at 0. */
  knownTools: Set<string>;
  /** Tool names admitted as label values (see maxToolNames). */
  toolLabels: Set<string>;
}

/**
 * Round verdicts whose model tokens count as wasted: the same rule as the engine's
 * `PartialResults.wastedTokens`, so the counter and the stop events agree.
 */
const WASTED_VERDICTS: ReadonlySet<string> = new Set(['stale', 'refused']);

const DEFAULT_MAX_TOOL_NAMES = 200;
const DEFAULT_STORE_ERROR_EVENT_INTERVAL_MS = 60_000;
/** Longest error message a store-error event carries (a client error can quote a whole script). */
const MAX_ERROR_MESSAGE_CHARS = 500;
const KNOWN_STORE_OPERATIONS: ReadonlySet<string> = new Set(STORE_OPERATIONS);
/** Label value for tools past {@link LoopGuardTelemetryOptions.maxToolNames}. */
export const OTHER_TOOL = '_other';
/** Label value for a store operation the engine does not document (never expected). */
const OTHER_STORE_OPERATION = '_other';

/**
 * Turns the engine's decisions into OpenTelemetry metrics and log events.
 *
 * Metrics (Prometheus names in docs/operations/telemetry.md): tool calls by decision/tool/profile,
 * refusals by reason/tool, rounds by verdict, runs started, stops by reason, wasted calls and
 * tokens, shared-store errors by operation, and the open / at-risk gauges. No run ids or
 * arguments are ever labels.
 * Events: `loopguard.run.stop` and `loopguard.tool.refused` log records, emitted in the active
 * context so they carry the trace and span ids of the agent run, and rate-limited
 * `loopguard.store.error` records.
 *
 * Listener methods never throw: failures go to `diag`.
 *
 * @throws LoopGuardConfigError naming `storeErrorEventIntervalMs` when it is not a number >= 0.
 */
export function createLoopGuardTelemetry(options: LoopGuardTelemetryOptions = {}): LoopGuardTelemetry {
  const { guard, meterProvider, loggerProvider } = options;
  const refusalEvents = options.refusalEvents ?? true;
  const stopEvents = options.stopEvents ?? true;
  const knownTools = options.toolNames ?? Object.keys(guard?.options?.tools ?? {});
  const maxToolNames = options.maxToolNames ?? DEFAULT_MAX_TOOL_NAMES;
  const storeErrorEvents = options.storeErrorEvents ?? true;
  const storeErrorEventIntervalMs = options.storeErrorEventIntervalMs ?? DEFAULT_STORE_ERROR_EVENT_INTERVAL_MS;
  if (typeof storeErrorEventIntervalMs !== 'number' || !(storeErrorEventIntervalMs >= 0)) {
    throw new LoopGuardConfigError({ field: 'storeErrorEventIntervalMs', message: `must be a number of ms >= 0, got ${String(storeErrorEventIntervalMs)}` });
  }
  /** When the last store-error event went out, and the failures counted since (not yet reported). */
  let lastStoreErrorEventAt = -Infinity;
  let storeErrorsSinceEvent = 0;
  let current: Instruments | undefined;
  let closed = false;
  let warnedToolCap = false;

  /** The label value for a tool: its name, or `_other` once the cap is reached. */
  const toolLabel = (inst: Instruments, tool: string): string => {
    if (inst.toolLabels.has(tool)) return tool;
    if (inst.toolLabels.size < maxToolNames) {
      inst.toolLabels.add(tool);
      return tool;
    }
    if (!warnedToolCap) {
      warnedToolCap = true;
      reportToDiag('warn', `loopguard telemetry: more than ${maxToolNames} tool names; recording further ones as "${OTHER_TOOL}" (maxToolNames)`);
    }
    return OTHER_TOOL;
  };

  const logger: Logger = (loggerProvider ?? logs.getLoggerProvider()).getLogger(TELEMETRY_SCOPE);

  const instruments = (): Instruments | undefined => {
    if (closed) return undefined;
    const provider = meterProvider ?? metrics.getMeterProvider();
    if (current?.provider === provider) return current;
    detachGauges(current);
    const inst = createInstruments(provider);
    startAtZero(inst);
    const profile = guard?.options?.profile;
    for (const tool of knownTools) for (const p of profile ? [profile] : PROFILES) startToolAtZero(inst, toolLabel(inst, tool), p);
    if (guard) attachGauges(inst, guard);
    current = inst;
    return current;
  };

  const guarded = <A extends unknown[]>(what: string, fn: (...args: A) => void) =>
    (...args: A): void => {
      try {
        fn(...args);
      } catch (error) {
        reportToDiag('warn', `loopguard telemetry: ${what} failed`, error);
      }
    };

  const emit = (eventName: string, severity: (typeof SEVERITY)[keyof typeof SEVERITY], body: string, attributes: LogAttributes): void => {
    logger.emit({
      eventName,
      severityNumber: severity.number,
      severityText: severity.text,
      body,
      attributes,
      context: context.active(),
    });
  };

  const listener: LoopGuardListener = {
    storeError: guarded('storeError', (operation: string, runId: string, error: unknown) => {
      // The engine passes one of STORE_OPERATIONS; anything else is folded into one value so
      // the label stays bounded whatever a future or custom caller reports.
      const label = KNOWN_STORE_OPERATIONS.has(operation) ? operation : OTHER_STORE_OPERATION;
      instruments()?.storeErrors.add(1, { [LABEL_STORE_OPERATION]: label });
      if (!storeErrorEvents || closed) return;
      storeErrorsSinceEvent += 1;
      const now = Date.now();
      if (now - lastStoreErrorEventAt < storeErrorEventIntervalMs) return;
      lastStoreErrorEventAt = now;
      const failures = storeErrorsSinceEvent;
      storeErrorsSinceEvent = 0;
      const message = thrownText(error).slice(0, MAX_ERROR_MESSAGE_CHARS);
      emit(EVENT_STORE_ERROR, SEVERITY.WARN, `the shared store failed (${operation}): ${message}`, {
        [LABEL_STORE_OPERATION]: label,
        [ATTR_RUN_ID]: runId,
        'error.type': error instanceof Error ? error.name : typeof error,
        // This record stands for every failure since the previous one (itself included).
        'loopguard.store.errors': failures,
      });
    }),

    runStarted: guarded('runStarted', (run: RunView) => {
      instruments()?.runsStarted.add(1, { [LABEL_PROFILE]: run.profile });
    }),

    callDecided: guarded('callDecided', (run: RunView, call: PrehashedToolCall, decision: CallDecision, round: number) => {
      const inst = instruments();
      if (!inst) return;
      const tool = toolLabel(inst, call.tool);
      startToolAtZero(inst, tool, run.profile);
      // An observed-only call ran whatever was decided: counting it as a refusal would show
      // enforcement on dashboards that never happened.
      const wouldRefuse = decision.action === 'refuse' && call.observeOnly === true;
      inst.toolCalls.add(1, {
        [LABEL_DECISION]: wouldRefuse ? 'would_refuse' : decision.action,
        [LABEL_TOOL]: tool,
        [LABEL_PROFILE]: run.profile,
      });
      if (decision.action !== 'refuse' || wouldRefuse) return;
      inst.refusals.add(1, { [LABEL_REFUSAL_REASON]: decision.reason, [LABEL_TOOL]: tool });
      if (!refusalEvents) return;
      const attributes: LogAttributes = {
        [ATTR_RUN_ID]: run.id,
        [LABEL_PROFILE]: run.profile,
        [ATTR_GEN_AI_TOOL_NAME]: call.tool,
        [ATTR_REFUSAL_REASON]: decision.reason,
        [ATTR_ROUND]: round,
        'loopguard.run.stale_round_streak': run.staleRoundStreak,
        'loopguard.run.refused_round_streak': run.refusedRoundStreak,
      };
      if (call.callId !== undefined) attributes[ATTR_GEN_AI_TOOL_CALL_ID] = call.callId;
      if (decision.previousRound !== undefined) attributes['loopguard.previous_round'] = decision.previousRound;
      emit(EVENT_TOOL_REFUSED, SEVERITY.INFO, decision.message, attributes);
    }),

    callFinished: guarded('callFinished', (_run: RunView, call: PrehashedToolCall, _outcome: OutcomeClass, novelty: Novelty) => {
      const inst = novelty === 'seen' ? instruments() : undefined;
      if (inst) inst.wastedCalls.add(1, { [LABEL_TOOL]: toolLabel(inst, call.tool) });
    }),

    roundClosed: guarded('roundClosed', (run: RunView, summary: RoundSummary) => {
      const inst = instruments();
      if (!inst) return;
      inst.rounds.add(1, { [LABEL_VERDICT]: summary.verdict, [LABEL_PROFILE]: run.profile });
      if (WASTED_VERDICTS.has(summary.verdict) && summary.usage) {
        const tokens = (summary.usage.inputTokens ?? 0) + (summary.usage.outputTokens ?? 0);
        if (tokens > 0) inst.wastedTokens.add(tokens, { [LABEL_PROFILE]: run.profile });
      }
    }),

    runEvicted: guarded('runEvicted', (run: RunView, cause: EvictionCause) => {
      instruments()?.runsEvicted.add(1, { [LABEL_EVICTION_CAUSE]: cause, [LABEL_PROFILE]: run.profile });
    }),

    runStopped: guarded('runStopped', (run: RunView, decision: StopDecision) => {
      instruments()?.runStops.add(1, { [LABEL_STOP_REASON]: decision.reason, [LABEL_PROFILE]: run.profile });
      if (!stopEvents) return;
      const p = decision.partial;
      emit(EVENT_RUN_STOP, SEVERITY.WARN, decision.detail, {
        [ATTR_RUN_ID]: run.id,
        [LABEL_PROFILE]: run.profile,
        [ATTR_STOP_REASON]: decision.reason,
        [ATTR_ROUND]: decision.round,
        [ATTR_RUN_ROUNDS]: p.rounds,
        [ATTR_RUN_TOOL_CALLS]: p.toolCalls,
        [ATTR_RUN_REFUSALS]: p.refused,
        'loopguard.run.executed': p.executed,
        'loopguard.run.new_facts': p.newFacts,
        'loopguard.run.seen_results': p.seenResults,
        'loopguard.run.last_new_fact_round': p.lastNewFactRound,
        'loopguard.run.wasted_tokens': p.wastedTokens,
      });
    }),
  };

  const unsubscribe = guard?.addListener(listener);
  // Create the instruments now rather than on the first event, so a scrape or push before any
  // run already has the zero-valued series and `loopguard_runs_open 0` (alert expressions then
  // evaluate to 0, not to "no data", and the first events count in rate()).
  if (guard || knownTools.length > 0) instruments();

  return {
    listener,
    shutdown(): void {
      if (closed) return;
      closed = true;
      try {
        unsubscribe?.();
      } catch (error) {
        reportToDiag('warn', 'loopguard telemetry: removing the engine listener failed', error);
      }
      detachGauges(current);
      current = undefined;
    },
  };
}

/** Starts the counters whose label values are all known up front at 0 (why: see names.ts). */
function startAtZero(inst: Instruments): void {
  // Started for every app, with a store or not: the first failure of an outage must count in
  // rate() (it is often the only one before the client gives up reconnecting), and an app
  // without a store honestly has 0 store errors.
  for (const operation of STORE_OPERATIONS) inst.storeErrors.add(0, { [LABEL_STORE_OPERATION]: operation });
  for (const profile of PROFILES) {
    inst.runsStarted.add(0, { [LABEL_PROFILE]: profile });
    for (const cause of EVICTION_CAUSES) inst.runsEvicted.add(0, { [LABEL_EVICTION_CAUSE]: cause, [LABEL_PROFILE]: profile });
    inst.wastedTokens.add(0, { [LABEL_PROFILE]: profile });
    for (const reason of STOP_REASONS) inst.runStops.add(0, { [LABEL_STOP_REASON]: reason, [LABEL_PROFILE]: profile });
    for (const verdict of ROUND_VERDICTS) inst.rounds.add(0, { [LABEL_VERDICT]: verdict, [LABEL_PROFILE]: profile });
  }
}

/**
 * Starts a tool's series at 0 the first time the tool is seen, so its first refusal or wasted
 * call is counted by rate(). Bounded: 3 decisions + 17 refusal reasons + 1 per tool.
 */
function startToolAtZero(inst: Instruments, tool: string, profile: string): void {
  const key = `${tool}\u0000${profile}`;
  if (inst.knownTools.has(key)) return;
  inst.knownTools.add(key);
  for (const decision of DECISIONS) inst.toolCalls.add(0, { [LABEL_DECISION]: decision, [LABEL_TOOL]: tool, [LABEL_PROFILE]: profile });
  for (const reason of REFUSAL_REASONS) inst.refusals.add(0, { [LABEL_REFUSAL_REASON]: reason, [LABEL_TOOL]: tool });
  inst.wastedCalls.add(0, { [LABEL_TOOL]: tool });
}

function createInstruments(provider: MeterProvider): Instruments {
  const meter = provider.getMeter(TELEMETRY_SCOPE);
  return {
    provider,
    meter,
    knownTools: new Set(),
    toolLabels: new Set(),
    toolCalls: meter.createCounter(METRIC_TOOL_CALLS, {
      description: 'Tool calls the loop guard decided on, by decision (allow / refuse / would_refuse: refused but only observed, so it ran), tool and profile.',
      unit: '{call}',
    }),
    refusals: meter.createCounter(METRIC_REFUSALS, {
      description: 'Tool calls the loop guard refused before they ran, by refusal reason and tool.',
      unit: '{call}',
    }),
    rounds: meter.createCounter(METRIC_ROUNDS, {
      description: 'Closed rounds (one model call plus its tool calls), by verdict (new, stale, refused, neutral, empty).',
      unit: '{round}',
    }),
    runsStarted: meter.createCounter(METRIC_RUNS_STARTED, {
      description: 'Agent runs opened in the loop guard.',
      unit: '{run}',
    }),
    runsEvicted: meter.createCounter(METRIC_RUNS_EVICTED, {
      description: 'Agent runs the loop guard evicted (open-run cap or idle limit); their later calls run unguarded.',
      unit: '{run}',
    }),
    storeErrors: meter.createCounter(METRIC_STORE_ERRORS, {
      description: 'Failed operations of the shared run store (claim, append, read, business_key); meanwhile the engine follows storeFailure (calls decided locally, business-key writes refused, by default).',
      unit: '{error}',
    }),
    runStops: meter.createCounter(METRIC_RUN_STOPS, {
      description: 'Agent runs the loop guard stopped, by stop reason.',
      unit: '{run}',
    }),
    wastedCalls: meter.createCounter(METRIC_WASTED_CALLS, {
      description: 'Executed tool calls whose result had already been seen in the run.',
      unit: '{call}',
    }),
    wastedTokens: meter.createCounter(METRIC_WASTED_TOKENS, {
      description: 'Model tokens (input + output) of rounds that learned nothing: only results already seen, or every call refused.',
      unit: '{token}',
    }),
  };
}

/**
 * The open-runs and at-risk gauges of one MeterProvider, summed over every guard that reports to
 * it. Apps with several engines (one per policy, as the demo has) would otherwise register one
 * callback per engine for the same unlabelled series, and the last observation would win.
 */
interface GaugeSet {
  meter: Meter;
  runsOpen: ObservableGauge;
  runsAtRisk: ObservableGauge;
  guards: Map<ObservableGuard, number>;
  callback: (result: BatchObservableResult) => void;
}

const gaugeSets = new WeakMap<MeterProvider, GaugeSet>();

function attachGauges(inst: Instruments, guard: ObservableGuard): void {
  let set = gaugeSets.get(inst.provider);
  if (!set) {
    const meter = inst.meter;
    const created: GaugeSet = {
      meter,
      runsOpen: meter.createObservableGauge(METRIC_RUNS_OPEN, {
        description: 'Agent runs currently open in the loop guard.',
        unit: '{run}',
      }),
      runsAtRisk: meter.createObservableGauge(METRIC_RUNS_AT_RISK, {
        description: 'Open runs with a stale or refused round streak of 2 or more: the early warning before a stop.',
        unit: '{run}',
      }),
      guards: new Map(),
      callback: (result) => {
        let open = 0;
        let atRisk = 0;
        for (const g of created.guards.keys()) {
          try {
            const stats = g.stats();
            open += stats.openRuns;
            atRisk += stats.runsAtRisk;
          } catch (error) {
            reportToDiag('warn', 'loopguard telemetry: reading guard.stats() failed', error);
          }
        }
        result.observe(created.runsOpen, open);
        result.observe(created.runsAtRisk, atRisk);
      },
    };
    meter.addBatchObservableCallback(created.callback, [created.runsOpen, created.runsAtRisk] as Observable[]);
    gaugeSets.set(inst.provider, created);
    set = created;
  }
  // Counted: two telemetry instances on one guard must not drop it when the first shuts down.
  set.guards.set(guard, (set.guards.get(guard) ?? 0) + 1);
  inst.gaugeGuard = guard;
}

function detachGauges(inst: Instruments | undefined): void {
  const guard = inst?.gaugeGuard;
  if (!inst || !guard) return;
  inst.gaugeGuard = undefined;
  const set = gaugeSets.get(inst.provider);
  if (!set) return;
  const count = (set.guards.get(guard) ?? 0) - 1;
  if (count > 0) {
    set.guards.set(guard, count);
    return;
  }
  set.guards.delete(guard);
  if (set.guards.size > 0) return;
  try {
    set.meter.removeBatchObservableCallback(set.callback, [set.runsOpen, set.runsAtRisk] as Observable[]);
  } catch (error) {
    reportToDiag('warn', 'loopguard telemetry: removing the gauge callback failed', error);
  }
  gaugeSets.delete(inst.provider);
}
