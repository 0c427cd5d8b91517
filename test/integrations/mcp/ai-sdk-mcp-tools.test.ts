// The AI SDK's MCP client (`createMCPClient` from `@ai-sdk/mcp`, the real package) turns each
// MCP tool into an AI SDK dynamic tool that calls `tools/call`, with the tool's annotations on
// `metadata.annotations`. That is a ToolSet, which the AI SDK adapter's guardTools /
// createGuardedAgentSettings already guard; what the adapter cannot see is the annotations, so
// `mcpToolPolicies` turns them into the engine's per-tool policy.
import { expect } from 'chai';
import { createMCPClient, type MCPClient } from '@ai-sdk/mcp';
import { generateText, stepCountIs } from 'ai';
import { LoopGuard } from '../../../src/core/loop-guard.js';
import { createGuardedAgentSettings } from '../../../src/integrations/ai-sdk/index.js';
import { mcpToolPolicies } from '../../../src/integrations/mcp/index.js';
import { scriptedLanguageModel, toolResultsIn } from '../helpers/scripted-language-model.js';
import { connectInMemoryServer, startInMemoryServer, type InMemoryServer } from './in-memory-mcp-server.js';

describe('AI SDK tools from an MCP server (@ai-sdk/mcp createMCPClient + guardTools + mcpToolPolicies)', () => {
  // The tools' names are in no well-known table: only their annotations decide their effect.
  let server: Awaited<ReturnType<typeof startInMemoryServer>>;
  let mcpClient: MCPClient;
  beforeEach(async () => {
    server = await startInMemoryServer();
    mcpClient = await createMCPClient({ transport: server.clientTransport });
  });
  afterEach(async () => {
    await mcpClient.close();
    await server.close();
  });

  const loopingModel = () =>
    scriptedLanguageModel([
      { calls: [{ tool: 'lookup', args: { key: 'k' }, id: 'first' }] },
      { calls: [{ tool: 'lookup', args: { key: 'k' }, id: 'second' }] },
    ]);

  it('with the annotations as policy, the repeated read-only lookup is refused and the model reads why', async () => {
    const tools = await mcpClient.tools();
    const guard = new LoopGuard({ tools: mcpToolPolicies(tools) });
    const guarded = createGuardedAgentSettings({ guard, tools });
    const model = loopingModel();
    await generateText({ model, prompt: 'look it up', ...guarded, stopWhen: [guarded.stopWhen, stepCountIs(5)] });
    const seen = toolResultsIn(model.doGenerateCalls[2]!.prompt);
    expect(JSON.stringify(seen.get('second')?.value)).to.match(/Not run: lookup was already called with these same arguments/);
    expect(server.served.lookup).to.equal(1);
    expect(guarded.end().refusals.map((refusal) => refusal.reason)).to.deep.equal(['repeat.run_wide']);
  });

  it('without them the adapter cannot know the tool only reads: the repeat runs (unknown effect)', async () => {
    const tools = await mcpClient.tools();
    const guarded = createGuardedAgentSettings({ guard: new LoopGuard(), tools });
    await generateText({ model: loopingModel(), prompt: 'look it up', ...guarded, stopWhen: [guarded.stopWhen, stepCountIs(5)] });
    expect(server.served.lookup).to.equal(2);
    expect(guarded.end().refusals).to.be.empty;
  });

  it('the AI SDK client carries the annotations where mcpToolPolicies reads them', async () => {
    const tools = await mcpClient.tools();
    expect(mcpToolPolicies(tools)).to.deep.equal({
      lookup: { annotations: { readOnlyHint: true } },
      record_note: { annotations: { readOnlyHint: false, destructiveHint: false } },
    });
  });
});

describe('mcpToolPolicies on an SDK Client', () => {
  let server: InMemoryServer;
  beforeEach(async () => (server = await connectInMemoryServer()));
  afterEach(() => server.close());

  it('reads tools/list results too, keeping only the hints', async () => {
    const { tools } = await server.client.listTools();
    expect(mcpToolPolicies(tools)).to.deep.equal({
      lookup: { annotations: { readOnlyHint: true } },
      record_note: { annotations: { readOnlyHint: false, destructiveHint: false } },
    });
  });
});
