/**
 * Codex CLI's unified-exec answer (`exec_command`, `write_stdin`) opens with a header:
 *
 *     Chunk ID: 6e6db0
 *     Wall time: 0.5012 seconds
 *     Process exited with code 0          (or: Process running with session ID 52328)
 *     Original token count: 9
 *     Output:
 *     <what the command printed>
 *
 * The chunk id is fresh and random on every answer (the wall time is a duration, which the
 * noise rules already drop), so left in, the same output twice was two new facts and no Codex
 * loop was ever caught. Only an answer that starts with this header is touched.
 */
const CHUNK_ID = 'Chunk ID: ';
const OUTPUT_MARK = '\nOutput:\n';
/** The header is five short lines: the output mark is looked for in this many characters only. */
const MAX_HEADER_LENGTH = 512;

/** The answer without its chunk id; 'empty' when the command exited 0 and printed nothing; the text itself otherwise. */
export function withoutExecHeaderNoise(text: string): string | 'empty' {
  const hasChunk = text.startsWith(CHUNK_ID);
  if (!hasChunk && !text.startsWith('Wall time: ')) return text;
  const outputAt = text.indexOf(OUTPUT_MARK);
  if (outputAt < 0 || outputAt > MAX_HEADER_LENGTH) return text;
  const bodyAt = outputAt + OUTPUT_MARK.length;
  if (bodyAt === text.length || text.slice(bodyAt).trim() === '') {
    if (text.lastIndexOf('\nProcess exited with code 0\n', outputAt) >= 0) return 'empty';
  }
  if (!hasChunk) return text;
  const lineEnd = text.indexOf('\n');
  return `${CHUNK_ID}#${text.slice(lineEnd)}`;
}
