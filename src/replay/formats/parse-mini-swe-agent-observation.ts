import type { CallOutcome } from '../../core/types.js';
import { isPlainObject } from '../parse-transcript-line.js';

/**
 * Turns the observation text mini-swe-agent showed its model back into a call outcome:
 *
 * - `<returncode>N</returncode>\n<output>\n...</output>` (the default template) becomes
 *   `{"returncode": N, "output": "..."}`, so a silent success is `{"returncode": 0,
 *   "output": ""}`: structurally empty, as the engine should count it;
 * - the long-output variant (`<warning>`, `<output_head>`, `<elided_chars>`, `<output_tail>`)
 *   keeps head and tail around an `[N characters elided]` marker (the model never saw more);
 * - the JSON template of `mini.yaml` (`{"returncode": N, "output": "..."}`) is read the same way;
 * - an `<exception>` element (v2: the command raised, e.g. timed out) or the v1 timeout
 *   message becomes an error, typed `timeout` when it says so;
 * - anything else (the submission message, free text) is the result as it is.
 */
export function parseMiniSweAgentObservation(text: string): CallOutcome {
  if (V1_TIMEOUT.test(text)) return { error: { type: 'timeout', message: text } };
  const exception = EXCEPTION.exec(text)?.[1];
  const returncode = RETURNCODE.exec(text)?.[1];
  if (returncode !== undefined) {
    const result = { returncode: Number(returncode), output: taggedOutput(text) };
    if (exception !== undefined && exception.trim() !== '') return { error: exceptionError(exception) };
    return { result };
  }
  const trimmed = text.trim();
  if (trimmed.startsWith('{') && trimmed.endsWith('}')) {
    let value: unknown;
    try {
      value = JSON.parse(trimmed);
    } catch {
      value = undefined;
    }
    if (isPlainObject(value) && typeof value.returncode === 'number') {
      if (typeof value.exception_info === 'string' && value.exception_info.trim() !== '') {
        return { error: exceptionError(value.exception_info) };
      }
      const output =
        typeof value.output === 'string'
          ? value.output
          : elided(stringOr(value.output_head), Number(value.elided_chars), stringOr(value.output_tail));
      return { result: { returncode: value.returncode, output } };
    }
  }
  return { result: text };
}

const RETURNCODE = /<returncode>\s*(-?\d+)\s*<\/returncode>/;
const EXCEPTION = /^\s*<exception>([\s\S]*?)<\/exception>/;
const V1_TIMEOUT = /^\s*The last command <command>[\s\S]*?<\/command> timed out and has been killed/;
const ELIDED = /<elided_chars>\s*(\d+)\s*characters elided\s*<\/elided_chars>/;

/** Text inside `<output>` (the template puts a newline after the tag and none before the close). */
function taggedOutput(text: string): string {
  const whole = between(text, '<output>', '</output>');
  if (whole !== undefined) return whole;
  const head = between(text, '<output_head>', '</output_head>');
  const tail = between(text, '<output_tail>', '</output_tail>');
  if (head === undefined && tail === undefined) return '';
  return elided(trimOneNewline(head ?? ''), Number(ELIDED.exec(text)?.[1]), trimOneNewline(tail ?? ''));
}

/** From the first `open` to the last `close`: the output may itself contain the closing tag. */
function between(text: string, open: string, close: string): string | undefined {
  const start = text.indexOf(open);
  const end = text.lastIndexOf(close);
  if (start < 0 || end < start + open.length) return undefined;
  let inner = text.slice(start + open.length, end);
  if (inner.startsWith('\r\n')) inner = inner.slice(2);
  else if (inner.startsWith('\n')) inner = inner.slice(1);
  return inner;
}

function trimOneNewline(text: string): string {
  return text.endsWith('\n') ? text.slice(0, -1) : text;
}

function elided(head: string, chars: number, tail: string): string {
  return `${head}\n[${Number.isFinite(chars) ? chars : '?'} characters elided]\n${tail}`;
}

function stringOr(value: unknown): string {
  return typeof value === 'string' ? value : '';
}

function exceptionError(message: string): { type: string; message: string } {
  return { type: /timed?\s*out|timeout/i.test(message) ? 'timeout' : 'exception', message: message.trim() };
}
