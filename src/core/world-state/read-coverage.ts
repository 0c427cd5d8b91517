import type { ReadWindow } from './returned-window-of.js';

/**
 * Lines of each file the run has been shown since anything was last written (issue 24 #6):
 * sorted, disjoint, inclusive ranges per key. A file's lines shown with their numbers cover
 * both numbered and plain re-reads; shown without, only plain ones (the numbers are news to
 * an agent about to edit by line).
 */
export type ReadCoverage = Map<string, Array<[number, number]>>;

function keyOf(resource: string, numbered: boolean): string {
  return numbered ? `#${resource}` : resource;
}

/** Was every line of this window already shown (as the window needs it: with numbers or not)? */
export function isWindowCovered(coverage: ReadCoverage, window: ReadWindow): boolean {
  const shown = coverage.get(keyOf(window.resource, window.numbered));
  if (shown === undefined) return false;
  return window.ranges.every(([from, to]) => shown.some(([start, end]) => start <= from && to <= end));
}

/** Adds the window's lines to what the run has been shown. */
export function recordWindow(coverage: ReadCoverage, window: ReadWindow): void {
  const keys = window.numbered ? [keyOf(window.resource, true), keyOf(window.resource, false)] : [keyOf(window.resource, false)];
  for (const key of keys) {
    const merged = [...(coverage.get(key) ?? []), ...window.ranges.map(([from, to]): [number, number] => [from, to])].sort((a, b) => a[0] - b[0]);
    const result: Array<[number, number]> = [];
    for (const range of merged) {
      const last = result.at(-1);
      // Adjacent ranges join: lines 1–50 and 51–100 cover 1–100.
      if (last !== undefined && range[0] <= last[1] + 1) last[1] = Math.max(last[1], range[1]);
      else result.push(range);
    }
    coverage.set(key, result);
  }
}
