import { randomBytes } from 'node:crypto';
import { createWriteStream } from 'node:fs';
import { chmod, rename, stat, unlink } from 'node:fs/promises';
import { finished } from 'node:stream/promises';
import { basename, dirname, join, resolve } from 'node:path';
import type { Readable, Writable } from 'node:stream';
import { ReplayFileError, ReplayStrictAbort, type ReplayInputError } from '../replay/replay-input-error.js';
import { replayInputs } from '../replay/replay-inputs.js';
import { createHtmlReportRenderer } from '../replay/render-html-report.js';
import { createJsonReportRenderer } from '../replay/render-json-report.js';
import { createTextReportRenderer } from '../replay/render-text-report.js';
import { escapeControl } from '../replay/escape-terminal.js';
import { ReportOutput, type ReplayReportRenderer } from '../replay/report-output.js';
import { ReportOutputError } from '../replay/report-output-error.js';
import { CliOptionError } from './cli-option-error.js';
import { loadCliPolicy } from './load-cli-policy.js';
import { reportCliOptionError } from './report-cli-option-error.js';
import { resolveReportTarget, type ReportTarget } from './resolve-report-target.js';
import type { Profile } from '../core/types.js';

/** Exit codes of `loopguard replay` (also the README's table). */
export const EXIT_OK = 0;
export const EXIT_BAD_INPUT = 2;
export const EXIT_WOULD_STOP = 3;
/** The report could not be written (a full disk, an I/O error): one line on stderr. */
export const EXIT_OUTPUT_FAILED = 1;

export type ReplayFormat = 'text' | 'json' | 'html';

export interface ReplayCommandOptions {
  files: string[];
  policy?: string;
  profile?: Profile;
  format: ReplayFormat;
  out?: string;
  strict: boolean;
  failOnStop: boolean;
}

/** Streams the CLI talks to; tests pass their own. */
export interface CliIo {
  stdin: Readable;
  stdout: Writable & { isTTY?: boolean };
  stderr: Writable;
  env: NodeJS.ProcessEnv;
}

/**
 * Problems printed to stderr (and listed in the HTML page); the rest are counted. A damaged
 * or hostile file can have millions of bad lines: a 3 KB .gz once printed 89 MB of errors.
 */
const MAX_PROBLEMS_PRINTED = 100;
/** One problem message is cut here; a bad line is named by file:line, not echoed whole. */
const MAX_PROBLEM_CHARS = 1000;

/**
 * Runs `loopguard replay` and returns its exit code: 0 done, 2 bad input (every bad line is
 * reported on stderr as `file:line: what is wrong` and skipped; --strict aborts at the
 * first), 3 with --fail-on-stop when any run would have been stopped. Bad input wins over a
 * stop: a CI job should not pass or fail on a half-read file without saying so.
 */
export async function runReplayCommand(options: ReplayCommandOptions, io: CliIo): Promise<number> {
  // Everything printed comes from input files somewhere (paths, run ids, span names):
  // control characters are made visible so they cannot drive the terminal.
  const writeError = (text: string): void => {
    const shown = text.length > MAX_PROBLEM_CHARS ? `${text.slice(0, MAX_PROBLEM_CHARS)}…` : text;
    io.stderr.write(`${escapeControl(shown)}\n`);
  };

  let engineOptions;
  try {
    engineOptions = await loadCliPolicy('replay', options.policy, options.profile);
  } catch (error) {
    if (error instanceof CliOptionError) return reportCliOptionError(error, io);
    throw error;
  }

  const target: ReportTarget = options.out === undefined ? { kind: 'stdout' } : await resolveReportTarget(options.out);
  if (target.kind === 'problem') {
    writeError(`loopguard replay: ${target.problem}`);
    return EXIT_BAD_INPUT;
  }
  const out = options.out as string;
  if (target.kind === 'replace' || target.kind === 'through') {
    const clash = await findInputAt(target.path, [...options.files, ...(options.policy !== undefined ? [options.policy] : [])]);
    if (clash !== undefined) {
      writeError(`loopguard replay: --out ${out} is also an input (${clash}); refusing to overwrite it`);
      return EXIT_BAD_INPUT;
    }
  }
  // An input that cannot be opened is found before anything is written: no half report on
  // stdout, and an existing --out is never replaced by a report missing a whole file.
  let unreadable = 0;
  for (const file of options.files) {
    const problem = await checkInput(file);
    if (problem === undefined) continue;
    unreadable++;
    writeError(problem);
  }
  if (unreadable > 0) return EXIT_BAD_INPUT;

  // A regular --out is written to a temporary file beside it and renamed over it only when
  // the replay completes, so an abort (--strict, a crash, Ctrl-C) leaves the previous report
  // intact. Anything else that exists (a FIFO, a device, a descriptor) is written in place:
  // renaming over it would replace the pipe or the device itself.
  const tempPath = target.kind === 'replace' ? temporaryPathFor(target.path) : undefined;
  let stream: Writable;
  let where: string;
  if (target.kind === 'stdout' || target.kind === 'stderr') {
    stream = target.kind === 'stdout' ? io.stdout : io.stderr;
    where = target.kind;
  } else {
    stream = createWriteStream(tempPath ?? target.path, { flags: tempPath !== undefined ? 'wx' : 'a' });
    where = out;
    const opened = await new Promise<Error | undefined>((resolve) => {
      stream.once('open', () => resolve(undefined));
      stream.once('error', (error) => resolve(error));
    });
    if (opened === undefined && tempPath !== undefined && target.kind === 'replace' && target.mode !== undefined) {
      // The report replaces the file, not its permissions (a 0640 report stays 0640).
      await chmod(tempPath, target.mode).catch(() => undefined);
    }
    if (opened) {
      writeError(`loopguard replay: cannot write ${out} (${(opened as NodeJS.ErrnoException).code ?? opened.message})`);
      return EXIT_BAD_INPUT;
    }
  }
  const output = new ReportOutput(stream, where);
  const renderer = createRenderer(options.format, output, target.kind === 'stdout' && wantsColor(io));
  const problems: string[] = [];
  let problemCount = 0;

  let exitCode = EXIT_OK;
  let completed = false;
  let outputFailure: ReportOutputError | undefined;
  try {
    await renderer.begin();
    const summary = await replayInputs({
      files: options.files,
      engineOptions,
      strict: options.strict,
      stdin: io.stdin,
      onRun: (report) => renderer.run(report),
      onProblem: (problem: ReplayInputError | ReplayFileError) => {
        problemCount++;
        if (problemCount > MAX_PROBLEMS_PRINTED) return;
        writeError(problem.message);
        problems.push(problem.message);
      },
    });
    if (problemCount > MAX_PROBLEMS_PRINTED) {
      writeError(`loopguard replay: ${problemCount - MAX_PROBLEMS_PRINTED} more input problems not shown (${problemCount} in total)`);
    }
    await renderer.end(summary, problems);
    if (stream === io.stdout || stream === io.stderr) await output.flushed();
    else await endStream(stream, where);
    completed = true;
    if (summary.problems > 0) exitCode = EXIT_BAD_INPUT;
    else if (options.failOnStop && summary.stoppedRuns > 0) exitCode = EXIT_WOULD_STOP;
  } catch (error) {
    if (error instanceof ReplayStrictAbort || error instanceof ReplayFileError) {
      writeError(error.message);
      exitCode = EXIT_BAD_INPUT;
    } else if (error instanceof ReportOutputError) {
      outputFailure = error;
      exitCode = EXIT_OUTPUT_FAILED;
    } else {
      throw error;
    }
  } finally {
    if (tempPath !== undefined) {
      if (!completed) stream.destroy();
      if (completed) {
        try {
          await rename(tempPath, (target as { path: string }).path);
        } catch (error) {
          writeError(`loopguard replay: cannot write ${out} (${(error as NodeJS.ErrnoException).code ?? (error as Error).message})`);
          exitCode = EXIT_BAD_INPUT;
        }
      }
      if (!completed || exitCode === EXIT_BAD_INPUT) await unlink(tempPath).catch(() => undefined);
    } else if (!completed && stream !== io.stdout && stream !== io.stderr) {
      stream.destroy();
    }
    // One line for a failed write, saying what became of --out.
    if (outputFailure !== undefined) {
      const fate = tempPath !== undefined ? `; ${out} was left as it was` : target.kind === 'through' ? `; what reached ${out} is incomplete` : '';
      writeError(`loopguard replay: ${outputFailure.message}${fate}`);
    } else if (!completed && tempPath !== undefined) {
      writeError(`loopguard replay: ${out} was left as it was`);
    }
  }
  return exitCode;
}

/** Ends a file stream and waits until the system has it all, or fails with a ReportOutputError. */
async function endStream(stream: Writable, where: string): Promise<void> {
  try {
    stream.end();
    await finished(stream);
  } catch (error) {
    throw new ReportOutputError(where, error);
  }
}

/** Which input (or the policy file) is the same file as `out`, by path or by inode. */
async function findInputAt(out: string, inputs: readonly string[]): Promise<string | undefined> {
  const outInfo = await stat(out).catch(() => undefined);
  for (const input of inputs) {
    if (input === '-') continue;
    if (resolve(input) === resolve(out)) return input;
    if (outInfo === undefined) continue;
    const info = await stat(input).catch(() => undefined);
    if (info !== undefined && info.dev === outInfo.dev && info.ino === outInfo.ino) return input;
  }
  return undefined;
}

/** Why an input cannot be replayed at all, as `file: problem`; undefined when it can be opened. */
async function checkInput(file: string): Promise<string | undefined> {
  if (file === '-') return undefined;
  try {
    const info = await stat(file);
    if (info.isDirectory()) return new ReplayFileError(file, 'is a directory, expected a file').message;
    return undefined;
  } catch (error) {
    return new ReplayFileError(file, `cannot read (${(error as NodeJS.ErrnoException).code ?? (error as Error).message})`).message;
  }
}

function temporaryPathFor(out: string): string {
  return join(dirname(out), `.${basename(out)}.${process.pid}-${randomBytes(4).toString('hex')}.tmp`);
}

function createRenderer(format: ReplayFormat, output: ReportOutput, color: boolean): ReplayReportRenderer {
  if (format === 'json') return createJsonReportRenderer(output);
  if (format === 'html') return createHtmlReportRenderer(output);
  return createTextReportRenderer(output, { color });
}

/** Colour only for a terminal; NO_COLOR turns it off, FORCE_COLOR on (the usual conventions). */
function wantsColor(io: CliIo): boolean {
  if (io.env.NO_COLOR !== undefined && io.env.NO_COLOR !== '') return false;
  if (io.env.FORCE_COLOR !== undefined && io.env.FORCE_COLOR !== '' && io.env.FORCE_COLOR !== '0') return true;
  return io.stdout.isTTY === true;
}
