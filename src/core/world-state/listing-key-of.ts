import { callSignature, withoutClockStamps } from '../call-signature.js';
import { canonicalJsonWithAndWithout } from '../canonical-json.js';
import { hashPrefixed } from '../hash.js';
import type { ResolvedToolPolicy } from '../policy.js';

/**
 * Arguments that pick a page of a listing, not what is listed (issue 24 #2): Stripe's
 * `starting_after`, Notion's `start_cursor`, GitHub's `page`, Google's `pageToken`, SQL-ish
 * `offset`/`skip`, AWS's `NextToken` and `Marker`, Twitter's `pagination_token`, DynamoDB's
 * `ExclusiveStartKey`, Elasticsearch's `scroll_id` and `search_after`, OData's `$skiptoken`,
 * and the tool's own `cursorArg`. Compared in lower case.
 */
const PAGING_ARGUMENTS = new Set([
  'page', 'page_number', 'pagenumber', 'cursor', 'start_cursor', 'startcursor', 'next_cursor', 'nextcursor', 'after', 'before',
  'starting_after', 'ending_before', 'offset', 'skip', 'start', 'page_token', 'pagetoken', 'next_page_token', 'nextpagetoken', 'continuation', 'continuationtoken',
  'nexttoken', 'next_token', 'starting_token', 'startingtoken', 'pagination_token', 'paginationtoken', 'marker', 'next_marker', 'nextmarker',
  'exclusivestartkey', 'exclusive_start_key', 'scroll_id', 'scrollid', 'search_after', 'searchafter', '$skip', '$skiptoken', 'skiptoken',
]);

/**
 * Arguments that page only when they hold an offset or a page's number (a whole number):
 * Elasticsearch's `from`, Jira's and Confluence's `startAt` / `start_at`, `startIndex`,
 * `pageIndex`, `pageNo`, `pageNum`. As text they ask something: a flight `from` "SFO", events
 * `start_at` "2026-12-07T09:00".
 */
const NUMERIC_PAGING_ARGUMENTS = new Set(['from', 'startat', 'start_at', 'startindex', 'start_index', 'pageindex', 'page_index', 'pageno', 'page_no', 'pagenum', 'page_num']);

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

/** A paging argument by its name, or one of {@link NUMERIC_PAGING_ARGUMENTS} holding a whole number. */
function isPagingMember(key: string, value: unknown, policy: ResolvedToolPolicy): boolean {
  return isPagingArgument(key, policy) || (Number.isInteger(value) && (value as number) >= 0 && NUMERIC_PAGING_ARGUMENTS.has(key.toLowerCase()));
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
      const texts = canonicalJsonWithAndWithout(value, policy.volatileArgs, (key) => isPagingMember(key, record[key], policy), true);
      if (texts === undefined) return { argsHash: callSignature(tool, args, policy, startTime), listingKey: listingKeyOf(tool, args, policy, startTime) };
      const prefix = `${tool}\u0000j:`;
      return { argsHash: hashPrefixed(prefix, texts[0]), listingKey: `listing:${hashPrefixed(prefix, texts[1])}` };
    }
  }
  return { argsHash: callSignature(tool, args, policy, startTime) };
}
