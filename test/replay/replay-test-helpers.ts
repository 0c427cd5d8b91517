import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { LoopGuardOptions } from '../../src/core/types.js';
import { replayInputs, type ReplaySummary } from '../../src/replay/replay-inputs.js';
import type { ReplayDecision, RunReport } from '../../src/replay/run-report.js';

export interface CollectedRun extends Omit<RunReport, 'decisions'> {
  decisions: ReplayDecision[];
}

/** Replays files in-process and materialises every run's decisions for assertions. */
export async function replayFiles(
  files: string[],
  engineOptions: LoopGuardOptions = {},
  strict = false,
): Promise<{ runs: CollectedRun[]; summary: ReplaySummary; problems: string[] }> {
  const runs: CollectedRun[] = [];
  const problems: string[] = [];
  const summary = await replayInputs({
    files,
    engineOptions,
    strict,
    onRun: (report) => {
      runs.push({ ...report, decisions: [...report.decisions()] });
    },
    onProblem: (problem) => problems.push(problem.message),
  });
  return { runs, summary, problems };
}

export function runNamed(runs: CollectedRun[], name: string): CollectedRun {
  const run = runs.find((r) => r.run === name);
  if (!run) throw new Error(`no run ${name} in ${runs.map((r) => r.run).join(', ')}`);
  return run;
}

let scratch: string | undefined;
function scratchDir(): string {
  if (scratch === undefined) {
    const dir = mkdtempSync(join(tmpdir(), 'loopguard-replay-'));
    scratch = dir;
    process.once('exit', () => rmSync(dir, { recursive: true, force: true }));
  }
  return scratch;
}

/** Writes lines (objects are JSON-encoded) to a fresh temp file and returns its path. */
export function writeTempLines(name: string, lines: Array<object | string>): string {
  const path = join(scratchDir(), name);
  writeFileSync(path, lines.map((line) => (typeof line === 'string' ? line : JSON.stringify(line))).join('\n') + '\n');
  return path;
}

export function tempDir(): string {
  return scratchDir();
}

export const EXAMPLES_DIR = new URL('../../examples/transcripts/', import.meta.url).pathname;
export const EXAMPLE_POLICY = join(EXAMPLES_DIR, 'policy.json');

/** The recorded example runs under examples/transcripts/, each with a tested verdict. */
export const EXAMPLE_NAMES = ['reworded-search', 'exact-repeat', 'attempt-counter-retry', 'polling-to-completion', 'pagination', 'empty-exploration'] as const;

/** The policy the examples are replayed with (examples/transcripts/policy.json). */
export function loadExamplePolicy(): LoopGuardOptions {
  return JSON.parse(readFileSync(EXAMPLE_POLICY, 'utf8')) as LoopGuardOptions;
}

/** One line of a JSONL transcript (the replay input format). */
export interface TranscriptLine {
  run: string;
  round: number;
  tool: string;
  args?: unknown;
  result?: unknown;
  error?: { type?: string; message?: string };
  callId?: string;
  ts?: number;
  durationMs?: number;
  usage?: { inputTokens?: number; outputTokens?: number };
  compactedBefore?: boolean;
}

/** Reads a JSONL transcript file into its lines. */
export function readTranscript(file: string): TranscriptLine[] {
  return readFileSync(file, 'utf8').trim().split('\n').map((line) => JSON.parse(line) as TranscriptLine);
}
