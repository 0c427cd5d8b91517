import type { ModelUsage, ToolTally } from './types.js';

/** Execution state of one distinct call (tool + argument identity). */
export const CallState = { InFlight: 0, Succeeded: 1, Failed: 2 } as const;
export type CallState = (typeof CallState)[keyof typeof CallState];

/**
 * What the ledger keeps per distinct call. One record per distinct signature, not per call:
 * a run that repeats itself costs no extra memory, which is the case we exist for.
 */
export interface SignatureRecord {
  state: CallState;
  /** The call id the model saw, so a refusal can point at the result already in the conversation. */
  callId: string | undefined;
  round: number;
  /** Write epoch (see RunLedger.writeEpoch) when the call last executed. */
  epoch: number;
  /** Identical retries made since the last success. */
  retries: number;
  firstTime: number;
  lastTime: number;
  /** Executions of this signature still running. */
  inFlight: number;
}

/** Tallies of the round being played; closed into the run's streaks when the next round begins. */
export class RoundAccumulator {
  calls = 0;
  executed = 0;
  refused = 0;
  finished = 0;
  newFacts = 0;
  seen = 0;
  neutral = 0;
  /** Calls refused because their tool is disabled by the escalation ladder. */
  disabledRefusals = 0;
  hadOverloadedExemption = false;
  usage: ModelUsage | undefined;
  /** Per tool: did it bring anything new this round (true) or only seen results (false)? */
  readonly toolProgress = new Map<string, boolean>();
}

/**
 * The run ledger: everything the checks read. Plain state, no behaviour beyond bookkeeping;
 * each rule lives in its own file under checks/ and reads or updates these fields.
 */
export class RunLedger {
  round = 0;
  readonly signatures = new Map<string, SignatureRecord>();
  /** Fingerprints of every result seen in the run; kept until the run ends (document 000). */
  readonly fingerprints = new Set<string>();

  /** Back-to-back check: the last call's identity and how many times in a row it came. */
  lastArgsHash: string | undefined = undefined;
  sameCallStreak = 0;

  /** Consecutive failures per tool; reset when that tool succeeds. */
  readonly failureStreakByTool = new Map<string, number>();

  /** Executed calls that count against maxToolCalls. */
  budgetedCalls = 0;
  overloadedExempted = 0;
  /** Rounds that had an overloaded call taken off the budget: the round limit grows by this. */
  overloadedRounds = 0;

  /** Bumped each time a tool with side effects (approval) runs: earlier reads may run again. */
  writeEpoch = 0;

  staleRoundStreak = 0;
  refusedRoundStreak = 0;
  stalledRounds = 0;
  lastStateDigest: string | undefined = undefined;

  /** Escalation ladder: rounds in a row in which a tool returned only seen results. */
  readonly staleStreakByTool = new Map<string, number>();
  readonly disabledTools = new Set<string>();

  current = new RoundAccumulator();
  /** Round counted as closed (so shouldStop and beginRound never close it twice). */
  currentClosed = false;

  readonly tallies = new Map<string, ToolTally>();
  toolCalls = 0;
  executed = 0;
  refused = 0;
  newFacts = 0;
  seenResults = 0;
  wastedTokens = 0;
  lastNewFactRound = 0;
  inFlight = 0;

  startTime: number | undefined = undefined;
  /** Latest time observed on a recorded call (replay feeds recorded times). */
  lastObservedTime: number | undefined = undefined;

  tally(tool: string): ToolTally {
    let tally = this.tallies.get(tool);
    if (tally === undefined) {
      tally = { calls: 0, executed: 0, refused: 0, newFacts: 0, seen: 0, failures: 0 };
      this.tallies.set(tool, tally);
    }
    return tally;
  }
}
