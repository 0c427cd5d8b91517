/** How close to the call's own start a value must be to count as the call's clock stamp. */
const CLOCK_STAMP_WINDOW_MS = 10 * 60 * 1000;
/** Epoch seconds and milliseconds from 2001 to 2286: anything else is not a clock reading. */
const MIN_EPOCH_SECONDS = 1e9;
const MAX_EPOCH_SECONDS = 1e10;

/**
 * Is `value` a wall-clock stamp of the call itself (issue 24 #7): an epoch in seconds or
 * milliseconds, or an ISO date-time, within ten minutes of `startTime`? A client that stamps
 * each request with `timestamp: Date.now()` makes every call look new; seed document 003
 * strips such non-semantic fields. A time that selects data (`check_slot(time: "14:00")`,
 * yesterday's `date`) is far from the call's start, or is named like a selector
 * (DATA_SELECTING_TIME_ARGS), and stays part of the call.
 */
export function isCallClockStamp(value: unknown, startTime: number): boolean {
  let epochMs: number;
  if (typeof value === 'number') {
    if (!Number.isFinite(value) || value < MIN_EPOCH_SECONDS) return false;
    epochMs = value < MAX_EPOCH_SECONDS ? value * 1000 : value;
  } else if (typeof value === 'string') {
    // Only full date-times: a date alone (2025-11-02) is a question about a day.
    if (value.length < 16 || value.length > 40 || !/^\d{4}-\d{2}-\d{2}[T ]\d{2}:\d{2}/.test(value)) return false;
    epochMs = Date.parse(value);
    if (Number.isNaN(epochMs)) return false;
  } else {
    return false;
  }
  return Math.abs(epochMs - startTime) <= CLOCK_STAMP_WINDOW_MS;
}
