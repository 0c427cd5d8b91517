/**
 * Texts that tools and harnesses write in place of an empty result, exact:
 * - a command printed nothing: SWE-agent's `next_step_no_output_template` (both wordings in
 *   its shipped configs, SWE-agent/SWE-agent config/*.yaml), and the notice of transcript
 *   formats that wrap tool results in `<system>` (kimi-cli's `ToolResult().to_text()`, and the
 *   same text unwrapped);
 * - a search found nothing: the MCP filesystem server's `search_files` ("No matches found",
 *   @modelcontextprotocol/server-filesystem), and the same words from file-search tools
 *   ("No files found").
 * A notice followed by anything (SWE-agent 0.x appends the open file and the directory; a
 * search that names its pattern) is judged as the text it is.
 */
const EMPTY_RESULT_NOTICES: ReadonlySet<string> = new Set([
  'Your command ran successfully and did not produce any output.',
  'Your last command ran successfully and did not produce any output.',
  'Tool ran without output or errors',
  '<system>Tool ran without output or errors</system>',
  'No matches found',
  'No files found',
]);
const SHORTEST = Math.min(...[...EMPTY_RESULT_NOTICES].map((notice) => notice.length));
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
  return EMPTY_RESULT_NOTICES.has(text.trim());
}
