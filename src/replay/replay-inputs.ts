import { createReadStream } from 'node:fs';
import { stat } from 'node:fs/promises';
import { createInterface } from 'node:readline';
import { createGunzip } from 'node:zlib';
import type { Readable } from 'node:stream';
import type { LoopGuardOptions, Profile } from '../core/types.js';
import { OtlpSpanCollector } from './collect-otlp-spans.js';
import { otlpSpansToReplayRuns } from './otlp-spans-to-replay-calls.js';
import { parseTranscriptLine } from './parse-transcript-line.js';
import type { ReplayCall } from './replay-call.js';
import { detectDocumentFormat } from './formats/detect-document-format.js';
import { detectInputFormat, READABLE_FORMATS, type ReplayInputFormat } from './formats/detect-input-format.js';
import { readClaudeCodeSession, type ClaudeCodeSessionReader } from './formats/read-claude-code-session.js';
import { readMiniSweAgentTrajectory } from './formats/read-mini-swe-agent-trajectory.js';
import { readSweAgentTrajectory } from './formats/read-swe-agent-trajectory.js';
import { trajectoryRunId } from './formats/trajectory-run-id.js';
import type { TrajectoryCalls, TrajectorySource } from './formats/trajectory-source.js';
import { ReplayFileError, ReplayInputError, ReplayStrictAbort } from './replay-input-error.js';
import { ReplaySession } from './replay-session.js';
import type { RunReport } from './run-report.js';

export { detectInputFormat, type ReplayInputFormat };

/** A pretty-printed request is read whole; past this size, write one request per line. */
const MAX_DOCUMENT_CHARS = 256 * 1024 * 1024;

export interface ReplayInputsOptions {
  /** Paths; `-` reads `stdin`. */
  files: readonly string[];
  engineOptions: LoopGuardOptions;
  /** Abort at the first bad line instead of reporting it and going on. */
  strict?: boolean;
  stdin?: Readable;
  /** Called as each run ends (JSONL: when its file ends; OTLP: as runs are rebuilt). */
  onRun(report: RunReport): Promise<void> | void;
  /** Called for each bad line (not under strict, which throws instead). */
  onProblem(problem: ReplayInputError | ReplayFileError): void;
  /**
   * Called with every call read from the inputs, in order, before the guard sees it (the
   * evaluation pairs loopguard's decisions with what the run recorded). Default: none.
   */
  onCall?(call: ReplayCall): void;
}

/** Totals over every run of every input, for the summary line and the exit code. */
export interface ReplaySummary {
  profile: Profile;
  files: number;
  runs: number;
  stoppedRuns: number;
  runsWithRefusals: number;
  calls: number;
  executed: number;
  refused: number;
  skipped: number;
  savedCalls: number;
  /** Present when at least one run recorded token usage. */
  savedTokens?: number;
  /** Bad lines and unreadable files. */
  problems: number;
  stopReasons: Record<string, number>;
}

/**
 * Replays every input in turn. Each file gets its own guard, so a run id that appears in two
 * files is two runs. The format is detected per file from its content, not its name (see
 * detectInputFormat): loopguard JSONL, OTLP JSON (one request per line or one pretty-printed
 * request), a SWE-agent `.traj`, a mini-swe-agent `.traj.json` or a Claude Code session log.
 */
export async function replayInputs(options: ReplayInputsOptions): Promise<ReplaySummary> {
  let profile: Profile | undefined;
  const summary: Omit<ReplaySummary, 'profile'> = {
    files: 0,
    runs: 0,
    stoppedRuns: 0,
    runsWithRefusals: 0,
    calls: 0,
    executed: 0,
    refused: 0,
    skipped: 0,
    savedCalls: 0,
    problems: 0,
    stopReasons: {},
  };
  const reportProblem = (problem: ReplayInputError | ReplayFileError): void => {
    summary.problems++;
    if (options.strict && problem instanceof ReplayInputError) throw new ReplayStrictAbort(problem);
    if (options.strict && problem instanceof ReplayFileError) throw problem;
    options.onProblem(problem);
  };
  const emitRun = async (report: RunReport): Promise<void> => {
    summary.runs++;
    summary.calls += report.calls;
    summary.executed += report.executed;
    summary.refused += report.refused;
    summary.skipped += report.skipped;
    summary.savedCalls += report.saved.calls;
    if (report.saved.tokens !== undefined) summary.savedTokens = (summary.savedTokens ?? 0) + report.saved.tokens;
    if (report.refused > 0) summary.runsWithRefusals++;
    if (report.stop) {
      summary.stoppedRuns++;
      summary.stopReasons[report.stop.reason] = (summary.stopReasons[report.stop.reason] ?? 0) + 1;
    }
    await options.onRun(report);
  };

  for (const file of options.files) {
    let lines: InputLines;
    try {
      lines = await openInputLines(file, options.stdin);
    } catch (error) {
      if (options.strict) throw error;
      reportProblem(error as ReplayFileError);
      continue;
    }
    summary.files++;
    const session = new ReplaySession(file === '-' ? '<stdin>' : file, options.engineOptions);
    profile ??= session.profile;
    const linesRead = await replayOneInput(lines.lines, session, reportProblem, emitRun, options.onCall);
    const readError = lines.readError();
    if (readError) {
      const problem = new ReplayFileError(file, `read failed after ${linesRead} lines (${(readError as NodeJS.ErrnoException).code ?? readError.message}); the runs above are from the part that was read`);
      if (options.strict) throw problem;
      reportProblem(problem);
    }
  }
  return { profile: profile ?? options.engineOptions.profile ?? 'researcher', ...summary };
}

async function replayOneInput(
  lines: AsyncIterable<string>,
  session: ReplaySession,
  reportProblem: (problem: ReplayInputError) => void,
  emitRun: (report: RunReport) => Promise<void>,
  onCall: ((call: ReplayCall) => void) | undefined,
): Promise<number> {
  const file = session.file;
  let format: ReplayInputFormat | undefined;
  let collector: OtlpSpanCollector | undefined;
  let claudeCode: ClaudeCodeSessionReader | undefined;
  let oneLineDocuments = 0;
  let lineNumber = 0;
  const documentLines: string[] = [];
  let documentChars = 0;
  const feedOne = (call: ReplayCall): void => {
    onCall?.(call);
    const problem = session.feed(call);
    if (problem) reportProblem(problem);
  };
  const feed = (calls: readonly ReplayCall[]): void => {
    for (const call of calls) feedOne(call);
  };
  for await (let text of lines) {
    lineNumber++;
    // Editors on Windows save UTF-8 with a byte order mark; it is not part of the JSON.
    if (lineNumber === 1 && text.charCodeAt(0) === 0xfeff) text = text.slice(1);
    if (format === 'otlp-document') {
      documentChars += text.length + 1;
      if (documentChars > MAX_DOCUMENT_CHARS) {
        reportProblem(new ReplayInputError({ file, line: lineNumber, problem: `a multi-line JSON document over ${MAX_DOCUMENT_CHARS / 1024 / 1024} MiB; write one OTLP request per line instead` }));
        documentLines.length = 0;
        break;
      }
      documentLines.push(text);
      continue;
    }
    if (text.trim().length === 0) continue;
    format ??= detectInputFormat(text);
    if (format === 'otlp-document') {
      documentLines.push(text);
      continue;
    }
    if (format === 'unknown') {
      reportProblem(
        new ReplayInputError({
          file,
          line: lineNumber,
          problem: `not a format replay reads (the file is skipped); expected one of: ${READABLE_FORMATS}`,
        }),
      );
      break;
    }
    try {
      if (format === 'otlp') {
        collector ??= new OtlpSpanCollector();
        for (const problem of collector.addRequestLine(text, file, lineNumber)) reportProblem(problem);
      } else if (format === 'claude-code') {
        claudeCode ??= readClaudeCodeSession(file);
        feed(claudeCode.line(text, lineNumber));
      } else if (format === 'swe-agent' || format === 'mini-swe-agent') {
        // A trajectory written on one line; each further line is one more trajectory.
        oneLineDocuments++;
        const run = trajectoryRunId(file) + (oneLineDocuments > 1 ? `#${oneLineDocuments}` : '');
        feedTrajectory(parseJsonLine(text, file, lineNumber), { file, line: lineNumber, run }, reportProblem, feed);
      } else {
        feedOne(parseTranscriptLine(text, file, lineNumber));
      }
    } catch (error) {
      if (error instanceof ReplayInputError) reportProblem(error);
      else throw error;
    }
  }
  if (claudeCode) feed(claudeCode.end());

  if (format === 'otlp-document' && documentLines.length > 0) {
    // The whole document is one request (or one trajectory); its problems point at the line it starts on.
    const firstLine = lineNumber - documentLines.length + 1;
    const documentText = documentLines.join('\n');
    documentLines.length = 0;
    let document: unknown;
    let parsed = true;
    try {
      document = JSON.parse(documentText);
    } catch {
      parsed = false;
    }
    const kind = parsed ? detectDocumentFormat(document) : undefined;
    if (kind === 'swe-agent' || kind === 'mini-swe-agent') {
      try {
        feedTrajectory(document, { file, line: firstLine, run: trajectoryRunId(file) }, reportProblem, feed);
      } catch (error) {
        if (!(error instanceof ReplayInputError)) throw error;
        reportProblem(error);
      }
    } else if (kind === 'otlp' || !parsed) {
      collector = new OtlpSpanCollector();
      try {
        for (const problem of collector.addRequestLine(documentText, file, firstLine)) reportProblem(problem);
      } catch (error) {
        if (!(error instanceof ReplayInputError)) throw error;
        reportProblem(new ReplayInputError({ file, line: firstLine, problem: `${error.problem}; ${MULTI_LINE_DOCUMENT}` }));
      }
    } else {
      reportProblem(
        new ReplayInputError({
          file,
          line: firstLine,
          problem: `expected an OTLP ExportTraceServiceRequest ("resourceSpans"), a SWE-agent trajectory ("trajectory") or a mini-swe-agent trajectory ("messages" and "info") in this multi-line JSON document (JSONL transcripts need one call per line); expected one of: ${READABLE_FORMATS}`,
        }),
      );
    }
  }

  if (collector) {
    const { runs, problems } = otlpSpansToReplayRuns(collector.spans, file);
    for (const problem of problems) reportProblem(problem);
    collector.spans.length = 0;
    for (const run of runs) {
      for (const call of run.calls) feedOne(call);
      const report = session.finishRun(run.run);
      if (report) await emitRun(report);
    }
  }
  for (const report of session.finishAllRuns()) await emitRun(report);
  return lineNumber;
}

const MULTI_LINE_DOCUMENT =
  'a JSON document spread over several lines must be one OTLP request, SWE-agent .traj or mini-swe-agent .traj.json (JSONL transcripts need one call per line)';

/** Feeds one SWE-agent or mini-swe-agent trajectory; throws when the document is neither. */
function feedTrajectory(
  document: unknown,
  source: TrajectorySource,
  reportProblem: (problem: ReplayInputError) => void,
  feed: (calls: readonly ReplayCall[]) => void,
): void {
  const kind = detectDocumentFormat(document);
  let read: TrajectoryCalls;
  if (kind === 'swe-agent') read = readSweAgentTrajectory(document, source);
  else if (kind === 'mini-swe-agent') read = readMiniSweAgentTrajectory(document, source);
  else {
    throw new ReplayInputError({
      file: source.file,
      line: source.line,
      problem: `expected another trajectory like the first line ("trajectory" for SWE-agent, "messages" and "info" for mini-swe-agent); replay reads: ${READABLE_FORMATS}`,
    });
  }
  for (const problem of read.problems) reportProblem(problem);
  feed(read.calls);
}

function parseJsonLine(text: string, file: string, line: number): unknown {
  try {
    return JSON.parse(text);
  } catch (error) {
    throw new ReplayInputError({ file, line, problem: `not valid JSON (${(error as Error).message})` });
  }
}

/** Lines of one input, plus the read error (corrupt gzip, I/O) that cut it short, if any. */
interface InputLines {
  lines: AsyncIterable<string>;
  readError(): Error | undefined;
}

async function openInputLines(file: string, stdin: Readable | undefined): Promise<InputLines> {
  let input: Readable;
  if (file === '-') {
    input = stdin ?? process.stdin;
  } else {
    try {
      const info = await stat(file);
      if (info.isDirectory()) throw new ReplayFileError(file, `is a directory, expected a file in one of: ${READABLE_FORMATS}`);
    } catch (error) {
      if (error instanceof ReplayFileError) throw error;
      throw new ReplayFileError(file, `cannot read (${(error as NodeJS.ErrnoException).code ?? (error as Error).message})`);
    }
    if (file.endsWith('.gz')) {
      // The Collector's file exporter and log shippers rotate into .gz; read them as they are.
      const gunzip = createGunzip();
      const raw = createReadStream(file);
      raw.on('error', (error) => gunzip.destroy(error));
      input = raw.pipe(gunzip);
      input.setEncoding('utf8');
    } else {
      input = createReadStream(file, { encoding: 'utf8' });
    }
  }
  // readline holds one line at a time: memory follows the longest line, not the file.
  const lines = createInterface({ input, crlfDelay: Infinity });
  // readline does not surface errors of its input; without this a corrupt .gz would crash
  // the process instead of being reported as a bad file.
  let readError: Error | undefined;
  const onReadError = (error: Error): void => {
    readError ??= error;
    lines.close();
  };
  input.on('error', onReadError);
  // Node re-emits input errors on the interface; unhandled there they would still crash.
  lines.on('error', onReadError);
  return { lines, readError: () => readError };
}
