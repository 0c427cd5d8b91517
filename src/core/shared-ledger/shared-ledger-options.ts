import { canonicalJson } from '../canonical-json.js';
import { describeConfigValue } from '../describe-config-value.js';
import { LoopGuardConfigError } from '../errors.js';
import { hashText } from '../hash.js';
import type { RunStore } from './run-store.js';

/** What a tool's `verify` hook found in the system of record. */
export interface VerifiedWrite {
  /** The write already happened (the email is in the sent folder, the order exists). */
  done: boolean;
}

/**
 * A write that must happen once per business key (document 001: "server-side idempotency based
 * on a business key, especially when execution succeeded but its response was lost").
 */
export interface IdempotentWritePolicy {
  /**
   * The business key: argument paths whose values together identify the write (`['to',
   * 'subject']`, `['order.id']`; dots go into nested objects), or a function of the arguments
   * returning it (undefined or null: this call has no key and is not deduplicated; a value that
   * is not text counts by its canonical JSON). It must be synchronous: one that throws or answers
   * a promise refuses the write (`store.unavailable`), or runs it unguarded under
   * `storeFailure.idempotentWrites: 'open'`.
   */
  key: readonly string[] | ((args: unknown) => string | undefined);
  /** Unique across every run (`global`) or within one run (`run`). Default `'global'`. */
  scope?: 'global' | 'run';
  /** How long a done write is remembered, in ms. Default 86 400 000 (24 hours). */
  ttlMs?: number;
  /**
   * How long a claimed write may run before its claim counts as lost (a crash, a response
   * that never came), in ms. Default 60 000. Set it above the tool's longest honest run.
   */
  leaseMs?: number;
  /**
   * Checks the system of record for a write whose claim was lost. Without it such a write is
   * refused (`write.outcome_unknown`) until the key expires: loopguard never repeats it blindly.
   */
  verify?: (args: unknown) => VerifiedWrite | Promise<VerifiedWrite>;
}

/** What to do when the store cannot be reached, is slow, or fails over. */
export interface StoreFailurePolicy {
  /**
   * Ordinary calls: `'open'` decides them on this process's replica of the run (one warning,
   * `loopguard.store.errors`), `'closed'` refuses them (`store.unavailable`). Default `'open'`.
   */
  calls?: 'open' | 'closed';
  /**
   * Writes with a business key: `'closed'` refuses them (`store.unavailable`: exactly-once
   * cannot be promised without the store), `'open'` runs them unguarded. Default `'closed'`.
   */
  idempotentWrites?: 'open' | 'closed';
}

/** Engine options of the shared ledger (beside the policy in `new LoopGuard({...})`). */
export interface SharedLedgerEngineOptions {
  /**
   * A store shared by every process of a run (`createRedisRunStore` from `loopguard/redis`).
   * Without it (the default) the ledger lives in this process only.
   */
  store?: RunStore;
  /** Writes that must happen once per business key, by tool name. Needs `store`. */
  idempotentWrites?: Record<string, IdempotentWritePolicy>;
  /** Default `{ calls: 'open', idempotentWrites: 'closed' }`. */
  storeFailure?: StoreFailurePolicy;
  /**
   * A call another process started and never finished counts as timed out after this long, in
   * ms (its process probably died), so an identical call is no longer refused as in flight.
   * `loopguard serve` applies it, with or without a store, to calls its remote agents claimed
   * and never reported back. Default 120 000.
   */
  claimLeaseMs?: number;
  /**
   * This process is the only writer of the runs it starts (sticky routing, one worker per
   * run). A call of a run whose effect is `'read'` is then decided on this process's replica
   * and returned at once, its claim appended in the background with the next append; calls
   * that may write (`'write'`, `'unknown'`) and business-key writes are still claimed before
   * they run. A crash can lose the record of the last reads; another process appending to the
   * run is detected at the next append and the run falls back to claiming every call
   * (docs/operations/exactly-once-and-store-faults.md). Default `false`.
   */
  ownedRuns?: boolean;
}

/** How long a call may go unfinished before others treat it as timed out (`claimLeaseMs`): two minutes. */
export const DEFAULT_CLAIM_LEASE_MS = 120_000;

/** How long a done business key is remembered when its policy says nothing (`idempotentWrites.<tool>.ttlMs`): a day. */
export const DEFAULT_BUSINESS_KEY_TTL_MS = 86_400_000;

export interface ResolvedIdempotentWrite {
  readonly keyOf: (args: unknown) => string | undefined;
  readonly scope: 'global' | 'run';
  readonly ttlMs: number;
  readonly leaseMs: number;
  readonly verify: ((args: unknown) => VerifiedWrite | Promise<VerifiedWrite>) | undefined;
}

export interface ResolvedSharedLedger {
  readonly store: RunStore;
  readonly idempotentWrites: ReadonlyMap<string, ResolvedIdempotentWrite>;
  readonly callsFailOpen: boolean;
  readonly idempotentWritesFailOpen: boolean;
  readonly claimLeaseMs: number;
  readonly ownedRuns: boolean;
}

const STORE_METHODS = ['appendRunEvents', 'readRunEvents', 'claimBusinessKey', 'takeOverBusinessKey', 'completeBusinessKey', 'releaseBusinessKey'] as const;
const WRITE_KEYS = ['key', 'scope', 'ttlMs', 'leaseMs', 'verify'];

function fail(field: string, message: string): never {
  throw new LoopGuardConfigError({ field, message });
}

/**
 * The longest delay a Node timer takes: setTimeout turns anything longer into 1 ms (with only
 * a warning), so a timeout option of 2^31 ms or more would fire at once (issue 23 #7).
 */
export const MAX_TIMER_MS = 2 ** 31 - 1;

/**
 * A duration option in ms: `fallback` when absent, else a positive integer (at most `max`) or
 * a config error naming `field`. Options that become a timer pass `MAX_TIMER_MS` as `max`.
 */
export function positiveMsOption(value: unknown, field: string, fallback: number, max = Number.MAX_SAFE_INTEGER): number {
  if (value === undefined) return fallback;
  if (typeof value !== 'number' || !Number.isInteger(value) || value < 1) fail(field, `must be a positive integer (ms), got ${describeConfigValue(value)}`);
  if (value > max) fail(field, `must be at most ${max} ms${max === MAX_TIMER_MS ? ' (the longest timer Node runs; longer ones fire after 1 ms)' : ''}, got ${value}`);
  return value;
}

/** Reads one dotted path of the arguments; undefined when any step is missing. */
function valueAt(args: unknown, path: readonly string[]): unknown {
  let value = args;
  for (const step of path) {
    if (value === null || typeof value !== 'object' || !Object.prototype.hasOwnProperty.call(value, step)) return undefined;
    value = (value as Record<string, unknown>)[step];
  }
  return value;
}

function keyFromPaths(paths: readonly string[]): (args: unknown) => string | undefined {
  const split = paths.map((path) => path.split('.'));
  return (args) => {
    const values: unknown[] = [];
    for (const path of split) {
      const value = valueAt(args, path);
      // A key with a part missing would make every such call the same write.
      if (value === undefined) return undefined;
      values.push(value);
    }
    // Hashed: the key is stored, and a business key may hold personal data (an address).
    return hashText(canonicalJson(values));
  };
}

/**
 * Checks the shared-ledger options at construction (a bad one is a programming error that
 * must surface there, naming the field) and resolves their defaults. Returns undefined when
 * no store is configured.
 */
export function resolveSharedLedger(options: SharedLedgerEngineOptions): ResolvedSharedLedger | undefined {
  const { store, idempotentWrites, storeFailure, claimLeaseMs, ownedRuns } = options;
  if (ownedRuns !== undefined && typeof ownedRuns !== 'boolean') fail('ownedRuns', `must be true or false, got ${describeConfigValue(ownedRuns)}`);
  if (store === undefined) {
    if (ownedRuns === true) {
      fail('ownedRuns', 'needs a shared store (without one every run lives in this process only, and every call is decided there already): pass store: createRedisRunStore(...) from loopguard/redis');
    }
    if (idempotentWrites !== undefined) {
      fail('idempotentWrites', 'needs a shared store to keep business keys in: pass store: createRedisRunStore(...) from loopguard/redis (or createMemoryRunStore() for one process)');
    }
    return undefined;
  }
  if (typeof store !== 'object' || store === null) fail('store', `must be a RunStore such as createRedisRunStore(...) from loopguard/redis, got ${describeConfigValue(store)}`);
  for (const method of STORE_METHODS) {
    if (typeof (store as unknown as Record<string, unknown>)[method] !== 'function') {
      fail(`store.${method}`, `must be a function: pass a RunStore such as createRedisRunStore(...) from loopguard/redis`);
    }
  }
  const writes = new Map<string, ResolvedIdempotentWrite>();
  if (idempotentWrites !== undefined) {
    if (typeof idempotentWrites !== 'object' || idempotentWrites === null || Array.isArray(idempotentWrites)) {
      fail('idempotentWrites', `must be an object of tool name → { key, scope?, ttlMs?, leaseMs?, verify? }, got ${describeConfigValue(idempotentWrites)}`);
    }
    for (const [tool, policy] of Object.entries(idempotentWrites)) {
      const path = `idempotentWrites.${tool}`;
      if (typeof policy !== 'object' || policy === null) fail(path, `must be an object { key, scope?, ttlMs?, leaseMs?, verify? }, got ${describeConfigValue(policy)}`);
      for (const name of Object.keys(policy)) if (!WRITE_KEYS.includes(name)) fail(`${path}.${name}`, `is not a known option (known: ${WRITE_KEYS.join(', ')})`);
      const key = policy.key;
      let keyOf: (args: unknown) => string | undefined;
      if (typeof key === 'function') {
        // An async key's promise would be every call's key (canonical JSON '{}'): one write, every
        // later one refused as already done. The claim needs the key before the tool runs.
        if (key.constructor?.name === 'AsyncFunction') fail(`${path}.key`, 'must be a synchronous function of the arguments (an async function answers a promise, not a key): compute the key from the arguments alone');
        keyOf = (args) => {
          const value: unknown = key(args);
          if (typeof (value as PromiseLike<unknown> | null)?.then === 'function') {
            // Left unread, a promise that rejects would be an unhandled rejection in the host.
            Promise.resolve(value).catch(() => undefined);
            throw new TypeError('it returned a promise; a business key must be computed synchronously from the arguments');
          }
          // null is no key, as a missing path part is: 'null' would make every such call one write.
          if (value === undefined || value === null) return undefined;
          // Text as it is (keys already stored stay valid), anything else by its canonical JSON:
          // read as text, every object was '[object Object]', and ['a,b', 'c'] was ['a', 'b,c'].
          return hashText(typeof value === 'string' ? value : canonicalJson(value));
        };
      } else if (Array.isArray(key) && key.length > 0 && key.every((part) => typeof part === 'string' && part.length > 0)) {
        keyOf = keyFromPaths(key);
      } else {
        fail(`${path}.key`, `must be a non-empty list of argument paths (e.g. ['to', 'subject']) or a function of the arguments, got ${describeConfigValue(key)}`);
      }
      const scope = policy.scope ?? 'global';
      if (scope !== 'global' && scope !== 'run') fail(`${path}.scope`, `must be 'global' or 'run', got ${describeConfigValue(scope)}`);
      if (policy.verify !== undefined && typeof policy.verify !== 'function') fail(`${path}.verify`, `must be a function (args) => { done }, got ${describeConfigValue(policy.verify)}`);
      writes.set(tool, {
        keyOf,
        scope,
        ttlMs: positiveMsOption(policy.ttlMs, `${path}.ttlMs`, DEFAULT_BUSINESS_KEY_TTL_MS),
        leaseMs: positiveMsOption(policy.leaseMs, `${path}.leaseMs`, 60_000),
        verify: policy.verify,
      });
    }
  }
  if (storeFailure !== undefined && (typeof storeFailure !== 'object' || storeFailure === null)) {
    fail('storeFailure', `must be an object { calls?: 'open' | 'closed', idempotentWrites?: 'open' | 'closed' }, got ${describeConfigValue(storeFailure)}`);
  }
  const calls = storeFailure?.calls ?? 'open';
  const idempotent = storeFailure?.idempotentWrites ?? 'closed';
  if (calls !== 'open' && calls !== 'closed') fail('storeFailure.calls', `must be 'open' or 'closed', got ${describeConfigValue(calls)}`);
  if (idempotent !== 'open' && idempotent !== 'closed') fail('storeFailure.idempotentWrites', `must be 'open' or 'closed', got ${describeConfigValue(idempotent)}`);
  for (const name of Object.keys(storeFailure ?? {})) {
    if (name !== 'calls' && name !== 'idempotentWrites') fail(`storeFailure.${name}`, 'is not a known option (known: calls, idempotentWrites)');
  }
  return {
    store,
    idempotentWrites: writes,
    callsFailOpen: calls === 'open',
    idempotentWritesFailOpen: idempotent === 'open',
    claimLeaseMs: positiveMsOption(claimLeaseMs, 'claimLeaseMs', DEFAULT_CLAIM_LEASE_MS),
    ownedRuns: ownedRuns === true,
  };
}
