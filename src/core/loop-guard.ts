import { randomUUID } from 'node:crypto';
import { callSignature } from './call-signature.js';
import { describePolicyText } from './messages.js';
import { neverThrowingLogger } from './never-throwing-logger.js';
import { resolveOptions, validateOptions, type ResolvedOptions } from './policy.js';
import { RunGuard, safeFingerprint, type RunHooks } from './run-guard.js';
import { DEFAULT_CLAIM_LEASE_MS, positiveMsOption, resolveSharedLedger, type ResolvedSharedLedger, type SharedLedgerEngineOptions } from './shared-ledger/shared-ledger-options.js';
import type { RunStore } from './shared-ledger/run-store.js';
import { SharedRunLink, type SharedLedgerReporter } from './shared-ledger/shared-run-link.js';
import { thrownText } from './thrown-text.js';
import type { CallOutcome, EvictionCause, LoopGuardListener, LoopGuardOptions, PrehashedOutcome, RunView } from './types.js';

/** Where the engine reports its own trouble (the OTel front passes `diag`). */
export interface LoopGuardLogger {
  /**
   * One line of trouble (a store outage, an eviction); never called on the hot path of a healthy
   * run.
   */
  warn(message: string): void;
}

/** Options of {@link LoopGuard}: the policy plus engine housekeeping. */
export interface LoopGuardEngineOptions extends LoopGuardOptions, SharedLedgerEngineOptions {
  /** Observers (telemetry, progress output). Default none. */
  listeners?: LoopGuardListener[];
  /**
   * Cap on open runs: a host that forgets to end runs must not grow without bound. Past it
   * the least recently active run without a call in flight is evicted (any run only if all
   * have one). An evicted run fails open: its later calls are allowed with kind `unguarded`,
   * never refused for the eviction (a run already stopped keeps its stop). Each eviction is
   * a `runEvicted` event; each evicted run that is still in use is warned about once.
   * Also bounds how many ended runs are kept for `endedRunTtlMs`. Default 10 000.
   */
  maxOpenRuns?: number;
  /**
   * Ended runs stay queryable (getRun) this long, in ms — at most `maxOpenRuns` of them, the
   * oldest dropped first. Default 60 000.
   */
  endedRunTtlMs?: number;
  /**
   * Open runs with no activity for this long are evicted like runs past the cap (checked
   * lazily when a run starts). A run with a call in flight is never idle: a lead waiting on
   * a sub-agent or a long build is busy. Catches runs nobody ends — implicit per-trace runs
   * of apps that trace only tool calls, crashed agent loops — so they leave the runs-at-risk
   * gauge and free their memory. Default 1 800 000 (30 minutes); Infinity turns it off.
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
  /**
   * The run known to be last in openRuns' order (touched or started last), or undefined when
   * unknown: touching it again needs no re-insert. A run's calls come one after another, so
   * most touches are of this run. Measured (bench/probes/serve-ingestion.ts, 400 open runs,
   * two touches per call): the delete+set was 2.9 % of an OTLP ingestion profile.
   */
  private backRun: RunGuard | undefined;
  /** Insertion order = end order, so expiry sweeps from the front. At most maxOpenRuns entries. */
  private readonly endedRuns = new Map<string, { run: RunGuard; endedAt: number }>();
  private warnedAboutCap = false;
  private readonly hooks: RunHooks;
  private readonly shared: ResolvedSharedLedger | undefined;
  /**
   * How long a claimed call may go unfinished before it is treated as timed out: `claimLeaseMs`
   * (default 120 000), with or without a store (the shared ledger resolves the same value).
   * `loopguard serve` applies it to the calls its remote agents claim and never report back.
   */
  readonly claimLeaseMs: number;
  private readonly reporter: SharedLedgerReporter;
  /**
   * Runs' links with changes not yet in the store, whether or not the run is still in
   * openRuns / endedRuns (an ended run leaves them at once with endedRunTtlMs: 0, past the
   * cap, or when its id is reused): flush() waits for all of them. Bounded by the runs with
   * unsent changes; a link leaves once everything it recorded is in the store.
   */
  private readonly unflushedLinks = new Set<SharedRunLink>();
  /**
   * Links with a store operation that failed and has not succeeded since (nor has its work
   * done otherwise): the store is down while any is here, one warning when the first comes,
   * one when the last goes. A success of another link, or of another kind of operation on the
   * same link, does not end the outage: Redis can serve reads and one run while it refuses
   * appends (OOM) or one key (WRONGTYPE), and counting such a success as "back" made each
   * retry two warnings and an immediate retry, in a loop (the audit's d4 and d7).
   */
  private readonly failingLinks = new Set<SharedRunLink>();

  /** @throws LoopGuardConfigError naming the first bad option, engine or policy (issue 10 #16). */
  constructor(options: LoopGuardEngineOptions = {}) {
    // Every option, engine ones included, is checked before anything is built: a bad one is a
    // programming error that must surface here, not as a fallback or a later TypeError.
    validateOptions(options);
    const { listeners, maxOpenRuns, endedRunTtlMs, maxIdleMs, logger, store, idempotentWrites, storeFailure, claimLeaseMs, ownedRuns, ...policy } = options;
    this.options = resolveOptions(policy);
    this.listeners = [...(listeners ?? [])];
    this.logger = neverThrowingLogger(logger ?? defaultLogger);
    this.maxOpenRuns = maxOpenRuns ?? 10_000;
    this.endedRunTtlMs = endedRunTtlMs ?? 60_000;
    this.maxIdleMs = maxIdleMs ?? 30 * 60_000;
    this.shared = resolveSharedLedger({ store, idempotentWrites, storeFailure, claimLeaseMs, ownedRuns });
    this.claimLeaseMs = positiveMsOption(claimLeaseMs, 'claimLeaseMs', DEFAULT_CLAIM_LEASE_MS);
    this.reporter = {
      storeFailed: (link, runId, operation, error, tool) => {
        if (this.failingLinks.size === 0) {
          const behaviour = this.shared?.callsFailOpen === false ? 'calls are refused' : 'calls are decided on this process\'s copy of each run';
          this.logger.warn(
            `the shared store failed (${operation} of run ${JSON.stringify(runId)}${tool === undefined ? '' : `, business key of ${tool}`}: ${thrownText(error)}); until it is back, ${behaviour}` +
              (this.shared?.idempotentWritesFailOpen === true ? ' and business-key writes run unguarded.' : ' and business-key writes are refused.'),
          );
        }
        this.failingLinks.add(link);
        this.emit('storeError', operation, runId, error);
      },
      storeRecovered: (link) => {
        if (!this.failingLinks.delete(link)) return;
        if (this.failingLinks.size > 0) {
          // What failed for this link works again: the others may be back too, so they try now
          // rather than at their next retry. One that fails again stays here, no new warning;
          // only a link's own success brings it here, so this cannot loop.
          for (const other of this.failingLinks) other.storeIsBack();
          return;
        }
        this.logger.warn('the shared store is reachable again');
        // What every run recorded during the outage goes in now, not at its next change
        // (a run that ended or went quiet would otherwise never reach the log).
        for (const link of this.unflushedLinks) link.storeIsBack();
        for (const run of this.openRuns.values()) run.shared?.storeIsBack();
        for (const { run } of this.endedRuns.values()) run.shared?.storeIsBack();
      },
      warn: (message) => this.logger.warn(message),
      unflushed: (link, unflushed) => {
        if (unflushed) this.unflushedLinks.add(link);
        else this.unflushedLinks.delete(link);
      },
    };
    const emit = this.emit.bind(this);
    this.hooks = {
      callDecided: (run, call, decision, round) => emit('callDecided', run, call, decision, round),
      callFinished: (run, call, outcome, novelty, round) => emit('callFinished', run, call, outcome, novelty, round),
      roundClosed: (run, summary) => emit('roundClosed', run, summary),
      runStopped: (run, decision) => emit('runStopped', run, decision),
      touched: (run) => this.touch(run),
      ended: (run) => this.unregister(run),
      unguardedCall: (run) => this.warnUnguarded(run),
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
      const evicted = this.runToEvict();
      if (!this.warnedAboutCap) {
        this.warnedAboutCap = true;
        this.logger.warn(
          `more than ${this.maxOpenRuns} runs are open; evicting the least recently active (${evicted.id}). ` +
            'An evicted run still in use runs unguarded. End runs when they finish (run.end() / guard.endRun(id)), or raise maxOpenRuns.',
        );
      }
      this.evict(evicted, 'max_open_runs');
    }
    const run = new RunGuard(id, this.options, this.hooks, attributes);
    if (this.shared !== undefined) run.shared = new SharedRunLink(run, this.shared, this.reporter, this.options.now);
    this.openRuns.set(id, run);
    this.backRun = run;
    this.emit('runStarted', run);
    return run;
  }

  /**
   * Opens a run and, with a shared store, brings it up to date with the store first: a
   * process joining a run another started, or restarting after a crash, resumes its ledger
   * (streaks, seen results, budgets, stop). Without a store it is startRun.
   */
  async resumeRun(id: string, attributes: Record<string, string | number | boolean> = {}): Promise<RunGuard> {
    const run = this.startRun(id, attributes);
    await run.shared?.refresh();
    return run;
  }

  /**
   * Lets go of a run in this process only: like endRun, but with a shared store no end is
   * logged, so the run goes on in the other processes (a span processor shutting down for a
   * redeploy). Without a store it is endRun.
   */
  releaseRun(id: string): void {
    this.openRuns.get(id)?.endLocally();
  }

  /**
   * Resolves when every change recorded so far is in the shared store (or the store failed:
   * see storeFailure). Call it before a process exits. Without a store it resolves at once.
   */
  async flush(): Promise<void> {
    const links = new Set(this.unflushedLinks);
    for (const run of this.openRuns.values()) if (run.shared !== undefined) links.add(run.shared);
    for (const { run } of this.endedRuns.values()) if (run.shared !== undefined) links.add(run.shared);
    await Promise.all([...links].map((link) => link.flushed()));
  }

  /** The engine has a shared store: async wrappers claim calls across processes. */
  get isShared(): boolean {
    return this.shared !== undefined;
  }

  /** @internal Whether `tool` is a business-key write (`idempotentWrites`, with a shared store). */
  hasBusinessKey(tool: string): boolean {
    return this.shared?.idempotentWrites.has(tool) ?? false;
  }

  /** The shared store given as `store` (undefined without one): `loopguard serve` lends it to remote ledgers. */
  get store(): RunStore | undefined {
    return this.shared?.store;
  }

  /** An open run, or an ended one still inside its TTL. */
  getRun(id: string): RunGuard | undefined {
    return this.openRuns.get(id) ?? this.endedRuns.get(id)?.run;
  }

  /**
   * Ends a run: closes its last round, tells listeners, keeps it queryable for the TTL. The
   * same as `run.end()`. Idempotent.
   */
  endRun(id: string): void {
    this.openRuns.get(id)?.end();
  }

  /**
   * Subscribes to the engine's decisions (telemetry does); returns the function that unsubscribes.
   * A listener that throws is caught and never breaks the agent loop.
   */
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

  /** The runs open now, for gauges and inspection; don't keep the iterator across calls. */
  runs(): IterableIterator<RunGuard> {
    return this.openRuns.values();
  }

  /** Text for the end of the system prompt: which calls will be refused. */
  describePolicy(): string {
    return describePolicyText(this.options);
  }

  /**
   * Argument identity of a call (tool + arguments as values, volatile fields and the call's
   * own clock stamps dropped): the identity a run gives the call. `startTime` is the call's
   * start (default: the clock).
   */
  argsHash(tool: string, args: unknown, startTime: number = this.options.now()): string {
    return callSignature(tool, args, this.options.tool(tool), startTime);
  }

  /** Result identity of an outcome under the tool's policy. */
  fingerprint(tool: string, outcome: CallOutcome): PrehashedOutcome {
    return safeFingerprint(outcome, this.options.tool(tool), this.options.maxFingerprintBytes);
  }

  private touch(run: RunGuard): void {
    run.lastActivity = this.options.now();
    if (run === this.backRun) return;
    // Re-inserting keeps the Map in order of last activity, so eviction takes the idlest run
    // in O(1). Measured cost: one delete+set per call (~40 ns).
    if (this.openRuns.get(run.id) === run) {
      this.openRuns.delete(run.id);
      this.openRuns.set(run.id, run);
      this.backRun = run;
    }
  }

  private sweepIdle(): void {
    if (this.maxIdleMs === Infinity) return;
    const now = this.options.now();
    // openRuns is in order of last activity: stop at the first run that is not idle. A run
    // with a call in flight is active now: touching moves it to the back, and the count
    // bounds the walk (entries re-inserted while iterating a Map are visited again).
    let remaining = this.openRuns.size;
    for (const run of this.openRuns.values()) {
      if (remaining-- === 0 || now - run.lastActivity < this.maxIdleMs) break;
      if (run.inFlight > 0) this.touch(run);
      else this.evict(run, 'max_idle');
    }
  }

  /**
   * The least recently active run without a call in flight; the least recently active of
   * all if every run has one. Runs skipped for a call in flight count as active now (moved
   * to the back), so repeated evictions do not rescan them.
   */
  private runToEvict(): RunGuard {
    let remaining = this.openRuns.size;
    for (const run of this.openRuns.values()) {
      if (remaining-- === 0) break;
      if (run.inFlight === 0) return run;
      this.touch(run);
    }
    // Every run was busy and moved to the back in order: the front is the idlest again.
    return this.openRuns.values().next().value as RunGuard;
  }

  private evict(run: RunGuard, cause: EvictionCause): void {
    run.evict(cause); // ends it: unregister() tells runEnded listeners
    this.emit('runEvicted', run, cause);
  }

  /** Every end goes through here, whoever ended the run (issue 10 #4). */
  private unregister(run: RunGuard): void {
    if (this.openRuns.get(run.id) !== run) return;
    this.openRuns.delete(run.id);
    if (this.backRun === run) this.backRun = undefined; // not retained once ended
    this.emit('runEnded', run);
    if (this.endedRunTtlMs === 0) return;
    this.endedRuns.delete(run.id);
    this.endedRuns.set(run.id, { run, endedAt: this.options.now() });
    // Bounded by count as well as time: a burst of evictions must not hold every ledger
    // for the whole TTL (issue 10 #12).
    if (this.endedRuns.size > this.maxOpenRuns) this.endedRuns.delete(this.endedRuns.keys().next().value as string);
  }

  private warnUnguarded(run: RunGuard): void {
    // Once per evicted run (a flag on the run, so nothing to bound here): the agent is live
    // and has lost its guard, which the one cap warning does not say.
    this.logger.warn(
      `run ${JSON.stringify(run.id)} was evicted (${run.evictedBy ?? 'evicted'}) but is still making tool calls; they now run unguarded. ` +
        (run.evictedBy === 'max_idle' ? 'Raise maxIdleMs, or end runs when they finish.' : 'Raise maxOpenRuns, or end runs when they finish.'),
    );
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
        this.logger.warn(`listener ${String(event)} threw: ${thrownText(error)}`);
      }
    }
  }
}

export type { RunView };
// Both classes from one module: adapters import the engine and its runs together.
export { RunGuard, type CallTicket } from './run-guard.js';
