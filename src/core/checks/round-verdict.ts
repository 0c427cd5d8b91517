import type { ResolvedOptions } from '../policy.js';
import type { RunLedger } from '../run-ledger.js';
import type { RoundVerdict } from '../types.js';

/** The run's counters as they stand once the current round is counted. */
export interface RoundProjection {
  verdict: RoundVerdict;
  staleRoundStreak: number;
  /** Rounds in a row whose only new facts were empty answers (zero results for a new question). */
  emptyRoundStreak: number;
  refusedRoundStreak: number;
  overloadedRounds: number;
  /** Tools that returned only already-seen results this round (for the nudge). */
  repeatingTools: string[];
  /** Tools disabled after this round (escalation ladder step 2). */
  disabledTools: string[];
  /** Per-tool stale streaks after this round: the tools called this round, and page actions whose count a new page reset. */
  toolStreaks: Array<[string, number]>;
}

/**
 * How a round counts — per round, never per tool (document 000):
 * - a round where at least one call ran and any result was new made progress ('new'):
 *   the stale-round streak resets, even if another tool repeated itself;
 * - a round where calls ran and every result was already seen is 'stale';
 * - a round where every call was refused is 'refused'; that streak is a separate counter,
 *   reset as soon as any call runs. Merging the two would let a round of seen results be
 *   wiped by the refusal-side reset, and the results-side loop would never be counted;
 * - a round whose executed calls were all neutral (exempt waits, polls inside their
 *   window) changes neither streak; a round with no calls (the final answer) neither.
 *
 * Pure: shouldStop projects the open round with it; beginRound applies it.
 */
export function projectRound(ledger: RunLedger, options: ResolvedOptions, includeOpenRound = true): RoundProjection {
  const round = ledger.current;
  const unchanged: RoundProjection = {
    verdict: 'empty',
    staleRoundStreak: ledger.staleRoundStreak,
    emptyRoundStreak: ledger.emptyRoundStreak,
    refusedRoundStreak: ledger.refusedRoundStreak,
    overloadedRounds: ledger.overloadedRounds,
    repeatingTools: [],
    disabledTools: [...ledger.disabledTools],
    toolStreaks: [],
  };
  // A round with no calls of its own may still hold late results of an earlier round's calls.
  if (!includeOpenRound || ledger.currentClosed || (round.calls === 0 && round.finished === 0)) return unchanged;

  const projection = unchanged;
  if (round.hadOverloadedExemption) projection.overloadedRounds += 1;
  // Thoughts (`think`) are the model thinking, not calls to the world: a round of refused calls
  // and a thought is a round of refused calls, and a round of new thoughts alone is a round with
  // no calls. Counted as calls, a think tool between refusals reset the refused-round streak,
  // and a loop that thinks before each repeat was never stopped. The same thought again is still seen.
  const ranNothing = round.executed === round.thoughts && round.finished === round.thoughtsFinished;
  if (ranNothing && round.refused === 0 && round.seen === 0) return projection;
  if (ranNothing && round.refused > 0) {
    projection.verdict = 'refused';
    projection.refusedRoundStreak += 1;
    // Insisting on a tool the ladder disabled is the stale loop going on by other means: the
    // stale streak keeps counting, so the ladder never delays the stop it leads up to.
    if (round.disabledRefusals > 0) projection.staleRoundStreak += 1;
    // So is a round of repeats refused while the stale streak runs (general profile): reworded
    // calls bringing back what was seen, then the same calls again, refused, are one loop; apart,
    // four stale rounds and four refused ones stopped nothing. Counted only inside a streak, so a
    // repeat refused right after progress (the agent checking once more) is not. Researcher and
    // chat keep document 000's two counts. Measured (npm run eval:wide): loops stopped +68 (InterCode
    // Bash 380 → 386, SQL 3,480 → 3,536, SQL ReAct 21 → 27), healthy runs stopped unchanged.
    else if (round.repeatRefusals > 0 && projection.staleRoundStreak > 0 && options.profile === 'general') projection.staleRoundStreak += 1;
  } else if (round.newFacts > 0) {
    projection.refusedRoundStreak = 0;
    projection.verdict = 'new';
    projection.staleRoundStreak = 0;
    projection.emptyRoundStreak = round.emptyNewFacts === round.newFacts ? projection.emptyRoundStreak + 1 : 0;
  } else if (round.seen > 0) {
    projection.refusedRoundStreak = 0;
    projection.verdict = 'stale';
    projection.staleRoundStreak += 1;
  } else if (round.disabledRefusals > 0) {
    // Calls that ran were all neutral (an exempt wait, a poll in its window) while the model
    // kept asking for what the ladder switched off: still the stale loop, by other means.
    // Counting it neutral let the ladder postpone the stop forever (issue 10, item 5).
    projection.refusedRoundStreak = 0;
    projection.verdict = 'stale';
    projection.staleRoundStreak += 1;
  } else {
    projection.refusedRoundStreak = 0;
    projection.verdict = 'neutral';
  }

  const disabled = projection.verdict === 'new' ? new Set<string>() : new Set(ledger.disabledTools);
  const ladder = options.escalation;
  // Page actions share one world, the page. One that reached a page the run had not seen moved
  // the agent on, so every page action's count of seen pages starts again: the list an agent
  // returns to by its URL between detail pages is how it collects, not a loop. Counted per tool
  // across those detail pages, the eighth return to the list switched the navigation off and
  // refused the next one, to a search never made (test/core/world-state/page-state.test.ts).
  // Where no page action reaches a new page (the same pages in a cycle, seen pages between
  // another tool's answers, actions answered only by a line about themselves), counts build.
  const pageMoved = round.pageNews;
  for (const [key, progressed] of round.toolProgress) {
    const streak = progressed || (pageMoved && isPageAction(ledger, options, key)) ? 0 : (ledger.staleStreakByTool.get(key) ?? 0) + 1;
    projection.toolStreaks.push([key, streak]);
    if (progressed) continue;
    projection.repeatingTools.push(key);
    const family = ledger.ladderFamilies.get(key);
    const policy = options.tool(family ?? key);
    if (projection.verdict === 'new' || !ladder.enabled || streak < ladder.disableAfter) continue;
    if (policy.exempt || policy.poll !== undefined || policy.terminal) continue;
    if (family === undefined && isLastToolStanding(ledger, options, key, disabled)) continue;
    disabled.add(key);
  }
  if (pageMoved) {
    for (const [key, streak] of ledger.staleStreakByTool) {
      if (streak !== 0 && !round.toolProgress.has(key) && isPageAction(ledger, options, key)) projection.toolStreaks.push([key, 0]);
    }
  }
  projection.disabledTools = [...disabled];
  return projection;
}

/** Is this ladder key a browser action's (world-state/page-state.ts)? */
function isPageAction(ledger: RunLedger, options: ResolvedOptions, key: string): boolean {
  return options.tool(ledger.ladderFamilies.get(key) ?? key).page;
}

/**
 * Would disabling this tool leave the run with no tool it has used? Then the ladder holds
 * back: a run whose only tool is switched off can do nothing but be refused, and whether it
 * should end is the stop rule's call, made with the same streak the ladder reads. A thought
 * tool (`think`) is no tool to work with: a SQL agent that also thinks still has one.
 */
function isLastToolStanding(ledger: RunLedger, options: ResolvedOptions, tool: string, disabled: ReadonlySet<string>): boolean {
  for (const other of ledger.tallies.keys()) {
    if (other === tool || disabled.has(other)) continue;
    const policy = options.tool(other);
    if (!policy.exempt && !policy.terminal && policy.thought !== true) return false;
  }
  return true;
}

/** Writes a projection into the ledger (closing the round). */
export function applyRound(ledger: RunLedger, projection: RoundProjection): void {
  ledger.staleRoundStreak = projection.staleRoundStreak;
  ledger.emptyRoundStreak = projection.emptyRoundStreak;
  ledger.refusedRoundStreak = projection.refusedRoundStreak;
  ledger.overloadedRounds = projection.overloadedRounds;
  // A zero streak is what a missing entry reads as (`get(key) ?? 0`, the only way it is read):
  // a tool that keeps bringing news never gets an entry (memory per run, issue 20).
  for (const [tool, streak] of projection.toolStreaks) {
    if (streak !== 0 || ledger.staleStreakByTool.has(tool)) ledger.staleStreakByTool.set(tool, streak);
  }
  ledger.disabledTools.clear();
  for (const tool of projection.disabledTools) ledger.disabledTools.add(tool);
  if (isWastedRound(projection.verdict) && ledger.current.usage !== undefined) {
    ledger.wastedTokens += (ledger.current.usage.inputTokens ?? 0) + (ledger.current.usage.outputTokens ?? 0);
  }
  ledger.currentClosed = true;
}

/** Rounds whose model call bought nothing: only seen results, or only refusals. */
export function isWastedRound(verdict: RoundVerdict): boolean {
  return verdict === 'stale' || verdict === 'refused';
}
