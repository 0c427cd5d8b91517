// The settings of createGuardedAgentSettings are per run. A ToolLoopAgent keeps the settings it
// was built with, so calling it again after `guarded.end()` runs on a run that is over: no
// tools, toolChoice 'none'. That must not be silent: loopguard warns once per run on diag.
// Driven through the real ToolLoopAgent with the SDK's own MockLanguageModelV3.
import { expect } from 'chai';
import { stepCountIs, tool, ToolLoopAgent } from 'ai';
import { z } from 'zod';

import { LoopGuard } from '../../../src/core/loop-guard.js';
import { useDiagCapture } from '../../otel/otel-test-helpers.js';
import { createGuardedAgentSettings } from '../../../src/integrations/ai-sdk/index.js';
import { offeredTools, scriptedLanguageModel } from '../helpers/scripted-language-model.js';

function searchTool(executions: string[]) {
  return tool({
    description: 'Search the documentation',
    inputSchema: z.object({ query: z.string() }),
    execute: async ({ query }) => {
      executions.push(query);
      return { results: [{ id: query }] };
    },
  });
}

describe('AI SDK settings are per run: reuse after end() (ToolLoopAgent + MockLanguageModelV3)', () => {
  const diagnostics = useDiagCapture();
  const warnings = (): string[] => diagnostics.matching(/^/, 'warn').map((message) => message.text);

  it('an agent called again after end() gets no tools, and diag says why once per run', async () => {
    const executions: string[] = [];
    const guard = new LoopGuard();
    const model = scriptedLanguageModel([{ calls: [{ tool: 'search', args: { query: 'first question' } }] }, { text: 'first answer' }, { calls: [{ tool: 'search', args: { query: 'second question' } }] }]);
    const guarded = createGuardedAgentSettings({ guard, tools: { search: searchTool(executions) }, runId: 'conversation-1' });
    const agent = new ToolLoopAgent({ model, ...guarded, stopWhen: [guarded.stopWhen, stepCountIs(10)] });

    const first = await agent.generate({ prompt: 'first question?' });
    expect(first.text).to.equal('first answer');
    expect(executions).to.deep.equal(['first question']);
    guarded.end();
    expect(warnings()).to.deep.equal([]);

    // The same agent again: its settings belong to the ended run.
    const second = await agent.generate({ prompt: 'second question?' });
    const calls = model.doGenerateCalls;
    const reused = calls[2]!;
    expect(reused.toolChoice).to.deep.equal({ type: 'none' });
    expect(offeredTools(reused)).to.deep.equal([]);
    expect(second.text).to.equal('final answer');
    expect(executions).to.deep.equal(['first question']);
    expect(warnings()).to.have.length(1);
    expect(warnings()[0]).to.match(/^loopguard: the settings of run "conversation-1" were used after end\(\)\. That run is over, so this step offers no tools/);
    expect(warnings()[0]).to.include('call createGuardedAgentSettings() for each generateText / streamText call, and build a ToolLoopAgent per run');

    await agent.generate({ prompt: 'third question?' });
    expect(warnings(), 'once per run').to.have.length(1);
  });

  it('settings and an agent per run: each run is guarded with its tools, nothing is warned', async () => {
    const executions: string[] = [];
    const guard = new LoopGuard();
    const model = scriptedLanguageModel([
      { calls: [{ tool: 'search', args: { query: 'first question' } }] },
      { text: 'first answer' },
      { calls: [{ tool: 'search', args: { query: 'second question' } }] },
      { text: 'second answer' },
    ]);
    const answer = async (prompt: string): Promise<string> => {
      const guarded = createGuardedAgentSettings({ guard, tools: { search: searchTool(executions) } });
      const agent = new ToolLoopAgent({ model, ...guarded, stopWhen: [guarded.stopWhen, stepCountIs(10)] });
      const { text } = await agent.generate({ prompt });
      guarded.end();
      return text;
    };
    expect(await answer('first question?')).to.equal('first answer');
    expect(await answer('second question?')).to.equal('second answer');
    expect(executions).to.deep.equal(['first question', 'second question']);
    expect(model.doGenerateCalls.map((call) => offeredTools(call))).to.deep.equal([['search'], ['search'], ['search'], ['search']]);
    expect(warnings()).to.deep.equal([]);
  });

  it('a run the engine evicted is not reported as reused (it fails open; the engine warns)', async () => {
    const guard = new LoopGuard({ maxOpenRuns: 1, logger: { warn: () => {} } });
    const executions: string[] = [];
    const model = scriptedLanguageModel([{ calls: [{ tool: 'search', args: { query: 'q' } }] }, { text: 'done' }]);
    const guarded = createGuardedAgentSettings({ guard, tools: { search: searchTool(executions) }, runId: 'evicted' });
    guard.startRun('another'); // evicts 'evicted': its calls now run unguarded
    const agent = new ToolLoopAgent({ model, ...guarded, stopWhen: [guarded.stopWhen, stepCountIs(10)] });
    expect((await agent.generate({ prompt: 'q?' })).text).to.equal('done');
    expect(executions).to.deep.equal(['q']);
    expect(warnings()).to.deep.equal([]);
  });
});
