/**
 * A stored time (ms since the epoch) that a Date can hold. Number.isFinite is not enough: a
 * log entry or run hash written by something other than loopguard can hold 1e20, and
 * `new Date(1e20).toISOString()` throws (RangeError), which once crashed `loopguard runs`.
 */
export function isDateTime(ms: number): boolean {
  return Number.isFinite(ms) && Math.abs(ms) <= 8.64e15;
}
