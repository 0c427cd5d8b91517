import type { PrehashedToolCall } from '../types.js';

/** What a read's arguments say about the part of a file it asks for (issue 24 #6). */
export type ReadWindowRequest = NonNullable<PrehashedToolCall['readWindow']>;

/** "To the end of the file": clamped by what the output shows when the call finishes. */
export const END_OF_FILE = Number.MAX_SAFE_INTEGER;

/** The part of a resolved tool policy this module reads. */
interface WindowPolicy {
  readonly shellArg: string | undefined;
  readonly editor: boolean;
}

/**
 * File-reading tools by name, and how their arguments ask for lines. Extend here for another
 * agent's read tool (docs/concepts/noise.md): a name, the argument naming the file, and how a
 * range is asked for. Claude Code's `Read` takes a 1-based `offset` and a `limit` and numbers
 * its output; gemini-cli's `read_file` a 0-based `offset` and `limit`; other `read_file`s
 * (Cursor, OpenHands' MCP) start/end lines; the MCP filesystem server's `read_text_file` a
 * `head` count.
 */
const FILE_READING_TOOLS: ReadonlySet<string> = new Set(['Read', 'read_file', 'read_text_file']);
const FILE_ARGUMENTS = ['file_path', 'absolute_path', 'path', 'target_file', 'file', 'filename'];
const START_END_ARGUMENTS: ReadonlyArray<readonly [string, string]> = [
  ['start_line', 'end_line'],
  ['start_line_one_indexed', 'end_line_one_indexed_inclusive'],
  ['line_start', 'line_end'],
  ['startLine', 'endLine'],
  ['start', 'end'],
];

/**
 * The window a read asks for, from its arguments: str_replace_editor `view` (with or without
 * `view_range`), Claude Code `Read`, `read_file` / `read_text_file`, and in a shell tool
 * `cat`, `cat -n`, `nl -ba`, `head -n`, `tail -n +K`, `sed -n 'a,bp'` (alone or after
 * `cat`/`nl -ba` in a pipe, after a `cd dir &&`), and SWE-agent's `open` / `goto` /
 * `scroll_up` / `scroll_down`, whose file is named in their output. undefined for anything
 * else — a filtered view (`| grep`), a `tail -n 20` of unknown length, a line this cannot read
 * for sure: such a read is judged by its result alone, the "new fact" side.
 */
export function readWindowRequestOf(tool: string, policy: WindowPolicy, args: unknown): ReadWindowRequest | undefined {
  // A tool that is no shell, no editor and no file reader has no window whatever its arguments
  // say: answered before parsing them. Measured (bench/serve.ts ingestion, --cpu-prof): the
  // parse of every call's 1 KB argument text here was 1.8 % of the server's self time.
  if (policy.shellArg === undefined && !policy.editor && !FILE_READING_TOOLS.has(tool)) return undefined;
  const value = parsedArguments(args);
  if (policy.shellArg !== undefined) {
    const command = isRecord(value) ? value[policy.shellArg] ?? value.command ?? value.cmd : value;
    return typeof command === 'string' ? shellWindowRequest(command) : undefined;
  }
  if (!isRecord(value)) return undefined;
  if (policy.editor) {
    if (value.command !== 'view' || typeof value.path !== 'string') return undefined;
    const range = value.view_range;
    if (Array.isArray(range) && range.length === 2 && isLine(range[0]) && (isLine(range[1]) || range[1] === -1)) {
      return { resource: normalisedPath(value.path), numbered: true, ranges: [[range[0], range[1] === -1 ? END_OF_FILE : range[1]]] };
    }
    return { resource: normalisedPath(value.path), numbered: true };
  }
  if (!FILE_READING_TOOLS.has(tool)) return undefined;
  const file = FILE_ARGUMENTS.map((key) => value[key]).find((path): path is string => typeof path === 'string' && path !== '');
  if (file === undefined) return undefined;
  const resource = normalisedPath(file);
  if (tool === 'Read') {
    const offset = isLine(value.offset) ? value.offset : 1;
    const limit = isLine(value.limit) ? value.limit : undefined;
    return value.offset === undefined && limit === undefined
      ? { resource, numbered: true }
      : { resource, numbered: true, ranges: [[offset, limit === undefined ? END_OF_FILE : offset + limit - 1]] };
  }
  if (tool === 'read_text_file') {
    if (value.tail !== undefined) return undefined;
    return isLine(value.head) ? { resource, numbered: false, ranges: [[1, value.head]] } : { resource, numbered: false };
  }
  for (const [startKey, endKey] of START_END_ARGUMENTS) {
    const start = value[startKey];
    const end = value[endKey];
    if (start === undefined && end === undefined) continue;
    if ((start !== undefined && !isLine(start)) || (end !== undefined && !isLine(end) && end !== -1)) return undefined;
    return { resource, numbered: false, ranges: [[start ?? 1, end === undefined || end === -1 ? END_OF_FILE : end]] };
  }
  if (value.offset !== undefined || value.limit !== undefined) {
    // gemini-cli: `offset` counts lines from 0.
    const offset = value.offset === undefined ? 0 : value.offset;
    if (typeof offset !== 'number' || !Number.isInteger(offset) || offset < 0) return undefined;
    const limit = isLine(value.limit) ? value.limit : undefined;
    return { resource, numbered: false, ranges: [[offset + 1, limit === undefined ? END_OF_FILE : offset + limit]] };
  }
  return { resource, numbered: false };
}

/** SWE-agent's file viewer: the window it prints, under a `[File: … (N lines total)]` header. */
const SWE_AGENT_WINDOW_COMMAND = /^(?:open\s+\S.*|goto\s+\d+|scroll_up|scroll_down)$/;

function shellWindowRequest(command: string): ReadWindowRequest | undefined {
  let line = command.trim();
  if (line.includes('\n') || line.length > 1024) return undefined;
  if (SWE_AGENT_WINDOW_COMMAND.test(line)) return { numbered: true };
  let directory: string | undefined;
  const cd = /^cd\s+([^\s;&|<>'"`$]+)\s*&&\s*/.exec(line);
  if (cd !== null) {
    directory = cd[1];
    line = line.slice(cd[0].length);
  }
  // Plain words and pipes only: no redirection, no second command, no substitution or glob.
  const segments = pipeSegments(line);
  if (segments === undefined || segments.length > 2 || segments.some((segment) => segment.length === 0)) return undefined;
  const source = sourceRead(segments[0]!);
  if (source === undefined) return undefined;
  const resource = directory === undefined || source.file.startsWith('/') ? normalisedPath(source.file) : normalisedPath(`${directory}/${source.file}`);
  if (segments.length === 1) return source.ranges === undefined ? { resource, numbered: source.numbered } : { resource, numbered: source.numbered, ranges: source.ranges };
  // `cat -n f | sed -n '90,120p'`, `nl -ba f | head -n 50`: a window of the whole file.
  if (source.ranges !== undefined) return undefined;
  const ranges = filterRanges(segments[1]!);
  return ranges === undefined ? undefined : { resource, numbered: source.numbered, ranges };
}

/** Characters that make a line more than plain words and pipes. */
const SHELL_SPECIAL = new Set(';&<>()`$*?[]{}\\#~!');

/** Programs a window read starts with: anything else is no window, without tokenizing. */
const WINDOW_PROGRAMS = /^(?:cat|nl|sed|head|tail)\s/;

/**
 * The line as words split at pipes, or undefined for anything but plain words, quotes and
 * pipes (a redirection, `;`, `&&`, a substitution, a variable, a glob, a backslash). A
 * hand-rolled scan, not a shell parser: measured (readWindowRequestOf, 200k calls, tsx on the
 * loaded 2-core machine) shell-quote's parse cost 9–13 µs on every shell call; with this scan
 * and the program check above a non-read line (`python x.py`) costs ~60 ns and a window read
 * (`nl -ba f | sed -n '90,120p'`) ~1.4 µs. Nothing here needs more than words.
 */
function pipeSegments(line: string): string[][] | undefined {
  if (!WINDOW_PROGRAMS.test(line)) return undefined;
  const segments: string[][] = [[]];
  let word: string | undefined;
  for (let index = 0; index < line.length; index++) {
    const character = line[index]!;
    if (character === "'" || character === '"') {
      const close = line.indexOf(character, index + 1);
      if (close < 0) return undefined;
      const quoted = line.slice(index + 1, close);
      if (character === '"' && /[$`\\]/.test(quoted)) return undefined;
      word = (word ?? '') + quoted;
      index = close;
    } else if (character === ' ' || character === '\t') {
      if (word !== undefined) segments.at(-1)!.push(word);
      word = undefined;
    } else if (character === '|') {
      if (line[index + 1] === '|') return undefined;
      if (word !== undefined) segments.at(-1)!.push(word);
      word = undefined;
      segments.push([]);
    } else if (SHELL_SPECIAL.has(character)) {
      return undefined;
    } else {
      word = (word ?? '') + character;
    }
  }
  if (word !== undefined) segments.at(-1)!.push(word);
  return segments;
}

/** The first command of the line: a file read whole, or a range of it. */
function sourceRead(words: readonly string[]): { file: string; numbered: boolean; ranges?: Array<[number, number]> } | undefined {
  const [program, ...rest] = words;
  if (program === 'cat' && rest.length === 1 && !rest[0]!.startsWith('-')) return { file: rest[0]!, numbered: false };
  if (program === 'cat' && rest.length === 2 && rest[0] === '-n') return { file: rest[1]!, numbered: true };
  // `nl` numbers non-empty lines only, unless `-ba`: then its numbers are line numbers.
  if (program === 'nl' && rest.length === 2 && rest[0] === '-ba') return { file: rest[1]!, numbered: true };
  if (program === 'nl' && rest.length === 3 && rest[0] === '-b' && rest[1] === 'a') return { file: rest[2]!, numbered: true };
  const file = rest.at(-1);
  if (file === undefined || file.startsWith('-')) return undefined;
  const ranges = filterRanges([program!, ...rest.slice(0, -1)]);
  return ranges === undefined ? undefined : { file, numbered: false, ranges };
}

/** `sed -n 'a,bp;c,dp'`, `head -n N`, `head -N`, `head`, `tail -n +K` (without the file). */
function filterRanges(words: readonly string[]): Array<[number, number]> | undefined {
  const [program, ...rest] = words;
  if (program === 'sed' && rest.length === 2 && rest[0] === '-n') return sedRanges(rest[1]!);
  if (program === 'head') {
    if (rest.length === 0) return [[1, 10]];
    const count = rest.length === 2 && rest[0] === '-n' ? rest[1] : rest.length === 1 && /^-\d+$/.test(rest[0]!) ? rest[0]!.slice(1) : undefined;
    return count !== undefined && /^\d+$/.test(count) && Number(count) > 0 ? [[1, Number(count)]] : undefined;
  }
  if (program === 'tail' && rest.length === 2 && rest[0] === '-n' && /^\+\d+$/.test(rest[1]!)) return [[Math.max(1, Number(rest[1]!.slice(1))), END_OF_FILE]];
  return undefined;
}

function sedRanges(script: string): Array<[number, number]> | undefined {
  const ranges: Array<[number, number]> = [];
  for (const part of script.split(';')) {
    const match = /^\s*(\d+)(?:,(\d+|\$))?p\s*$/.exec(part);
    if (match === null) return undefined;
    const from = Number(match[1]);
    const to = match[2] === undefined ? from : match[2] === '$' ? END_OF_FILE : Number(match[2]);
    if (from < 1 || to < from) return undefined;
    ranges.push([from, to]);
  }
  return ranges.length > 0 ? ranges : undefined;
}

/** `./src/a.py` and `src/a.py` are one file; `//` collapses. Relative stays relative. */
function normalisedPath(path: string): string {
  return path.replace(/\/{2,}/g, '/').replace(/(^|\/)(?:\.\/)+/g, '$1');
}

function parsedArguments(args: unknown): unknown {
  if (typeof args !== 'string') return args;
  const trimmed = args.trimStart();
  if (!trimmed.startsWith('{') || args.length > 64 * 1024) return args;
  try {
    return JSON.parse(args) as unknown;
  } catch {
    return args;
  }
}

function isLine(value: unknown): value is number {
  return typeof value === 'number' && Number.isInteger(value) && value >= 1;
}

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}
