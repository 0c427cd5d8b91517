import type { ModelUsage, Profile, RefusalReason, RoundVerdict, StopReason } from '../core/types.js';
import { GrowableUintColumn, StringInterner } from './growable-typed-array.js';

/** What replay decided for one input call. */
export type ReplayDecisionKind = 'allow' | 'refuse' | 'skip';

/** Whether an allowed call's result taught the run something (engine's Novelty). */
export type ReplayNovelty = 'new' | 'seen' | 'neutral';

/**
 * What replay decided for one input call: allowed (with the novelty of its result), refused (with
 * the reason), or skipped after the stop.
 */
export interface ReplayDecision {
  /** 1-based position of the call within its run. */
  call: number;
  round: number;
  tool: string;
  decision: ReplayDecisionKind;
  /** RefusalReason for `refuse`; `run.stopped` for `skip`. */
  reason?: RefusalReason;
  /** For `allow`: how the recorded result compared with what the run had already seen. */
  novelty?: ReplayNovelty;
  /** For `allow`: present (true) when the call failed (error, timeout, overload). */
  failed?: true;
}

/** Where and why the guard would have stopped a replayed run. */
export interface ReplayStop {
  reason: StopReason;
  /** The round after which the guard stops the run (the engine's StopDecision.round). */
  round: number;
  /** Position of the last call fed before the stop; every later call of the run is `skip`. */
  call: number;
  /** One-line explanation for people (StopDecision.detail). */
  detail: string;
}

/** How a round is drawn: the engine's verdict, or `skipped` for rounds after the stop. */
export type ReplayRoundVerdict = RoundVerdict | 'skipped';

/**
 * One replayed run: its counts, its stop, its decisions per call and what the stop would have
 * saved.
 */
export interface RunReport {
  run: string;
  file: string;
  profile: Profile;
  calls: number;
  executed: number;
  refused: number;
  skipped: number;
  /** Highest round number in the input for this run. */
  rounds: number;
  stop: ReplayStop | null;
  saved: { calls: number; tokens?: number };
  /** Tokens of every round the input recorded usage for (skipped rounds included). */
  usage?: Required<ModelUsage>;
  /** Verdict per round, index 0 = round 1; undefined when the engine reported none. */
  roundVerdicts: ReadonlyArray<ReplayRoundVerdict | undefined>;
  /** One decision per input call, in input order, materialised lazily. */
  decisions(): IterableIterator<ReplayDecision>;
}

const DECISION_CODES = ['allow-new', 'allow-seen', 'allow-neutral', 'refuse', 'skip'] as const;
type DecisionCode = (typeof DECISION_CODES)[number];
/** Added to an allow code for a call that failed; still one byte per call. */
const FAILED_FLAG = 0x80;
const VERDICT_CODES: ReadonlyArray<ReplayRoundVerdict | undefined> = [
  undefined,
  'new',
  'stale',
  'refused',
  'neutral',
  'empty',
  'skipped',
];

/** Refusal reasons are the engine's few fixed names: one table for every run. */
const REASONS = new StringInterner();
// Index 0 of reasons means "no reason".
REASONS.intern('');

/**
 * Compact per-run storage of decisions: eight bytes per call (round; tool index, code and
 * reason index packed in one word) instead of an object per call, and nothing allocated
 * before the first call. This is the part of replay memory that grows
 * with a run's length; see docs/replay-and-evaluation.md, "Memory".
 */
export class RunDecisionLog {
  private readonly roundColumn = new GrowableUintColumn('u32');
  /** toolIndex * 65536 + code * 256 + reasonIndex. */
  private readonly packedColumn = new GrowableUintColumn('u32');
  private readonly tools = new StringInterner();
  private readonly verdictColumn = new GrowableUintColumn('u8');

  get length(): number {
    return this.packedColumn.length;
  }

  append(round: number, tool: string, code: DecisionCode, reason?: string, failed = false): void {
    this.roundColumn.push(round);
    // A run with more than 65 535 distinct tool names is not an agent we can draw; clamp.
    const toolIndex = Math.min(this.tools.intern(tool), 0xffff);
    const codeValue = DECISION_CODES.indexOf(code) | (failed ? FAILED_FLAG : 0);
    const reasonIndex = reason ? Math.min(REASONS.intern(reason), 0xff) : 0;
    this.packedColumn.push(toolIndex * 65536 + codeValue * 256 + reasonIndex);
  }

  setRoundVerdict(round: number, verdict: ReplayRoundVerdict): void {
    while (this.verdictColumn.length < round) this.verdictColumn.push(0);
    this.verdictColumn.set(round - 1, VERDICT_CODES.indexOf(verdict));
  }

  roundVerdict(round: number): ReplayRoundVerdict | undefined {
    if (round < 1 || round > this.verdictColumn.length) return undefined;
    return VERDICT_CODES[this.verdictColumn.at(round - 1)];
  }

  roundVerdicts(rounds: number): Array<ReplayRoundVerdict | undefined> {
    const verdicts: Array<ReplayRoundVerdict | undefined> = [];
    for (let round = 1; round <= rounds; round++) verdicts.push(this.roundVerdict(round));
    return verdicts;
  }

  *decisions(): IterableIterator<ReplayDecision> {
    for (let index = 0; index < this.packedColumn.length; index++) {
      const packed = this.packedColumn.at(index);
      const stored = (packed >>> 8) & 0xff;
      const code = DECISION_CODES[stored & ~FAILED_FLAG];
      const decision: ReplayDecision = {
        call: index + 1,
        round: this.roundColumn.at(index),
        tool: this.tools.valueAt(packed >>> 16),
        decision: code.startsWith('allow') ? 'allow' : (code as 'refuse' | 'skip'),
      };
      const reasonIndex = packed & 0xff;
      if (reasonIndex !== 0) decision.reason = REASONS.valueAt(reasonIndex) as RefusalReason;
      if (code.startsWith('allow-')) decision.novelty = code.slice('allow-'.length) as ReplayNovelty;
      if ((stored & FAILED_FLAG) !== 0) decision.failed = true;
      yield decision;
    }
  }
}
