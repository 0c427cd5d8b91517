import { LoopGuard } from '../core/loop-guard.js';
import type { RunGuard } from '../core/loop-guard.js';
import type {
  CallOutcome,
  LoopGuardOptions,
  ModelUsage,
  OutcomeClass,
  PrehashedOutcome,
  PrehashedToolCall,
  Profile,
  RoundSummary,
  RunView,
  ToolCall,
} from '../core/types.js';
import { isPrehashedOutcome, type ReplayCall, type ReplayModelRound } from './replay-call.js';
import { ReplayInputError } from './replay-input-error.js';
import { RunDecisionLog, type ReplayStop, type RunReport } from './run-report.js';

/**
 * Each skipped round number is a real (tool-less) round fed to the engine, so a typo such as
 * a timestamp in `round` would otherwise mean a billion beginRound calls.
 */
export const MAX_ROUND_JUMP = 10_000;

/** Everything replay keeps about one run while its file is being read. */
interface RunReplayState {
  readonly id: string;
  readonly guard: RunGuard;
  readonly log: RunDecisionLog;
  /** Round the engine is in (0 before the first beginRound). */
  engineRound: number;
  /** Highest round seen in the input, skipped rounds included. */
  inputRound: number;
  usageRecordedForRound: boolean;
  executed: number;
  refused: number;
  skipped: number;
  stop: ReplayStop | null;
  savedTokens: number;
  /** Round whose usage was last added to savedTokens (each skipped round counts once). */
  lastSavedUsageRound: number;
  usageTotals: Required<ModelUsage> | undefined;
  lastUsageRound: number;
  /** The run's own recorded time; interleaved runs may come from different hours. */
  clock: number;
}

/**
 * Feeds recorded calls of one input file through a real LoopGuard, one RunGuard per run,
 * exactly as a live agent loop would: beginRound when the round number moves, startCall /
 * finishCall per call, shouldStop before each new round and at the end. The engine is the
 * only judge; this class only keeps the compact per-run record the reports need.
 *
 * Time: the guard's clock is the recorded time of the call being fed (`ts`, and
 * `ts + durationMs` when it finishes), so poll deadlines and time budgets follow the
 * recording, not the machine running the replay. Each run keeps its own clock, so
 * interleaved runs from different hours do not age each other. Without `ts` a run's clock
 * does not move.
 */
export class ReplaySession {
  readonly guard: LoopGuard;
  readonly profile: Profile;
  private readonly runs = new Map<string, RunReplayState>();
  private clock = 0;
  private lastOutcome: OutcomeClass | undefined;

  constructor(
    readonly file: string,
    options: LoopGuardOptions,
  ) {
    this.guard = new LoopGuard({
      ...options,
      now: () => this.clock,
      // Replay holds a run open until its last line (or the end of the input); the live
      // defaults (evict past 10 000 runs) would silently restart a long-interleaved run.
      maxOpenRuns: Number.MAX_SAFE_INTEGER,
      // Finished runs are reported and dropped; keeping them queryable would only hold memory.
      endedRunTtlMs: 0,
      // Replay ends each run itself when its input is complete. The live idle limit would be
      // judged by whichever run's line came last, so one run's recorded time could end another
      // run mid-way: a run must get the same verdict alone and interleaved.
      maxIdleMs: Infinity,
      listeners: [
        {
          roundClosed: (run, summary) => this.onRoundClosed(run, summary),
          // The engine's own outcome class, so the report marks exactly the calls it counted as failures.
          callFinished: (_run, _call, outcome) => {
            this.lastOutcome = outcome;
          },
        },
      ],
    });
    this.profile = this.guard.options.profile;
  }

  get openRunCount(): number {
    return this.runs.size;
  }

  /**
   * Feeds one call. Returns a ReplayInputError (the call is not fed) when the call
   * contradicts its run's earlier lines, e.g. a round number going backwards.
   */
  feed(call: ReplayCall): ReplayInputError | undefined {
    const state = this.enterRound(call);
    if (state instanceof ReplayInputError) return state;

    if (state.stop) {
      state.skipped++;
      state.log.append(call.round, call.tool, 'skip', 'run.stopped');
      return undefined;
    }

    if (call.compactedBefore === true) state.guard.contextCompacted();

    const ticket = state.guard.startCall(toEngineCall(call));
    if (ticket.decision.action === 'refuse') {
      // A refused call counts as not run: its recorded result is never shown to the engine.
      state.refused++;
      state.log.append(call.round, call.tool, 'refuse', ticket.decision.reason);
      return undefined;
    }
    const endTime =
      call.startTime !== undefined && call.durationMs !== undefined ? call.startTime + call.durationMs : undefined;
    if (endTime !== undefined) this.clock = state.clock = endTime;
    this.lastOutcome = undefined;
    const novelty = state.guard.finishCall(ticket, withEndTime(call.outcome, endTime));
    state.executed++;
    const failed = this.lastOutcome === 'error' || this.lastOutcome === 'timeout' || this.lastOutcome === 'overloaded';
    state.log.append(call.round, call.tool, `allow-${novelty}`, undefined, failed);
    return undefined;
  }

  /**
   * Ends one run (its input is complete) and returns its report. `rounds`: how many model
   * calls the run made, when the input says (OTLP: its model-call spans). Those after its last
   * tool call asked for no tools, and are rounds all the same: the live run counted them
   * (startAgentRun's modelCall opens one each), and its max_rounds stop came after them.
   */
  finishRun(runId: string, rounds = 0): RunReport | undefined {
    const state = this.runs.get(runId);
    if (!state) return undefined;
    this.clock = state.clock;
    if (!state.stop) this.advanceToRound(state, rounds);
    state.inputRound = Math.max(state.inputRound, Math.min(rounds, state.engineRound));
    if (!state.stop) this.checkStop(state);
    this.guard.endRun(runId);
    this.runs.delete(runId);
    return this.buildReport(state);
  }

  /**
   * Feeds a model call that asked for no tools (the run's answer, a turn of text): a round of
   * the run with no call, as the live processor counts a model-call span. Same order rules as
   * `feed`.
   */
  feedModelRound(modelRound: ReplayModelRound): ReplayInputError | undefined {
    const state = this.enterRound(modelRound);
    return state instanceof ReplayInputError ? state : undefined;
  }

  /**
   * The run of a line, moved on to its round (rounds opened up to it, its clock and usage
   * noted, the usage recorded once per round while the run goes on), or the problem when the
   * line contradicts its run's earlier lines.
   */
  private enterRound(line: ReplayCall | ReplayModelRound): RunReplayState | ReplayInputError {
    let state = this.runs.get(line.run);
    if (state && line.round < state.inputRound) {
      return new ReplayInputError({
        file: line.source.file,
        line: line.source.line,
        field: 'round',
        problem: `"round" ${line.round} comes after round ${state.inputRound} of run ${JSON.stringify(line.run)}; lines of one run must be in order`,
      });
    }
    const previousRound = state?.inputRound ?? 0;
    if (line.round - previousRound > MAX_ROUND_JUMP) {
      return new ReplayInputError({
        file: line.source.file,
        line: line.source.line,
        field: 'round',
        problem: `"round" jumps from ${previousRound} to ${line.round} in run ${JSON.stringify(line.run)}; rounds may skip at most ${MAX_ROUND_JUMP} at a time (is this a timestamp?)`,
      });
    }
    if (!state) {
      state = this.startRunState(line.run);
    }
    if (line.startTime !== undefined) state.clock = line.startTime;
    this.clock = state.clock;

    if (!state.stop && line.round > state.engineRound) this.advanceToRound(state, line.round, line.usage);
    this.noteUsage(state, line);
    state.inputRound = Math.max(state.inputRound, line.round);
    if (!state.stop && line.usage && !state.usageRecordedForRound) {
      state.guard.recordUsage(line.usage);
      state.usageRecordedForRound = true;
    }
    return state;
  }

  /** Ends every run still open (the file is done), in the order the runs first appeared. */
  *finishAllRuns(): IterableIterator<RunReport> {
    for (const runId of [...this.runs.keys()]) {
      const report = this.finishRun(runId);
      if (report) yield report;
    }
  }

  private startRunState(runId: string): RunReplayState {
    const state: RunReplayState = {
      id: runId,
      guard: this.guard.startRun(runId),
      log: new RunDecisionLog(),
      engineRound: 0,
      inputRound: 0,
      usageRecordedForRound: false,
      executed: 0,
      refused: 0,
      skipped: 0,
      stop: null,
      savedTokens: 0,
      lastSavedUsageRound: 0,
      usageTotals: undefined,
      lastUsageRound: 0,
      clock: 0,
    };
    this.runs.set(runId, state);
    return state;
  }

  /**
   * Opens rounds up to `round` (a call's, or the run's last at its end), `usage` on that one. A
   * gap in round numbers is a model call that asked for no tools; it is still a round, so the
   * engine's round count matches the input's.
   */
  private advanceToRound(state: RunReplayState, round: number, roundUsage?: ModelUsage): void {
    while (state.engineRound < round) {
      if (state.engineRound >= 1 && this.checkStop(state)) return;
      state.engineRound++;
      const usage = state.engineRound === round ? roundUsage : undefined;
      state.guard.beginRound(usage);
      state.usageRecordedForRound = usage !== undefined;
    }
  }

  /** Asks the engine whether to stop; records the stop. Returns true when stopped. */
  private checkStop(state: RunReplayState): boolean {
    const decision = state.guard.shouldStop();
    if (decision.action !== 'stop') return false;
    state.stop = {
      reason: decision.reason,
      round: decision.round,
      call: state.log.length,
      detail: decision.detail,
    };
    return true;
  }

  /** Totals usage per round (first usage seen in a round wins) and what skipped rounds saved. */
  private noteUsage(state: RunReplayState, call: ReplayCall | ReplayModelRound): void {
    if (!call.usage || call.round <= state.lastUsageRound) return;
    state.lastUsageRound = call.round;
    const inputTokens = call.usage.inputTokens ?? 0;
    const outputTokens = call.usage.outputTokens ?? 0;
    state.usageTotals ??= { inputTokens: 0, outputTokens: 0 };
    state.usageTotals.inputTokens += inputTokens;
    state.usageTotals.outputTokens += outputTokens;
    if (state.stop && call.round > state.lastSavedUsageRound) {
      state.lastSavedUsageRound = call.round;
      state.savedTokens += inputTokens + outputTokens;
    }
  }

  private onRoundClosed(run: RunView, summary: RoundSummary): void {
    this.runs.get(run.id)?.log.setRoundVerdict(summary.round, summary.verdict);
  }

  private buildReport(state: RunReplayState): RunReport {
    const log = state.log;
    const rounds = state.inputRound;
    if (state.stop) {
      for (let round = state.engineRound + 1; round <= rounds; round++) log.setRoundVerdict(round, 'skipped');
    }
    fillMissingRoundVerdicts(log, rounds);
    const saved: RunReport['saved'] = { calls: state.skipped + state.refused };
    if (state.usageTotals) saved.tokens = state.savedTokens;
    const report: RunReport = {
      run: state.id,
      file: this.file,
      profile: this.profile,
      calls: log.length,
      executed: state.executed,
      refused: state.refused,
      skipped: state.skipped,
      rounds,
      stop: state.stop,
      saved,
      roundVerdicts: log.roundVerdicts(rounds),
      decisions: () => log.decisions(),
    };
    if (state.usageTotals) report.usage = state.usageTotals;
    return report;
  }
}

/** A recorded call as the engine takes it (raw arguments, or only their hash). */
export function toEngineCall(call: ReplayCall): ToolCall | PrehashedToolCall {
  if (call.argsHash !== undefined && call.args === undefined) {
    return { ...call.facts, tool: call.tool, argsHash: call.argsHash, callId: call.callId, startTime: call.startTime };
  }
  return { tool: call.tool, args: call.args, callId: call.callId, startTime: call.startTime };
}

/** The outcome with the call's recorded end time (the engine's clock for when it finished). */
function withEndTime(
  outcome: CallOutcome | PrehashedOutcome,
  endTime: number | undefined,
): CallOutcome | PrehashedOutcome {
  if (endTime === undefined) return outcome;
  if (isPrehashedOutcome(outcome)) return { ...outcome, endTime };
  return { ...outcome, endTime } as CallOutcome;
}

/**
 * The engine reports a verdict when it closes a round; the last round of a run may never be
 * closed by a later beginRound. Those rounds get the same rule the engine states in
 * RoundVerdict, from the calls replay saw: all refused, any new, only seen, or neither.
 */
function fillMissingRoundVerdicts(log: RunDecisionLog, rounds: number): void {
  const missing: boolean[] = [];
  let anyMissing = false;
  for (let round = 1; round <= rounds; round++) {
    missing[round] = log.roundVerdict(round) === undefined;
    anyMissing ||= missing[round];
  }
  if (!anyMissing) return;
  const tallies = new Map<number, { calls: number; refused: number; fresh: number; seen: number }>();
  for (const decision of log.decisions()) {
    if (!missing[decision.round]) continue;
    let tally = tallies.get(decision.round);
    if (!tally) tallies.set(decision.round, (tally = { calls: 0, refused: 0, fresh: 0, seen: 0 }));
    tally.calls++;
    if (decision.decision === 'refuse') tally.refused++;
    if (decision.novelty === 'new') tally.fresh++;
    if (decision.novelty === 'seen') tally.seen++;
  }
  for (const [round, tally] of tallies) {
    if (tally.refused === tally.calls) log.setRoundVerdict(round, 'refused');
    else if (tally.fresh > 0) log.setRoundVerdict(round, 'new');
    else if (tally.seen > 0 && tally.seen + tally.refused === tally.calls) log.setRoundVerdict(round, 'stale');
    else log.setRoundVerdict(round, 'neutral');
  }
}
