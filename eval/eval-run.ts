import { canonicalJson } from '../src/core/canonical-json.js';
import { isEmptyResult } from '../src/core/result-fingerprint.js';
import type { LoopGuardOptions } from '../src/core/types.js';
import { isPrehashedOutcome, type ReplayCall } from '../src/replay/replay-call.js';
import { replayInputs } from '../src/replay/replay-inputs.js';
import type { RunReport } from '../src/replay/run-report.js';

/** One recorded call as the evaluation compares them (independent of loopguard's own hashing). */
export interface EvalCall {
  tool: string;
  /** Canonical JSON of the arguments: the call's identity for the baselines. */
  argsKey: string;
  /** Canonical JSON of the outcome: "has the run seen this result before?" */
  resultKey: string;
  outcomeClass: 'success' | 'error' | 'empty';
}

/** A recorded run with loopguard's decisions for it under one configuration. */
export interface EvaluatedRun {
  runId: string;
  calls: EvalCall[];
  report: RunReport;
}

const EMPTY_KEY = new Set<string>();

function stableText(value: unknown): string {
  try {
    return canonicalJson(value, EMPTY_KEY);
  } catch {
    return String(value);
  }
}

export function toEvalCall(call: ReplayCall): EvalCall {
  const argsKey = call.args === undefined ? (call.argsHash ?? '') : typeof call.args === 'string' ? call.args : stableText(call.args);
  const outcome = call.outcome;
  if (isPrehashedOutcome(outcome)) {
    return { tool: call.tool, argsKey, resultKey: outcome.resultHash ?? outcome.outcome, outcomeClass: outcome.outcome === 'empty' ? 'empty' : outcome.outcome === 'success' ? 'success' : 'error' };
  }
  if ('error' in outcome && outcome.error !== undefined) {
    return { tool: call.tool, argsKey, resultKey: `error:${stableText(outcome.error)}`, outcomeClass: 'error' };
  }
  const result = outcome.result;
  return { tool: call.tool, argsKey, resultKey: `result:${stableText(result)}`, outcomeClass: isEmptyResult(result) ? 'empty' : 'success' };
}

/**
 * Replays one corpus file through the same path as `loopguard replay` (replayInputs →
 * ReplaySession → LoopGuard) and pairs each run's report with its recorded calls.
 */
export async function evaluateFile(file: string, engineOptions: LoopGuardOptions): Promise<EvaluatedRun[]> {
  const callsByRun = new Map<string, EvalCall[]>();
  const runs: EvaluatedRun[] = [];
  const problems: string[] = [];
  await replayInputs({
    files: [file],
    engineOptions,
    onCall: (call) => {
      let calls = callsByRun.get(call.run);
      if (calls === undefined) callsByRun.set(call.run, (calls = []));
      calls.push(toEvalCall(call));
    },
    onRun: (report) => {
      runs.push({ runId: report.run, calls: callsByRun.get(report.run) ?? [], report });
      callsByRun.delete(report.run);
    },
    onProblem: (problem) => problems.push(problem.message),
  });
  if (problems.length > 0) throw new Error(`${file}: ${problems.length} problem(s) reading the corpus file, first: ${problems[0]}`);
  return runs;
}

/** How loopguard's decisions on one recorded run score against what the run recorded. */
export interface RunScore {
  refusals: number;
  /** Refused calls whose recorded result had not come back earlier in the run (1-based call numbers). */
  withheldNew: Array<{ call: number; tool: string; reason: string }>;
  /** Calls that still ran after the loop's first call (index `loopStart`); 0 without a loop start. */
  staleCalls: number;
  /** Not stopped, yet every call from some point to the end of the recording was refused. */
  halted: boolean;
}

export function scoreRun(run: EvaluatedRun, loopStart: number | undefined): RunScore {
  const seen = new Set<string>();
  const score: RunScore = { refusals: 0, withheldNew: [], staleCalls: 0, halted: false };
  let trailingRefusals = 0;
  let index = 0;
  for (const decision of run.report.decisions()) {
    const call = run.calls[index];
    if (call === undefined) throw new Error(`${run.runId}: decisions and calls disagree at call ${index + 1}`);
    if (decision.decision === 'refuse') {
      score.refusals++;
      if (!seen.has(call.resultKey)) score.withheldNew.push({ call: index + 1, tool: decision.tool, reason: decision.reason ?? '' });
    }
    // The loop's first call returned its result fresh; every call after it that still ran is stale.
    if (decision.decision === 'allow' && loopStart !== undefined && index > loopStart) score.staleCalls++;
    trailingRefusals = decision.decision === 'refuse' ? trailingRefusals + 1 : decision.decision === 'allow' ? 0 : trailingRefusals;
    seen.add(call.resultKey);
    index++;
  }
  score.halted = run.report.stop === null && trailingRefusals > 0;
  return score;
}
