/**
 * What coding harnesses wrap around a shell command's output, per call, that is no part of the
 * answer. Left in, the same output twice was two new facts, and no loop of that harness's
 * shell was ever caught. Two envelopes, each recognised by its exact labels:
 *
 * - Codex CLI's unified exec (`exec_command`, `write_stdin`) opens with a header whose
 *   `Chunk ID` is fresh and random on every answer (the wall time is a duration, which the
 *   noise rules already drop):
 *
 *       Chunk ID: 6e6db0
 *       Wall time: 0.5012 seconds
 *       Process exited with code 0          (or: Process running with session ID 52328)
 *       Original token count: 9
 *       Output:
 *       <what the command printed>
 *
 * - gemini-cli's `run_shell_command` ends with the process group the command ran in, a new
 *   one every call (`Output: …` / `Process Group PGID: 42546`; its longer form also names the
 *   `Command`, `Directory`, `Error`, `Exit Code`, `Signal` and `Background PIDs`).
 *
 * A command that succeeded and printed nothing is an empty result, as an empty output is: Codex's
 * `Process exited with code 0` with nothing after `Output:`, gemini-cli's `Output: (empty)` with
 * no error and no failing exit code. Two more harnesses wrap the output in labels with no ids,
 * read here only for that: mini-swe-agent's `<returncode>0</returncode>` with an empty `<output>`
 * (the same answer its replay reader turns into `{"returncode": 0, "output": ""}`), and OpenHands'
 * trailer with nothing before it (`[The command completed with exit code 0.]`, then the working
 * directory, the Python interpreter and `[Command finished with exit code 0]`). Left as text, the
 * same envelope around nothing was one answer seen again for every silent command: five different
 * greps that found nothing were a stale streak, where the bare empty output is five new facts
 * (document 000).
 */

/** The header is five short lines, gemini-cli's trailer two: marks are looked for this near the edge only. */
const MAX_ENVELOPE_LENGTH = 512;
const CODEX_OUTPUT = '\nOutput:\n';
/** mini-swe-agent's default observation template, exit code 0 and only whitespace in the output. */
const MINI_SWE_AGENT_SILENT = /^<returncode>\s*0\s*<\/returncode>\s*<output>\s*<\/output>\s*$/;
/** OpenHands' trailer (runtime/utils/bash.py, CmdOutputObservation) with nothing before it, exit code 0. */
const OPENHANDS_SILENT = /^\s*\[The command completed with exit code 0\.\](?:\n\[(?:Current working directory|Python interpreter): [^\n\]]*\])*(?:\n\[Command finished with exit code 0\])?\s*$/;
const GEMINI_PGID = '\nProcess Group PGID: ';

/** The answer without its per-call ids; 'empty' when the command succeeded and printed nothing; the text itself otherwise. */
export function withoutShellEnvelopeNoise(text: string): string | 'empty' {
  const first = text.charCodeAt(0);
  if (first === 60 /* < */) return MINI_SWE_AGENT_SILENT.test(text) ? 'empty' : text;
  if (first === 10 /* \n */ || first === 91 /* [ */) return OPENHANDS_SILENT.test(text) ? 'empty' : text;
  if (first === 67 /* C */ || first === 87 /* W */) {
    const codex = withoutCodexChunkId(text);
    if (codex !== text) return codex;
  }
  if (first !== 67 /* C */ && first !== 79 /* O */) return text;
  // The trailer is the last line: only the text's last 40 characters are searched.
  const pgidAt = text.indexOf(GEMINI_PGID, Math.max(0, text.length - 40));
  if (pgidAt < 0) return text;
  return withoutGeminiProcessIds(text, pgidAt);
}

function withoutCodexChunkId(text: string): string | 'empty' {
  const hasChunk = text.startsWith('Chunk ID: ');
  if (!hasChunk && !text.startsWith('Wall time: ')) return text;
  const outputAt = text.indexOf(CODEX_OUTPUT);
  if (outputAt < 0 || outputAt > MAX_ENVELOPE_LENGTH) return text;
  const bodyAt = outputAt + CODEX_OUTPUT.length;
  if (text.slice(bodyAt).trim() === '' && text.lastIndexOf('\nProcess exited with code 0\n', outputAt) >= 0) return 'empty';
  return hasChunk ? `Chunk ID: #${text.slice(text.indexOf('\n'))}` : text;
}

function withoutGeminiProcessIds(text: string, pgidAt: number): string | 'empty' {
  let head = text.slice(0, pgidAt);
  const backgroundAt = head.lastIndexOf('\nBackground PIDs: ');
  if (backgroundAt >= 0 && head.length - backgroundAt < MAX_ENVELOPE_LENGTH && head.indexOf('\n', backgroundAt + 1) < 0) {
    head = `${head.slice(0, backgroundAt)}\nBackground PIDs: #`;
  }
  const emptyOutput = head.startsWith('Output: (empty)') || head.includes('\nOutput: (empty)\n');
  const failed = /\nError: (?!\(none\))|\nExit Code: (?!0\n|\(none\))/.test(head);
  if (emptyOutput && !failed) return 'empty';
  return `${head}${GEMINI_PGID}#`;
}
