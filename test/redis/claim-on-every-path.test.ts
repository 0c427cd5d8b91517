// Issue 23 #1 and #2: every integration decides a call through the store-aware claim, and the
// synchronous startCall never lets a business-key write through unclaimed. Real redis-server,
// the real AI SDK (ToolLoopAgent + its mock model), the real OpenAI Agents Runner, real
// LangChain tools, a real MCP client and server (the SDK's in-memory transport), the Claude
// Agent SDK's hook types, and the real OTel SDK with instrumentTool.
import { expect } from 'chai';
import { stepCountIs, tool, ToolLoopAgent } from 'ai';
import { Agent, Runner, setTracingDisabled, tool as agentsTool } from '@openai/agents';
import { z } from 'zod';
import { tool as langChainTool } from '@langchain/core/tools';
import { HumanMessage, ToolMessage } from '@langchain/core/messages';
import { createAgent } from 'langchain';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { InMemoryTransport } from '@modelcontextprotocol/sdk/inMemory.js';
import { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import type { HookJSONOutput, PostToolUseHookInput, PreToolUseHookInput } from '@anthropic-ai/claude-agent-sdk';
import { LoopGuard, type LoopGuardEngineOptions } from '../../src/core/loop-guard.js';
import { createGuardedAgentSettings } from '../../src/integrations/ai-sdk/index.js';
import { createGuardedAgentRun } from '../../src/integrations/openai-agents/index.js';
import { guardLangChainTools, loopGuardMiddleware } from '../../src/integrations/langchain/index.js';
import { guardMcpClient } from '../../src/integrations/mcp/index.js';
import { createLoopGuardHooks, type LoopGuardHooks } from '../../src/integrations/claude-agent-sdk/index.js';
import { isLoopGuardRefusal } from '../../src/otel/instrument-tool.js';
import { startAgentRun } from '../../src/otel/start-agent-run.js';
import { ScriptedChatModel, toolMessagesIn } from '../integrations/langchain/helpers/scripted-chat-model.js';
import { fireHooks } from '../integrations/claude-agent-sdk/claude-code-session-hook-inputs.js';
import { makeHarness, useContextManager, type Harness } from '../otel/otel-test-helpers.js';
import { createRedisRunStore, type RedisRunStore } from '../../src/redis/index.js';
import { freePort, redisServerPerSuite } from '../helpers/redis-servers.js';
import { scriptedLanguageModel } from '../integrations/helpers/scripted-language-model.js';
import { ScriptedAgentsModel } from '../integrations/helpers/scripted-agents-model.js';

setTracingDisabled(true);

describe('issue 23: one door for a call decision (real Redis)', function () {
  this.timeout(30_000);
  const redis = redisServerPerSuite('one-door');

  async function engine(options: Omit<LoopGuardEngineOptions, 'store'> = {}): Promise<{ guard: LoopGuard; store: RedisRunStore; warnings: string[] }> {
    const warnings: string[] = [];
    const store = createRedisRunStore({ client: await redis.server.client(), keyPrefix: redis.prefix, timeoutMs: 2000 });
    return { guard: new LoopGuard({ ...options, store, logger: { warn: (message) => warnings.push(message) } }), store, warnings };
  }

  /**
   * An engine whose Redis cannot be reached (nothing listens on the port). storeFailure's
   * defaults: ordinary calls go ahead on this process's copy of the run, business-key writes
   * are refused `store.unavailable`, and the host is told once.
   */
  const unreachableStores: RedisRunStore[] = [];
  afterEach(async () => {
    for (const store of unreachableStores.splice(0)) await store.close();
  });
  async function unreachableEngine(options: Omit<LoopGuardEngineOptions, 'store'> = {}): Promise<{ guard: LoopGuard; warnings: string[] }> {
    const warnings: string[] = [];
    const store = createRedisRunStore({ url: `redis://127.0.0.1:${await freePort()}`, timeoutMs: 200 });
    unreachableStores.push(store);
    return { guard: new LoopGuard({ ...options, store, logger: { warn: (message) => warnings.push(message) } }), warnings };
  }
  const STORE_UNAVAILABLE = /^Not run: (send_email|mcp__mail__send_email) was not run because loopguard's shared store cannot be reached/;
  const storeFailureWarnings = (warnings: string[]) => warnings.filter((warning) => warning.includes('the shared store failed'));

  /** A tool that takes a while, so two workers are inside it at the same time if both run it. */
  const slow = <T>(value: T) => new Promise<T>((resolve) => setTimeout(() => resolve(value), 150));

  function aiSdkAgent(guard: LoopGuard, runId: string, executions: string[], call: { tool: string; args: unknown }) {
    const tools = {
      get_order: tool({
        description: 'Read an order',
        inputSchema: z.object({ id: z.string() }),
        execute: async ({ id }) => {
          executions.push(`get_order ${id}`);
          return slow({ id, status: 'shipped' });
        },
      }),
      send_email: tool({
        description: 'Send an email',
        inputSchema: z.object({ to: z.string(), subject: z.string() }),
        execute: async ({ to }) => {
          executions.push(`send_email ${to}`);
          return slow('sent');
        },
      }),
    };
    const guarded = createGuardedAgentSettings({ guard, tools, runId });
    const model = scriptedLanguageModel([{ calls: [call] }], 'done');
    return { guarded, agent: new ToolLoopAgent({ model, ...guarded, stopWhen: [guarded.stopWhen, stepCountIs(5)] }) };
  }

  it('issue 23 #1: two AI SDK workers of one run both attempting the same get_order: it runs once', async () => {
    const executions: string[] = [];
    const workers = [await engine({ profile: 'researcher' }), await engine({ profile: 'researcher' })];
    const agents = workers.map(({ guard }) => aiSdkAgent(guard, 'order-run', executions, { tool: 'get_order', args: { id: 'A-1' } }));
    await Promise.all(agents.map(({ agent }) => agent.generate({ prompt: 'Where is order A-1?' })));
    expect(executions).to.deep.equal(['get_order A-1']);
    const refusals = agents.flatMap(({ guarded }) => guarded.outcome().refusals);
    expect(refusals.map((refusal) => refusal.reason)).to.deep.equal(['repeat.in_flight']);
  });

  it('issue 23 #1: the same send_email business key from two AI SDK runs runs once', async () => {
    const executions: string[] = [];
    const idempotentWrites = { send_email: { key: ['to', 'subject'] } };
    const workers = [await engine({ idempotentWrites }), await engine({ idempotentWrites })];
    const call = { tool: 'send_email', args: { to: 'ops@example.com', subject: 'Invoice 7' } };
    const agents = workers.map(({ guard }, index) => aiSdkAgent(guard, `mail-run-${index}`, executions, call));
    await Promise.all(agents.map(({ agent }) => agent.generate({ prompt: 'Send the invoice' })));
    expect(executions).to.deep.equal(['send_email ops@example.com']);
    const refusals = agents.flatMap(({ guarded }) => guarded.outcome().refusals);
    expect(refusals.map((refusal) => refusal.reason)).to.deep.equal(['repeat.in_flight']);
    // Later, a third run: the write is done, and it is refused as such.
    const later = aiSdkAgent((await engine({ idempotentWrites })).guard, 'mail-run-late', executions, call);
    await later.agent.generate({ prompt: 'Send the invoice' });
    expect(executions).to.have.length(1);
    expect(later.guarded.outcome().refusals.map((refusal) => refusal.reason)).to.deep.equal(['write.already_done']);
  });

  function agentsRun(guard: LoopGuard, runId: string, executions: string[], call: { tool: string; args: unknown }) {
    const tools = [
      agentsTool({
        name: 'get_order',
        description: 'Read an order',
        parameters: z.object({ id: z.string() }),
        execute: async ({ id }) => {
          executions.push(`get_order ${id}`);
          return slow(JSON.stringify({ id, status: 'shipped' }));
        },
      }),
      agentsTool({
        name: 'send_email',
        description: 'Send an email',
        parameters: z.object({ to: z.string(), subject: z.string() }),
        execute: async ({ to }) => {
          executions.push(`send_email ${to}`);
          return slow('sent');
        },
      }),
    ];
    const guarded = createGuardedAgentRun({ guard, tools, runId });
    const model = new ScriptedAgentsModel([{ calls: [call] }, { text: 'done' }]);
    const agent = new Agent({ name: 'support', instructions: 'Help.', model, tools: guarded.tools });
    return { guarded, go: () => new Runner().run(agent, 'Go', { ...guarded.runOptions }) };
  }

  it('issue 23 #1: two OpenAI Agents workers of one run both attempting the same get_order: it runs once', async () => {
    const executions: string[] = [];
    const workers = [await engine({ profile: 'researcher' }), await engine({ profile: 'researcher' })];
    const runs = workers.map(({ guard }) => agentsRun(guard, 'agents-order-run', executions, { tool: 'get_order', args: { id: 'B-2' } }));
    await Promise.all(runs.map(({ go }) => go()));
    expect(executions).to.deep.equal(['get_order B-2']);
    expect(runs.flatMap(({ guarded }) => guarded.outcome().refusals).map((refusal) => refusal.reason)).to.deep.equal(['repeat.in_flight']);
  });

  it('issue 23 #1: the same send_email business key from two OpenAI Agents runs runs once', async () => {
    const executions: string[] = [];
    const idempotentWrites = { send_email: { key: ['to', 'subject'] } };
    const workers = [await engine({ idempotentWrites }), await engine({ idempotentWrites })];
    const call = { tool: 'send_email', args: { to: 'billing@example.com', subject: 'Invoice 9' } };
    const runs = workers.map(({ guard }, index) => agentsRun(guard, `agents-mail-${index}`, executions, call));
    await Promise.all(runs.map(({ go }) => go()));
    expect(executions).to.deep.equal(['send_email billing@example.com']);
    expect(runs.flatMap(({ guarded }) => guarded.outcome().refusals).map((refusal) => refusal.reason)).to.deep.equal(['repeat.in_flight']);
  });

  it('issue 23 #2: startCall never allows a business-key write it has not claimed: refused store.unavailable, with a warning', async () => {
    const idempotentWrites = { send_email: { key: ['to', 'subject'] } };
    const first = await engine({ idempotentWrites });
    const second = await engine({ idempotentWrites });
    const args = { to: 'ap@example.com', subject: 'Invoice 11' };
    // The async door claims it and it runs.
    const claimedRun = first.guard.startRun('claimed');
    const claimed = await claimedRun.claimCall({ tool: 'send_email', args });
    expect(claimed.decision.action).to.equal('allow');
    claimedRun.finishCall(claimed, { result: 'sent' });
    await first.guard.flush();
    // The synchronous door, in another run: it cannot wait for the key, so it must not allow it.
    const syncRun = second.guard.startRun('sync');
    const ticket = syncRun.startCall({ tool: 'send_email', args });
    expect(ticket.decision.action).to.equal('refuse');
    expect(ticket.decision.action === 'refuse' && ticket.decision.reason).to.equal('store.unavailable');
    expect(ticket.decision.action === 'refuse' && ticket.decision.message).to.match(/^Not run: /);
    // A fresh key is refused too: the synchronous door never claims, so it never allows one.
    const fresh = syncRun.startCall({ tool: 'send_email', args: { to: 'new@example.com', subject: 'Hello' } });
    expect(fresh.decision.action).to.equal('refuse');
    // By hash only (a span with no arguments): the key cannot be known, so it is refused too.
    const prehashed = syncRun.startCall({ tool: 'send_email', argsHash: syncRun.argsHash('send_email', args) });
    expect(prehashed.decision.action).to.equal('refuse');
    expect(second.warnings.filter((warning) => warning.includes('send_email') && warning.includes('claimCall')), second.warnings.join('\n')).to.have.length(1);
    // A tool without a business key is not affected, and a write whose arguments have no key
    // part runs (said once, as on the async door).
    expect(syncRun.startCall({ tool: 'search', args: { q: 'x' } }).decision.action).to.equal('allow');
    expect(syncRun.startCall({ tool: 'send_email', args: { subject: 'no recipient' } }).decision.action).to.equal('allow');
  });

  it('issue 23 #2: a business-key write known only by its hash (a span without arguments) is refused on the async door too, and the warning says what to record', async () => {
    const idempotentWrites = { send_email: { key: ['to', 'subject'] } };
    const { guard, warnings } = await engine({ idempotentWrites });
    const run = guard.startRun('hash-only');
    const ticket = await run.claimCall({ tool: 'send_email', argsHash: run.argsHash('send_email', { to: 'x@example.com', subject: 'Hi' }) });
    expect(ticket.decision.action === 'refuse' && ticket.decision.reason).to.equal('store.unavailable');
    const said = warnings.filter((warning) => warning.includes('send_email'));
    expect(said, warnings.join('\n')).to.have.length(1);
    // Before: "decided on the synchronous path", which this call was not.
    expect(said[0]).to.match(/without its arguments/).and.to.match(/gen_ai\.tool\.call\.arguments/).and.not.to.match(/synchronous path/);
  });

  // The same two races through every other integration. What a worker of one run does when its
  // twin is already inside the same read, and what a second run does with a business-key
  // write another run is still running, must not depend on which integration the agent uses.
  const IN_FLIGHT = /^Not run: an identical call to (get_order|send_email)/;
  /** The second run's answer while the first is inside the write (shared-run-link.ts). */
  const BEING_DONE = /^Not run: the same (send_email|mcp__mail__send_email) \(same business key\) is being done right now by another worker/;
  const ALREADY_DONE = /^Not run: this send_email \(same business key\) was already done/;
  const idempotentWrites = { send_email: { key: ['to', 'subject'] } };

  describe('LangChain tools (guardLangChainTools)', () => {
    function langChainWorker(guard: LoopGuard, runId: string, executions: string[]) {
      const tools = [
        langChainTool(
          async ({ id }) => {
            executions.push(`get_order ${id}`);
            return slow(JSON.stringify({ id, status: 'shipped' }));
          },
          { name: 'get_order', description: 'Read an order', schema: z.object({ id: z.string() }) },
        ),
        langChainTool(
          async ({ to }) => {
            executions.push(`send_email ${to}`);
            return slow('sent');
          },
          { name: 'send_email', description: 'Send an email', schema: z.object({ to: z.string(), subject: z.string() }) },
        ),
      ];
      const [getOrder, sendEmail] = guardLangChainTools(tools, { run: guard.startRun(runId) }) as unknown as Array<{ invoke(call: unknown): Promise<ToolMessage> }>;
      // The way a ToolNode invokes a tool: with the model's ToolCall, answered by a ToolMessage.
      return async (name: 'get_order' | 'send_email', args: Record<string, unknown>): Promise<string> => {
        const call = { id: `call-${runId}`, name, args, type: 'tool_call' as const };
        return (await (name === 'get_order' ? getOrder! : sendEmail!).invoke(call)).text;
      };
    }

    it('two workers of one run both attempting the same get_order: it runs once', async () => {
      const executions: string[] = [];
      const workers = [await engine({ profile: 'researcher' }), await engine({ profile: 'researcher' })];
      const invokes = workers.map(({ guard }) => langChainWorker(guard, 'lc-order-run', executions));
      const texts = await Promise.all(invokes.map((invoke) => invoke('get_order', { id: 'C-3' })));
      expect(executions).to.deep.equal(['get_order C-3']);
      expect(texts.filter((text) => IN_FLIGHT.test(text)), texts.join('\n')).to.have.length(1);
      expect(texts.filter((text) => text.includes('"shipped"'))).to.have.length(1);
    });

    it('the same send_email business key from two runs runs once, and a later run is told it was done', async () => {
      const executions: string[] = [];
      const workers = [await engine({ idempotentWrites }), await engine({ idempotentWrites })];
      const invokes = workers.map(({ guard }, index) => langChainWorker(guard, `lc-mail-${index}`, executions));
      const args = { to: 'sales@example.com', subject: 'Invoice 12' };
      const texts = await Promise.all(invokes.map((invoke) => invoke('send_email', args)));
      expect(executions).to.deep.equal(['send_email sales@example.com']);
      expect(texts.filter((text) => BEING_DONE.test(text)), texts.join('\n')).to.have.length(1);
      const late = langChainWorker((await engine({ idempotentWrites })).guard, 'lc-mail-late', executions);
      expect(await late('send_email', args)).to.match(ALREADY_DONE);
      expect(executions).to.have.length(1);
    });

    it('a Redis that cannot be reached: the read runs, the business-key write is refused, nothing throws', async () => {
      const executions: string[] = [];
      const { guard, warnings } = await unreachableEngine({ idempotentWrites });
      const invoke = langChainWorker(guard, 'lc-unreachable', executions);
      expect(await invoke('get_order', { id: 'H-8' })).to.contain('"shipped"');
      expect(await invoke('send_email', { to: 'ops@example.com', subject: 'Outage' })).to.match(STORE_UNAVAILABLE);
      expect(executions).to.deep.equal(['get_order H-8']);
      expect(storeFailureWarnings(warnings), warnings.join('\n')).to.have.length(1);
    });
  });

  describe('LangChain createAgent, loopGuardMiddleware with guardToolCalls (wrapToolCall claims)', () => {
    it('two workers of one run both attempting the same get_order: it runs once', async () => {
      const executions: string[] = [];
      const getOrder = langChainTool(
        async ({ id }) => {
          executions.push(`get_order ${id}`);
          return slow(JSON.stringify({ id, status: 'shipped' }));
        },
        { name: 'get_order', description: 'Read an order', schema: z.object({ id: z.string() }) },
      );
      const workers = [await engine({ profile: 'researcher' }), await engine({ profile: 'researcher' })];
      const answers = await Promise.all(
        workers.map(async ({ guard }) => {
          const middleware = loopGuardMiddleware(guard.startRun('lc-agent-order-run'), { guardToolCalls: true });
          const model = new ScriptedChatModel(({ turn }) => (turn === 1 ? { calls: [{ tool: 'get_order', args: { id: 'G-7' } }] } : { text: 'done' }));
          // The raw tool, not guardLangChainTools' copy: wrapToolCall is the door here.
          const result = await createAgent({ model, tools: [getOrder], middleware: [middleware] }).invoke({ messages: [new HumanMessage('Where is G-7?')] });
          return [...toolMessagesIn(result.messages).values()].join('');
        }),
      );
      expect(executions).to.deep.equal(['get_order G-7']);
      expect(answers.filter((text) => IN_FLIGHT.test(text)), answers.join('\n')).to.have.length(1);
    });
  });

  describe('MCP (guardMcpClient, a real SDK client and server)', () => {
    const servers: McpServer[] = [];
    afterEach(async () => {
      for (const server of servers.splice(0)) await server.close();
    });

    /** One worker's own MCP server and client, both in front of the same back end (`executions`). */
    async function mcpWorker(guard: LoopGuard, runId: string, executions: string[]) {
      const server = new McpServer({ name: 'orders', version: '1.0.0' });
      servers.push(server);
      server.registerTool('get_order', { inputSchema: { id: z.string() }, annotations: { readOnlyHint: true } }, async ({ id }) => {
        executions.push(`get_order ${id}`);
        return slow({ content: [{ type: 'text' as const, text: JSON.stringify({ id, status: 'shipped' }) }] });
      });
      server.registerTool('send_email', { inputSchema: { to: z.string(), subject: z.string() }, annotations: { readOnlyHint: false, destructiveHint: false } }, async ({ to }) => {
        executions.push(`send_email ${to}`);
        return slow({ content: [{ type: 'text' as const, text: 'sent' }] });
      });
      const [clientTransport, serverTransport] = InMemoryTransport.createLinkedPair();
      await server.connect(serverTransport);
      const client = new Client({ name: 'loopguard-test', version: '1.0.0' });
      await client.connect(clientTransport);
      const guarded = guardMcpClient(client, { guard, runId });
      return async (name: string, args: Record<string, unknown>) => {
        const result = (await guarded.client.callTool({ name, arguments: args })) as CallToolResult;
        return { isError: result.isError === true, text: result.content.map((part) => (part.type === 'text' ? part.text : '')).join('') };
      };
    }

    it('two workers of one run both attempting the same get_order: it runs once', async () => {
      const executions: string[] = [];
      const workers = [await engine({ profile: 'researcher' }), await engine({ profile: 'researcher' })];
      const calls = await Promise.all(workers.map(({ guard }) => mcpWorker(guard, 'mcp-order-run', executions)));
      const results = await Promise.all(calls.map((call) => call('get_order', { id: 'D-4' })));
      expect(executions).to.deep.equal(['get_order D-4']);
      const refused = results.filter((result) => result.isError);
      expect(refused.map((result) => result.text)).to.have.length(1);
      expect(refused[0]!.text).to.match(IN_FLIGHT);
    });

    it('the same send_email business key from two runs runs once, and a later run is told it was done', async () => {
      const executions: string[] = [];
      const workers = [await engine({ idempotentWrites }), await engine({ idempotentWrites })];
      const calls = await Promise.all(workers.map(({ guard }, index) => mcpWorker(guard, `mcp-mail-${index}`, executions)));
      const args = { to: 'hr@example.com', subject: 'Payslip 3' };
      const results = await Promise.all(calls.map((call) => call('send_email', args)));
      expect(executions).to.deep.equal(['send_email hr@example.com']);
      expect(results.filter((result) => result.isError && BEING_DONE.test(result.text))).to.have.length(1);
      const late = await mcpWorker((await engine({ idempotentWrites })).guard, 'mcp-mail-late', executions);
      const refusal = await late('send_email', args);
      expect(refusal.isError).to.equal(true);
      expect(refusal.text).to.match(ALREADY_DONE);
      expect(executions).to.have.length(1);
    });

    it('a Redis that cannot be reached: the read runs, the business-key write is refused, nothing throws', async () => {
      const executions: string[] = [];
      const { guard, warnings } = await unreachableEngine({ idempotentWrites });
      const call = await mcpWorker(guard, 'mcp-unreachable', executions);
      expect(await call('get_order', { id: 'I-9' })).to.deep.equal({ isError: false, text: JSON.stringify({ id: 'I-9', status: 'shipped' }) });
      const refusal = await call('send_email', { to: 'ops@example.com', subject: 'Outage' });
      expect(refusal.isError).to.equal(true);
      expect(refusal.text).to.match(STORE_UNAVAILABLE);
      expect(executions).to.deep.equal(['get_order I-9']);
      expect(storeFailureWarnings(warnings), warnings.join('\n')).to.have.length(1);
    });
  });

  describe('Claude Agent SDK hooks (createLoopGuardHooks)', () => {
    const SESSION = '0b7d4c2e-5a61-4f0e-9c3b-8d2e1f6a7b90';
    const base = { session_id: SESSION, transcript_path: `/tmp/${SESSION}.jsonl`, cwd: '/work/app', permission_mode: 'bypassPermissions' };

    /**
     * One Claude Code process: PreToolUse decides, and only a call it allowed runs (here, the
     * shared back end's `executions`) and reaches PostToolUse, as Claude Code does.
     */
    function claudeWorker(guard: LoopGuard, runId: string, executions: string[]) {
      const guarded: LoopGuardHooks = createLoopGuardHooks({ guard, runId });
      let serial = 0;
      return async (name: string, input: Record<string, unknown>) => {
        const id = `toolu_${runId}_${++serial}`;
        const pre: PreToolUseHookInput = { ...base, hook_event_name: 'PreToolUse', tool_name: name, tool_input: input, tool_use_id: id };
        const [decision] = (await fireHooks(guarded.hooks, pre)) as [HookJSONOutput];
        const specific = 'hookSpecificOutput' in decision ? decision.hookSpecificOutput : undefined;
        if (specific?.hookEventName === 'PreToolUse' && specific.permissionDecision === 'deny') return { denied: true, reason: specific.permissionDecisionReason ?? '' };
        executions.push(`${name} ${JSON.stringify(input)}`);
        const response = await slow(name === 'mcp__mail__send_email' ? 'sent' : JSON.stringify({ ...input, status: 'shipped' }));
        const post: PostToolUseHookInput = { ...base, hook_event_name: 'PostToolUse', tool_name: name, tool_input: input, tool_response: response, tool_use_id: id, duration_ms: 150 };
        await fireHooks(guarded.hooks, post);
        return { denied: false, reason: '' };
      };
    }
    const claudeWrites = { mcp__mail__send_email: { key: ['to', 'subject'] } };

    it('two workers of one run both attempting the same read: it runs once', async () => {
      const executions: string[] = [];
      const workers = [await engine({ profile: 'researcher' }), await engine({ profile: 'researcher' })];
      const calls = workers.map(({ guard }) => claudeWorker(guard, 'claude-order-run', executions));
      const results = await Promise.all(calls.map((call) => call('mcp__orders__get_order', { id: 'E-5' })));
      expect(executions).to.deep.equal(['mcp__orders__get_order {"id":"E-5"}']);
      const denied = results.filter((result) => result.denied);
      expect(denied).to.have.length(1);
      expect(denied[0]!.reason).to.match(/^Not run: an identical call to mcp__orders__get_order/);
    });

    it('the same send_email business key from two sessions runs once, and a later session is told it was done', async () => {
      const executions: string[] = [];
      const workers = [await engine({ idempotentWrites: claudeWrites }), await engine({ idempotentWrites: claudeWrites })];
      const calls = workers.map(({ guard }, index) => claudeWorker(guard, `claude-mail-${index}`, executions));
      const input = { to: 'legal@example.com', subject: 'Contract 4' };
      const results = await Promise.all(calls.map((call) => call('mcp__mail__send_email', input)));
      expect(executions).to.have.length(1);
      const denied = results.filter((result) => result.denied);
      expect(denied).to.have.length(1);
      expect(denied[0]!.reason).to.match(BEING_DONE);
      const late = claudeWorker((await engine({ idempotentWrites: claudeWrites })).guard, 'claude-mail-late', executions);
      const refusal = await late('mcp__mail__send_email', input);
      expect(refusal.denied).to.equal(true);
      expect(refusal.reason).to.match(/^Not run: this mcp__mail__send_email \(same business key\) was already done/);
      expect(executions).to.have.length(1);
    });

    it('a Redis that cannot be reached: the read runs, the business-key write is denied, nothing throws', async () => {
      const executions: string[] = [];
      const { guard, warnings } = await unreachableEngine({ idempotentWrites: claudeWrites });
      const call = claudeWorker(guard, 'claude-unreachable', executions);
      expect(await call('mcp__orders__get_order', { id: 'J-10' })).to.deep.equal({ denied: false, reason: '' });
      const refusal = await call('mcp__mail__send_email', { to: 'ops@example.com', subject: 'Outage' });
      expect(refusal.denied).to.equal(true);
      expect(refusal.reason).to.match(STORE_UNAVAILABLE);
      expect(executions).to.deep.equal(['mcp__orders__get_order {"id":"J-10"}']);
      expect(storeFailureWarnings(warnings), warnings.join('\n')).to.have.length(1);
    });
  });

  describe('OpenTelemetry (startAgentRun: instrumentTool and the span processor)', () => {
    useContextManager();
    const harnesses: Harness[] = [];
    afterEach(async () => {
      for (const harness of harnesses.splice(0)) await harness.shutdown();
    });

    /** One process: its own tracer provider and LoopGuardSpanProcessor, on the shared Redis. */
    async function otelWorker(runId: string, executions: string[], options: LoopGuardEngineOptions) {
      const store = options.store ?? createRedisRunStore({ client: await redis.server.client(), keyPrefix: redis.prefix, timeoutMs: 2000 });
      const harness = makeHarness({ ...options, store });
      harnesses.push(harness);
      const run = startAgentRun({ processor: harness.processor, tracer: harness.tracer, runId });
      return {
        getOrder: run.tool('get_order', async ({ id }: { id: string }) => {
          executions.push(`get_order ${id}`);
          return slow({ id, status: 'shipped' });
        }),
        sendEmail: run.tool('send_email', async ({ to }: { to: string; subject: string }) => {
          executions.push(`send_email ${to}`);
          return slow('sent');
        }),
      };
    }

    it('two workers of one run both attempting the same get_order: it runs once', async () => {
      const executions: string[] = [];
      const workers = [await otelWorker('otel-order-run', executions, { profile: 'researcher' }), await otelWorker('otel-order-run', executions, { profile: 'researcher' })];
      const answers = await Promise.all(workers.map(({ getOrder }) => getOrder({ id: 'F-6' })));
      expect(executions).to.deep.equal(['get_order F-6']);
      expect(answers.filter((answer) => isLoopGuardRefusal(answer))).to.have.length(1);
    });

    it('the same send_email business key from two runs runs once, and a later run is refused', async () => {
      const executions: string[] = [];
      const args = { to: 'it@example.com', subject: 'Laptop 2' };
      const workers = [await otelWorker('otel-mail-0', executions, { idempotentWrites }), await otelWorker('otel-mail-1', executions, { idempotentWrites })];
      const answers = await Promise.all(workers.map(({ sendEmail }) => sendEmail(args)));
      expect(executions).to.deep.equal(['send_email it@example.com']);
      expect(answers.filter((answer) => isLoopGuardRefusal(answer))).to.have.length(1);
      const late = await otelWorker('otel-mail-late', executions, { idempotentWrites });
      expect(isLoopGuardRefusal(await late.sendEmail(args))).to.equal(true);
      expect(executions).to.have.length(1);
    });

    it('a Redis that cannot be reached: the read runs, the business-key write is refused, nothing throws', async () => {
      const executions: string[] = [];
      const warnings: string[] = [];
      const store = createRedisRunStore({ url: `redis://127.0.0.1:${await freePort()}`, timeoutMs: 200 });
      unreachableStores.push(store);
      const worker = await otelWorker('otel-unreachable', executions, { idempotentWrites, store, logger: { warn: (message) => warnings.push(message) } });
      expect(await worker.getOrder({ id: 'K-11' })).to.deep.equal({ id: 'K-11', status: 'shipped' });
      const refusal = await worker.sendEmail({ to: 'ops@example.com', subject: 'Outage' });
      expect(isLoopGuardRefusal(refusal)).to.equal(true);
      expect(String((refusal as { message?: unknown }).message ?? refusal)).to.match(STORE_UNAVAILABLE);
      expect(executions).to.deep.equal(['get_order K-11']);
      expect(storeFailureWarnings(warnings), warnings.join('\n')).to.have.length(1);
    });
  });
});
