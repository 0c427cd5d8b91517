import { detectInputFormat } from './formats/detect-input-format.js';
import { isPlainObject } from './parse-transcript-line.js';
import type { InputLineProblem } from './read-input-lines.js';

/**
 * Where each run of a JSONL transcript has its last line, found by a first pass over the
 * file. Interleaved runs are legal, so only a look at the whole file can tell when a run can
 * receive no more lines; with it, replay reports and frees each run right after its last
 * line, and memory follows the runs open at once instead of the runs in the file.
 *
 * Keys are 53-bit hashes of run ids (about 40 bytes per run instead of the id itself). Two
 * runs whose ids collide share the later last line, so a collision only keeps a run open
 * longer; it can never end a run early.
 */
export interface RunEndIndex {
  lastLineByRun: Map<number, number>;
  /** Lines in the file when it was indexed; a later line means the file grew meanwhile. */
  lines: number;
}

/**
 * Reads the lines of a file once and indexes its runs' last lines. Returns undefined when the
 * file is not a loopguard JSONL transcript (other formats are read whole anyway).
 */
export async function buildRunEndIndex(lines: AsyncIterable<string | InputLineProblem>): Promise<RunEndIndex | undefined> {
  const lastLineByRun = new Map<number, number>();
  let lineNumber = 0;
  let detected = false;
  for await (const item of lines) {
    if (typeof item !== 'string') {
      if (item.kind === 'too-long') break;
      lineNumber++;
      continue;
    }
    lineNumber++;
    let text = item;
    if (lineNumber === 1 && text.charCodeAt(0) === 0xfeff) text = text.slice(1);
    if (text.trim().length === 0) continue;
    if (!detected) {
      detected = true;
      if (detectInputFormat(text) !== 'jsonl') return undefined;
    }
    const run = runIdOfTranscriptLine(text);
    if (run !== undefined) lastLineByRun.set(runIdHash(run), lineNumber);
  }
  return { lastLineByRun, lines: lineNumber };
}

/** The run id of a transcript line, by the same rule parseTranscriptLine applies. */
export function runIdOfTranscriptLine(text: string): string | undefined {
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch {
    return undefined;
  }
  if (!isPlainObject(value)) return undefined;
  const run = value.run;
  return typeof run === 'string' && run.length > 0 ? run : undefined;
}

/** cyrb53: a fast 53-bit string hash (public domain, bryc). Not for security. */
export function runIdHash(text: string): number {
  let h1 = 0xdeadbeef;
  let h2 = 0x41c6ce57;
  for (let i = 0; i < text.length; i++) {
    const ch = text.charCodeAt(i);
    h1 = Math.imul(h1 ^ ch, 2654435761);
    h2 = Math.imul(h2 ^ ch, 1597334677);
  }
  h1 = Math.imul(h1 ^ (h1 >>> 16), 2246822507) ^ Math.imul(h2 ^ (h2 >>> 13), 3266489909);
  h2 = Math.imul(h2 ^ (h2 >>> 16), 2246822507) ^ Math.imul(h1 ^ (h1 >>> 13), 3266489909);
  return 4294967296 * (2097151 & h2) + (h1 >>> 0);
}
