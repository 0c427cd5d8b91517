import type { ResolvedOptions } from '../policy.js';
import type { RunLedger } from '../run-ledger.js';
import type { StopReason } from '../types.js';
import type { RoundProjection } from './round-verdict.js';

export interface StopCheckContext {
  readonly ledger: RunLedger;
  readonly options: ResolvedOptions;
  /** The run's counters with the open round counted. */
  readonly projection: RoundProjection;
  readonly now: number;
}

export type StopCheck = (context: StopCheckContext) => { reason: StopReason; detail: string } | undefined;
