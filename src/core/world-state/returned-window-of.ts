import type { PrehashedOutcome } from '../types.js';
import { END_OF_FILE, type ReadWindowRequest } from './read-window-request-of.js';

/** The lines of a file a read returned (issue 24 #6). */
export type ReadWindow = NonNullable<PrehashedOutcome['window']>;

/** SWE-agent's viewer header: `[File: /repo/src/app.py (412 lines total)]`. */
const SWE_AGENT_HEADER = /^\[File: (.+) \((\d+) lines total\)\]\s*$/m;
/** `cat -n`, `nl -ba`, str_replace_editor `view` (tab), Claude Code Read (tab or →), SWE-agent (`12:`). */
const NUMBERED_LINE = /^\s*(\d+)(?:\t|→|:)/;
/** The output was cut: the lines between are unknown, so an unnumbered output says nothing sure. */
const CUT_MARKER = /<response clipped>|characters elided|<elided_chars>|\[File content truncated|\[\.\.\. \d+ lines? (?:omitted|truncated)/;
/** Results past this are not scanned for line numbers (bounded time on a huge output). */
const MAX_SCANNED_LENGTH = 2 * 1024 * 1024;

/**
 * The window a read returned, from what its arguments asked for and what its output shows:
 * numbered output (`cat -n`, `nl -ba`, `view`, Read, SWE-agent's window) is read for the line
 * numbers it actually printed — runs of consecutive numbers, so a clipped view counts only
 * the lines shown; unnumbered output covers the lines asked for, clamped to the lines it
 * has. undefined when unsure (empty output, a cut unnumbered output, no file named): the
 * read is then judged by its result alone.
 */
export function returnedWindowOf(request: ReadWindowRequest, result: unknown): ReadWindow | undefined {
  const text = outputText(result);
  if (text === undefined || text.trim() === '' || text.length > MAX_SCANNED_LENGTH) return undefined;
  if (request.numbered) {
    const header = SWE_AGENT_HEADER.exec(text);
    const resource = header?.[1] ?? request.resource;
    if (resource === undefined) return undefined;
    const lines = header === null ? text : text.slice(header.index + header[0].length);
    const ranges = numberedRuns(lines);
    return ranges === undefined ? undefined : { resource, numbered: true, ranges };
  }
  if (request.resource === undefined || CUT_MARKER.test(text)) return undefined;
  const count = lineCount(text);
  const asked = request.ranges;
  // The whole file, or a window that came back shorter than it asked: the file ends there.
  if (asked === undefined) return { resource: request.resource, numbered: false, ranges: [[1, count]], lastLine: count };
  if (asked.length > 1) return { resource: request.resource, numbered: false, ranges: asked.map(([from, to]) => [from, to]) };
  const [from, to] = asked[0]!;
  const last = from + count - 1;
  return last < to ? { resource: request.resource, numbered: false, ranges: [[from, last]], lastLine: last } : { resource: request.resource, numbered: false, ranges: [[from, to]] };
}

/** Runs of consecutive line numbers at the start of lines; undefined when there are none. */
function numberedRuns(text: string): Array<[number, number]> | undefined {
  const ranges: Array<[number, number]> = [];
  let start = 0;
  while (start <= text.length) {
    let end = text.indexOf('\n', start);
    if (end < 0) end = text.length;
    const match = NUMBERED_LINE.exec(text.slice(start, Math.min(end, start + 24)));
    if (match !== null) {
      const number = Number(match[1]);
      const last = ranges.at(-1);
      if (last !== undefined && number === last[1] + 1) last[1] = number;
      else if (number >= 1) ranges.push([number, number]);
    }
    start = end + 1;
  }
  return ranges.length > 0 ? ranges : undefined;
}

function lineCount(text: string): number {
  let count = 1;
  const body = text.endsWith('\n') ? text.slice(0, -1) : text;
  for (let index = body.indexOf('\n'); index >= 0; index = body.indexOf('\n', index + 1)) count += 1;
  return count;
}

/** The text a read tool returned: a string, a shell's `{output}` / `{stdout}`, or MCP text content. */
function outputText(result: unknown): string | undefined {
  if (typeof result === 'string') return result;
  if (typeof result !== 'object' || result === null) return undefined;
  const record = result as Record<string, unknown>;
  if (typeof record.returncode === 'number' && record.returncode !== 0) return undefined;
  if (typeof record.output === 'string') return record.output;
  if (typeof record.stdout === 'string') return record.stdout;
  if (Array.isArray(record.content)) {
    const texts = record.content.filter((part): part is { type: 'text'; text: string } => typeof part === 'object' && part !== null && (part as { type?: unknown }).type === 'text' && typeof (part as { text?: unknown }).text === 'string');
    return texts.length === 1 ? texts[0]!.text : undefined;
  }
  return undefined;
}
