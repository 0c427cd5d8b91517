import type { StopCheck } from './stop-check.js';

/**
 * Refused rounds (document 000): when every call in a round is refused nothing runs and
 * the model only reads reasons; `refusedRounds` (5) such rounds in a row end the run, since
 * all it produces is model-call cost. Counted per round: refusals scattered between
 * productive rounds never add up (a per-tool count cut a progressing run at round 11).
 */
export const stopOnRefusedRounds: StopCheck = ({ projection, options }) =>
  projection.refusedRoundStreak >= options.refusedRounds
    ? { reason: 'refused_rounds', detail: `every call in the last ${projection.refusedRoundStreak} rounds was refused` }
    : undefined;
