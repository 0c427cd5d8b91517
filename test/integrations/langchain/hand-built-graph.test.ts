// A hand-built LangGraph agent (StateGraph + LangGraph's own ToolNode) with guarded tools,
// prepareLoopGuardModelCall in the model node and loopGuardToolsCondition as the edge.
import { expect } from 'chai';
import { tool } from '@langchain/core/tools';
import { AIMessage, HumanMessage, SystemMessage, ToolMessage } from '@langchain/core/messages';
import { END, MessagesAnnotation, START, StateGraph } from '@langchain/langgraph';
import { ToolNode } from '@langchain/langgraph/prebuilt';
import { z } from 'zod';

import { LoopGuard } from '../../../src/core/loop-guard.js';
import type { RunGuard } from '../../../src/core/run-guard.js';
import { getLoopGuardOutcome, guardLangChainTools, loopGuardToolsCondition, prepareLoopGuardModelCall } from '../../../src/integrations/langchain/index.js';
import { ScriptedChatModel, toolMessagesIn } from './helpers/scripted-chat-model.js';

function buildAgent(run: RunGuard, model: ScriptedChatModel, executions: string[]) {
  const search = tool(
    async ({ query }) => {
      executions.push(query);
      return JSON.stringify({ results: [{ id: 'data-retention' }, { id: 'privacy-overview' }] });
    },
    { name: 'search_docs', description: 'Search the documentation', schema: z.object({ query: z.string() }) },
  );
  const tools = guardLangChainTools([search], { run });
  const callModel = async (state: typeof MessagesAnnotation.State) => {
    const call = prepareLoopGuardModelCall(run, { messages: state.messages, tools });
    const bound = call.tools.length > 0 ? model.bindTools(call.tools) : model;
    return { messages: [await bound.invoke(call.messages)] };
  };
  return new StateGraph(MessagesAnnotation)
    .addNode('agent', callModel)
    .addNode('tools', new ToolNode(tools))
    .addEdge(START, 'agent')
    .addConditionalEdges('agent', loopGuardToolsCondition(run), ['tools', END])
    .addEdge('tools', 'agent')
    .compile();
}

describe('LangGraph StateGraph + ToolNode with guarded tools', () => {
  it('refusals arrive as ToolNode tool messages; the stop routes to a final tool-less answer and END', async () => {
    const guard = new LoopGuard({ tools: { search_docs: { readOnly: true } } });
    const run = guard.startRun('thread-1:turn-1');
    const executions: string[] = [];
    const model = new ScriptedChatModel(() => ({ calls: [{ tool: 'search_docs', args: { query: 'retention' } }] }));

    const result = await buildAgent(run, model, executions).invoke({ messages: [new HumanMessage('How long is data kept?')] });

    expect(executions).to.deep.equal(['retention']);
    const outputs = toolMessagesIn(result.messages);
    expect(outputs.get('call_2')).to.match(/^Not run: search_docs was already called with these same arguments in this run \(call call_1, round 1\)/);
    expect(model.requests.at(-1)!.offered).to.deep.equal([]);
    expect(model.requests.at(-1)!.messages.at(-1)?.text).to.match(/^Tool use has ended for this run/);
    expect(result.messages.at(-1)?.text).to.match(/^From what I found/);
    const outcome = getLoopGuardOutcome(run);
    expect(outcome.stopReason).to.equal('refused_rounds');
    // The previous reply's usage is recorded into its round by the next model node.
    expect(outcome.partial.wastedTokens).to.be.greaterThan(0);
    run.end();
  });

  it('an insisting model is routed to END after the stop instead of looping to the recursion limit', async () => {
    const guard = new LoopGuard({ tools: { search_docs: { readOnly: true } } });
    const run = guard.startRun();
    const executions: string[] = [];
    const model = new ScriptedChatModel(() => ({ calls: [{ tool: 'search_docs', args: { query: 'retention' } }], insist: true }));

    const result = await buildAgent(run, model, executions).invoke({ messages: [new HumanMessage('q')] });

    expect(executions).to.have.length(1);
    expect(model.requests).to.have.length(5);
    expect(result.messages.at(-1)?.type).to.equal('ai');
  });

  it('an honest run through the same graph is left alone', async () => {
    const guard = new LoopGuard({ tools: { search_docs: { readOnly: true } } });
    const run = guard.startRun();
    const executions: string[] = [];
    const queries = ['retention', 'deletion', 'backups'];
    const model = new ScriptedChatModel(({ turn }) => (turn <= 3 ? { calls: [{ tool: 'search_docs', args: { query: queries[turn - 1] } }] } : { text: 'answer' }));
    // Each query returns its own documents here.
    const search = tool(async ({ query }) => (executions.push(query), JSON.stringify([{ id: query }])), {
      name: 'search_docs',
      description: 'Search',
      schema: z.object({ query: z.string() }),
    });
    const tools = guardLangChainTools([search], { run });
    const graph = new StateGraph(MessagesAnnotation)
      .addNode('agent', async (state: typeof MessagesAnnotation.State) => {
        const call = prepareLoopGuardModelCall(run, { messages: state.messages, tools });
        return { messages: [await model.bindTools(call.tools).invoke(call.messages)] };
      })
      .addNode('tools', new ToolNode(tools))
      .addEdge(START, 'agent')
      .addConditionalEdges('agent', loopGuardToolsCondition(run), ['tools', END])
      .addEdge('tools', 'agent')
      .compile();

    const result = await graph.invoke({ messages: [new HumanMessage('q')] });

    expect(executions).to.deep.equal(queries);
    expect(result.messages.at(-1)?.text).to.equal('answer');
    expect(getLoopGuardOutcome(run).refusals).to.deep.equal([]);
    expect(run.shouldStop().action).to.equal('continue');
  });

  it('prepareLoopGuardModelCall: messages trimmed since the last model call (trim_messages, a summary) are a compaction', () => {
    const run = new LoopGuard().startRun('trimmed');
    const read = { tool: 'read_file', args: { path: 'src/a.ts' } };
    const question = new HumanMessage('What is in src/a.ts?');
    const asked = new AIMessage({ content: '', tool_calls: [{ id: 'call_1', name: 'read_file', args: read.args }] });
    const answered = new ToolMessage({ content: 'export const a = 1;', tool_call_id: 'call_1' });
    prepareLoopGuardModelCall(run, { messages: [question], tools: [] });
    run.finishCall(run.startCall(read), { result: 'export const a = 1;' });
    prepareLoopGuardModelCall(run, { messages: [question, asked, answered], tools: [] });
    expect(run.shouldRefuse(read).action, 'its result is in the messages').to.equal('refuse');
    // The graph's history was summarised: the tool result is gone from what the model is sent.
    prepareLoopGuardModelCall(run, { messages: [new SystemMessage('Summary: the user asked about src/a.ts.'), question], tools: [] });
    expect(run.shouldRefuse(read).action, 'the model no longer has it').to.equal('allow');
  });
});
