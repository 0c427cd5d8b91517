// A GuardedAgentRun is per run. An agent built with `guarded.tools` and run again with
// `guarded.runOptions` after `guarded.end()` runs on a run that is over: no tools offered, the
// stop message in the instructions. That must not be silent: loopguard warns once per run on
// diag. Driven through the real Runner with a scripted Model.
import { expect } from 'chai';
import { Agent, Runner, setTracingDisabled, tool } from '@openai/agents';
import { z } from 'zod';

import { LoopGuard } from '../../../src/core/loop-guard.js';
import { useDiagCapture } from '../../otel/otel-test-helpers.js';
import { createGuardedAgentRun } from '../../../src/integrations/openai-agents/index.js';
import { ScriptedAgentsModel } from '../helpers/scripted-agents-model.js';

setTracingDisabled(true);

function searchTool(executions: string[]) {
  return tool({
    name: 'search',
    description: 'Search the documentation',
    parameters: z.object({ query: z.string() }),
    execute: async ({ query }) => {
      executions.push(query);
      return JSON.stringify({ results: [{ id: query }] });
    },
  });
}

const offered = (model: ScriptedAgentsModel) => model.requests.map((request) => request.tools.map((t) => t.name));

describe('OpenAI Agents run is per run: reuse after end() (Runner + scripted Model)', () => {
  const diagnostics = useDiagCapture();
  const warnings = (): string[] => diagnostics.matching(/^/, 'warn').map((message) => message.text);

  it('an agent run again after end() is offered no tools, and diag says why once per run', async () => {
    const executions: string[] = [];
    const guarded = createGuardedAgentRun({ guard: new LoopGuard(), tools: [searchTool(executions)], runId: 'conversation-1' });
    const model = new ScriptedAgentsModel([
      { calls: [{ tool: 'search', args: { query: 'first question' } }] },
      { text: 'first answer' },
      { calls: [{ tool: 'search', args: { query: 'second question' } }] },
    ]);
    const agent = new Agent({ name: 'support', instructions: 'Answer from the docs.', model, tools: guarded.tools });
    const runner = new Runner();

    expect((await runner.run(agent, 'first question?', { ...guarded.runOptions })).finalOutput).to.equal('first answer');
    guarded.end();
    expect(warnings()).to.deep.equal([]);

    const second = await runner.run(agent, 'second question?', { ...guarded.runOptions });
    expect(offered(model)).to.deep.equal([['search'], ['search'], []]);
    expect(model.requests[2]!.systemInstructions).to.include('Tool use has ended');
    expect(second.finalOutput).to.equal('final answer');
    expect(executions).to.deep.equal(['first question']);
    expect(warnings()).to.have.length(1);
    expect(warnings()[0]).to.match(/^loopguard: the tools or run options of run "conversation-1" were used after end\(\)\. That run is over/);
    expect(warnings()[0]).to.include('call createGuardedAgentRun() for each run(agent, ...)');

    await runner.run(agent, 'third question?', { ...guarded.runOptions });
    expect(warnings(), 'once per run').to.have.length(1);
  });

  it('reusing only the tools (no run options) is warned about too', async () => {
    const guarded = createGuardedAgentRun({ guard: new LoopGuard(), tools: [searchTool([])], runId: 'tools-only' });
    guarded.end();
    const model = new ScriptedAgentsModel([{ text: 'an answer without tools' }]);
    const agent = new Agent({ name: 'support', model, tools: guarded.tools });
    await new Runner().run(agent, 'question?');
    expect(offered(model)).to.deep.equal([[]]);
    expect(warnings()).to.have.length(1);
    expect(warnings()[0]).to.include('run "tools-only" were used after end()');
  });

  it('one GuardedAgentRun per run, the agent cloned with its tools: every run guarded, nothing warned', async () => {
    const executions: string[] = [];
    const guard = new LoopGuard();
    const model = new ScriptedAgentsModel([
      { calls: [{ tool: 'search', args: { query: 'first question' } }] },
      { text: 'first answer' },
      { calls: [{ tool: 'search', args: { query: 'second question' } }] },
      { text: 'second answer' },
    ]);
    const base = new Agent({ name: 'support', instructions: 'Answer from the docs.', model });
    const answer = async (question: string): Promise<unknown> => {
      const guarded = createGuardedAgentRun({ guard, tools: [searchTool(executions)] });
      const result = await new Runner().run(base.clone({ tools: guarded.tools }), question, { ...guarded.runOptions });
      guarded.end();
      return result.finalOutput;
    };
    expect(await answer('first question?')).to.equal('first answer');
    expect(await answer('second question?')).to.equal('second answer');
    expect(executions).to.deep.equal(['first question', 'second question']);
    expect(offered(model)).to.deep.equal([['search'], ['search'], ['search'], ['search']]);
    expect(warnings()).to.deep.equal([]);
  });
});
