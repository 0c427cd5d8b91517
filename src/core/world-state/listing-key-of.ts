import { callSignature } from '../call-signature.js';
import type { ResolvedToolPolicy } from '../policy.js';

/**
 * Arguments that pick a page of a listing, not what is listed (issue 24 #2): Stripe's
 * `starting_after`, Notion's `start_cursor`, GitHub's `page`, Google's `pageToken`, SQL-ish
 * `offset`/`skip`, and the tool's own `cursorArg`.
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
    if (!PAGING_ARGUMENTS.has(key.toLowerCase()) && key !== policy.cursorArg) continue;
    rest ??= { ...record };
    delete rest[key];
  }
  return rest === undefined ? undefined : `listing:${callSignature(tool, rest, policy, startTime)}`;
}
