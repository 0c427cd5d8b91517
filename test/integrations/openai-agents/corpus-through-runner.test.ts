// Every run of the evaluation corpus, played through the real OpenAI Agents Runner — a scripted
// model (the SDK's own Model interface) making the recorded calls turn by turn, each function tool
// answering what the recording says, createGuardedAgentRun deciding through its guardrails and
// input filter — stops where `loopguard replay` stops it, with the same decision for every call.
import { expect } from 'chai';
import { join } from 'node:path';
import { Agent, Runner, setTracingDisabled, tool, type Tool } from '@openai/agents';
import { LoopGuard } from '../../../src/core/loop-guard.js';
import type { Profile } from '../../../src/core/types.js';
import { createGuardedAgentRun } from '../../../src/integrations/openai-agents/index.js';
import type { ReplayCall } from '../../../src/replay/replay-call.js';
import { CORPUS_DIR, CORPUS_FILES, differenceFrom, recordedRun, verdictOf } from '../../helpers/recorded-corpus-runs.js';
import { ScriptedAgentsModel, type ScriptedAgentTurn } from '../helpers/scripted-agents-model.js';

setTracingDisabled(true);

async function playedThroughRunner(profile: Profile, rounds: ReplayCall[][]): Promise<{ verdict: string; decisions: string[] }> {
  const outcomes = new Map<string, ReplayCall>();
  const turns: ScriptedAgentTurn[] = rounds.map((calls, round) => ({
    calls: calls.map((call, index) => {
      const id = `r${round + 1}-${index}`;
      outcomes.set(id, call);
      return { tool: call.tool, args: call.args ?? {}, id };
    }),
  }));
  const tools: Tool[] = [...new Set(rounds.flat().map((call) => call.tool))].map((name) =>
    tool({
      name,
      description: name,
      parameters: { type: 'object', properties: {}, required: [], additionalProperties: true },
      strict: false,
      execute: async (_input, _context, details) => {
        const outcome = outcomes.get(details!.toolCall!.callId)!.outcome as { result?: unknown; error?: unknown };
        if (outcome.error !== undefined) throw outcome.error;
        return outcome.result as string;
      },
    }),
  );
  const decisions: string[] = [];
  const guard = new LoopGuard({ profile, logger: { warn: () => undefined }, listeners: [{ callDecided: (_run, _call, decision) => decisions.push(decision.action === 'allow' ? 'allow' : decision.reason) }] });
  const guarded = createGuardedAgentRun({ guard, tools });
  const agent = new Agent({ name: 'recorded', instructions: 'Do the task.', model: new ScriptedAgentsModel(turns), tools: guarded.tools });
  await new Runner().run(agent, 'Do the task.', { ...guarded.runOptions, maxTurns: rounds.length + 3 });
  guarded.end();
  return { verdict: verdictOf(guarded.run.stopped), decisions };
}

describe('every corpus run, played through the OpenAI Agents Runner, gets the replay\'s verdict and decisions', function () {
  this.timeout(600_000);

  for (const profile of ['general', 'researcher', 'chat'] as const) {
    it(`${profile} profile`, async () => {
      const moved: string[] = [];
      let played = 0;
      for (const file of CORPUS_FILES) {
        const replayed = await recordedRun(join(CORPUS_DIR, file), profile);
        // Left out, as the SDK cannot carry them: a model turn with no calls ends the run; function
        // tools take an object of arguments and names of [A-Za-z0-9_-] (WorkBench's `calendar.search`);
        // and a tool's thrown error reaches no guardrail, only the default error function's fixed text
        // (docs/integrations/openai-agents.md says what loopguard does with it).
        const calls = replayed.rounds.flat();
        if (replayed.rounds.some((round) => round.length === 0)) continue;
        if (calls.some((call) => call.args === null || typeof call.args !== 'object' || Array.isArray(call.args))) continue;
        if (calls.some((call) => (call.outcome as { error?: unknown }).error !== undefined)) continue;
        if (calls.some((call) => !/^[A-Za-z0-9_-]+$/.test(call.tool))) continue;
        played++;
        const move = differenceFrom(file, replayed, 'in replay', await playedThroughRunner(profile, replayed.rounds), 'through the Runner', true);
        if (move !== undefined) moved.push(move);
      }
      expect(played).to.be.above(300);
      expect(moved, `${moved.length} of ${played}:\n${moved.slice(0, 15).join('\n')}`).to.deep.equal([]);
    });
  }
});
