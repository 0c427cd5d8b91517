import { canonicalJson } from './canonical-json.js';
import { hashPrefixed, hashText } from './hash.js';
import type { ResolvedToolPolicy } from './policy.js';
import { DATA_SELECTING_TIME_ARGS } from './noise/bookkeeping-arguments.js';
import { isCallClockStamp } from './noise/is-call-clock-stamp.js';

/** Argument text larger than this is hashed as text rather than parsed (bounded time). */
const MAX_PARSED_ARGUMENT_LENGTH = 1024 * 1024;

let unidentifiableCounter = 0;

/**
 * The identity of a call: tool name plus arguments compared as values (document 000).
 *
 * Arguments arriving as JSON text are parsed first, because the same call reaches us both as
 * the object the model wrote and as text (a saved file expanded into the arguments);
 * comparing text would miss a loop alternating between the two. Then volatile fields are
 * dropped at every depth (document 003: a retry bumping `attempt` 340 times is one call),
 * the rest is written in RFC 8785 canonical form, and hashed. The same goes for a nested
 * string holding a JSON object or array (`filters: '{"a":1}'` is `filters: {a:1}`, issue 10
 * #14), and Maps and Sets compare by content (see canonical-json.ts).
 *
 * Arguments that are not JSON (text that does not parse) are compared as exact text.
 * Arguments that cannot be serialized at all (a cycle, a function) get a signature that
 * matches nothing: with no sound identity, leaning to "new call" keeps a healthy run alive.
 */
export function callSignature(tool: string, args: unknown, policy: ResolvedToolPolicy, startTime?: number): string {
  let value = args;
  if (typeof args === 'string') {
    const trimmed = args.trimStart();
    const looksLikeJson = trimmed.startsWith('{') || trimmed.startsWith('[');
    if (!looksLikeJson || args.length > MAX_PARSED_ARGUMENT_LENGTH) return hashPrefixed(`${tool}\u0000t:`, args);
    try {
      value = JSON.parse(args);
    } catch {
      return hashPrefixed(`${tool}\u0000t:`, args);
    }
  }
  if (value === undefined) value = {};
  if (startTime !== undefined) value = withoutClockStamps(value, policy, startTime);
  try {
    return hashPrefixed(`${tool}\u0000j:`, canonicalJson(value, policy.volatileArgs, Infinity, true));
  } catch {
    return unidentifiableSignature(tool);
  }
}

/** A call identity that matches no other call: for arguments with no sound identity (a cycle, a function, a getter that throws). */
export function unidentifiableSignature(tool: string): string {
  unidentifiableCounter += 1;
  return hashText(`${tool}\u0000u:${unidentifiableCounter}:${Math.random()}`);
}

/**
 * The arguments without top-level wall-clock stamps of the call itself (issue 24 #7, document
 * 003: `{"invoice": "INV-2041", "timestamp": 1764…}` made anew on every call is one call).
 * Only top-level fields, only when the call's start time is known, never a field named like a
 * time selector (`since`, `date`, `from`…). Returns the same object when there is none: the
 * common case costs a walk over the top-level keys.
 */
export function withoutClockStamps(value: unknown, policy: ResolvedToolPolicy, startTime: number): unknown {
  if (typeof value !== 'object' || value === null || Array.isArray(value)) return value;
  const record = value as Record<string, unknown>;
  let stamps: string[] | undefined;
  for (const key in record) {
    if (DATA_SELECTING_TIME_ARGS.has(key) || policy.volatileArgs.has(key)) continue;
    if (isCallClockStamp(record[key], startTime)) (stamps ??= []).push(key);
  }
  if (stamps === undefined) return value;
  const copy: Record<string, unknown> = {};
  for (const key in record) if (!stamps.includes(key)) copy[key] = record[key];
  return copy;
}
