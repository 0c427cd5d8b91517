import { callSignature, withoutClockStamps } from '../call-signature.js';
import { canonicalJsonWithAndWithout } from '../canonical-json.js';
import { hashPrefixed } from '../hash.js';
import type { ResolvedToolPolicy } from '../policy.js';

/**
 * Arguments that pick a page of a listing, not what is listed (issue 24 #2): Stripe's
 * `starting_after`, Notion's `start_cursor`, GitHub's `page`, Google's `pageToken`, SQL-ish
 * `offset`/`skip`, and the tool's own `cursorArg`. Elasticsearch's `from` too, when it is a
 * number (isPagingMember): a flight from "SFO" or a conversion from "USD" is what is asked.
 */
const PAGING_ARGUMENTS = new Set([
  'page', 'page_number', 'pagenumber', 'cursor', 'start_cursor', 'startcursor', 'next_cursor', 'nextcursor', 'after', 'before',
  'starting_after', 'ending_before', 'offset', 'skip', 'start', 'page_token', 'pagetoken', 'next_page_token', 'nextpagetoken', 'continuation', 'continuationtoken',
]);

/**
 * The identity of the listing a paged call reads: its signature without the paging
 * arguments, so page 3 and page 4 of one search share it and another search does not.
 * undefined when the call has no paging argument (nothing to page past). Computed only
 * for object arguments, at the cost of one key scan per call.
 */
export function listingKeyOf(tool: string, args: unknown, policy: ResolvedToolPolicy, startTime: number): string | undefined {
  if (typeof args !== 'object' || args === null || Array.isArray(args)) return undefined;
  const record = args as Record<string, unknown>;
  let rest: Record<string, unknown> | undefined;
  for (const key in record) {
    if (!isPagingMember(key, record[key], policy)) continue;
    rest ??= { ...record };
    delete rest[key];
  }
  return rest === undefined ? undefined : `listing:${callSignature(tool, rest, policy, startTime)}`;
}

function isPagingArgument(key: string, policy: ResolvedToolPolicy): boolean {
  return PAGING_ARGUMENTS.has(key.toLowerCase()) || key === policy.cursorArg;
}

/** A paging argument by its name, or Elasticsearch's `from` holding an offset (a whole number). */
function isPagingMember(key: string, value: unknown, policy: ResolvedToolPolicy): boolean {
  return isPagingArgument(key, policy) || (key === 'from' && Number.isInteger(value) && (value as number) >= 0);
}

/**
 * A call's identity ({@link callSignature}) and, for a paged call, its listing's
 * ({@link listingKeyOf}), the same two hashes those give, from one canonical pass over the
 * arguments: the listing's text is the call's without its paging members. Measured
 * (bench/profile.js loopguard, 2 KB arguments with a `cursor`, 2 KB object result): writing
 * the arguments twice was 29 % of the guarded call's self time.
 */
export function callAndListingSignatures(
  tool: string,
  args: unknown,
  policy: ResolvedToolPolicy,
  startTime: number,
): { argsHash: string; listingKey?: string } {
  if (typeof args === 'object' && args !== null && !Array.isArray(args)) {
    const record = args as Record<string, unknown>;
    let paged = false;
    for (const key in record) {
      if (isPagingMember(key, record[key], policy)) {
        paged = true;
        break;
      }
    }
    if (paged) {
      const value = withoutClockStamps(record, policy, startTime) as Record<string, unknown>;
      const fromIsOffset = isPagingMember('from', record.from, policy);
      const texts = canonicalJsonWithAndWithout(value, policy.volatileArgs, (key) => isPagingArgument(key, policy) || (key === 'from' && fromIsOffset), true);
      if (texts === undefined) return { argsHash: callSignature(tool, args, policy, startTime), listingKey: listingKeyOf(tool, args, policy, startTime) };
      const prefix = `${tool}\u0000j:`;
      return { argsHash: hashPrefixed(prefix, texts[0]), listingKey: `listing:${hashPrefixed(prefix, texts[1])}` };
    }
  }
  return { argsHash: callSignature(tool, args, policy, startTime) };
}
