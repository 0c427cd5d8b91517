// Every run of the evaluation corpus, played through the real AI SDK loop — generateText with the
// SDK's own mock model making the recorded calls step by step, each tool answering what the
// recording says, loopguard's createGuardedAgentSettings deciding — stops where `loopguard replay`
// stops it (EVAL.md's numbers), with the same decision for every call. The adapter reaches the
// engine through its own doors (claimCall in each tool, prepareStep, stopWhen, the unoffered-call
// record): a call any of them decides otherwise is a refusal or a stop EVAL.md does not show.
import { expect } from 'chai';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { generateText, jsonSchema, stepCountIs, tool, type ToolSet } from 'ai';
import { LoopGuard } from '../../../src/core/loop-guard.js';
import type { Profile } from '../../../src/core/types.js';
import { createGuardedAgentSettings } from '../../../src/integrations/ai-sdk/index.js';
import type { ReplayCall } from '../../../src/replay/replay-call.js';
import { replayInputs } from '../../../src/replay/replay-inputs.js';
import type { RunReport } from '../../../src/replay/run-report.js';
import { scriptedLanguageModel, type ScriptedTurn } from '../helpers/scripted-language-model.js';

const corpus = join(import.meta.dirname, '..', '..', '..', 'eval', 'corpus');
const manifest = JSON.parse(readFileSync(join(corpus, 'manifest.json'), 'utf8')) as Array<{ file: string }>;

function verdictOf(stop: { reason: string; round: number } | null | undefined): string {
  return stop ? `${stop.reason} after round ${stop.round}` : 'finished';
}

async function recorded(file: string, profile: Profile): Promise<{ rounds: ReplayCall[][]; verdict: string; decisions: string[] }> {
  const rounds: ReplayCall[][] = [];
  let report: RunReport | undefined;
  await replayInputs({
    files: [join(corpus, file)],
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

/** The recorded rounds as AI SDK steps: the mock model asks each round's calls, each tool answers what was recorded. */
async function playedThroughAiSdk(profile: Profile, rounds: ReplayCall[][]): Promise<{ verdict: string; decisions: string[] }> {
  const outcomes = new Map<string, ReplayCall>();
  const turns: ScriptedTurn[] = rounds.map((calls, round) => ({
    calls: calls.map((call, index) => {
      const id = `r${round + 1}-${index}`;
      outcomes.set(id, call);
      return { tool: call.tool, args: call.args ?? {}, id };
    }),
  }));
  const tools: ToolSet = {};
  for (const name of new Set(rounds.flat().map((call) => call.tool))) {
    tools[name] = tool({
      description: name,
      inputSchema: jsonSchema<unknown>({}),
      execute: async (_input, { toolCallId }) => {
        const outcome = outcomes.get(toolCallId)!.outcome as { result?: unknown; error?: unknown };
        if (outcome.error !== undefined) throw outcome.error;
        return outcome.result;
      },
    });
  }
  const decisions: string[] = [];
  const guard = new LoopGuard({ profile, logger: { warn: () => undefined }, listeners: [{ callDecided: (_run, _call, decision) => decisions.push(decision.action === 'allow' ? 'allow' : decision.reason) }] });
  const guarded = createGuardedAgentSettings({ guard, tools });
  await generateText({ model: scriptedLanguageModel(turns), prompt: 'Do the task.', ...guarded, stopWhen: [guarded.stopWhen, stepCountIs(rounds.length + 2)] });
  const outcome = guarded.end();
  const stop = outcome.stopReason === undefined ? undefined : guarded.run.stopped;
  return { verdict: verdictOf(stop), decisions };
}

describe("every corpus run, played through the AI SDK's generateText, gets the replay's verdict and decisions", function () {
  this.timeout(600_000);

  for (const profile of ['general', 'researcher', 'chat'] as const) {
    it(`${profile} profile`, async () => {
      const moved: string[] = [];
      let played = 0;
      for (const { file } of manifest) {
        const replayed = await recorded(file, profile);
        // A model step with no tool calls ends the AI SDK's loop: runs with such rounds cannot be played.
        if (replayed.rounds.some((calls) => calls.length === 0)) continue;
        played++;
        const sdk = await playedThroughAiSdk(profile, replayed.rounds);
        // After a stop the adapter offers one more step with the answer tools only (a stop never
        // swallows an answer); the scripted model, stubborn on purpose, calls its recorded tool
        // there, and that call is refused run.stopped: nothing runs after the stop.
        const afterStop = sdk.decisions.slice(replayed.decisions.length);
        const beforeStop = sdk.decisions.slice(0, replayed.decisions.length);
        if (sdk.verdict !== replayed.verdict) moved.push(`${file}: ${replayed.verdict} in replay, ${sdk.verdict} through the AI SDK`);
        else if (beforeStop.join() !== replayed.decisions.join() || afterStop.some((decision) => decision !== 'run.stopped')) {
          const at = sdk.decisions.findIndex((decision, index) => decision !== (replayed.decisions[index] ?? 'run.stopped'));
          moved.push(`${file}: call #${at} ${replayed.decisions[at] ?? '(after the stop)'} in replay, ${sdk.decisions[at]} through the AI SDK`);
        }
      }
      expect(played).to.be.above(400);
      expect(moved, moved.slice(0, 10).join('\n')).to.deep.equal([]);
    });
  }
});
