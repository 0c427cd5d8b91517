import { escapeControl, escapeJsonText } from '../replay/escape-terminal.js';
import type { StoredRunSummary } from '../redis/create-redis-run-store.js';
import { formatRunsTable } from './runs-format-table.js';
import { runsIsoTime } from './runs-iso-time.js';

/** Where the listed runs came from, for the heading and the JSON envelope. */
export interface StoredRunListContext {
  /** The Redis URL with its password hidden. */
  readonly redis: string;
  readonly keyPrefix: string;
  readonly limit: number;
  /** Runs in the index whose keys could not be read (a key of the wrong Redis type), named on stderr too. */
  readonly unreadable?: ReadonlyArray<{ readonly runId: string; readonly key: string; readonly error: string }>;
}

/**
 * `loopguard runs` without a run: the stored runs, newest first, as a table (text) or one
 * JSON object. Run ids are user data: escaped so an id cannot drive the terminal.
 */
export function printStoredRunList(runs: readonly StoredRunSummary[], context: StoredRunListContext, format: 'text' | 'json'): string {
  const unreadable = context.unreadable ?? [];
  if (format === 'json') {
    const body = {
      redis: context.redis,
      keyPrefix: context.keyPrefix,
      limit: context.limit,
      runs: runs.map((run) => ({
        runId: run.runId,
        state: stateOf(run),
        stopReason: run.stopReason ?? null,
        ended: run.ended,
        events: run.events,
        created: runsIsoTime(run.created),
        updated: runsIsoTime(run.updated),
      })),
      // Not in `runs` (nothing about them could be read), but not hidden from a script either.
      unreadableRuns: unreadable.map(({ runId, key, error }) => ({ runId, key, error })),
    };
    return `${escapeJsonText(JSON.stringify(body, null, 2))}\n`;
  }
  const where = `under key prefix ${JSON.stringify(escapeControl(context.keyPrefix))} at ${escapeControl(context.redis)}`;
  const notRead = unreadable.length === 0 ? '' : ` ${unreadable.length} more could not be read (named on stderr).`;
  if (runs.length === 0 && unreadable.length === 0) return `No runs stored ${where} (runs expire after their last change).\n`;
  const rows = runs.map((run) => [
    escapeControl(run.runId),
    runsIsoTime(run.created) ?? '-',
    runsIsoTime(run.updated) ?? '-',
    String(run.events),
    run.stopReason === undefined ? stateOf(run) : `stopped: ${escapeControl(run.stopReason)}`,
  ]);
  const lines = formatRunsTable(['RUN', 'CREATED', 'LAST CHANGE', 'EVENTS', 'STATE'], rows, [false, false, false, true, false]);
  const more = runs.length + unreadable.length >= context.limit ? ` (the newest ${context.limit}; --limit shows more)` : ' (newest first)';
  lines.push('', `${runs.length} run${runs.length === 1 ? '' : 's'} ${where}${more}.${notRead} \`loopguard runs --redis URL RUN\` prints one run's ledger.`);
  return `${lines.join('\n')}\n`;
}

/** stopped (a stop was latched), ended (ended without a stop), running (neither, yet). */
function stateOf(run: StoredRunSummary): 'stopped' | 'ended' | 'running' {
  return run.stopReason !== undefined ? 'stopped' : run.ended ? 'ended' : 'running';
}
