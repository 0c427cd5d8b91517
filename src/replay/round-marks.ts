import type { ReplayRoundVerdict, RunReport } from './run-report.js';

/**
 * What each round is drawn as: the engine's verdict, except that a round whose executed calls
 * all failed is `error`, whatever the verdict (a 503 is not a "new fact" to a reader even
 * when it was the first error seen).
 */
export type RoundMark = ReplayRoundVerdict | 'error';

/** One mark per round (index 0 = round 1); undefined where the engine gave no verdict. */
export function roundMarks(report: RunReport): Array<RoundMark | undefined> {
  const rounds = report.roundVerdicts.length;
  const executed = new Uint32Array(rounds + 1);
  const failed = new Uint32Array(rounds + 1);
  for (const decision of report.decisions()) {
    if (decision.decision !== 'allow' || decision.round > rounds) continue;
    executed[decision.round]++;
    if (decision.failed) failed[decision.round]++;
  }
  const marks: Array<RoundMark | undefined> = [];
  for (let round = 1; round <= rounds; round++) {
    const verdict = report.roundVerdicts[round - 1];
    const allFailed = executed[round] > 0 && failed[round] === executed[round];
    marks.push(allFailed && verdict !== 'skipped' ? 'error' : verdict);
  }
  return marks;
}

const STREAK_PARTS: ReadonlyArray<[RoundMark, string, string]> = [
  ['stale', 'returned only results already seen', '='],
  ['refused', 'had every call refused', 'x'],
  ['error', 'returned only errors', '!'],
  ['neutral', 'were neutral', '~'],
  ['empty', 'had no calls', '0'],
];

/**
 * The "why" of a stop on a round streak, counted from the same marks the timeline draws, so
 * the two cannot disagree: the engine's detail names one kind of round ("only results
 * already seen") even when the streak mixes seen, refused and failed rounds. Other stops
 * (budgets, failures) are not about round marks and keep the engine's detail.
 */
export function explainStop(
  report: RunReport,
  marks: ReadonlyArray<RoundMark | undefined>,
  options: { glyphs: boolean } = { glyphs: true },
): string | undefined {
  const stop = report.stop;
  if (!stop) return undefined;
  if (stop.reason !== 'stale_rounds' && stop.reason !== 'refused_rounds') return stop.detail;
  const last = Math.min(stop.round, marks.length);
  let first = last + 1;
  // Back to the last round the engine counted as progress: that is where the streak began.
  while (first > 1 && report.roundVerdicts[first - 2] !== 'new') first--;
  if (first > last) return stop.detail;
  const counts = new Map<RoundMark, number>();
  for (let round = first; round <= last; round++) {
    const mark = marks[round - 1];
    if (mark !== undefined) counts.set(mark, (counts.get(mark) ?? 0) + 1);
  }
  const parts = STREAK_PARTS.filter(([mark]) => (counts.get(mark) ?? 0) > 0).map(
    ([mark, text, glyph]) => `${counts.get(mark)} ${text}${options.glyphs ? ` (${glyph})` : ''}`,
  );
  const span = first === last ? `round ${last}` : `rounds ${first}–${last}`;
  return `no new result in ${span}: ${parts.join(', ')}`;
}
