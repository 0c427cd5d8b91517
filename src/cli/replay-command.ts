import { createWriteStream } from 'node:fs';
import type { Readable, Writable } from 'node:stream';
import { ReplayFileError, ReplayStrictAbort, type ReplayInputError } from '../replay/replay-input-error.js';
import { replayInputs } from '../replay/replay-inputs.js';
import { loadReplayPolicy, ReplayPolicyError } from '../replay/load-replay-policy.js';
import { createHtmlReportRenderer } from '../replay/render-html-report.js';
import { createJsonReportRenderer } from '../replay/render-json-report.js';
import { createTextReportRenderer } from '../replay/render-text-report.js';
import { ReportOutput, type ReplayReportRenderer } from '../replay/report-output.js';
import type { Profile } from '../core/types.js';

/** Exit codes of `loopguard replay` (also the README's table). */
export const EXIT_OK = 0;
export const EXIT_BAD_INPUT = 2;
export const EXIT_WOULD_STOP = 3;

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

/** Keeps the first problems for the HTML page; stderr gets every one of them as it happens. */
const MAX_PROBLEMS_KEPT = 200;

/**
 * Runs `loopguard replay` and returns its exit code: 0 done, 2 bad input (every bad line is
 * reported on stderr as `file:line: what is wrong` and skipped; --strict aborts at the
 * first), 3 with --fail-on-stop when any run would have been stopped. Bad input wins over a
 * stop: a CI job should not pass or fail on a half-read file without saying so.
 */
export async function runReplayCommand(options: ReplayCommandOptions, io: CliIo): Promise<number> {
  const writeError = (text: string): void => {
    io.stderr.write(`${text}\n`);
  };

  let engineOptions;
  try {
    engineOptions = await loadReplayPolicy(options.policy, options.profile);
  } catch (error) {
    if (error instanceof ReplayPolicyError) {
      writeError(`loopguard replay: ${error.message}`);
      return EXIT_BAD_INPUT;
    }
    throw error;
  }

  const toFile = options.out !== undefined && options.out !== '-';
  const stream: Writable = toFile ? createWriteStream(options.out as string) : io.stdout;
  if (toFile) {
    const opened = await new Promise<Error | undefined>((resolve) => {
      stream.once('open', () => resolve(undefined));
      stream.once('error', (error) => resolve(error));
    });
    if (opened) {
      writeError(`loopguard replay: cannot write ${options.out} (${(opened as NodeJS.ErrnoException).code ?? opened.message})`);
      return EXIT_BAD_INPUT;
    }
  }
  const output = new ReportOutput(stream);
  const renderer = createRenderer(options.format, output, !toFile && wantsColor(io));
  const problems: string[] = [];

  let exitCode = EXIT_OK;
  try {
    await renderer.begin();
    const summary = await replayInputs({
      files: options.files,
      engineOptions,
      strict: options.strict,
      stdin: io.stdin,
      onRun: (report) => renderer.run(report),
      onProblem: (problem: ReplayInputError | ReplayFileError) => {
        writeError(problem.message);
        if (problems.length < MAX_PROBLEMS_KEPT) problems.push(problem.message);
      },
    });
    await renderer.end(summary, problems);
    if (summary.problems > 0) exitCode = EXIT_BAD_INPUT;
    else if (options.failOnStop && summary.stoppedRuns > 0) exitCode = EXIT_WOULD_STOP;
  } catch (error) {
    if (error instanceof ReplayStrictAbort || error instanceof ReplayFileError) {
      writeError(error.message);
      exitCode = EXIT_BAD_INPUT;
    } else {
      throw error;
    }
  } finally {
    if (toFile) await new Promise<void>((resolve) => stream.end(resolve));
  }
  return exitCode;
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
