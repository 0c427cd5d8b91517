// Existing integrations, unchanged, with their engine's runs on a loopguard serve: the AI SDK
// adapter in a real generateText loop, and the span processor + instrumentTool in two
// "processes" (two tracer providers, two engines) sharing one run through the server.
import { expect } from 'chai';
import { generateText, stepCountIs, tool } from 'ai';
import { z } from 'zod';
import { createRemoteRunStore } from '../../src/client/index.js';
import { LoopGuard } from '../../src/core/loop-guard.js';
import { createGuardedAgentSettings } from '../../src/integrations/ai-sdk/index.js';
import { isLoopGuardRefusal } from '../../src/otel/instrument-tool.js';
import { startAgentRun } from '../../src/otel/start-agent-run.js';
import { startLoopGuardServer, type LoopGuardServer } from '../../src/server/index.js';
import { scriptedLanguageModel, toolResultsIn } from '../integrations/helpers/scripted-language-model.js';
import { makeHarness, useContextManager, useDiagCapture, type Harness } from '../otel/otel-test-helpers.js';

describe('loopguard/client: integrations against a server', function () {
  this.timeout(30_000);
  useContextManager();
  useDiagCapture();
  let server: LoopGuardServer;
  const harnesses: Harness[] = [];
  before(async () => {
    server = await startLoopGuardServer({ port: 0 });
  });
  afterEach(async () => {
    for (const harness of harnesses.splice(0)) await harness.shutdown();
  });
  after(async () => {
    await server.close();
  });

  it('AI SDK generateText: the repeat is refused without running, and the run is in the server ledger', async () => {
    const executions: string[] = [];
    const search = tool({
      description: 'Search the documentation',
      inputSchema: z.object({ query: z.string() }),
      execute: async ({ query }) => {
        executions.push(query);
        return { results: ['data-retention', 'privacy-overview'] };
      },
    });
    const store = createRemoteRunStore({ url: server.url });
    const guard = new LoopGuard({ profile: 'researcher', store, logger: { warn: (message) => expect.fail(`store trouble: ${message}`) } });
    const model = scriptedLanguageModel([
      { calls: [{ tool: 'search', args: { query: 'retention' }, id: 'first' }] },
      { calls: [{ tool: 'search', args: { query: 'retention' }, id: 'again' }] },
    ]);
    const guarded = createGuardedAgentSettings({ guard, tools: { search }, runId: 'ai-sdk-remote' });
    await generateText({ model, prompt: 'How long is data kept?', ...guarded, stopWhen: [guarded.stopWhen, stepCountIs(10)] });
    expect(executions).to.deep.equal(['retention']);
    expect(String(toolResultsIn(model.doGenerateCalls[2]!.prompt).get('again')?.value)).to.match(/^Not run/);
    await guard.flush();
    expect((await store.readRunEvents('ai-sdk-remote', 0)).length).to.be.greaterThan(2);
  });

  it('span processor + instrumentTool in two processes: a lookup one made is refused in the other', async () => {
    const [a, b] = [0, 1].map(() => {
      const harness = makeHarness({ store: createRemoteRunStore({ url: server.url }), profile: 'researcher' });
      harnesses.push(harness);
      return harness;
    });
    let executions = 0;
    const search = async (args: { q: string }) => {
      executions += 1;
      return [`doc for ${args.q}`];
    };
    const runA = startAgentRun({ processor: a!.processor, tracer: a!.tracer, runId: 'otel-remote' });
    await runA.modelCall('m', () => 'round 1');
    expect(await runA.tool('search', search)({ q: 'refunds' })).to.deep.equal(['doc for refunds']);
    await a!.processor.guard.flush();
    const runB = startAgentRun({ processor: b!.processor, tracer: b!.tracer, runId: 'otel-remote' });
    await runB.modelCall('m', () => 'round 2');
    expect(isLoopGuardRefusal(await runB.tool('search', search)({ q: 'refunds' }))).to.equal(true);
    expect(executions).to.equal(1);
  });
});
