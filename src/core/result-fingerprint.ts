import { hashPrefixed, hashText } from './hash.js';
import type { ResolvedToolPolicy } from './policy.js';
import type { CallOutcome, OutcomeClass, PrehashedOutcome, ToolErrorInfo } from './types.js';

/** JSON text up to this length is parsed so it is judged by structure like an object result. */
const MAX_PARSED_RESULT_LENGTH = 1024 * 1024;

/**
 * Does the value carry no facts at all? Walks the whole value (document 000: a list of
 * "if this key is empty" keys silently goes wrong each time a tool is added): only empty
 * containers, "", 0, false and null, at any depth. Returns at the first fact, so a
 * non-empty result costs a walk down one branch, not of the whole value.
 */
export function isEmptyResult(value: unknown, depth = 0): boolean {
  if (value === null || value === undefined || value === false || value === 0 || value === '') return true;
  if (typeof value !== 'object') return false;
  if (depth > 64) return false;
  if (Array.isArray(value)) {
    for (const item of value) if (!isEmptyResult(item, depth + 1)) return false;
    return true;
  }
  for (const key in value as Record<string, unknown>) {
    if (!isEmptyResult((value as Record<string, unknown>)[key], depth + 1)) return false;
  }
  return true;
}

function dropFields(value: unknown, fields: ReadonlySet<string>): unknown {
  if (typeof value !== 'object' || value === null) return value;
  if (Array.isArray(value)) return value.map((item) => dropFields(item, fields));
  const out: Record<string, unknown> = {};
  for (const key of Object.keys(value)) {
    if (!fields.has(key)) out[key] = dropFields((value as Record<string, unknown>)[key], fields);
  }
  return out;
}

/**
 * The fingerprint of a successful result: a hash of its content after volatile fields are
 * dropped, or no fingerprint when it is empty or cannot be fingerprinted.
 *
 * Results are hashed from JSON.stringify text, not canonical JSON: a result's key order is
 * the tool's own and stable between calls, and native stringify keeps large results at
 * near raw-sha256 speed (issue 6). Only when a volatile field name occurs in the text is
 * the value rebuilt without it. Strings that hold JSON are parsed (up to 1 MiB) so the same
 * result as text and as an object fingerprint alike; other strings are hashed as they are.
 */
export function fingerprintResult(result: unknown, policy: ResolvedToolPolicy, maxBytes: number): PrehashedOutcome {
  let value = result;
  if (typeof result === 'string') {
    if (result.length > maxBytes) return { outcome: 'success', unfingerprintable: true };
    const trimmed = result.trimStart();
    if (trimmed === '') return { outcome: 'empty' };
    const looksLikeJson = trimmed.startsWith('{') || trimmed.startsWith('[');
    if (!looksLikeJson || result.length > MAX_PARSED_RESULT_LENGTH) return { outcome: 'success', resultHash: hashPrefixed('s:', result) };
    try {
      value = JSON.parse(result);
    } catch {
      return { outcome: 'success', resultHash: hashPrefixed('s:', result) };
    }
  }
  if (typeof value === 'function' || typeof value === 'symbol' || typeof value === 'bigint') {
    return { outcome: 'success', unfingerprintable: true };
  }
  if (isEmptyResult(value)) return { outcome: 'empty' };
  let text: string | undefined;
  try {
    text = JSON.stringify(value);
  } catch {
    // Cycles and BigInt land here.
    return { outcome: 'success', unfingerprintable: true };
  }
  if (text === undefined || text.length > maxBytes) return { outcome: 'success', unfingerprintable: true };
  if (policy.volatileResultPattern?.test(text)) {
    const stripped = dropFields(value, policy.volatileResult);
    if (isEmptyResult(stripped)) return { outcome: 'empty' };
    text = JSON.stringify(stripped);
  }
  // Prefix and text hashed as two updates when large (hash.ts): a 2 MB result no longer
  // copies itself into a concatenated string first.
  return { outcome: 'success', resultHash: hashPrefixed('j:', text) };
}

function readField(error: unknown, field: string): unknown {
  return typeof error === 'object' && error !== null ? (error as Record<string, unknown>)[field] : undefined;
}

const OVERLOADED_PATTERN = /overload|rate.?limit|too.?many.?requests|throttl|capacity/i;
const TIMEOUT_PATTERN = /time.?out|timed.?out|deadline.?exceeded|abort/i;

/**
 * Sorts a failure into error, overloaded (rate limit, 429, 503, 529) or timeout, from the
 * error's type/name/code and HTTP status. Recorded errors (`{type: "overloaded"}`) and
 * thrown ones (an SDK's `RateLimitError` with `status: 429`) land in the same classes.
 */
export function classifyError(error: unknown): Exclude<OutcomeClass, 'success' | 'empty' | 'refused'> {
  // HTTP clients put the status on the error (fetch wrappers, SDKs) or on its response
  // (got: response.statusCode, axios: response.status).
  const response = readField(error, 'response');
  const status = Number(
    readField(error, 'status') ?? readField(error, 'statusCode') ?? readField(response, 'status') ?? readField(response, 'statusCode') ?? NaN,
  );
  if (status === 429 || status === 503 || status === 529) return 'overloaded';
  if (status === 408 || status === 504) return 'timeout';
  const labels = [readField(error, 'type'), readField(error, 'name'), readField(error, 'code')]
    .filter((label): label is string => typeof label === 'string')
    .join(' ');
  if (OVERLOADED_PATTERN.test(labels)) return 'overloaded';
  if (TIMEOUT_PATTERN.test(labels) || readField(error, 'code') === 'ETIMEDOUT') return 'timeout';
  return 'error';
}

/** Type and message of any thrown or recorded error. */
export function describeError(error: unknown): Required<ToolErrorInfo> {
  const type = readField(error, 'type') ?? readField(error, 'name') ?? readField(error, 'code');
  const message = readField(error, 'message');
  return {
    type: typeof type === 'string' ? type : 'Error',
    message: typeof message === 'string' ? message : typeof error === 'string' ? error : safeString(error),
  };
}

function safeString(value: unknown): string {
  try {
    return JSON.stringify(value) ?? String(value);
  } catch {
    return String(value);
  }
}

/**
 * Errors are fingerprinted by type and body (document 003): the same error coming back on
 * every retry is an already-seen result, which is what lets result comparison stop an
 * agent retrying an overloaded tool forever (document 000).
 */
export function fingerprintError(error: unknown): PrehashedOutcome {
  const outcome = classifyError(error);
  const { type, message } = describeError(error);
  return { outcome, errorType: type, resultHash: hashText(`e:${type}\u0000${message}`) };
}

/** Fingerprints a raw outcome: exactly one of `result` or `error`. */
export function fingerprintOutcome(outcome: CallOutcome, policy: ResolvedToolPolicy, maxBytes: number): PrehashedOutcome {
  const prehashed = 'error' in outcome && outcome.error !== undefined
    ? fingerprintError(outcome.error)
    : fingerprintResult(outcome.result, policy, maxBytes);
  if (outcome.endTime !== undefined) prehashed.endTime = outcome.endTime;
  return prehashed;
}
