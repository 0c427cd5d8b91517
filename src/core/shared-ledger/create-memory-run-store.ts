import type { AppendResult, BusinessKey, BusinessKeyState, RunLogSummary, RunStore } from './run-store.js';

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

/** Options of {@link createMemoryRunStore}. */
export interface MemoryRunStoreOptions {
  /** Clock for leases and expiry. Default Date.now. */
  now?: () => number;
}

/**
 * A {@link RunStore} in this process's memory: the same semantics as the Redis store without
 * a server, for tests and for one process that wants business-key idempotent writes. It is
 * not durable and not shared between processes: use `loopguard/redis` for that.
 */
export function createMemoryRunStore(options: MemoryRunStoreOptions = {}): RunStore {
  const now = options.now ?? Date.now;
  const logs = new Map<string, string[]>();
  const keys = new Map<string, KeyRecord>();
  const keyOf = (key: BusinessKey): string => (key.scope === 'run' ? `run\u0000${key.runId}\u0000${key.tool}\u0000${key.value}` : `global\u0000${key.tool}\u0000${key.value}`);
  const live = (id: string): KeyRecord | undefined => {
    const record = keys.get(id);
    if (record !== undefined && record.expiresAt <= now()) {
      keys.delete(id);
      return undefined;
    }
    return record;
  };
  return {
    async appendRunEvents(runId: string, expectedLength: number, entries: readonly string[], _summary?: RunLogSummary): Promise<AppendResult> {
      const log = logs.get(runId) ?? [];
      if (log.length !== expectedLength) {
        return log.length < expectedLength
          ? { accepted: false, length: log.length, entries: [...log], truncated: true }
          : { accepted: false, length: log.length, entries: log.slice(expectedLength) };
      }
      log.push(...entries);
      logs.set(runId, log);
      return { accepted: true, length: log.length };
    },
    async readRunEvents(runId: string, from: number): Promise<string[]> {
      return (logs.get(runId) ?? []).slice(from);
    },
    async claimBusinessKey(key, owner, leaseMs, ttlMs): Promise<BusinessKeyState> {
      const id = keyOf(key);
      const record = live(id);
      const time = now();
      if (record === undefined) {
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
