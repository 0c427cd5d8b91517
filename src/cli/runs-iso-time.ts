/** A stored time (ms since the epoch) as ISO 8601 UTC; null when the store did not have it. */
export function runsIsoTime(ms: number | undefined): string | null {
  return ms === undefined || !Number.isFinite(ms) ? null : new Date(ms).toISOString();
}
