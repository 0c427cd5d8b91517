import { createReadStream } from 'node:fs';
import { stat } from 'node:fs/promises';
import { createGunzip } from 'node:zlib';
import type { Readable } from 'node:stream';
import type { LoopGuardOptions, Profile } from '../core/types.js';
import { OtlpSpanCollector } from './collect-otlp-spans.js';
import { otlpSpansToReplayRuns } from './otlp-spans-to-replay-calls.js';
import { parseTranscriptLine } from './parse-transcript-line.js';
import type { ReplayCall, ReplayModelRound } from './replay-call.js';
import { detectDocumentFormat } from './formats/detect-document-format.js';
import { detectInputFormat, READABLE_FORMATS, type ReplayInputFormat } from './formats/detect-input-format.js';
import { readChatMessages } from './formats/read-chat-messages.js';
import { readClaudeCodeSession, type ClaudeCodeSessionReader } from './formats/read-claude-code-session.js';
import { readMiniSweAgentTrajectory } from './formats/read-mini-swe-agent-trajectory.js';
import { readOpenHandsTrajectory } from './formats/read-openhands-trajectory.js';
import { readSweAgentTrajectory } from './formats/read-swe-agent-trajectory.js';
import { trajectoryRunId } from './formats/trajectory-run-id.js';
import type { TrajectoryCalls, TrajectorySource } from './formats/trajectory-source.js';
import { ReplayFileError, ReplayInputError, ReplayStrictAbort } from './replay-input-error.js';
import { ReplaySession } from './replay-session.js';
import { DEFAULT_MAX_LINE_BYTES, splitInputLines, type InputLineProblem } from './read-input-lines.js';
import { buildRunEndIndex, runIdHash, runIdOfTranscriptLine, type RunEndIndex } from './run-end-index.js';
import type { RunReport } from './run-report.js';

export { detectInputFormat, type ReplayInputFormat };

/** A pretty-printed request is read whole; past this size, write one request per line. */
const MAX_DOCUMENT_CHARS = 256 * 1024 * 1024;

/**
 * Options of {@link replayInputs}: the inputs, the policy, and where each run report and problem
 * goes.
 */
export interface ReplayInputsOptions {
  /** Paths; `-` reads `stdin`. */
  files: readonly string[];
  engineOptions: LoopGuardOptions;
  /** Abort at the first bad line instead of reporting it and going on. */
  strict?: boolean;
  stdin?: Readable;
  /**
   * Called as each run ends: for a JSONL transcript file right after the run's last line (a
   * first pass finds it, see RunEndIndex), so interleaved runs are legal and memory follows
   * the runs open at once; for stdin and trajectory formats when the input ends; for OTLP as
   * runs are rebuilt after the whole file is read.
   */
  onRun(report: RunReport): Promise<void> | void;
  /**
   * Called for each bad line (not under strict, which throws instead). Besides bad records:
   * an empty input or one of only blank lines, a line that is not valid UTF-8, a line over
   * `maxLineBytes`, duplicate OTLP span ids and cycles in OTLP parent links.
   */
  onProblem(problem: ReplayInputError | ReplayFileError): void;
  /**
   * Called with every call read from the inputs, in order, before the guard sees it (the
   * evaluation pairs loopguard's decisions with what the run recorded). Default: none.
   */
  onCall?(call: ReplayCall): void;
  /**
   * Longest line read, in bytes; a longer line is bad input and ends the reading of its file.
   * Default 64 MiB (DEFAULT_MAX_LINE_BYTES).
   */
  maxLineBytes?: number;
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

  const maxLineBytes = options.maxLineBytes ?? DEFAULT_MAX_LINE_BYTES;
  for (const file of options.files) {
    // A transcript file is read twice: once to learn each run's last line (so runs are
    // reported and freed as they end), once to replay. Stdin cannot be read twice; its runs
    // are held until it ends.
    let runEnds: RunEndIndex | undefined;
    let lines: InputLines;
    try {
      if (file !== '-') {
        const indexLines = await openInputLines(file, options.stdin, maxLineBytes);
        runEnds = await buildRunEndIndex(indexLines.lines);
        if (indexLines.readError()) runEnds = undefined;
      }
      lines = await openInputLines(file, options.stdin, maxLineBytes);
    } catch (error) {
      if (options.strict) throw error;
      reportProblem(error as ReplayFileError);
      continue;
    }
    summary.files++;
    const session = new ReplaySession(file === '-' ? '<stdin>' : file, options.engineOptions);
    profile ??= session.profile;
    const { linesRead, sawContent } = await replayOneInput(lines.lines, session, reportProblem, emitRun, options.onCall, runEnds, maxLineBytes);
    const readError = lines.readError();
    if (readError) {
      const problem = new ReplayFileError(file, `read failed after ${linesRead} lines (${(readError as NodeJS.ErrnoException).code ?? readError.message}); the runs above are from the part that was read`);
      if (options.strict) throw problem;
      reportProblem(problem);
    } else if (!sawContent) {
      // Exit 0 with nothing said would read as "replayed, all clean".
      reportProblem(
        new ReplayInputError({
          file: session.file,
          line: Math.max(1, linesRead),
          problem: linesRead === 0 ? 'the input is empty; nothing to replay' : `the input has only blank lines (${linesRead}); nothing to replay`,
        }),
      );
    }
  }
  return { profile: profile ?? options.engineOptions.profile ?? 'researcher', ...summary };
}

async function replayOneInput(
  lines: AsyncIterable<string | InputLineProblem>,
  session: ReplaySession,
  reportProblem: (problem: ReplayInputError) => void,
  emitRun: (report: RunReport) => Promise<void>,
  onCall: ((call: ReplayCall) => void) | undefined,
  runEnds: RunEndIndex | undefined,
  maxLineBytes: number,
): Promise<{ linesRead: number; sawContent: boolean }> {
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
  let sawContent = false;
  /** Reports and frees a transcript run at its last line (see RunEndIndex). */
  const endRunIfLastLine = async (run: string): Promise<void> => {
    if (!runEnds) return;
    const lastLine = runEnds.lastLineByRun.get(runIdHash(run));
    if (lastLine === lineNumber) {
      const report = session.finishRun(run);
      if (report) await emitRun(report);
    } else if (lastLine === undefined || lastLine < lineNumber || lineNumber > runEnds.lines) {
      runEnds = undefined;
      reportProblem(
        new ReplayInputError({
          file,
          line: lineNumber,
          problem: 'this line was not in the file when replay first read it (is the file still being written?); a run already reported may be reported again in parts',
        }),
      );
    }
  };
  for await (const item of lines) {
    if (typeof item !== 'string') {
      sawContent = true;
      if (item.kind === 'too-long') {
        reportProblem(
          new ReplayInputError({
            file,
            line: item.line,
            problem: `line longer than ${formatBytes(maxLineBytes)} (the line-length limit; is this a compressed or binary file?); the rest of the file is skipped`,
          }),
        );
        break;
      }
      lineNumber = item.line;
      reportProblem(new ReplayInputError({ file, line: lineNumber, problem: 'not valid UTF-8 (the line is skipped: replacing bytes could make different arguments look identical)' }));
      continue;
    }
    let text = item;
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
    sawContent = true;
    const firstLine = format === undefined;
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
    let lineRun: string | undefined;
    try {
      if (format === 'otlp') {
        collector ??= new OtlpSpanCollector();
        for (const problem of collector.addRequestLine(text, file, lineNumber)) reportProblem(problem);
      } else if (format === 'claude-code') {
        claudeCode ??= readClaudeCodeSession(file);
        feed(claudeCode.line(text, lineNumber));
      } else if (format === 'swe-agent' || format === 'mini-swe-agent' || format === 'openhands' || format === 'chat-messages') {
        // A trajectory written on one line; each further line is one more trajectory.
        oneLineDocuments++;
        const run = trajectoryRunId(file) + (oneLineDocuments > 1 ? `#${oneLineDocuments}` : '');
        feedTrajectory(parseJsonLine(text, file, lineNumber), { file, line: lineNumber, run }, reportProblem, feed);
      } else {
        let call: ReplayCall | ReplayModelRound;
        try {
          call = parseTranscriptLine(text, file, lineNumber);
        } catch (error) {
          lineRun = runEnds ? runIdOfTranscriptLine(text) : undefined;
          throw error;
        }
        lineRun = call.run;
        if ('kind' in call) {
          const problem = session.feedModelRound(call);
          if (problem) reportProblem(problem);
        } else {
          feedOne(call);
        }
      }
    } catch (error) {
      if (!(error instanceof ReplayInputError)) throw error;
      // A first line that is not even a JSON object may be a file of another kind (CSV, a log):
      // say which formats replay reads. It is still read as a transcript, so one damaged first
      // line does not cost the rest of a transcript.
      const notAnObject = firstLine && format === 'jsonl' && !text.trimStart().startsWith('{');
      reportProblem(notAnObject ? new ReplayInputError({ file, line: lineNumber, field: error.field, problem: `${error.problem}; the first line is not a JSON object, so the file is read as a loopguard JSONL transcript (replay reads: ${READABLE_FORMATS})` }) : error);
    }
    if (lineRun !== undefined) await endRunIfLastLine(lineRun);
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
    if (kind === 'swe-agent' || kind === 'mini-swe-agent' || kind === 'openhands' || kind === 'chat-messages') {
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
          problem: `expected an OTLP ExportTraceServiceRequest ("resourceSpans"), a SWE-agent trajectory ("trajectory"), a mini-swe-agent trajectory ("messages" and "info"), an OpenHands trajectory (an array of events, or "history") or chat messages (an array of messages, "messages", or runs with "messages"/"traj") in this multi-line JSON document (JSONL transcripts need one call per line); expected one of: ${READABLE_FORMATS}`,
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
      const report = session.finishRun(run.run, run.rounds);
      if (report) await emitRun(report);
    }
  }
  for (const report of session.finishAllRuns()) await emitRun(report);
  return { linesRead: lineNumber, sawContent };
}

function formatBytes(bytes: number): string {
  return bytes % (1024 * 1024) === 0 ? `${bytes / 1024 / 1024} MiB` : `${bytes} bytes`;
}

const MULTI_LINE_DOCUMENT =
  'a JSON document spread over several lines must be one OTLP request, SWE-agent .traj, mini-swe-agent .traj.json, OpenHands trajectory or conversation of chat messages (JSONL transcripts need one call per line)';

/** Feeds one SWE-agent, mini-swe-agent or OpenHands trajectory; throws when the document is none of them. */
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
  else if (kind === 'openhands') read = readOpenHandsTrajectory(document, source);
  else if (kind === 'chat-messages') read = readChatMessages(document, source);
  else {
    throw new ReplayInputError({
      file: source.file,
      line: source.line,
      problem: `expected another trajectory like the first line ("trajectory" for SWE-agent, "messages" and "info" for mini-swe-agent, "history" for OpenHands, chat messages); replay reads: ${READABLE_FORMATS}`,
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
  lines: AsyncIterable<string | InputLineProblem>;
  readError(): Error | undefined;
}

async function openInputLines(file: string, stdin: Readable | undefined, maxLineBytes: number): Promise<InputLines> {
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
    } else {
      input = createReadStream(file);
    }
  }
  // One line at a time, capped: memory follows the longest line allowed, not the file.
  let readError: Error | undefined;
  // An error before the lines are read (a corrupt .gz fails on its header at once) must be
  // recorded, not thrown as an unhandled 'error' event.
  input.on('error', (error) => {
    readError ??= error;
  });
  const lines = splitInputLines(input, maxLineBytes, (error) => {
    readError ??= error;
  });
  return { lines, readError: () => readError };
}
