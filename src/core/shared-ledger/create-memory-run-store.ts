import { describeConfigValue } from '../describe-config-value.js';
import { LoopGuardConfigError } from '../errors.js';
import { MemoryRunStoreFullError } from './memory-run-store-full-error.js';
import type { AppendResult, BusinessKey, BusinessKeyState, RunLogSummary, RunStore } from './run-store.js';
import { positiveMsOption } from './shared-ledger-options.js';

interface KeyRecord {
  state: 'pending' | 'done';
  owner: string;
  claimedAt: number;
  leaseUntil: number;
  runId: string;
  at: number;
  resultHash: string | undefined;
  expiresAt: number;
}

interface RunLog {
  readonly entries: string[];
  /** Last change; the log expires `runTtlMs` after it, like a Redis run's keys. */
  changedAt: number;
}

/** Options of {@link createMemoryRunStore}. */
export interface MemoryRunStoreOptions {
  /** Clock for leases and expiry. Default Date.now. */
  now?: () => number;
  /**
   * A run's log is dropped this long after its last change, in ms (ended and abandoned runs
   * leave by themselves, as with `createRedisRunStore`). Default 604 800 000 (7 days).
   */
  runTtlMs?: number;
  /**
   * Most run logs kept; past it the least recently changed log is dropped (a process still
   * using that run finds its log shorter than it saw and rebuilds, with a warning).
   * Default 10 000 (the engine's `maxOpenRuns`).
   */
  maxRuns?: number;
  /**
   * Most business keys kept (claimed or done, not yet expired). When full, a new claim is
   * rejected (the engine follows `storeFailure.idempotentWrites`, by default refusing the
   * write), never made by forgetting a done write: that would let it run twice.
   * Default 100 000.
   */
  maxBusinessKeys?: number;
}

/**
 * A {@link RunStore} in this process's memory: the same semantics as the Redis store without
 * a server, for tests, for one process that wants business-key idempotent writes, and for
 * `loopguard serve` without `--redis`. Bounded like the Redis store is by expiry: run logs
 * expire `runTtlMs` after their last change and at most `maxRuns` are kept; business keys
 * expire with their ttl and at most `maxBusinessKeys` are kept. It is not durable and not
 * shared between processes: use `loopguard/redis` for that.
 *
 * @throws LoopGuardConfigError naming the bad option.
 */
export function createMemoryRunStore(options: MemoryRunStoreOptions = {}): RunStore {
  if (typeof options !== 'object' || options === null) {
    throw new LoopGuardConfigError({ field: 'options', message: `must be an object, got ${describeConfigValue(options)}` });
  }
  const now = options.now ?? Date.now;
  if (typeof now !== 'function') throw new LoopGuardConfigError({ field: 'now', message: `must be a function returning ms, got ${describeConfigValue(now)}` });
  const runTtlMs = positiveMsOption(options.runTtlMs, 'runTtlMs', 7 * 86_400_000);
  const maxRuns = positiveCount(options.maxRuns, 'maxRuns', 10_000);
  const maxBusinessKeys = positiveCount(options.maxBusinessKeys, 'maxBusinessKeys', 100_000);
  /** Insertion order = order of last change (a change re-inserts), so expiry sweeps from the front. */
  const logs = new Map<string, RunLog>();
  const keys = new Map<string, KeyRecord>();
  /** No key expires before this: a full store is not rescanned until then. */
  let nextKeyExpiry = 0;
  const keyOf = (key: BusinessKey): string => (key.scope === 'run' ? `run\u0000${key.runId}\u0000${key.tool}\u0000${key.value}` : `global\u0000${key.tool}\u0000${key.value}`);
  const live = (id: string): KeyRecord | undefined => {
    const record = keys.get(id);
    if (record !== undefined && record.expiresAt <= now()) {
      keys.delete(id);
      return undefined;
    }
    return record;
  };
  const liveLog = (runId: string): RunLog | undefined => {
    const log = logs.get(runId);
    if (log !== undefined && now() - log.changedAt >= runTtlMs) {
      logs.delete(runId);
      return undefined;
    }
    return log;
  };
  const sweepLogs = (): void => {
    const time = now();
    for (const [runId, log] of logs) {
      if (time - log.changedAt < runTtlMs) break;
      logs.delete(runId);
    }
  };
  /**
   * Room for one more key: drops expired keys (a full scan, at most once per earliest expiry:
   * keys expire in no order, their ttls differ), else rejects.
   */
  const makeRoomForKey = (): void => {
    if (keys.size < maxBusinessKeys) return;
    const time = now();
    if (time >= nextKeyExpiry) {
      let earliest = Number.POSITIVE_INFINITY;
      for (const [id, record] of keys) {
        if (record.expiresAt <= time) keys.delete(id);
        else earliest = Math.min(earliest, record.expiresAt);
      }
      nextKeyExpiry = earliest;
    }
    if (keys.size >= maxBusinessKeys) throw new MemoryRunStoreFullError(maxBusinessKeys);
  };
  return {
    async appendRunEvents(runId: string, expectedLength: number, entries: readonly string[], _summary?: RunLogSummary, expectedLast?: string): Promise<AppendResult> {
      sweepLogs();
      const log = liveLog(runId);
      const held = log?.entries ?? [];
      // A log dropped (runTtlMs, maxRuns) and written again by other clients of `loopguard
      // serve` is not the one the caller saw, whatever its length (RunStore.appendRunEvents).
      if (held.length < expectedLength || (expectedLength > 0 && expectedLast !== undefined && held[expectedLength - 1] !== expectedLast)) {
        return { accepted: false, length: held.length, entries: [...held], truncated: true };
      }
      if (held.length !== expectedLength) return { accepted: false, length: held.length, entries: held.slice(expectedLength) };
      // One push per entry: push(...entries) puts every entry on the stack, and a batch of a few
      // hundred thousand (loopguard serve's ledger API takes any a body can hold) overflows it.
      for (const entry of entries) held.push(entry);
      // Re-inserted: the Map stays in order of last change.
      logs.delete(runId);
      logs.set(runId, { entries: held, changedAt: now() });
      while (logs.size > maxRuns) logs.delete(logs.keys().next().value as string);
      return { accepted: true, length: held.length };
    },
    async readRunEvents(runId: string, from: number): Promise<string[]> {
      return (liveLog(runId)?.entries ?? []).slice(from);
    },
    async claimBusinessKey(key, owner, leaseMs, ttlMs): Promise<BusinessKeyState> {
      const id = keyOf(key);
      const record = live(id);
      const time = now();
      if (record === undefined) {
        makeRoomForKey();
        keys.set(id, { state: 'pending', owner, claimedAt: time, leaseUntil: time + leaseMs, runId: key.runId, at: 0, resultHash: undefined, expiresAt: time + ttlMs });
        return { state: 'claimed' };
      }
      if (record.state === 'done') {
        return record.resultHash === undefined
          ? { state: 'done', at: record.at, runId: record.runId }
          : { state: 'done', at: record.at, runId: record.runId, resultHash: record.resultHash };
      }
      const state = record.leaseUntil > time ? 'pending' : 'expired';
      return { state, owner: record.owner, claimedAt: record.claimedAt, runId: record.runId };
    },
    async takeOverBusinessKey(key, previousOwner, owner, leaseMs): Promise<boolean> {
      const record = live(keyOf(key));
      if (record === undefined || record.state !== 'pending' || record.owner !== previousOwner) return false;
      record.owner = owner;
      record.claimedAt = now();
      record.leaseUntil = record.claimedAt + leaseMs;
      record.runId = key.runId;
      return true;
    },
    async completeBusinessKey(key, owner, resultHash, ttlMs): Promise<boolean> {
      const id = keyOf(key);
      const record = live(id);
      const time = now();
      if (record === undefined) {
        if (owner !== undefined) return false;
        makeRoomForKey();
        keys.set(id, { state: 'done', owner: '', claimedAt: time, leaseUntil: 0, runId: key.runId, at: time, resultHash, expiresAt: time + ttlMs });
        return true;
      }
      if (owner !== undefined && (record.state !== 'pending' || record.owner !== owner)) return false;
      Object.assign(record, { state: 'done', at: time, resultHash, expiresAt: time + ttlMs });
      return true;
    },
    async releaseBusinessKey(key, owner): Promise<boolean> {
      const id = keyOf(key);
      const record = live(id);
      if (record === undefined || record.state !== 'pending' || record.owner !== owner) return false;
      keys.delete(id);
      return true;
    },
  };
}

function positiveCount(value: unknown, field: string, fallback: number): number {
  if (value === undefined) return fallback;
  if (typeof value !== 'number' || !Number.isSafeInteger(value) || value < 1) {
    throw new LoopGuardConfigError({ field, message: `must be a whole number ≥ 1, got ${describeConfigValue(value)}` });
  }
  return value;
}
