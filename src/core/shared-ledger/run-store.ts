/**
 * What a shared store must do for loopguard (`loopguard/redis` implements it on Redis and
 * Redis Cluster; `createMemoryRunStore` in one process). Two things only:
 *
 * - **a run log with compare-and-append**: entries are appended only if the log has exactly
 *   the length the caller last saw, so a decision made on a complete view of the run is the
 *   only kind that gets in (one round trip when nobody else wrote); otherwise the caller gets
 *   the entries it is missing and decides again;
 * - **business keys with a lease**, so a write with the same business key runs once across
 *   processes and runs, and a write whose outcome was lost is checked, never repeated blindly.
 *
 * Every method may reject (network, timeout); loopguard turns that into its documented
 * failure behaviour and never into an exception in the host.
 */
export interface RunStore {
  /**
   * Appends `entries` to the run's log if it holds exactly `expectedLength` entries, and
   * refreshes the run's expiry. Otherwise appends nothing and returns the entries from
   * `expectedLength` on (`truncated` when the log is shorter than that: it expired or the
   * store lost data, and the caller must rebuild from the whole log).
   *
   * `expectedLast`, when given, is the entry the caller saw at `expectedLength - 1`: a log
   * whose entry there differs is answered `truncated` too, with the whole log. It was lost and
   * written again by other processes, and its length says nothing. A store that ignores it
   * keeps the older behaviour: such a log's later entries are taken for the continuation of
   * the old one.
   */
  appendRunEvents(runId: string, expectedLength: number, entries: readonly string[], summary?: RunLogSummary, expectedLast?: string): Promise<AppendResult>;
  /** The run's log from `from` on (0: all of it). */
  readRunEvents(runId: string, from: number): Promise<string[]>;
  /**
   * Claims a business key for `owner` for `leaseMs`, or says who has it. The store's own
   * clock judges leases, so workers with skewed clocks agree.
   */
  claimBusinessKey(key: BusinessKey, owner: string, leaseMs: number, ttlMs: number): Promise<BusinessKeyState>;
  /** Moves an expired claim from `previousOwner` to `owner` (after verify said "not done"). False if someone else moved first. */
  takeOverBusinessKey(key: BusinessKey, previousOwner: string, owner: string, leaseMs: number): Promise<boolean>;
  /** Records the write as done, with its result fingerprint. `owner` undefined: settle whoever held it (verify found it done). */
  completeBusinessKey(key: BusinessKey, owner: string | undefined, resultHash: string | undefined, ttlMs: number): Promise<boolean>;
  /** Drops `owner`'s pending claim: the write certainly did not happen (a deterministic error). */
  releaseBusinessKey(key: BusinessKey, owner: string): Promise<boolean>;
}

/** Facts about a run the store keeps beside its log, for `loopguard runs` and dashboards. */
export interface RunLogSummary {
  /** The stop reason, once the run stopped. */
  stopReason?: string;
  ended?: boolean;
}

/**
 * A compare-and-append's answer: accepted at the new log `length`, or refused with the `entries`
 * this replica missed (so it can rebuild and decide again).
 */
export type AppendResult =
  | { readonly accepted: true; readonly length: number }
  | { readonly accepted: false; readonly length: number; readonly entries: readonly string[]; readonly truncated?: boolean };

/** A write's business key, in the scope it is unique in. */
export interface BusinessKey {
  readonly tool: string;
  /** `global`: unique across all runs; `run`: within one run. */
  readonly scope: 'global' | 'run';
  readonly runId: string;
  readonly value: string;
}

/**
 * A business key's state as the store answers a claim: claimed now by this caller, already done,
 * pending under another owner's lease, or expired (it may or may not have happened: ask `verify`).
 */
export type BusinessKeyState =
  | { readonly state: 'claimed' }
  | { readonly state: 'done'; readonly at: number; readonly runId: string; readonly resultHash?: string }
  /** Another owner holds an unexpired lease: the write is running now. */
  | { readonly state: 'pending'; readonly owner: string; readonly claimedAt: number; readonly runId: string }
  /** Claimed, never completed, lease past: it may or may not have happened. */
  | { readonly state: 'expired'; readonly owner: string; readonly claimedAt: number; readonly runId: string };
