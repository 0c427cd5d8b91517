import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { LoopGuard } from '../../src/core/loop-guard.js';
import type { LoopGuardOptions, StopReason } from '../../src/core/types.js';
import { evaluateFile, scoreRun } from '../eval-run.js';
import { NOISE_SCENARIOS, scenarioTranscriptLines, type NoiseScenario } from './scenarios.js';

const BUDGET_STOPS: ReadonlySet<string> = new Set<StopReason>(['max_tool_calls', 'max_rounds', 'max_run_ms']);

/** How one scenario fared, through the replay path or straight through the engine. */
export interface ScenarioOutcome {
  scenario: NoiseScenario;
  stop: string | undefined;
  /** 1-based call after which the run was stopped. */
  stopCall: number | undefined;
  refusals: number;
  /** Looping: calls that ran after the loop's first call until the stop (or the halt). */
  staleCalls: number;
  /** Looping: stopped by a loop rule, or every call from some point on refused. */
  caught: boolean;
}

/** Replays each scenario from a transcript file, as `loopguard replay` and `npm run eval` do. */
export async function replayNoiseScenarios(options: LoopGuardOptions = {}): Promise<ScenarioOutcome[]> {
  const dir = await mkdtemp(join(tmpdir(), 'loopguard-noise-'));
  try {
    const outcomes: ScenarioOutcome[] = [];
    for (const scenario of NOISE_SCENARIOS) {
      const file = join(dir, `${scenario.name}.jsonl`);
      await writeFile(file, scenarioTranscriptLines(scenario).map((line) => JSON.stringify(line)).join('\n') + '\n');
      const runs = await evaluateFile(file, options);
      if (runs.length !== 1) throw new Error(`${scenario.name}: expected one run, found ${runs.length}`);
      const run = runs[0]!;
      const score = scoreRun(run, scenario.loopStart);
      const stop = run.report.stop;
      outcomes.push({
        scenario,
        stop: stop?.reason,
        stopCall: stop?.call,
        refusals: score.refusals,
        staleCalls: score.staleCalls,
        caught: (stop !== null && !BUDGET_STOPS.has(stop.reason)) || score.halted,
      });
    }
    return outcomes;
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
}

/** Plays each scenario through the engine the way an agent loop does: one round per call, shouldStop after each. */
export function playNoiseScenarios(options: LoopGuardOptions = {}): ScenarioOutcome[] {
  return NOISE_SCENARIOS.map((scenario) => {
    const guard = new LoopGuard({ logger: { warn: () => {} }, ...options });
    const run = guard.startRun(scenario.name);
    let refusals = 0;
    let staleCalls = 0;
    let trailingRefusals = 0;
    let stop: string | undefined;
    let stopCall: number | undefined;
    scenario.calls.forEach((call, index) => {
      if (stop !== undefined) return;
      run.beginRound();
      const ticket = run.startCall({ tool: call.tool, args: call.args, startTime: call.ts, callId: `call_${index + 1}` });
      if (ticket.decision.action === 'refuse') {
        refusals++;
        trailingRefusals++;
      } else {
        trailingRefusals = 0;
        if (scenario.loopStart !== undefined && index > scenario.loopStart) staleCalls++;
        run.finishCall(ticket, call.error !== undefined ? { error: call.error, endTime: call.ts + 1 } : { result: call.result, endTime: call.ts + 1 });
      }
      const after = run.shouldStop();
      if (after.action === 'stop') {
        stop = after.reason;
        stopCall = index + 1;
      }
    });
    return {
      scenario,
      stop,
      stopCall,
      refusals,
      staleCalls,
      caught: (stop !== undefined && !BUDGET_STOPS.has(stop)) || (stop === undefined && trailingRefusals > 0),
    };
  });
}
