// The AI SDK's MCP client (`createMCPClient` from `@ai-sdk/mcp`; `ai` 6 no longer ships it)
// turns each MCP tool into an AI SDK dynamic tool that calls `tools/call`, with the tool's
// annotations on `metadata.annotations`. That is a ToolSet, which the AI SDK adapter's
// guardTools / createGuardedAgentSettings already guard; what the adapter cannot see is the
// annotations, so `mcpToolPolicies` turns them into the engine's per-tool policy. `@ai-sdk/mcp`
// is not installed here, so the tool set is built the way it builds it, from a real SDK Client.
import { expect } from 'chai';
import { dynamicTool, generateText, jsonSchema, stepCountIs, type ToolSet } from 'ai';
import type { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { LoopGuard } from '../../../src/core/loop-guard.js';
import { createGuardedAgentSettings } from '../../../src/integrations/ai-sdk/index.js';
import { mcpToolPolicies } from '../../../src/integrations/mcp/index.js';
import { scriptedLanguageModel, toolResultsIn } from '../helpers/scripted-language-model.js';
import { connectInMemoryServer, type InMemoryServer } from './in-memory-mcp-server.js';

/** What `await mcpClient.tools()` of `@ai-sdk/mcp` returns: dynamic tools with `metadata.annotations`. */
async function aiSdkMcpTools(client: Client): Promise<ToolSet> {
  const tools: ToolSet = {};
  for (const tool of (await client.listTools()).tools) {
    tools[tool.name] = {
      ...dynamicTool({
        description: tool.description,
        inputSchema: jsonSchema(tool.inputSchema as Parameters<typeof jsonSchema>[0]),
        execute: (args) => client.callTool({ name: tool.name, arguments: args as Record<string, unknown> }),
      }),
      ...(tool.annotations !== undefined ? { metadata: { annotations: { ...tool.annotations } } } : {}),
    };
  }
  return tools;
}

describe('AI SDK tools from an MCP server (guardTools + mcpToolPolicies)', () => {
  let server: InMemoryServer;
  beforeEach(async () => (server = await connectInMemoryServer()));
  afterEach(() => server.close());

  const loopingModel = () =>
    scriptedLanguageModel([
      { calls: [{ tool: 'lookup', args: { key: 'k' }, id: 'first' }] },
      { calls: [{ tool: 'lookup', args: { key: 'k' }, id: 'second' }] },
    ]);

  it('with the annotations as policy, the repeated read-only lookup is refused and the model reads why', async () => {
    const tools = await aiSdkMcpTools(server.client);
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
    const tools = await aiSdkMcpTools(server.client);
    const guarded = createGuardedAgentSettings({ guard: new LoopGuard(), tools });
    await generateText({ model: loopingModel(), prompt: 'look it up', ...guarded, stopWhen: [guarded.stopWhen, stepCountIs(5)] });
    expect(server.served.lookup).to.equal(2);
    expect(guarded.end().refusals).to.be.empty;
  });

  it('mcpToolPolicies reads tools/list results too, keeping only the hints', async () => {
    const { tools } = await server.client.listTools();
    expect(mcpToolPolicies(tools)).to.deep.equal({
      lookup: { annotations: { readOnlyHint: true } },
      record_note: { annotations: { readOnlyHint: false, destructiveHint: false } },
    });
  });
});
