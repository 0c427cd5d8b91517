import { canonicalJson } from './canonical-json.js';
import { hashPrefixed, hashText } from './hash.js';
import type { ResolvedToolPolicy } from './policy.js';

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
export function callSignature(tool: string, args: unknown, policy: ResolvedToolPolicy): string {
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
  try {
    return hashPrefixed(`${tool}\u0000j:`, canonicalJson(value, policy.volatileArgs, Infinity, true));
  } catch {
    unidentifiableCounter += 1;
    return hashText(`${tool}\u0000u:${unidentifiableCounter}:${Math.random()}`);
  }
}
