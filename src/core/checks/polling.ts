import type { CallCheck, CallCheckResult } from './call-check.js';

/**
 * One unchanged look per this long, on average since the first, runs past an inferred poll's
 * count (2 × threshold): longer than a model's turn asking again at once (2–10 s, up to ~20 s
 * with a long context: such a loop stays bounded by the count), shorter than the `sleep 30` or
 * `sleep 60` agents put between looks at a CI run.
 */
export const PACED_POLL_MS = 20_000;

/**
 * Polling tools (document 001): server state changes over time, so identical queries are
 * useful — until a deadline. `poll.deadlineMs` counts from the first identical poll; until
 * then identical calls run, and an unchanged answer is neutral (it does not make the round
 * stale). Past the deadline they are refused. `poll.minIntervalMs` refuses polls that come
 * too soon after the previous one.
 */
export const checkPolling: CallCheck = ({ policy, record, now }): CallCheckResult => {
  const poll = policy.poll;
  if (poll === undefined) return undefined;
  if (record === undefined) return { allow: 'new' };
  const elapsed = now - record.firstTime;
  if (elapsed > poll.deadlineMs) return { refuse: 'poll.deadline_passed', facts: { deadlineMs: poll.deadlineMs, elapsedMs: elapsed } };
  // A poll inferred from a status still moving is also bounded by count: a model re-asking
  // every turn, and a run fed no times (a replay of a transcript), would otherwise poll to the
  // deadline. Past `maxUnchanged`, one unchanged look per PACED_POLL_MS since the first is the
  // polling interval document 001 asks for, and runs to the deadline: a 15-minute CI run
  // watched every 30 s was refused at its eleventh look, 5 minutes in. Averaged from the first
  // look, not timed from the last: a model asking at once gets no look back by waiting out
  // refusals (refused calls do not move lastTime), so its refusals stop the run.
  if (poll.maxUnchanged !== undefined && record.confirmations >= Math.max(poll.maxUnchanged, elapsed / PACED_POLL_MS)) {
    return { refuse: 'poll.deadline_passed', facts: { deadlineMs: poll.deadlineMs, elapsedMs: elapsed, unchanged: record.confirmations, paceMs: PACED_POLL_MS } };
  }
  const sinceLast = now - record.lastTime;
  if (poll.minIntervalMs > 0 && sinceLast < poll.minIntervalMs) {
    return { refuse: 'poll.too_soon', facts: { minIntervalMs: poll.minIntervalMs, sinceLastMs: sinceLast } };
  }
  return { allow: 'poll' };
};

/** Is this signature still inside its polling window (identical answers are neutral)? */
export function isInsidePollWindow(deadlineMs: number | undefined, firstTime: number, now: number): boolean {
  return deadlineMs !== undefined && now - firstTime <= deadlineMs;
}
