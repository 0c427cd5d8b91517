import type { RunStore } from '../core/shared-ledger/run-store.js';

/**
 * A read-only {@link RunStore} holding one run's log as it was read once. `loopguard runs`
 * rebuilds the ledger by resuming the run on an engine over this store, so:
 * - the ledger and the timeline printed beside it describe the same entries (a live run may
 *   append between two reads of Redis);
 * - the SRE tool can never write to a production run: every write is rejected, and the engine
 *   would only report it (the command treats any such report as a bug to show).
 */
export function createSnapshotRunStore(runId: string, entries: readonly string[]): RunStore {
  const readOnly = (): Promise<never> => Promise.reject(new Error('loopguard runs only reads: the snapshot store refuses writes'));
  return {
    async readRunEvents(id: string, from: number): Promise<string[]> {
      return id === runId ? entries.slice(from) : [];
    },
    appendRunEvents: readOnly,
    claimBusinessKey: readOnly,
    takeOverBusinessKey: readOnly,
    completeBusinessKey: readOnly,
    releaseBusinessKey: readOnly,
  };
}
