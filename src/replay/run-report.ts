import type { ModelUsage, Profile, RefusalReason, RoundVerdict, StopReason } from '../core/types.js';
import { GrowableUintColumn, StringInterner } from './growable-typed-array.js';

/** What replay decided for one input call. */
export type ReplayDecisionKind = 'allow' | 'refuse' | 'skip';

/** Whether an allowed call's result taught the run something (engine's Novelty). */
export type ReplayNovelty = 'new' | 'seen' | 'neutral';

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
}

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
const VERDICT_CODES: ReadonlyArray<ReplayRoundVerdict | undefined> = [
  undefined,
  'new',
  'stale',
  'refused',
  'neutral',
  'empty',
  'skipped',
];

/**
 * Compact per-run storage of decisions: about nine bytes per call (round, tool index, code,
 * reason index) instead of an object per call. This is the part of replay memory that grows
 * with a run's length; see README.md, "Replay" → "Memory".
 */
export class RunDecisionLog {
  private readonly roundColumn = new GrowableUintColumn('u32');
  private readonly toolColumn = new GrowableUintColumn('u16');
  private readonly codeColumn = new GrowableUintColumn('u8');
  private readonly reasonColumn = new GrowableUintColumn('u8');
  private readonly tools = new StringInterner();
  private readonly reasons = new StringInterner();
  private readonly verdictColumn = new GrowableUintColumn('u8');

  constructor() {
    // Index 0 of reasons means "no reason".
    this.reasons.intern('');
  }

  get length(): number {
    return this.codeColumn.length;
  }

  append(round: number, tool: string, code: DecisionCode, reason?: string): void {
    this.roundColumn.push(round);
    const toolIndex = this.tools.intern(tool);
    // A run with more than 65 535 distinct tool names is not an agent we can draw; clamp.
    this.toolColumn.push(Math.min(toolIndex, 0xffff));
    this.codeColumn.push(DECISION_CODES.indexOf(code));
    this.reasonColumn.push(reason ? Math.min(this.reasons.intern(reason), 0xff) : 0);
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
    for (let index = 0; index < this.codeColumn.length; index++) {
      const code = DECISION_CODES[this.codeColumn.at(index)];
      const decision: ReplayDecision = {
        call: index + 1,
        round: this.roundColumn.at(index),
        tool: this.tools.valueAt(this.toolColumn.at(index)),
        decision: code.startsWith('allow') ? 'allow' : (code as 'refuse' | 'skip'),
      };
      const reasonIndex = this.reasonColumn.at(index);
      if (reasonIndex !== 0) decision.reason = this.reasons.valueAt(reasonIndex) as RefusalReason;
      if (code.startsWith('allow-')) decision.novelty = code.slice('allow-'.length) as ReplayNovelty;
      yield decision;
    }
  }
}
