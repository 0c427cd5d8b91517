// The evaluation corpus as the door-equivalence tests read it: each run's calls by round, and
// the verdict and per-call decisions `loopguard replay` gives it (EVAL.md's numbers). A test
// plays the same rounds through another door and compares with {@link differenceFrom}.
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import type { Profile } from '../../src/core/types.js';
import type { ReplayCall } from '../../src/replay/replay-call.js';
import { replayInputs } from '../../src/replay/replay-inputs.js';
import type { RunReport } from '../../src/replay/run-report.js';
import { REPO_ROOT } from '../cli/cli-test-helpers.js';

export const CORPUS_DIR = join(REPO_ROOT, 'eval', 'corpus');
export const CORPUS_FILES: readonly string[] = (JSON.parse(readFileSync(join(CORPUS_DIR, 'manifest.json'), 'utf8')) as Array<{ file: string }>).map(({ file }) => file);

/** What a door decided for a run: where it stopped, and each call's decision (`allow` or the refusal reason). */
export interface PlayedVerdict {
  verdict: string;
  decisions: string[];
}

export interface RecordedRun extends PlayedVerdict {
  /** The run's calls by round (index 0 = round 1); a round the recording has no call in is empty. */
  rounds: ReplayCall[][];
}

export function verdictOf(stop: { reason: string; round: number } | null | undefined): string {
  return stop ? `${stop.reason} after round ${stop.round}` : 'finished';
}

/** A recorded run (a corpus file, or any file replay reads) as replay decides it in `profile`. */
export async function recordedRun(file: string, profile: Profile): Promise<RecordedRun> {
  const rounds: ReplayCall[][] = [];
  let report: RunReport | undefined;
  await replayInputs({
    files: [file],
    engineOptions: { profile },
    onRun: (run) => {
      report = run;
    },
    onProblem: (problem) => {
      throw new Error(problem.message);
    },
    onCall: (call) => {
      while (rounds.length < call.round) rounds.push([]);
      rounds[call.round - 1]!.push(call);
    },
  });
  const decisions = [...report!.decisions()].filter((decision) => decision.decision !== 'skip').map((decision) => (decision.decision === 'refuse' ? decision.reason! : 'allow'));
  return { rounds, verdict: verdictOf(report!.stop), decisions };
}

/**
 * How `got` differs from `expected`, or undefined. `afterStop`: the door may decide calls after
 * the stop (an agent framework offers its answer tools one more step, and a stubborn model calls
 * another tool there); each must be refused `run.stopped`, nothing run after the stop.
 */
export function differenceFrom(file: string, expected: PlayedVerdict, expectedName: string, got: PlayedVerdict, gotName: string, afterStop = false): string | undefined {
  if (got.verdict !== expected.verdict) return `${file}: ${expected.verdict} ${expectedName}, ${got.verdict} ${gotName}`;
  const compared = afterStop ? got.decisions.slice(0, expected.decisions.length) : got.decisions;
  const extra = afterStop ? got.decisions.slice(expected.decisions.length) : [];
  if (compared.join() === expected.decisions.join() && extra.every((decision) => decision === 'run.stopped')) return undefined;
  const at = got.decisions.findIndex((decision, index) => decision !== (expected.decisions[index] ?? 'run.stopped'));
  const place = at < 0 ? `after call #${got.decisions.length}` : `call #${at}`;
  return `${file}: ${place} ${expected.decisions[at] ?? '(none)'} ${expectedName}, ${got.decisions[at] ?? '(none)'} ${gotName}`;
}
