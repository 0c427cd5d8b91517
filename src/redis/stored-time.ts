/**
 * A stored time (ms since the epoch) that a Date can hold. Number.isFinite is not enough: a
 * log entry or run hash written by something other than loopguard can hold 1e20, and
 * `new Date(1e20).toISOString()` throws (RangeError), which once crashed `loopguard runs`.
 */
export function isDateTime(ms: number): boolean {
  return Number.isFinite(ms) && Math.abs(ms) <= 8.64e15;
}

/**
 * How a log entry whose time is not a date is named, in the same words by the store's run
 * summary and the CLI's timeline (which reports each entry once).
 */
export function entryTimeProblem(logKey: string, index: number, time: number): string {
  return `run log entry ${logKey}[${index}]: time ${String(time)} is not a date`;
}
