import type { StopCheck } from './stop-check.js';

/**
 * Progress state (document 002): the app may report a digest of the artifact the task is
 * supposed to move — facts gathered, fields filled, files changed — once per round with
 * `run.reportState()`. `maxStalled` (5) reports in a row without a change stop the run:
 * it is spinning even though its calls look busy. Off until the app reports state.
 */
export const stopOnStalledProgress: StopCheck = ({ ledger, options }) =>
  ledger.stalledRounds >= options.maxStalled
    ? { reason: 'stalled_progress', detail: `the reported progress state has not changed for ${ledger.stalledRounds} rounds` }
    : undefined;
