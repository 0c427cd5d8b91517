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
 * A command that printed nothing is an empty result, as an empty output is, whatever its exit
 * code: a grep that finds nothing exits 1 and prints nothing, and a bare harness records only the
 * empty output. Codex's `Process exited with code N` with nothing after `Output:`, gemini-cli's
 * `Output: (empty)` with no error. Codex's `shell` tool answers in two more shapes with no ids,
 * read here for that and for what its output says: the text `Exit code: N` / `Wall time: …` /
 * `Output:` and the JSON `{"output": …, "metadata": {"exit_code": N, "duration_seconds": …}}`
 * (codexShellOutput: read as its output, so a status in the output is read as one). Cline's and
 * Roo Code's `execute_command` answer without ids too: Cline's bare `Command executed.`, Roo Code's
 * `Command executed in terminal within working directory '…'. Exit code: N` with nothing after
 * `Output:` are a silent command's. Two more harnesses wrap the output in labels with no ids,
 * read here only for the empty answer:
 * mini-swe-agent's `<returncode>N</returncode>` with an empty `<output>` (the same answer its
 * replay reader turns into `{"returncode": N, "output": ""}`, isSilentCommandAnswer), and
 * OpenHands' trailer with nothing before it (`[The command completed with exit code N.]`, then
 * the working directory, the Python interpreter and `[Command finished with exit code N]`). Left
 * as text, the same envelope around nothing was one answer seen again for every silent command:
 * five different greps that found nothing were a stale streak and stopped the run, where the bare
 * empty output is five new facts (document 000).
 */

/** The header is five short lines, gemini-cli's trailer two: marks are looked for this near the edge only. */
const MAX_ENVELOPE_LENGTH = 512;
const CODEX_OUTPUT = '\nOutput:\n';
/** mini-swe-agent's default observation template, only whitespace in the output. */
const MINI_SWE_AGENT_SILENT = /^<returncode>\s*-?\d+\s*<\/returncode>\s*<output>\s*<\/output>\s*$/;
/** OpenHands' trailer (runtime/utils/bash.py, CmdOutputObservation) with nothing before it. */
const OPENHANDS_SILENT = /^\s*\[The command completed with exit code -?\d+\.\](?:\n\[(?:Current working directory|Python interpreter): [^\n\]]*\])*(?:\n\[Command finished with exit code -?\d+\])?\s*$/;
const GEMINI_PGID = '\nProcess Group PGID: ';

/** The answer without its per-call ids; 'empty' when the command printed nothing; the text itself otherwise. */
export function withoutShellEnvelopeNoise(text: string): string | 'empty' {
  const first = text.charCodeAt(0);
  if (first === 60 /* < */) return MINI_SWE_AGENT_SILENT.test(text) ? 'empty' : text;
  if (first === 10 /* \n */ || first === 91 /* [ */) return OPENHANDS_SILENT.test(text) ? 'empty' : text;
  if (first === 67 /* C */ && text.startsWith('Command executed')) return CLINE_SILENT.test(text) || ROO_SILENT.test(text) ? 'empty' : text;
  if (first === 67 /* C */ || first === 87 /* W */) {
    const codex = withoutCodexChunkId(text);
    if (codex !== text) return codex;
  }
  if (first === 69 /* E */) return CODEX_SILENT.test(text) ? 'empty' : text;
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
  if (text.slice(bodyAt).trim() === '' && text.lastIndexOf('\nProcess exited with code ', outputAt) >= 0) return 'empty';
  return hasChunk ? `Chunk ID: #${text.slice(text.indexOf('\n'))}` : text;
}

function withoutGeminiProcessIds(text: string, pgidAt: number): string | 'empty' {
  let head = text.slice(0, pgidAt);
  const backgroundAt = head.lastIndexOf('\nBackground PIDs: ');
  if (backgroundAt >= 0 && head.length - backgroundAt < MAX_ENVELOPE_LENGTH && head.indexOf('\n', backgroundAt + 1) < 0) {
    head = `${head.slice(0, backgroundAt)}\nBackground PIDs: #`;
  }
  const emptyOutput = head.startsWith('Output: (empty)') || head.includes('\nOutput: (empty)\n');
  // An error is gemini-cli's own (the command could not run), not the command's exit code.
  if (emptyOutput && !/\nError: (?!\(none\))/.test(head)) return 'empty';
  return `${head}${GEMINI_PGID}#`;
}

/** Cline's `execute_command` answer when the command printed nothing (its output follows `\nOutput:\n` otherwise). */
const CLINE_SILENT = /^Command executed\.\s*$/;
/** Roo Code's `execute_command` answer (its working directory, a failure's notice, the exit code) with nothing after `Output:`. */
const ROO_SILENT = /^Command executed in terminal\s+within working directory '[^'\n]*'\. (?:Command execution was not successful, inspect the cause and adjust as needed\.\n)?Exit code: -?\d+\nOutput:\s*$/;
/** Codex's `shell` answer as text (codex-rs tools/mod.rs, format_exec_output_for_model) with nothing after `Output:`. */
const CODEX_SILENT = /^Exit code: -?\d+\nWall time: [\d.]+ seconds\n(?:Total output lines: \d+\n)?Output:\s*$/;
/** Codex's `shell` answer as JSON (format_exec_output_for_model_structured): its one shape, read without parsing anything else. */
const CODEX_STRUCTURED = /^\{"output":"/;

/**
 * Codex's JSON answer, `{"output": …, "metadata": {"exit_code": N, "duration_seconds": …}}`: the
 * output as a bare harness records it when the command succeeded (so a status it prints is read
 * as one), with its exit code otherwise, never the duration; 'empty' when the output is blank;
 * undefined for any other text.
 */
export function codexShellOutput(text: string): string | 'empty' | undefined {
  if (text.charCodeAt(0) !== 123 /* { */ || !CODEX_STRUCTURED.test(text)) return undefined;
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch {
    return undefined;
  }
  const answer = codexAnswerOf(value);
  if (answer === undefined) return undefined;
  if (answer.output.trim() === '') return 'empty';
  return answer.exitCode === 0 ? answer.output : `Exit code: ${answer.exitCode}\nOutput:\n${answer.output}`;
}

function codexAnswerOf(value: unknown): { output: string; exitCode: number } | undefined {
  if (typeof value !== 'object' || value === null || Array.isArray(value)) return undefined;
  const record = value as Record<string, unknown>;
  const metadata = record.metadata as Record<string, unknown> | null | undefined;
  if (typeof record.output !== 'string' || typeof metadata !== 'object' || metadata === null || typeof metadata.exit_code !== 'number') return undefined;
  for (const key in record) if (key !== 'output' && key !== 'metadata' && key !== 'executed_command' && key !== 'hint') return undefined;
  return { output: record.output, exitCode: metadata.exit_code };
}

/**
 * A shell's answer as an object that holds an exit code and nothing printed: mini-swe-agent's
 * `{"returncode": N, "output": ""}` (its trajectory reader's and its JSON template's), Codex's
 * `{"output": "", "metadata": {"exit_code": N, …}}`. An empty result, as the same answer as text is.
 */
export function isSilentCommandAnswer(value: unknown): boolean {
  if (typeof value !== 'object' || value === null || Array.isArray(value)) return false;
  const record = value as Record<string, unknown>;
  if (typeof record.returncode === 'number' && typeof record.output === 'string') {
    for (const key in record) if (key !== 'returncode' && key !== 'output') return false;
    return record.output.trim() === '';
  }
  const codex = codexAnswerOf(value);
  return codex !== undefined && codex.output.trim() === '';
}

/** Claude Code's Bash failure when the command printed nothing: only its exit code. */
const CLAUDE_CODE_SILENT_EXIT = /^(?:Error: )?Exit code -?\d+\s*$/;

/**
 * Claude Code answers a command that exited non-zero as an error (`is_error: true`, and the
 * `PostToolUseFailure` hook's text): `Exit code 1` (or `Error: Exit code 1`), then what it
 * printed. With nothing printed it is the grep that found nothing, an empty answer as in any
 * other harness, not a failure: read as one, five greps for five names were five failures in a
 * row and stopped the run. The error's message (result-fingerprint.ts describeError).
 */
export function isSilentExitMessage(message: string): boolean {
  return message.length <= 32 && CLAUDE_CODE_SILENT_EXIT.test(message);
}
