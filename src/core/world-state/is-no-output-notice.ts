/**
 * What harnesses write in place of a command's output when it printed nothing: SWE-agent's
 * `next_step_no_output_template` (both wordings in its shipped configs,
 * SWE-agent/SWE-agent config/*.yaml) and the notice of transcript formats that wrap tool
 * results in `<system>` (kimi-cli's `ToolResult().to_text()`, and the same text unwrapped).
 * Exact texts only: a notice followed by anything (SWE-agent 0.x appends the open file and the
 * directory) is judged as the text it is.
 */
const NO_OUTPUT_NOTICES: ReadonlySet<string> = new Set([
  'Your command ran successfully and did not produce any output.',
  'Your last command ran successfully and did not produce any output.',
  'Tool ran without output or errors',
  '<system>Tool ran without output or errors</system>',
]);
const SHORTEST = Math.min(...[...NO_OUTPUT_NOTICES].map((notice) => notice.length));
const LONGEST = Math.max(...[...NO_OUTPUT_NOTICES].map((notice) => notice.length));

/**
 * Is this result a harness's notice that the command printed nothing? Then it is an empty
 * result, as the empty output it stands for: six greps that find nothing are six new facts,
 * not the same answer six times (document 000: zero results in a row is normal exploration).
 * Without it, an agent whose harness writes the notice was stopped on `stale_rounds` after
 * five silent commands, where the same run recorded with empty outputs was not.
 */
export function isNoOutputNotice(text: string): boolean {
  // Length first: every other result is turned away without trimming or a lookup.
  if (text.length < SHORTEST || text.length > LONGEST + 16) return false;
  return NO_OUTPUT_NOTICES.has(text.trim());
}
