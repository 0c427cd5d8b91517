/**
 * Texts that tools and harnesses write in place of an empty result, exact:
 * - a command printed nothing: SWE-agent's `next_step_no_output_template` (both wordings in
 *   its shipped configs, SWE-agent/SWE-agent config/*.yaml), and the notice of transcript
 *   formats that wrap tool results in `<system>` (kimi-cli's `ToolResult().to_text()`, and the
 *   same text unwrapped);
 * - a search found nothing, in a search tool's own "No <things> found." (FOUND_NOTHING below:
 *   a pattern, not a list): the MCP filesystem server's `search_files` ("No matches found",
 *   @modelcontextprotocol/server-filesystem), file-search tools ("No files found"), WorkBench's
 *   calendar ("No events found.").
 * A notice followed by anything (SWE-agent 0.x appends the open file and the directory; a
 * search that names its pattern) is judged as the text it is.
 */
const EMPTY_RESULT_NOTICES: ReadonlySet<string> = new Set([
  'Your command ran successfully and did not produce any output.',
  'Your last command ran successfully and did not produce any output.',
  'Tool ran without output or errors',
  '<system>Tool ran without output or errors</system>',
]);
// 'No rows found' is the shortest answer FOUND_NOTHING (below) takes.
const SHORTEST = Math.min(...[...EMPTY_RESULT_NOTICES].map((notice) => notice.length), 'No rows found'.length);
const LONGEST = Math.max(...[...EMPTY_RESULT_NOTICES].map((notice) => notice.length));

/**
 * Is this result a notice standing for an empty result? Then it is one: six greps that find
 * nothing, or six file searches answered "No matches found", are six new facts, not the same
 * answer six times (document 000: zero results in a row is normal exploration). Without it, an
 * agent whose harness or tool writes the notice was stopped on `stale_rounds` after five such
 * calls, where the same run recorded with empty outputs was not.
 */
export function isEmptyResultNotice(text: string): boolean {
  // Length first: every other result is turned away without trimming or a lookup.
  if (text.length < SHORTEST || text.length > LONGEST + 16) return false;
  const trimmed = text.trim();
  return EMPTY_RESULT_NOTICES.has(trimmed) || (trimmed.length <= MAX_FOUND_NOTHING_LENGTH && (FOUND_NOTHING.test(trimmed) || PAGE_PAST_THE_END.test(trimmed)));
}

/**
 * A search tool's own words for zero results, as a whole answer: "No events found.", "No emails
 * found." (WorkBench's calendar and email sandboxes), "No results found", "No matching records
 * found". Measured on every WorkBench run (eval/WIDE.md): an agent looking for the next meeting
 * day by day, each day answered "No events found.", was stopped on `stale_rounds` at its fifth
 * day — document 000's "nothing turns up for another period either", cut off. "Email not found."
 * is not one: a lookup by id that names nothing narrows down (result-fingerprint.ts).
 */
const FOUND_NOTHING = /^no (?:[a-z]+ ){0,2}(?:results?|matches|items|records|entries|events|emails|messages|tasks|customers|files|documents|rows|hits|users|orders)(?: were)? (?:found|matched|returned)(?: (?:for|on) page \d+)?\.?$/i;
/**
 * A page asked for past a listing's end, in the words of the tool that echoes the page it was
 * asked for: "No results found for page 7." (above), "Page 7 is out of range (3 pages).",
 * "Page 7 does not exist." (anything after it names the pages). Read as text, each page's
 * number made each answer new, and an agent paging on past the end was never stopped; as an
 * empty page, the listing has ended and the pages after it are stale (run-guard.ts,
 * endedListings), as after `[]` or `has_more: false`.
 */
const PAGE_PAST_THE_END = /^(?:the )?(?:requested )?page (?:number )?\d+ (?:is )?(?:out of range|beyond the last page|past the (?:end|last page)|does not exist|not found)(?:[.!]?|[.,;:]? *\(?[^\n]{0,24}\bpages?\b[^\n]{0,16})$/i;
const MAX_FOUND_NOTHING_LENGTH = 64;
