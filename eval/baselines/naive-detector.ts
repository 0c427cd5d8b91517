import { createHash } from 'node:crypto';
import type { EvalCall } from '../eval-run.js';

/**
 * Document 003's `LoopDetector`, translated line for line, as the naive baseline: it raises
 * when the same (tool, semantic args, result hash, outcome class) repeats more than
 * `maxRetries` times in a row with a failing outcome, or when the run passes
 * `maxIterations` calls. Returns the 0-based index of the call at which it raises, or
 * undefined.
 */
export function naiveDetectorStopIndex(calls: readonly EvalCall[], maxRetries = 5, maxIterations = 50): number | undefined {
  const history: string[] = [];
  for (let index = 0; index < calls.length; index++) {
    const call = calls[index]!;
    const signature = createHash('sha256').update(`${call.tool}|${call.argsKey}|${call.resultKey}|${call.outcomeClass}`).digest('hex');
    history.push(signature);
    if (history.length > maxIterations) return index;
    let trailing = 0;
    for (let back = history.length - 1; back >= 0 && history[back] === signature; back--) trailing++;
    const failing = call.outcomeClass === 'error' || call.outcomeClass === 'empty';
    if (failing && trailing > maxRetries) return index;
  }
  return undefined;
}

/** A plain step ceiling: the run is cut when it starts call `limit + 1` (0-based index `limit`). */
export function stepCeilingStopIndex(calls: readonly EvalCall[], limit: number): number | undefined {
  return calls.length > limit ? limit : undefined;
}
