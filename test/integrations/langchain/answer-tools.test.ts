// Answer tools through langchain's real createAgent graph (issue 18 item 1): after a stop the
// agent's answer tool is still offered, the answer it calls is delivered, and the run ends.
import { expect } from 'chai';
import { tool } from '@langchain/core/tools';
import { HumanMessage } from '@langchain/core/messages';
import { createAgent } from 'langchain';
import { END, MessagesAnnotation, START, StateGraph } from '@langchain/langgraph';
import { ToolNode } from '@langchain/langgraph/prebuilt';
import { z } from 'zod';

import { LoopGuard } from '../../../src/core/loop-guard.js';
import { createGuardedAgentRun, guardLangChainTools, loopGuardToolsCondition, prepareLoopGuardModelCall } from '../../../src/integrations/langchain/index.js';
import { ScriptedChatModel, toolMessagesIn } from './helpers/scripted-chat-model.js';

const SAME_DOCS = { results: [{ id: 'data-retention', title: 'Data retention' }, { id: 'privacy-overview', title: 'Privacy overview' }] };

function tools(searches: string[], answers: string[]) {
  return [
    tool(
      async ({ query }) => {
        searches.push(query);
        return JSON.stringify(SAME_DOCS);
      },
      { name: 'search_docs', description: 'Search the documentation', schema: z.object({ query: z.string() }) },
    ),
    tool(
      async ({ text }) => {
        answers.push(text);
        return 'sent';
      },
      { name: 'send_msg_to_user', description: 'Send the answer to the user', schema: z.object({ text: z.string() }) },
    ),
  ];
}

describe('LangChain createAgent: answer tools are sacred', () => {
  it('offers only send_msg_to_user after a stale stop, delivers the answer, then ends on a tool-less call', async () => {
    const searches: string[] = [];
    const answers: string[] = [];
    const guarded = createGuardedAgentRun({ guard: new LoopGuard({ tools: { search_docs: { readOnly: true } } }), tools: tools(searches, answers) });
    const model = new ScriptedChatModel(({ turn, offered }) =>
      offered.includes('search_docs')
        ? { calls: [{ tool: 'search_docs', args: { query: `retention wording ${turn}` } }] }
        : offered.includes('send_msg_to_user')
          ? { calls: [{ tool: 'send_msg_to_user', args: { text: 'Data is kept 30 days.' } }] }
          : { text: 'Sent.' },
    );
    const agent = createAgent({ model, tools: guarded.tools, middleware: [guarded.middleware] });

    const result = await agent.invoke({ messages: [new HumanMessage('How long is data kept?')] });

    expect(guarded.end().stopReason).to.equal('stale_rounds');
    expect(searches).to.have.length(6);
    const offered = model.requests.map((request) => request.offered);
    expect(offered[6]).to.deep.equal(['send_msg_to_user']);
    expect(model.requests[6]!.messages.at(-1)?.text).to.match(/Exception: `send_msg_to_user` is still available/);
    expect(model.requests.at(-1)!.messages.at(-1)?.text).to.not.match(/Exception:/);
    expect(answers).to.deep.equal(['Data is kept 30 days.']);
    expect([...toolMessagesIn(result.messages).values()].at(-1)).to.equal('sent');
    expect(offered.at(-1)).to.deep.equal([]);
    expect(result.messages.at(-1)?.text).to.equal('Sent.');
  });

  it('keeps the answer call of a reply that insists on other tools after the stop, and drops the rest', async () => {
    const searches: string[] = [];
    const answers: string[] = [];
    const guarded = createGuardedAgentRun({ guard: new LoopGuard({ tools: { search_docs: { readOnly: true } } }), tools: tools(searches, answers) });
    const model = new ScriptedChatModel(({ turn, offered }) =>
      offered.includes('search_docs')
        ? { calls: [{ tool: 'search_docs', args: { query: `retention wording ${turn}` } }] }
        : offered.includes('send_msg_to_user')
          ? { calls: [{ tool: 'search_docs', args: { query: 'one more' } }, { tool: 'send_msg_to_user', args: { text: 'Data is kept 30 days.' } }], insist: true }
          : { text: 'Sent.' },
    );
    const agent = createAgent({ model, tools: guarded.tools, middleware: [guarded.middleware] });

    const result = await agent.invoke({ messages: [new HumanMessage('How long is data kept?')] });

    expect(searches).to.not.include('one more');
    expect(answers).to.deep.equal(['Data is kept 30 days.']);
    expect(result.messages.at(-1)?.text).to.equal('Sent.');
    expect(guarded.end().refusals.map((refusal) => refusal.tool)).to.not.include('send_msg_to_user');
  });

  it('a hand-built graph (prepareLoopGuardModelCall + loopGuardToolsCondition) routes the answer call after the stop to the tools node once', async () => {
    const searches: string[] = [];
    const answers: string[] = [];
    const run = new LoopGuard({ tools: { search_docs: { readOnly: true } } }).startRun();
    const guardedTools = guardLangChainTools(tools(searches, answers), { run });
    const model = new ScriptedChatModel(({ turn, offered }) =>
      offered.includes('search_docs')
        ? { calls: [{ tool: 'search_docs', args: { query: `retention wording ${turn}` } }] }
        : { calls: [{ tool: 'send_msg_to_user', args: { text: 'Data is kept 30 days.' } }], insist: true },
    );
    const graph = new StateGraph(MessagesAnnotation)
      .addNode('agent', async (state: typeof MessagesAnnotation.State) => {
        const call = prepareLoopGuardModelCall(run, { messages: state.messages, tools: guardedTools });
        const bound = call.tools.length > 0 ? model.bindTools(call.tools) : model;
        return { messages: [await bound.invoke(call.messages)] };
      })
      .addNode('tools', new ToolNode(guardedTools))
      .addEdge(START, 'agent')
      .addConditionalEdges('agent', loopGuardToolsCondition(run), ['tools', END])
      .addEdge('tools', 'agent')
      .compile();

    await graph.invoke({ messages: [new HumanMessage('How long is data kept?')] });

    // Delivered once; the next reply (insisting on the answer tool again) is routed to END.
    expect(answers).to.deep.equal(['Data is kept 30 days.']);
    expect(run.stopped?.reason).to.equal('stale_rounds');
    expect(model.requests.at(-1)!.offered).to.deep.equal([]);
    run.end();
  });
});
