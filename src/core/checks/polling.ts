import type { CallCheck, CallCheckResult } from './call-check.js';

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
  // A poll inferred from a status still moving is also bounded by count: a run fed no times
  // (a replay of a transcript) would otherwise poll forever.
  if (poll.maxUnchanged !== undefined && record.confirmations >= poll.maxUnchanged) {
    return { refuse: 'poll.deadline_passed', facts: { deadlineMs: poll.deadlineMs, elapsedMs: elapsed, unchanged: record.confirmations } };
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
