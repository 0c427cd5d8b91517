/**
 * Does this listing say it has no further page (issue 24 #2)? Stripe and Notion answer
 * `has_more: false`, Notion and Slack `next_cursor: null` (Slack: `response_metadata.next_cursor: ""`),
 * Google APIs leave out `nextPageToken`, Django REST Framework answers `next: null`. Only the
 * explicit markers count: a listing without them says nothing about its end.
 */
export function saysNoMorePages(value: unknown): boolean {
  if (typeof value !== 'object' || value === null || Array.isArray(value)) return false;
  const object = value as Record<string, unknown>;
  if (object.has_more === false || object.hasMore === false) return true;
  for (const key of END_MARKERS) {
    if (key in object && (object[key] === null || object[key] === '')) return true;
  }
  const metadata = object.response_metadata;
  return typeof metadata === 'object' && metadata !== null && (metadata as Record<string, unknown>).next_cursor === '';
}

const END_MARKERS = ['next_cursor', 'nextCursor', 'next_page_token', 'nextPageToken', 'next_page', 'nextPage', 'next'];
