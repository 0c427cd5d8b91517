// Answer tools through the real OpenAI Agents Runner (issue 18 item 1): after a stop the
// agent's answer tool is still offered and runs once; every other tool is hidden.
import { expect } from 'chai';
import { Agent, Runner, setTracingDisabled, tool } from '@openai/agents';
import { z } from 'zod';

import { LoopGuard } from '../../../src/core/loop-guard.js';
import { createGuardedAgentRun } from '../../../src/integrations/openai-agents/index.js';
import { ScriptedAgentsModel, type ScriptedAgentTurn } from '../helpers/scripted-agents-model.js';

setTracingDisabled(true);

describe('OpenAI Agents: answer tools are sacred', () => {
  it('keeps transfer_to_human_agents offered after a stale stop and runs it, then offers nothing', async () => {
    const lookups: string[] = [];
    const transfers: string[] = [];
    const findOrder = tool({
      name: 'find_order',
      description: 'Look an order up',
      parameters: z.object({ query: z.string() }),
      execute: async ({ query }) => {
        lookups.push(query);
        return JSON.stringify({ orders: [{ id: 'W123', status: 'pending' }] });
      },
    });
    const transfer = tool({
      name: 'transfer_to_human_agents',
      description: 'Hand the conversation to a human',
      parameters: z.object({ summary: z.string() }),
      execute: async ({ summary }) => {
        transfers.push(summary);
        return 'Transfer successful';
      },
    });
    const guarded = createGuardedAgentRun({ guard: new LoopGuard(), tools: [findOrder, transfer] });
    const queries = ['order', 'my order', 'orders of Ann', 'pending order', 'W1', 'W12'];
    const turns: ScriptedAgentTurn[] = queries.map((query) => ({ calls: [{ tool: 'find_order', args: { query } }] }));
    turns.push({ calls: [{ tool: 'transfer_to_human_agents', args: { summary: 'Customer wants a refund for W123' } }] });
    const model = new ScriptedAgentsModel(turns, 'A human agent will take over.');
    const agent = new Agent({ name: 'support', instructions: 'Help the customer.', model, tools: guarded.tools });

    const result = await new Runner().run(agent, 'Refund my order', { ...guarded.runOptions, maxTurns: 20 });

    const offered = model.requests.map((request) => request.tools.map((t) => t.name));
    const outcome = guarded.end();
    expect(outcome.stopReason).to.equal('stale_rounds');
    expect(lookups).to.have.length(6);
    expect(offered[6]).to.deep.equal(['transfer_to_human_agents']);
    expect(model.requests[6]!.systemInstructions).to.include('Exception: `transfer_to_human_agents` is still available');
    expect(model.requests.at(-1)!.systemInstructions).to.not.include('Exception:');
    expect(transfers).to.deep.equal(['Customer wants a refund for W123']);
    // Delivered: the model's next request offers nothing and it answers in text.
    expect(offered.at(-1)).to.deep.equal([]);
    expect(result.finalOutput).to.equal('A human agent will take over.');
    expect(outcome.refusals.filter((refusal) => refusal.tool === 'transfer_to_human_agents')).to.deep.equal([]);
  });
});
