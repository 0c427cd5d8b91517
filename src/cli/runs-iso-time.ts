import { isDateTime } from '../redis/stored-time.js';

/**
 * A stored time (ms since the epoch) as ISO 8601 UTC; null when the store did not have it, or
 * has a number no Date can hold (1e20 from another writer: toISOString would throw).
 */
export function runsIsoTime(ms: number | undefined): string | null {
  return ms === undefined || !isDateTime(ms) ? null : new Date(ms).toISOString();
}
