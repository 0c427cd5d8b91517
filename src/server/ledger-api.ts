import type { AppendResult, BusinessKey, BusinessKeyState, RunLogSummary, RunStore } from '../core/shared-ledger/run-store.js';
import { thrownText } from '../core/thrown-text.js';
import { ServerRequestError } from './server-request-error.js';

type Json = Record<string, unknown>;

/** The path segment of each run-store operation under `/v1/ledger/`. */
export const LEDGER_OPERATIONS: ReadonlySet<string> = new Set([
  'append-run-events',
  'read-run-events',
  'claim-business-key',
  'take-over-business-key',
  'complete-business-key',
  'release-business-key',
]);

const MAX_ID_CHARS = 512;

/**
 * `POST /v1/ledger/{operation}`: one {@link RunStore} method over JSON, run against the
 * server's store (Redis with `--redis`, else its bounded memory store), so a TypeScript
 * `LoopGuard` with `createRemoteRunStore` from `loopguard/client` keeps its runs here. The
 * store's semantics (compare-and-append, business-key leases judged by the store's clock)
 * are the store's own; this only checks the body and translates. A store that fails answers
 * 503 `store_unavailable`, and the client's engine follows its `storeFailure` policy.
 */
export async function handleLedgerRequest(store: RunStore, operation: string, body: Json): Promise<Json> {
  // A thunk: a store method that throws instead of rejecting (a custom RunStore) is the store's
  // failure as a rejection is, a 503, not a 500 from the request handler's last net.
  let answer: () => Promise<Json>;
  switch (operation) {
    case 'append-run-events': {
      const runId = idField(body, 'runId');
      const expectedLength = countField(body, 'expectedLength');
      const entries = entriesField(body);
      const summary = summaryField(body);
      const expectedLast = expectedLastField(body);
      answer = () => store.appendRunEvents(runId, expectedLength, entries, summary, expectedLast).then(appendAnswer);
      break;
    }
    case 'read-run-events': {
      const runId = idField(body, 'runId');
      const from = countField(body, 'from');
      answer = () => store.readRunEvents(runId, from).then((entries) => ({ entries }));
      break;
    }
    case 'claim-business-key': {
      const key = keyField(body);
      const owner = idField(body, 'owner');
      const leaseMs = msField(body, 'leaseMs');
      const ttlMs = msField(body, 'ttlMs');
      answer = () => store.claimBusinessKey(key, owner, leaseMs, ttlMs).then(stateAnswer);
      break;
    }
    case 'take-over-business-key': {
      const key = keyField(body);
      const previousOwner = idField(body, 'previousOwner');
      const owner = idField(body, 'owner');
      const leaseMs = msField(body, 'leaseMs');
      answer = () => store.takeOverBusinessKey(key, previousOwner, owner, leaseMs).then((changed) => ({ changed }));
      break;
    }
    case 'complete-business-key': {
      const key = keyField(body);
      // null (or absent): settle whoever held it (the write's verify found it done).
      const owner = body.owner === undefined || body.owner === null ? undefined : idField(body, 'owner');
      const resultHash = body.resultHash === undefined || body.resultHash === null ? undefined : idField(body, 'resultHash');
      const ttlMs = msField(body, 'ttlMs');
      answer = () => store.completeBusinessKey(key, owner, resultHash, ttlMs).then((changed) => ({ changed }));
      break;
    }
    case 'release-business-key': {
      const key = keyField(body);
      const owner = idField(body, 'owner');
      answer = () => store.releaseBusinessKey(key, owner).then((changed) => ({ changed }));
      break;
    }
    default:
      throw new ServerRequestError({ status: 404, code: 'not_found', message: `no ledger operation ${JSON.stringify(operation)}; known: ${[...LEDGER_OPERATIONS].join(', ')}` });
  }
  try {
    return await answer();
  } catch (error) {
    // The store's trouble, not the request's: the client may retry (or its engine fails open).
    throw new ServerRequestError({
      status: 503,
      code: 'store_unavailable',
      message: `the server's run store failed: ${thrownText(error)}`,
      retryAfter: 1,
    });
  }
}

function appendAnswer(result: AppendResult): Json {
  if (result.accepted) return { accepted: true, length: result.length };
  return result.truncated === true
    ? { accepted: false, length: result.length, entries: [...result.entries], truncated: true }
    : { accepted: false, length: result.length, entries: [...result.entries] };
}

function stateAnswer(state: BusinessKeyState): Json {
  return { ...state };
}

function badField(field: string, problem: string, value: unknown): ServerRequestError {
  const shown = value === undefined ? 'nothing' : (JSON.stringify(value) ?? String(value)).slice(0, 80);
  return new ServerRequestError({ status: 400, code: 'bad_request', field, message: `${field}: ${problem}, got ${shown}` });
}

function idField(body: Json, field: string, at: string = field): string {
  const value = body[field];
  if (typeof value !== 'string' || value.length === 0 || value.length > MAX_ID_CHARS) throw badField(at, `must be a non-empty string of at most ${MAX_ID_CHARS} characters`, value);
  return value;
}

function countField(body: Json, field: string): number {
  const value = body[field];
  if (typeof value !== 'number' || !Number.isSafeInteger(value) || value < 0) throw badField(field, 'must be a whole number ≥ 0', value);
  return value;
}

function msField(body: Json, field: string): number {
  const value = body[field];
  if (typeof value !== 'number' || !Number.isSafeInteger(value) || value < 1) throw badField(field, 'must be a whole number of ms ≥ 1', value);
  return value;
}

function entriesField(body: Json): string[] {
  const value = body.entries;
  if (!Array.isArray(value)) throw badField('entries', 'must be an array of log entries (strings)', value);
  for (let index = 0; index < value.length; index++) {
    if (typeof value[index] !== 'string' || (value[index] as string).length === 0) throw badField(`entries[${index}]`, 'must be a non-empty string', value[index]);
  }
  return value as string[];
}

/** The entry the client saw last (absent from older clients: the store then compares lengths only). */
function expectedLastField(body: Json): string | undefined {
  const value = body.expectedLast;
  if (value === undefined || value === null) return undefined;
  if (typeof value !== 'string' || value.length === 0) throw badField('expectedLast', 'must be a non-empty string (the log entry the client saw last)', value);
  return value;
}

function summaryField(body: Json): RunLogSummary | undefined {
  const value = body.summary;
  if (value === undefined || value === null) return undefined;
  if (typeof value !== 'object' || Array.isArray(value)) throw badField('summary', 'must be an object { stopReason?, ended? }', value);
  const record = value as Json;
  const summary: RunLogSummary = {};
  if (record.stopReason !== undefined) {
    if (typeof record.stopReason !== 'string') throw badField('summary.stopReason', 'must be a string', record.stopReason);
    summary.stopReason = record.stopReason;
  }
  if (record.ended !== undefined) {
    if (typeof record.ended !== 'boolean') throw badField('summary.ended', 'must be true or false', record.ended);
    summary.ended = record.ended;
  }
  return summary;
}

function keyField(body: Json): BusinessKey {
  const value = body.key;
  if (value === null || typeof value !== 'object' || Array.isArray(value)) throw badField('key', 'must be a business key { tool, scope, runId, value }', value);
  const record = value as Json;
  const scope = record.scope;
  if (scope !== 'global' && scope !== 'run') throw badField('key.scope', 'must be "global" or "run"', scope);
  return { tool: idField(record, 'tool', 'key.tool'), scope, runId: idField(record, 'runId', 'key.runId'), value: idField(record, 'value', 'key.value') };
}
