import type { Readable } from 'node:stream';

/**
 * Longest input line replay reads, in bytes (64 MiB). A line is held whole while it is
 * parsed, so without a cap one newline-less line (a gzip bomb, a binary file) grows until
 * the process dies. A longer line is bad input and ends the reading of its file.
 */
export const DEFAULT_MAX_LINE_BYTES = 64 * 1024 * 1024;

/** A line that could not be turned into text. */
export interface InputLineProblem {
  kind: 'too-long' | 'invalid-utf8';
  line: number;
}

/**
 * Splits a byte stream into lines (`\n`, with `\r\n` accepted) and decodes each as strict
 * UTF-8. Yields the text of each line, or a problem for a line that is not valid UTF-8
 * (silently replacing bytes would make two different arguments the same call) or that is
 * longer than `maxLineBytes` (reading stops there: the rest of the stream is not lines).
 * Read errors (corrupt gzip, I/O) are not thrown but handed to `onReadError`, and end the
 * lines, so the runs read so far can still be reported.
 */
export async function* splitInputLines(
  input: AsyncIterable<Buffer | string>,
  maxLineBytes: number,
  onReadError: (error: Error) => void,
): AsyncGenerator<string | InputLineProblem> {
  const decoder = new TextDecoder('utf-8', { fatal: true, ignoreBOM: true });
  let parts: Buffer[] = [];
  let partsLength = 0;
  let lineNumber = 0;
  const decode = (bytes: Uint8Array): string | InputLineProblem => {
    lineNumber++;
    let end = bytes.length;
    if (end > 0 && bytes[end - 1] === 0x0d) end--;
    try {
      return decoder.decode(end === bytes.length ? bytes : bytes.subarray(0, end));
    } catch {
      return { kind: 'invalid-utf8', line: lineNumber };
    }
  };
  try {
    for await (const raw of input) {
      const chunk = typeof raw === 'string' ? Buffer.from(raw, 'utf8') : raw;
      let start = 0;
      while (start < chunk.length) {
        const newline = chunk.indexOf(0x0a, start);
        const end = newline === -1 ? chunk.length : newline;
        if (partsLength + (end - start) > maxLineBytes) {
          yield { kind: 'too-long', line: lineNumber + 1 };
          return;
        }
        if (newline === -1) {
          parts.push(chunk.subarray(start));
          partsLength += chunk.length - start;
          break;
        }
        if (partsLength === 0) {
          yield decode(chunk.subarray(start, end));
        } else {
          parts.push(chunk.subarray(start, end));
          const whole = Buffer.concat(parts, partsLength + (end - start));
          parts = [];
          partsLength = 0;
          yield decode(whole);
        }
        start = newline + 1;
      }
    }
  } catch (error) {
    onReadError(error instanceof Error ? error : new Error(String(error)));
    return;
  }
  if (partsLength > 0) yield decode(Buffer.concat(parts, partsLength));
}
