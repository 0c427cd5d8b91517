import type { StopCheck } from './stop-check.js';

/**
 * Stale rounds (document 000): the question each round is "did it learn anything new?".
 * When `staleRounds` (5) rounds in a row brought back only results already seen, tools are
 * removed and the model answers from what it has. Catches the reworded search that kept
 * returning the same documents for 21 rounds: the arguments differ every time, the results
 * do not. Any new fact resets the count (round-verdict.ts says what counts).
 */
export const stopOnStaleRounds: StopCheck = ({ projection, options }) =>
  projection.staleRoundStreak >= options.staleRounds
    ? { reason: 'stale_rounds', detail: `the last ${projection.staleRoundStreak} rounds returned only results already seen` }
    : undefined;
