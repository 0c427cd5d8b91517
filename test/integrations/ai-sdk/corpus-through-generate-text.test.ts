// Every run of the evaluation corpus, played through the real AI SDK loop — generateText with the
// SDK's own mock model making the recorded calls step by step, each tool answering what the
// recording says, loopguard's createGuardedAgentSettings deciding — stops where `loopguard replay`
// stops it (EVAL.md's numbers), with the same decision for every call. The adapter reaches the
// engine through its own doors (claimCall in each tool, prepareStep, stopWhen, the unoffered-call
// record): a call any of them decides otherwise is a refusal or a stop EVAL.md does not show.
import { expect } from 'chai';
import { join } from 'node:path';
import { generateText, jsonSchema, stepCountIs, tool, type ToolSet } from 'ai';
import { LoopGuard } from '../../../src/core/loop-guard.js';
import type { Profile } from '../../../src/core/types.js';
import { createGuardedAgentSettings } from '../../../src/integrations/ai-sdk/index.js';
import type { ReplayCall } from '../../../src/replay/replay-call.js';
import { CORPUS_DIR, CORPUS_FILES, differenceFrom, recordedRun, verdictOf } from '../../helpers/recorded-corpus-runs.js';
import { scriptedLanguageModel, type ScriptedTurn } from '../helpers/scripted-language-model.js';

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
      for (const file of CORPUS_FILES) {
        const replayed = await recordedRun(join(CORPUS_DIR, file), profile);
        // A model step with no tool calls ends the AI SDK's loop: runs with such rounds cannot be played.
        if (replayed.rounds.some((calls) => calls.length === 0)) continue;
        played++;
        // After a stop the adapter offers the answer tools one more step (a stop never swallows an answer).
        const move = differenceFrom(file, replayed, 'in replay', await playedThroughAiSdk(profile, replayed.rounds), 'through the AI SDK', true);
        if (move !== undefined) moved.push(move);
      }
      expect(played).to.be.above(400);
      expect(moved, moved.slice(0, 10).join('\n')).to.deep.equal([]);
    });
  }
});
