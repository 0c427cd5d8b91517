import { createHash } from 'node:crypto';
import type { Cluster, Redis, RedisOptions } from 'ioredis';
import { describeConfigValue } from '../core/describe-config-value.js';
import { LoopGuardConfigError } from '../core/errors.js';
import { runEventTime } from '../core/shared-ledger/run-event.js';
import type { AppendResult, BusinessKey, BusinessKeyState, RunLogSummary, RunStore } from '../core/shared-ledger/run-store.js';
import { MAX_TIMER_MS, positiveMsOption } from '../core/shared-ledger/shared-ledger-options.js';
import { APPEND_RUN_EVENTS, CLAIM_BUSINESS_KEY, COMPLETE_BUSINESS_KEY, RELEASE_BUSINESS_KEY, TAKE_OVER_BUSINESS_KEY } from './redis-scripts.js';
import { rejectAfter } from '../core/reject-after.js';
import { RedisStoreTimeoutError } from './redis-store-timeout-error.js';
import { StoredRunUnreadableError } from './stored-run-unreadable-error.js';
import { isDateTime } from './stored-time.js';

/** Options of {@link createRedisRunStore}. */
export interface RedisRunStoreOptions {
  /**
   * An ioredis client: `new Redis(url)` or `new Cluster(nodes)`. Give it
   * `enableOfflineQueue: false` so a call made while Redis is down fails at once instead of
   * waiting (and running later). The store itself sends nothing to a client that was ready and
   * is not any more (reconnecting, closed), whatever its offline queue; one still connecting
   * (or lazyConnect) is waited for, within `timeoutMs`. Either this or `url`.
   */
  client?: Redis | Cluster;
  /** A Redis URL (`redis://host:6379/0`); the store then makes and owns its client (closed by `close()`). */
  url?: string;
  /** Prefix of every key. Default `'loopguard'`. */
  keyPrefix?: string;
  /**
   * A run's keys expire this long after its last change, in ms: ended and abandoned runs
   * leave by themselves. Default 604 800 000 (7 days).
   */
  runTtlMs?: number;
  /**
   * A store operation that takes longer fails (the engine then follows `storeFailure`), in
   * ms: a positive integer below 2^31 (a Node timer). Default 500.
   */
  timeoutMs?: number;
}

/** A run as `loopguard runs` lists it. */
export interface StoredRunSummary {
  readonly runId: string;
  /** When the run's first entry reached Redis (the server's clock), ms since the epoch. */
  readonly created: number | undefined;
  /** The newest timed entry of the log (the writer's clock), never before `created`. */
  readonly updated: number | undefined;
  readonly events: number;
  readonly stopReason: string | undefined;
  readonly ended: boolean;
  /**
   * Values in the run's keys that loopguard never writes (another writer, a hand edit), each
   * naming its key: a `created` field that is not a time, read as absent. (A log entry with a
   * time that is none is one the log decoder skips: it has no time here either.) Only present
   * when there is one.
   */
  readonly problems?: readonly string[];
}

/** The Redis store: a {@link RunStore} plus what an SRE tool needs. */
export interface RedisRunStore extends RunStore {
  /**
   * Runs in the index, newest first (at most `limit`, default 100). A run whose key holds the
   * wrong Redis type is left out and given to `onUnreadable`; without it, the list rejects
   * with that {@link StoredRunUnreadableError}. Other failures (a timeout) reject the list.
   */
  listRuns(options?: { limit?: number; onUnreadable?: (error: StoredRunUnreadableError) => void }): Promise<StoredRunSummary[]>;
  /**
   * One run's summary, or undefined if it has no keys (never existed or expired).
   * @throws StoredRunUnreadableError naming the key when one of its keys holds the wrong Redis type.
   */
  describeRun(runId: string): Promise<StoredRunSummary | undefined>;
  /** The key names of one run (the documented layout; used by tests and `MEMORY USAGE`). */
  keysOf(runId: string): { log: string; run: string };
  /** Closes the client if the store made it (from `url`); a given client is left to its owner. Idempotent. */
  close(): Promise<void>;
}

interface Script {
  readonly source: string;
  readonly sha: string;
}
const script = (source: string): Script => ({ source, sha: createHash('sha1').update(source).digest('hex') });
const APPEND = script(APPEND_RUN_EVENTS);
const CLAIM = script(CLAIM_BUSINESS_KEY);
const TAKE_OVER = script(TAKE_OVER_BUSINESS_KEY);
const COMPLETE = script(COMPLETE_BUSINESS_KEY);
const RELEASE = script(RELEASE_BUSINESS_KEY);

/**
 * A hash tag holds exactly the run id: braces inside an id would end the tag early and put
 * the run's keys in different slots, so they (and the escape character) are escaped.
 */
function tagOf(text: string): string {
  // An empty tag `{}` is no tag: Redis would hash each whole key, splitting the run (%00 is
  // not what any escaped id can be: a real "%" is written %25).
  if (text === '') return '{%00}';
  return `{${text.replace(/%/g, '%25').replace(/\{/g, '%7B').replace(/\}/g, '%7D')}}`;
}

/**
 * The shared run ledger on Redis or Redis Cluster (or Valkey), for `new LoopGuard({ store })`.
 * Key layout (README "Runs across processes"): `<prefix>:{<run>}:log` (the run's log, a
 * list), `<prefix>:{<run>}:run` (its summary hash), `<prefix>:runs` (index of runs, a sorted
 * set by creation time), `<prefix>:{<run>}:key:<tool>:<key>` and `<prefix>:key:{<tool>:<key>}`
 * (business keys, run and global scope). A run's keys share its hash tag: one slot, so every
 * script runs on one node. Every key expires.
 *
 * @throws LoopGuardConfigError naming the bad option.
 */
export function createRedisRunStore(options: RedisRunStoreOptions): RedisRunStore {
  if (typeof options !== 'object' || options === null) {
    throw new LoopGuardConfigError({ field: 'options', message: `must be an object { client } or { url }, got ${describeConfigValue(options)}` });
  }
  const { client: given, url } = options;
  if ((given === undefined) === (url === undefined)) {
    throw new LoopGuardConfigError({ field: 'client', message: 'pass exactly one of client (an ioredis Redis or Cluster) and url (redis://…)' });
  }
  if (given !== undefined && (typeof given !== 'object' || given === null || typeof (given as Redis).evalsha !== 'function')) {
    throw new LoopGuardConfigError({ field: 'client', message: `must be an ioredis client (new Redis(url) or new Cluster(nodes)), got ${describeConfigValue(given)}` });
  }
  if (url !== undefined && (typeof url !== 'string' || !/^rediss?:\/\//.test(url))) {
    throw new LoopGuardConfigError({ field: 'url', message: `must be a redis:// or rediss:// URL, got ${describeConfigValue(url)}` });
  }
  const prefix = options.keyPrefix ?? 'loopguard';
  if (typeof prefix !== 'string' || prefix.length === 0 || /[{}]/.test(prefix)) {
    throw new LoopGuardConfigError({ field: 'keyPrefix', message: `must be a non-empty string without braces, got ${describeConfigValue(prefix)}` });
  }
  const runTtlMs = positiveMsOption(options.runTtlMs, 'runTtlMs', 7 * 86_400_000);
  // A timer: 2^31 ms or more would fire after 1 ms (issue 23 #7).
  const timeoutMs = positiveMsOption(options.timeoutMs, 'timeoutMs', 500, MAX_TIMER_MS);

  let client: Redis | Cluster;
  let owned = false;
  if (given !== undefined) client = given;
  else {
    // Loaded only when the store makes its own client: a user passing a client may bring
    // their own ioredis copy.
    client = makeClient(url!);
    owned = true;
  }
  const indexKey = `${prefix}:runs`;
  const keysOf = (runId: string) => {
    const tag = tagOf(runId);
    return { log: `${prefix}:${tag}:log`, run: `${prefix}:${tag}:run` };
  };
  // The keys of the run appended to last: a run's calls come one after another, and every
  // append would otherwise escape its id (three replaces) and build two key names again
  // (tagOf and the key templates: 0.25 us of a guarded call's client CPU in the profile).
  let lastRunId: string | undefined;
  let lastRunKeys: { log: string; run: string } | undefined;
  const appendKeysOf = (runId: string): { log: string; run: string } => {
    if (runId !== lastRunId || lastRunKeys === undefined) {
      lastRunKeys = keysOf(runId);
      lastRunId = runId;
    }
    return lastRunKeys;
  };
  const businessKeyOf = (key: BusinessKey): string =>
    key.scope === 'run' ? `${prefix}:${tagOf(key.runId)}:key:${key.tool}:${key.value}` : `${prefix}:key:${tagOf(`${key.tool}:${key.value}`)}`;

  /** Bounded by `timeoutMs`; the timer never keeps the process alive. */
  const bounded = <T>(operation: string, promise: Promise<T>): Promise<T> =>
    rejectAfter(promise, timeoutMs, () => new RedisStoreTimeoutError(operation, timeoutMs));

  // A client the store made is still connecting, and without an offline queue its first
  // commands would fail at once: they wait for it to be ready (within timeoutMs) instead.
  // Nobody may be waiting on a wait (it starts at construction, and again after each failed
  // connect): each is handled here, or its timeout would be an unhandled rejection that kills
  // the host 500 ms later (issue 23 #6). The caller that does await it gets the error, and
  // the engine follows storeFailure.
  const waitForReady = (): Promise<void> => {
    const waiting = readyOrTimeout(client as Redis, timeoutMs);
    waiting.catch(() => undefined);
    return waiting;
  };
  let connecting: Promise<void> | undefined = owned ? waitForReady() : undefined;
  const ready = async (): Promise<void> => {
    if (connecting === undefined) {
      if (!owned && client.status !== 'ready') await givenClientReady();
      return;
    }
    try {
      await connecting;
      connecting = undefined;
    } catch (error) {
      connecting = waitForReady();
      throw error;
    }
  };

  /**
   * A given client that is not ready. Still starting (never ready yet): the README's
   * `new Redis(url, { enableOfflineQueue: false })` passed at once is still connecting, and
   * without an offline queue ioredis fails whatever is sent before it is ready, so the first
   * business-key write was refused store.unavailable with an outage warning, on a healthy
   * Redis; it is waited for, within timeoutMs (a lazyConnect client started, as its first
   * command would). Down since (reconnecting, closed): the command fails now, as on the
   * README's client. A client with an offline queue would keep it until Redis is back, every
   * retry of every run for the whole outage (1 090 commands for 200 calls in 2 s), and run
   * them all at once then, long after the engine stopped waiting for them.
   */
  let everReady = owned || client.status === 'ready';
  // A client-like object without ioredis's events or status (a wrapper, a test double) is
  // taken as it is: its commands are sent, and fail or not on their own.
  if (!everReady && typeof client.once === 'function') client.once('ready', () => (everReady = true));
  let starting: Promise<void> | undefined;
  const givenClientReady = (): Promise<void> => {
    const status = client.status;
    if (status === 'ready' || typeof status !== 'string') return Promise.resolve();
    if (everReady || (status !== 'wait' && status !== 'connecting' && status !== 'connect')) {
      return Promise.reject(new Error(`loopguard/redis: the Redis client is not connected (${status})`));
    }
    if (status === 'wait') client.connect().catch(() => undefined);
    // One wait (one 'ready' listener) for every command sent meanwhile: a burst of calls at
    // start-up would otherwise pass ioredis's listener limit, and print its warning.
    starting ??= readyOrTimeout(client as Redis, timeoutMs).finally(() => (starting = undefined));
    return starting;
  };

  /** EVALSHA, and EVAL once when the server does not have the script (after a restart or failover). */
  const run = async (operation: string, code: Script, keys: string[], args: Array<string | number>): Promise<unknown> => {
    // Only a store whose client is not ready waits: awaiting ready() when it is would
    // cost every guarded call an async function and its promise hops for nothing (with the
    // flush task a claim makes redundant, shared-run-link.ts: -2.5 us client CPU per call).
    if (connecting !== undefined || client.status !== 'ready') await ready();
    try {
      return await bounded(operation, client.evalsha(code.sha, keys.length, ...keys, ...args) as Promise<unknown>);
    } catch (error) {
      if (!(error instanceof Error) || !error.message.startsWith('NOSCRIPT')) throw error;
      return bounded(operation, client.eval(code.source, keys.length, ...keys, ...args) as Promise<unknown>);
    }
  };

  let closed = false;
  return {
    keysOf,
    async appendRunEvents(runId: string, expectedLength: number, entries: readonly string[], summary?: RunLogSummary, expectedLast?: string): Promise<AppendResult> {
      const keys = appendKeysOf(runId);
      const stopReason = summary?.stopReason ?? '';
      const ended = summary?.ended === true ? '1' : '';
      // The run hash is a key of the script only when it is written (its creation, a stop, an
      // end): an ordinary call touches the log alone (see APPEND_RUN_EVENTS for the measurement).
      const scriptKeys = expectedLength === 0 || stopReason !== '' || ended !== '' ? [keys.log, keys.run] : [keys.log];
      const reply = await run('append', APPEND, scriptKeys, [expectedLength, runTtlMs, stopReason, ended, expectedLast ?? '', ...entries]);
      if (typeof reply === 'number') {
        // The index is a separate key (another slot in a cluster), so not in the script; it
        // only serves listing, so a failure here is not the run's failure.
        if (expectedLength === 0) void indexRun(runId).catch(() => undefined);
        return { accepted: true, length: reply };
      }
      const refused = reply as unknown[];
      const length = Number(refused[1]);
      const missing = (refused[3] as unknown[]).map(String);
      return refused[2] === 1 ? { accepted: false, length, entries: missing, truncated: true } : { accepted: false, length, entries: missing };
    },
    async readRunEvents(runId: string, from: number): Promise<string[]> {
      await ready();
      return bounded('read', client.lrange(keysOf(runId).log, from, -1));
    },
    async claimBusinessKey(key, owner, leaseMs, ttlMs): Promise<BusinessKeyState> {
      const reply = (await run('claim', CLAIM, [businessKeyOf(key)], [owner, leaseMs, ttlMs, key.runId])) as string[];
      switch (reply[0]) {
        case 'claimed':
          return { state: 'claimed' };
        case 'done':
          return reply[3] ? { state: 'done', runId: reply[1]!, at: Number(reply[2]), resultHash: reply[3] } : { state: 'done', runId: reply[1]!, at: Number(reply[2]) };
        case 'pending':
        case 'expired':
          return { state: reply[0], owner: reply[1]!, claimedAt: Number(reply[2]), runId: reply[3]! };
        default:
          throw new Error(`unexpected reply from the business-key script: ${JSON.stringify(reply)}`);
      }
    },
    async takeOverBusinessKey(key, previousOwner, owner, leaseMs): Promise<boolean> {
      return Number(await run('take_over', TAKE_OVER, [businessKeyOf(key)], [previousOwner, owner, leaseMs, key.runId])) === 1;
    },
    async completeBusinessKey(key, owner, resultHash, ttlMs): Promise<boolean> {
      return Number(await run('complete', COMPLETE, [businessKeyOf(key)], [owner ?? '', resultHash ?? '', ttlMs, key.runId])) === 1;
    },
    async releaseBusinessKey(key, owner): Promise<boolean> {
      return Number(await run('release', RELEASE, [businessKeyOf(key)], [owner])) === 1;
    },
    async listRuns({ limit = 100, onUnreadable } = {}): Promise<StoredRunSummary[]> {
      await ready();
      await bounded('index', client.zremrangebyscore(indexKey, '-inf', Date.now() - runTtlMs));
      const ids = await bounded('index', client.zrevrange(indexKey, 0, limit - 1));
      // Settled one by one: a key of the wrong type in one run (audit d9) must not hide every
      // other run; Redis being unreachable or slow still fails the whole list.
      const settled = await Promise.allSettled(ids.map((id) => describe(id)));
      const runs: StoredRunSummary[] = [];
      for (const outcome of settled) {
        if (outcome.status === 'fulfilled') {
          if (outcome.value !== undefined) runs.push(outcome.value);
        } else if (outcome.reason instanceof StoredRunUnreadableError && onUnreadable !== undefined) {
          onUnreadable(outcome.reason);
        } else {
          throw outcome.reason;
        }
      }
      return runs;
    },
    describeRun: async (runId) => {
      await ready();
      return describe(runId);
    },
    async close(): Promise<void> {
      if (closed || !owned) return;
      closed = true;
      await client.quit().catch(() => client.disconnect());
    },
  };

  async function indexRun(runId: string): Promise<void> {
    await client.zadd(indexKey, Date.now(), runId);
    await client.pexpire(indexKey, runTtlMs);
  }

  async function describe(runId: string): Promise<StoredRunSummary | undefined> {
    const keys = keysOf(runId);
    /** A WRONGTYPE reply names no key: the error says which of the run's keys it was. */
    const readKey = async <T>(key: string, promise: Promise<T>): Promise<T> => {
      try {
        return await bounded('read', promise);
      } catch (error) {
        if (error instanceof Error && error.message.startsWith('WRONGTYPE')) throw new StoredRunUnreadableError(runId, key, error);
        throw error;
      }
    };
    const [fields, events, newest] = await Promise.all([
      readKey(keys.run, client.hgetall(keys.run)),
      readKey(keys.log, client.llen(keys.log)),
      readKey(keys.log, client.lrange(keys.log, -ENTRIES_READ_FOR_TIME, -1)),
    ]);
    if (events === 0 && Object.keys(fields).length === 0) return undefined;
    let problem: string | undefined;
    // The hash keeps its TTL from its last write (creation, stop, end), so a run that goes on
    // longer than runTtlMs can outlive its 'created': then the log's oldest entries tell it.
    // A created that is not a time (another writer's "abc" or 1e20) is read as absent the same
    // way: as NaN it also hid the last change, and 1e20 crashed `loopguard runs` (audit p03, d3).
    let created = fields.created === undefined ? undefined : Number(fields.created);
    if (created !== undefined && !isDateTime(created)) {
      problem = `${keys.run} field created is ${JSON.stringify(fields.created)}, not a time (ms since the epoch); read as absent`;
      created = undefined;
    }
    if (created === undefined && events > 0) {
      created = firstTimeOf(await readKey(keys.log, client.lrange(keys.log, 0, ENTRIES_READ_FOR_TIME - 1)));
    }
    // The last change is the newest timed entry (the writer's clock; the append script no
    // longer writes a time on every call), never shown before the run's creation.
    const newestTime = firstTimeOf(newest.reverse());
    const updated = newestTime === undefined ? created : created === undefined ? newestTime : Math.max(created, newestTime);
    const summary = { runId, created, updated, events, stopReason: fields.stop, ended: fields.ended === '1' };
    return problem === undefined ? summary : { ...summary, problems: [problem] };
  }
}

/**
 * Entries read at either end of a log for its times: entries without a time (usage, world
 * state, stop) come in small groups between timed ones.
 */
const ENTRIES_READ_FOR_TIME = 8;

/**
 * The time of the first entry of `entries` that has one. runEventTime reads only a time the
 * log decoder accepts (epoch milliseconds up to year 9999, always a date), so an entry with
 * another (1e20 from another writer) has none and is passed over.
 */
function firstTimeOf(entries: readonly string[]): number | undefined {
  for (const entry of entries) {
    const time = runEventTime(entry);
    if (time !== undefined) return time;
  }
  return undefined;
}

let RedisClass: (new (url: string, options: RedisOptions) => Redis) | undefined;

/** Registered by the entry point (index.ts), which imports ioredis: keeps this file's import type-only. */
export function useRedisClass(constructor: new (url: string, options: RedisOptions) => Redis): void {
  RedisClass = constructor;
}

function makeClient(url: string): Redis {
  if (RedisClass === undefined) throw new Error('loopguard/redis: ioredis is not loaded');
  // No offline queue: a command sent while Redis is down fails now (and the engine follows
  // storeFailure) instead of running minutes later, after the engine stopped waiting for it.
  const client = new RedisClass(url, { enableOfflineQueue: false, maxRetriesPerRequest: 1, lazyConnect: false });
  // Connection errors reach the engine as rejected commands (one warning per outage); without
  // a listener ioredis would also print each reconnect attempt's error with its stack.
  client.on('error', () => undefined);
  return client;
}

function readyOrTimeout(client: Redis, timeoutMs: number): Promise<void> {
  if (client.status === 'ready') return Promise.resolve();
  return new Promise<void>((resolve, reject) => {
    const timer = setTimeout(() => {
      client.off('ready', onReady);
      reject(new RedisStoreTimeoutError('connect', timeoutMs));
    }, timeoutMs);
    timer.unref?.();
    const onReady = () => {
      clearTimeout(timer);
      resolve();
    };
    client.once('ready', onReady);
  });
}
