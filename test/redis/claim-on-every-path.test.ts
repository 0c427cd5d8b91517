// Issue 23 #1 and #2: every integration decides a call through the store-aware claim, and the
// synchronous startCall never lets a business-key write through unclaimed. Real redis-server,
// the real AI SDK (ToolLoopAgent + its mock model) and the real OpenAI Agents Runner.
import { expect } from 'chai';
import { stepCountIs, tool, ToolLoopAgent } from 'ai';
import { Agent, Runner, setTracingDisabled, tool as agentsTool } from '@openai/agents';
import { z } from 'zod';
import { LoopGuard, type LoopGuardEngineOptions } from '../../src/core/loop-guard.js';
import { createGuardedAgentSettings } from '../../src/integrations/ai-sdk/index.js';
import { createGuardedAgentRun } from '../../src/integrations/openai-agents/index.js';
import { createRedisRunStore, type RedisRunStore } from '../../src/redis/index.js';
import { redisServerPerSuite } from '../helpers/redis-servers.js';
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
});
