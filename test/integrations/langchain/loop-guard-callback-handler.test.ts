// Observe only: LoopGuardCallbackHandler on a real createAgent run with plain (unguarded) tools.
import { expect } from 'chai';
import { tool } from '@langchain/core/tools';
import { HumanMessage } from '@langchain/core/messages';
import { createAgent } from 'langchain';
import { z } from 'zod';

import { LoopGuard } from '../../../src/core/loop-guard.js';
import type { CallDecision, PrehashedToolCall } from '../../../src/core/types.js';
import { LoopGuardCallbackHandler } from '../../../src/integrations/langchain/index.js';
import { ScriptedChatModel } from './helpers/scripted-chat-model.js';

function searchDocs(executions: string[], distinct: boolean) {
  return tool(
    async ({ query }) => {
      executions.push(query);
      return JSON.stringify({ results: [{ id: distinct ? `doc-${query}` : 'data-retention' }] });
    },
    { name: 'search_docs', description: 'Search', schema: z.object({ query: z.string() }) },
  );
}

describe('LoopGuardCallbackHandler (observe only)', () => {
  it('feeds the ledger from callbacks, never refuses: would-refuse decisions are listed and marked observe-only', async () => {
    const decided: Array<{ call: PrehashedToolCall; decision: CallDecision; round: number }> = [];
    const guard = new LoopGuard({ tools: { search_docs: { readOnly: true } }, listeners: [{ callDecided: (_run, call, decision, round) => decided.push({ call, decision, round }) }] });
    const handler = new LoopGuardCallbackHandler({ run: guard.startRun() });
    const executions: string[] = [];
    const model = new ScriptedChatModel(({ turn }) => (turn <= 5 ? { calls: [{ tool: 'search_docs', args: { query: 'retention' } }] } : { text: 'answer' }));
    const agent = createAgent({ model, tools: [searchDocs(executions, false)] });

    const result = await agent.invoke({ messages: [new HumanMessage('q')] }, { callbacks: [handler] });

    // Nothing was stopped or refused: every call ran and the model answered.
    expect(executions).to.have.length(5);
    expect(result.messages.at(-1)?.text).to.equal('answer');
    expect(handler.wouldRefuse.map((entry) => [entry.callId, entry.reason, entry.round])).to.deep.equal([
      ['call_2', 'repeat.run_wide', 2],
      ['call_3', 'repeat.run_wide', 3],
      ['call_4', 'repeat.run_wide', 4],
      ['call_5', 'repeat.run_wide', 5],
    ]);
    expect(decided.every((entry) => entry.call.observeOnly === true)).to.equal(true);
    expect(decided.map((entry) => entry.round)).to.deep.equal([1, 2, 3, 4, 5]);
    // Where it would have stopped the run.
    const verdict = handler.run.shouldStop();
    expect(verdict.action).to.equal('stop');
    expect(verdict.action === 'stop' && verdict.reason).to.equal('refused_rounds');
    expect(handler.run.partial().wastedTokens).to.be.greaterThan(0);
  });

  it('an honest run watched by the handler: no would-refuse, the verdict is continue', async () => {
    const handler = new LoopGuardCallbackHandler({ run: new LoopGuard({ tools: { search_docs: { readOnly: true } } }).startRun() });
    const executions: string[] = [];
    const queries = ['retention', 'deletion', 'backups'];
    const model = new ScriptedChatModel(({ turn }) => (turn <= 3 ? { calls: [{ tool: 'search_docs', args: { query: queries[turn - 1] } }] } : { text: 'answer' }));

    await createAgent({ model, tools: [searchDocs(executions, true)] }).invoke({ messages: [new HumanMessage('q')] }, { callbacks: [handler] });

    expect(executions).to.deep.equal(queries);
    expect(handler.wouldRefuse).to.deep.equal([]);
    expect(handler.run.shouldStop().action).to.equal('continue');
    expect(handler.run.partial().executed).to.equal(3);
    expect(handler.run.partial().newFacts).to.equal(3);
  });

  it('a shell tool watched by the handler is judged by its command, as on every door: the same grep again would be refused', async () => {
    const decided: PrehashedToolCall[] = [];
    const handler = new LoopGuardCallbackHandler({ run: new LoopGuard({ listeners: [{ callDecided: (_run, call) => decided.push(call) }] }).startRun() });
    const executions: string[] = [];
    const bash = tool(
      async ({ command }) => {
        executions.push(command);
        return 'src/a.ts:3: // TODO retry\n';
      },
      { name: 'bash', description: 'Run a shell command', schema: z.object({ command: z.string() }) },
    );
    const model = new ScriptedChatModel(({ turn }) => (turn <= 2 ? { calls: [{ tool: 'bash', args: { command: 'grep -rn TODO src' } }] } : { text: 'answer' }));
    await createAgent({ model, tools: [bash] }).invoke({ messages: [new HumanMessage('q')] }, { callbacks: [handler] });

    expect(executions).to.have.length(2);
    // Known by its hash alone, a shell command is a call of unknown effect: it may have written, so
    // the same command again was a re-run and allowed. Read from its arguments, it is a read.
    expect(decided[0]).to.include({ effect: 'read', family: 'grep', observeOnly: true });
    expect(handler.wouldRefuse.map((entry) => [entry.callId, entry.reason])).to.deep.equal([['call_2', 'repeat.run_wide']]);
  });

  it('records tool errors and fails open when the guard throws', async () => {
    const run = new LoopGuard().startRun();
    const handler = new LoopGuardCallbackHandler({ run });
    const failing = tool(async () => {
      throw new Error('document not found (404)');
    }, { name: 'fetch_doc', description: 'Fetch', schema: z.object({ id: z.string() }) });
    const model = new ScriptedChatModel(({ turn }) => (turn <= 1 ? { calls: [{ tool: 'fetch_doc', args: { id: 'x' } }] } : { text: 'answer' }));
    await createAgent({ model, tools: [failing] }).invoke({ messages: [new HumanMessage('q')] }, { callbacks: [handler] });
    expect(run.partial().tools.fetch_doc.failures).to.equal(1);
    expect(run.inFlight).to.equal(0);

    const broken = new LoopGuardCallbackHandler({ run: new LoopGuard().startRun() });
    const bug = (): never => {
      throw new Error('loopguard bug');
    };
    broken.run.startCall = bug;
    broken.run.beginRound = bug;
    const executions: string[] = [];
    const model2 = new ScriptedChatModel(({ turn }) => (turn <= 2 ? { calls: [{ tool: 'search_docs', args: { query: 'q' } }] } : { text: 'answer' }));
    const result = await createAgent({ model: model2, tools: [searchDocs(executions, false)] }).invoke({ messages: [new HumanMessage('q')] }, { callbacks: [broken] });
    expect(executions).to.have.length(2);
    expect(result.messages.at(-1)?.text).to.equal('answer');
  });

  it('a tool output that throws when read (a lazy record) is recorded as a new fact: the call is not left in flight', async () => {
    const run = new LoopGuard().startRun();
    const handler = new LoopGuardCallbackHandler({ run });
    const record = { id: 'a', get type(): string { throw new Error('lazy field read outside its session'); } };
    const load = tool(async () => record, { name: 'load_record', description: 'Load', schema: z.object({ id: z.string() }) });
    expect((await load.invoke({ id: 'a' }, { callbacks: [handler] })) === record).to.equal(true);
    expect(run.inFlight).to.equal(0);
    expect(run.partial()).to.include({ executed: 1, newFacts: 1 });
  });
});
