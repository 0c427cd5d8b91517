import { randomUUID } from 'node:crypto';
import { callSignature } from './call-signature.js';
import { describePolicyText } from './messages.js';
import { resolveOptions, type ResolvedOptions } from './policy.js';
import { RunGuard, safeFingerprint, type RunHooks } from './run-guard.js';
import type { CallOutcome, LoopGuardListener, LoopGuardOptions, PrehashedOutcome, RunView } from './types.js';

/** Where the engine reports its own trouble (the OTel front passes `diag`). */
export interface LoopGuardLogger {
  warn(message: string): void;
}

/** Options of {@link LoopGuard}: the policy plus engine housekeeping. */
export interface LoopGuardEngineOptions extends LoopGuardOptions {
  /** Observers (telemetry, progress output). Default none. */
  listeners?: LoopGuardListener[];
  /**
   * Cap on open runs. Past it the least recently active run is evicted, with one warning:
   * a host that forgets to end runs must not grow without bound. Default 10 000.
   */
  maxOpenRuns?: number;
  /** Ended runs stay queryable (getRun) this long, in ms. Default 60 000. */
  endedRunTtlMs?: number;
  /**
   * Open runs with no activity for this long are ended (checked lazily when a run starts).
   * Catches runs nobody ends — implicit per-trace runs of apps that trace only tool calls,
   * crashed agent loops — so they leave the runs-at-risk gauge and free their memory.
   * Default 1 800 000 (30 minutes); Infinity turns it off.
   */
  maxIdleMs?: number;
  /** Default: console.warn. */
  logger?: LoopGuardLogger;
}

const defaultLogger: LoopGuardLogger = { warn: (message) => console.warn(`loopguard: ${message}`) };

/**
 * The engine: holds many runs at once and keeps them apart. Pure: no OpenTelemetry, no
 * timers, no I/O. Housekeeping (evicting ended runs past their TTL) is done lazily on
 * startRun, so the engine needs no timer and never keeps a process alive.
 */
export class LoopGuard {
  readonly options: ResolvedOptions;
  private readonly listeners: LoopGuardListener[];
  private readonly maxOpenRuns: number;
  private readonly endedRunTtlMs: number;
  private readonly maxIdleMs: number;
  private readonly logger: LoopGuardLogger;
  /** Insertion order = order of last activity (touch re-inserts), so the first is the idlest. */
  private readonly openRuns = new Map<string, RunGuard>();
  /** Insertion order = end order, so expiry sweeps from the front. */
  private readonly endedRuns = new Map<string, { run: RunGuard; endedAt: number }>();
  private warnedAboutCap = false;
  private readonly hooks: RunHooks;

  constructor(options: LoopGuardEngineOptions = {}) {
    const { listeners, maxOpenRuns, endedRunTtlMs, maxIdleMs, logger, ...policy } = options;
    this.options = resolveOptions(policy);
    this.listeners = [...(listeners ?? [])];
    this.logger = logger ?? defaultLogger;
    this.maxOpenRuns = clampPositive(maxOpenRuns, 10_000, 'maxOpenRuns', this.logger);
    this.endedRunTtlMs = clampPositive(endedRunTtlMs, 60_000, 'endedRunTtlMs', this.logger, true);
    this.maxIdleMs = maxIdleMs === Infinity ? Infinity : clampPositive(maxIdleMs, 30 * 60_000, 'maxIdleMs', this.logger);
    const emit = this.emit.bind(this);
    this.hooks = {
      callDecided: (run, call, decision, round) => emit('callDecided', run, call, decision, round),
      callFinished: (run, call, outcome, novelty, round) => emit('callFinished', run, call, outcome, novelty, round),
      roundClosed: (run, summary) => emit('roundClosed', run, summary),
      runStopped: (run, decision) => emit('runStopped', run, decision),
      touched: (run) => this.touch(run),
    };
  }

  /**
   * Opens a run. `id` defaults to a random UUID; starting an id that is already open returns
   * that run (so two adapters seeing the same run agree).
   */
  startRun(id: string = randomUUID(), attributes: Record<string, string | number | boolean> = {}): RunGuard {
    this.sweepEnded();
    this.sweepIdle();
    const existing = this.openRuns.get(id);
    if (existing !== undefined) return existing;
    this.endedRuns.delete(id);
    while (this.openRuns.size >= this.maxOpenRuns) {
      const idlest = this.openRuns.values().next().value as RunGuard;
      if (!this.warnedAboutCap) {
        this.warnedAboutCap = true;
        this.logger.warn(
          `more than ${this.maxOpenRuns} runs are open; evicting the least recently active (${idlest.id}). ` +
            'End runs when they finish (run.end() / guard.endRun(id)), or raise maxOpenRuns.',
        );
      }
      this.endRun(idlest.id);
    }
    const run = new RunGuard(id, this.options, this.hooks, attributes);
    this.openRuns.set(id, run);
    this.emit('runStarted', run);
    return run;
  }

  /** An open run, or an ended one still inside its TTL. */
  getRun(id: string): RunGuard | undefined {
    return this.openRuns.get(id) ?? this.endedRuns.get(id)?.run;
  }

  /** Ends a run: closes its last round, tells listeners, keeps it queryable for the TTL. Idempotent. */
  endRun(id: string): void {
    const run = this.openRuns.get(id);
    if (run === undefined) return;
    this.openRuns.delete(id);
    run.end();
    this.emit('runEnded', run);
    if (this.endedRunTtlMs > 0) this.endedRuns.set(id, { run, endedAt: this.options.now() });
  }

  addListener(listener: LoopGuardListener): () => void {
    this.listeners.push(listener);
    return () => {
      const index = this.listeners.indexOf(listener);
      if (index >= 0) this.listeners.splice(index, 1);
    };
  }

  /** Open runs, and runs at risk: a stale or refused streak of 2 or more (the early warning). */
  stats(): { openRuns: number; runsAtRisk: number } {
    let runsAtRisk = 0;
    for (const run of this.openRuns.values()) {
      if (run.stopped === undefined && (run.staleRoundStreak >= 2 || run.refusedRoundStreak >= 2)) runsAtRisk += 1;
    }
    return { openRuns: this.openRuns.size, runsAtRisk };
  }

  runs(): IterableIterator<RunGuard> {
    return this.openRuns.values();
  }

  /** Text for the end of the system prompt: which calls will be refused. */
  describePolicy(): string {
    return describePolicyText(this.options);
  }

  /** Argument identity of a call (tool + arguments as values, volatile fields dropped). */
  argsHash(tool: string, args: unknown): string {
    return callSignature(tool, args, this.options.tool(tool));
  }

  /** Result identity of an outcome under the tool's policy. */
  fingerprint(tool: string, outcome: CallOutcome): PrehashedOutcome {
    return safeFingerprint(outcome, this.options.tool(tool), this.options.maxFingerprintBytes);
  }

  private touch(run: RunGuard): void {
    run.lastActivity = this.options.now();
    // Re-inserting keeps the Map in order of last activity, so eviction takes the idlest run
    // in O(1). Measured cost: one delete+set per call (~40 ns).
    if (this.openRuns.get(run.id) === run) {
      this.openRuns.delete(run.id);
      this.openRuns.set(run.id, run);
    }
  }

  private sweepIdle(): void {
    if (this.maxIdleMs === Infinity) return;
    const now = this.options.now();
    // openRuns is in order of last activity: stop at the first run that is not idle.
    for (const run of this.openRuns.values()) {
      if (now - run.lastActivity < this.maxIdleMs) break;
      this.endRun(run.id);
    }
  }

  private sweepEnded(): void {
    const now = this.options.now();
    for (const [id, entry] of this.endedRuns) {
      if (now - entry.endedAt < this.endedRunTtlMs) break;
      this.endedRuns.delete(id);
    }
  }

  private emit<K extends keyof LoopGuardListener>(event: K, ...args: Parameters<NonNullable<LoopGuardListener[K]>>): void {
    for (const listener of this.listeners) {
      const method = listener[event] as ((...a: unknown[]) => void) | undefined;
      if (method === undefined) continue;
      try {
        method.apply(listener, args as unknown[]);
      } catch (error) {
        // A listener can never break the agent loop.
        this.logger.warn(`listener ${String(event)} threw: ${error instanceof Error ? error.message : String(error)}`);
      }
    }
  }
}

function clampPositive(value: number | undefined, fallback: number, field: string, logger: LoopGuardLogger, allowZero = false): number {
  if (value === undefined) return fallback;
  if (typeof value === 'number' && Number.isFinite(value) && (value > 0 || (allowZero && value === 0))) return Math.floor(value);
  logger.warn(`${field} must be a positive number, got ${String(value)}; using ${fallback}`);
  return fallback;
}

export type { RunView };
// Both classes from one module: adapters import the engine and its runs together.
export { RunGuard, type CallTicket } from './run-guard.js';
