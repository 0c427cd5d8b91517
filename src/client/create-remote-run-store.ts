import { describeConfigValue } from '../core/describe-config-value.js';
import { LoopGuardConfigError } from '../core/errors.js';
import type { AppendResult, BusinessKey, BusinessKeyState, RunLogSummary, RunStore } from '../core/shared-ledger/run-store.js';
import { MAX_TIMER_MS, positiveMsOption } from '../core/shared-ledger/shared-ledger-options.js';
import { RemoteRunStoreError } from './remote-run-store-error.js';

/** Options of {@link createRemoteRunStore}. */
export interface RemoteRunStoreOptions {
  /** The server's base URL, `http://host:4319` (a path prefix behind a proxy is kept). Required. */
  url: string;
  /** The server's bearer token (`loopguard serve --auth-token`). Default: none. */
  token?: string;
  /**
   * A store operation that takes longer fails (the engine then follows `storeFailure`), in
   * ms: a positive integer below 2^31. Default 1 000: above the server's own Redis timeout
   * (500 ms), so a slow Redis comes back as the server's 503, not as a cut request.
   */
  timeoutMs?: number;
}

type Json = Record<string, unknown>;

const KNOWN_OPTIONS = ['url', 'token', 'timeoutMs'];

/**
 * A {@link RunStore} kept by a running `loopguard serve` (its `/v1/ledger/*` routes), over HTTP
 * with the global `fetch` and no dependency: `new LoopGuard({ store: createRemoteRunStore({
 * url }) })` and every integration built on that engine keep their runs on the server (in its
 * Redis with `--redis`), so processes of one run on several machines share one ledger, and
 * business-key writes run once across them. Every operation is bounded by `timeoutMs`; a
 * failure rejects with {@link RemoteRunStoreError}, which the engine turns into its
 * documented failure behaviour (by default: calls go ahead on this process's copy of the run,
 * business-key writes are refused), never into an exception in the host.
 *
 * @throws LoopGuardConfigError naming the bad option.
 */
export function createRemoteRunStore(options: RemoteRunStoreOptions): RunStore {
  if (typeof options !== 'object' || options === null) {
    throw new LoopGuardConfigError({ field: 'options', message: `must be an object { url, token?, timeoutMs? }, got ${describeConfigValue(options)}` });
  }
  for (const name of Object.keys(options)) {
    if (!KNOWN_OPTIONS.includes(name)) throw new LoopGuardConfigError({ field: name, message: `is not a known option (known: ${KNOWN_OPTIONS.join(', ')})` });
  }
  const { url, token } = options;
  let parsed: URL | undefined;
  try {
    parsed = typeof url === 'string' ? new URL(url) : undefined;
  } catch {
    parsed = undefined;
  }
  if (parsed === undefined || (parsed.protocol !== 'http:' && parsed.protocol !== 'https:') || parsed.search !== '' || parsed.hash !== '') {
    throw new LoopGuardConfigError({ field: 'url', message: `must be the http:// or https:// URL of a loopguard serve (http://127.0.0.1:4319), got ${describeConfigValue(url)}` });
  }
  // A token in a header must be one visible ASCII word: anything else is a pasting mistake
  // that would only show up as a 401 (or a fetch TypeError) on the first call.
  if (token !== undefined && (typeof token !== 'string' || !/^[\x21-\x7e]+$/.test(token))) {
    throw new LoopGuardConfigError({ field: 'token', message: `must be the server's bearer token (printable ASCII, no spaces), got ${typeof token === 'string' ? 'a string with spaces or control characters' : describeConfigValue(token)}` });
  }
  const timeoutMs = positiveMsOption(options.timeoutMs, 'timeoutMs', 1_000, MAX_TIMER_MS);
  if (typeof fetch !== 'function') throw new LoopGuardConfigError({ field: 'url', message: 'needs the global fetch (Node 18 or later)' });
  const base = `${parsed.origin}${parsed.pathname.replace(/\/+$/, '')}/v1/ledger/`;
  const headers: Record<string, string> = { 'content-type': 'application/json', accept: 'application/json' };
  if (token !== undefined) headers.authorization = `Bearer ${token}`;

  const call = async (operation: string, body: Json): Promise<Json> => {
    let response: Response;
    let text: string;
    try {
      // One signal for the whole exchange, body included: a server that sends headers and
      // then stalls is as slow as one that never answers.
      response = await fetch(base + operation, { method: 'POST', headers, body: JSON.stringify(body), signal: AbortSignal.timeout(timeoutMs) });
      text = await response.text();
    } catch (error) {
      throw transportError(operation, error, timeoutMs, base);
    }
    let reply: unknown;
    try {
      reply = text.length === 0 ? undefined : JSON.parse(text);
    } catch {
      reply = undefined;
    }
    if (!response.ok) {
      const detail = (reply as { error?: { code?: unknown; message?: unknown } } | undefined)?.error;
      const code = typeof detail?.code === 'string' ? detail.code : `http_${response.status}`;
      const message = typeof detail?.message === 'string' ? detail.message : text.slice(0, 200);
      const hint =
        response.status === 401
          ? token === undefined
            ? ' — this server needs a token: pass token (its --auth-token / LOOPGUARD_SERVE_TOKEN) to createRemoteRunStore'
            : ' — the token passed to createRemoteRunStore is not the one the server was started with'
          : response.status === 404
            ? ' — is url a loopguard serve of this version (with /v1/ledger)?'
            : '';
      throw new RemoteRunStoreError({ operation, status: response.status, code, message: `the server answered ${response.status} ${code}: ${message}${hint}` });
    }
    if (reply === null || typeof reply !== 'object' || Array.isArray(reply)) throw badReply(operation, response.status, text);
    return reply as Json;
  };

  return {
    async appendRunEvents(runId: string, expectedLength: number, entries: readonly string[], summary?: RunLogSummary, expectedLast?: string): Promise<AppendResult> {
      const reply = await call('append-run-events', { runId, expectedLength, entries, summary, expectedLast });
      if (typeof reply.length !== 'number') throw badReply('append-run-events', 200, JSON.stringify(reply));
      if (reply.accepted === true) return { accepted: true, length: reply.length };
      if (reply.accepted !== false || !isStringArray(reply.entries)) throw badReply('append-run-events', 200, JSON.stringify(reply));
      return reply.truncated === true ? { accepted: false, length: reply.length, entries: reply.entries, truncated: true } : { accepted: false, length: reply.length, entries: reply.entries };
    },
    async readRunEvents(runId: string, from: number): Promise<string[]> {
      const reply = await call('read-run-events', { runId, from });
      if (!isStringArray(reply.entries)) throw badReply('read-run-events', 200, JSON.stringify(reply));
      return reply.entries;
    },
    async claimBusinessKey(key: BusinessKey, owner: string, leaseMs: number, ttlMs: number): Promise<BusinessKeyState> {
      const reply = await call('claim-business-key', { key, owner, leaseMs, ttlMs });
      return businessKeyState(reply);
    },
    async takeOverBusinessKey(key: BusinessKey, previousOwner: string, owner: string, leaseMs: number): Promise<boolean> {
      return changed('take-over-business-key', await call('take-over-business-key', { key, previousOwner, owner, leaseMs }));
    },
    async completeBusinessKey(key: BusinessKey, owner: string | undefined, resultHash: string | undefined, ttlMs: number): Promise<boolean> {
      return changed('complete-business-key', await call('complete-business-key', { key, owner: owner ?? null, resultHash: resultHash ?? null, ttlMs }));
    },
    async releaseBusinessKey(key: BusinessKey, owner: string): Promise<boolean> {
      return changed('release-business-key', await call('release-business-key', { key, owner }));
    },
  };
}

function transportError(operation: string, error: unknown, timeoutMs: number, base: string): RemoteRunStoreError {
  const name = (error as { name?: unknown } | undefined)?.name;
  if (name === 'TimeoutError' || name === 'AbortError') {
    return new RemoteRunStoreError({ operation, code: 'timeout', message: `no answer from ${base} within ${timeoutMs} ms (timeoutMs); is the server reachable and not overloaded?` });
  }
  // fetch says "fetch failed" and keeps the reason (ECONNREFUSED, ENOTFOUND) in `cause`.
  const cause = (error as { cause?: { code?: unknown; message?: unknown } } | undefined)?.cause;
  const reason = typeof cause?.code === 'string' ? cause.code : typeof cause?.message === 'string' ? cause.message : error instanceof Error ? error.message : String(error);
  return new RemoteRunStoreError({ operation, code: 'unreachable', message: `could not reach ${base} (${reason}); is loopguard serve running there?` });
}

function badReply(operation: string, status: number, text: string): RemoteRunStoreError {
  return new RemoteRunStoreError({
    operation,
    status,
    code: 'bad_reply',
    message: `the answer is not a loopguard ledger reply (is url a loopguard serve?): ${text.slice(0, 200)}`,
  });
}

function isStringArray(value: unknown): value is string[] {
  return Array.isArray(value) && value.every((entry) => typeof entry === 'string');
}

function changed(operation: string, reply: Json): boolean {
  if (typeof reply.changed !== 'boolean') throw badReply(operation, 200, JSON.stringify(reply));
  return reply.changed;
}

function businessKeyState(reply: Json): BusinessKeyState {
  const { state } = reply;
  if (state === 'claimed') return { state };
  if (state === 'done' && typeof reply.at === 'number' && typeof reply.runId === 'string') {
    return typeof reply.resultHash === 'string' ? { state, at: reply.at, runId: reply.runId, resultHash: reply.resultHash } : { state, at: reply.at, runId: reply.runId };
  }
  if ((state === 'pending' || state === 'expired') && typeof reply.owner === 'string' && typeof reply.claimedAt === 'number' && typeof reply.runId === 'string') {
    return { state, owner: reply.owner, claimedAt: reply.claimedAt, runId: reply.runId };
  }
  throw badReply('claim-business-key', 200, JSON.stringify(reply));
}
