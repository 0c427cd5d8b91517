// guardLangChainTools on real @langchain/core tools, invoked the way ToolNode invokes them
// (with a ToolCall), and as plain tools.
import { expect } from 'chai';
import { StructuredTool, tool } from '@langchain/core/tools';
import { HumanMessage, ToolMessage } from '@langchain/core/messages';
import { createAgent } from 'langchain';
import { z } from 'zod';

import { LoopGuard } from '../../../src/core/loop-guard.js';
import { createMemoryRunStore } from '../../../src/core/shared-ledger/create-memory-run-store.js';
import { createGuardedAgentRun, guardLangChainTools, LoopGuardCallbackHandler, loopGuardMiddleware } from '../../../src/integrations/langchain/index.js';
import { expectSetupErrors, type SetupCase } from '../../helpers/expect-setup-errors.js';
import { ScriptedChatModel, toolMessagesIn } from './helpers/scripted-chat-model.js';
import { slowSendEmail } from './helpers/slow-send-email.js';

const toolCall = (id: string, args: Record<string, unknown>) => ({ id, name: 'search_docs', args, type: 'tool_call' as const });

describe('guardLangChainTools', () => {
  it('setup without a run, tools or options is a LoopGuardConfigError naming the field, not a raw TypeError or a silently unguarded tool', () => {
    const guard = new LoopGuard();
    const run = guard.startRun();
    const executions: string[] = [];
    const tools = [tool(async ({ query }) => (executions.push(query), 'same docs'), { name: 'search_docs', description: 'Search', schema: z.object({ query: z.string() }) })];
    const setups: SetupCase[] = [
      // Was accepted: every call then ran unguarded (claimCall on undefined swallowed by failOpen).
      ['guardLangChainTools(tools, {})', () => guardLangChainTools(tools, {} as never), 'run', /^run: must be the run to guard \(guard\.startRun\(id\)\), got undefined$/],
      ['guardLangChainTools(tools, undefined)', () => guardLangChainTools(tools, undefined as never), 'options', /^options: must be an options object .*got undefined$/],
      ['guardLangChainTools(undefined, { run })', () => guardLangChainTools(undefined as never, { run }), 'tools', /^tools: must be an array of tools/],
      ['createGuardedAgentRun(undefined)', () => createGuardedAgentRun(undefined as never), 'options', /^options: must be an options object/],
      ['createGuardedAgentRun({ guard })', () => createGuardedAgentRun({ guard } as never), 'tools', /^tools: must be an array of tools/],
      ['createGuardedAgentRun({ tools })', () => createGuardedAgentRun({ tools } as never), 'guard', /^guard: must be a LoopGuard/],
      ['loopGuardMiddleware(undefined)', () => loopGuardMiddleware(undefined as never), 'run', /^run: must be the run to guard/],
      ['new LoopGuardCallbackHandler(undefined)', () => new LoopGuardCallbackHandler(undefined as never), 'options', /^options: must be an options object/],
      ['new LoopGuardCallbackHandler({})', () => new LoopGuardCallbackHandler({} as never), 'run', /^run: must be the run to guard/],
    ];
    expectSetupErrors(setups);
    expect(executions).to.deep.equal([]);
  });

  it('keeps the tool as LangChain sees it: class, name, description, schema, returnDirect, responseFormat', () => {
    const schema = z.object({ query: z.string() });
    const original = tool(async () => 'x', { name: 'search_docs', description: 'Search the docs', schema, returnDirect: true });
    const [guarded] = guardLangChainTools([original], { run: new LoopGuard().startRun() });
    expect(guarded).to.not.equal(original);
    expect(guarded).to.be.instanceOf(StructuredTool);
    expect(guarded.name).to.equal('search_docs');
    expect(guarded.description).to.equal('Search the docs');
    expect(guarded.schema).to.equal(schema);
    expect(guarded.returnDirect).to.equal(true);
    expect(guarded.responseFormat).to.equal('content');
  });

  it('a refused call never runs and its ToolMessage carries the refusal; the original stays unguarded', async () => {
    const executions: string[] = [];
    const original = tool(async ({ query }) => (executions.push(query), JSON.stringify([{ id: 'a' }])), {
      name: 'search_docs',
      description: 'Search',
      schema: z.object({ query: z.string(), limit: z.number().default(10) }),
    });
    const run = new LoopGuard({ tools: { search_docs: { readOnly: true } } }).startRun();
    const [guarded] = guardLangChainTools([original], { run });

    const first = await guarded.invoke(toolCall('c1', { query: 'retention' }));
    // The same call once the schema filled the default in.
    const second = await guarded.invoke(toolCall('c2', { query: 'retention', limit: 10 }));

    expect(executions).to.deep.equal(['retention']);
    expect(first).to.be.instanceOf(ToolMessage);
    expect((second as ToolMessage).tool_call_id).to.equal('c2');
    expect((second as ToolMessage).text).to.match(/^Not run: search_docs was already called with these same arguments in this run \(call c1, round 1\)/);
    await original.invoke(toolCall('c3', { query: 'retention' }));
    expect(executions).to.have.length(2);
  });

  it('records content of content_and_artifact tools and returns the [content, artifact] pair on refusal', async () => {
    const original = tool(async ({ query }) => [`found ${query}`, { raw: query }] as [string, unknown], {
      name: 'search_docs',
      description: 'Search',
      schema: z.object({ query: z.string() }),
      responseFormat: 'content_and_artifact',
    });
    const run = new LoopGuard({ tools: { search_docs: { readOnly: true } } }).startRun();
    const [guarded] = guardLangChainTools([original], { run });

    const first = (await guarded.invoke(toolCall('c1', { query: 'q' }))) as ToolMessage;
    const refused = (await guarded.invoke(toolCall('c2', { query: 'q' }))) as ToolMessage;

    expect(first.artifact).to.deep.equal({ raw: 'q' });
    expect(refused.text).to.match(/^Not run:/);
    expect(refused.artifact).to.equal(undefined);
  });

  it('records errors and rethrows them untouched; works for StructuredTool subclasses', async () => {
    class FetchDoc extends StructuredTool {
      name = 'fetch_doc';
      description = 'Fetch a document';
      schema = z.object({ id: z.string() });
      attempts = 0;
      async _call({ id }: { id: string }): Promise<string> {
        this.attempts += 1;
        throw new Error(`document ${id} not found (404)`);
      }
    }
    const original = new FetchDoc();
    const run = new LoopGuard().startRun();
    const [guarded] = guardLangChainTools([original], { run });

    for (const id of ['c1', 'c2']) {
      const error = await guarded.invoke({ id, name: 'fetch_doc', args: { id: 'gdpr' }, type: 'tool_call' }).then(
        () => undefined,
        (thrown: unknown) => thrown,
      );
      expect((error as Error).message).to.equal('document gdpr not found (404)');
    }
    const refused = (await guarded.invoke({ id: 'c3', name: 'fetch_doc', args: { id: 'gdpr' }, type: 'tool_call' })) as ToolMessage;

    expect(original.attempts).to.equal(2);
    expect(refused.text).to.match(/^Not run: fetch_doc with these arguments failed 2 times in a row with the same error/);
    expect(run.partial().tools.fetch_doc.failures).to.equal(2);
  });

  it('records the return value of a streaming tool', async () => {
    const original = tool(
      async function* ({ query }: { query: string }) {
        yield { progress: 0.5 };
        return `result for ${query}`;
      },
      { name: 'search_docs', description: 'Search', schema: z.object({ query: z.string() }) },
    );
    const run = new LoopGuard({ tools: { search_docs: { readOnly: true } } }).startRun();
    const [guarded] = guardLangChainTools([original], { run });

    const first = (await guarded.invoke(toolCall('c1', { query: 'q' }))) as ToolMessage;
    expect(first.text).to.equal('result for q');
    expect(run.inFlight).to.equal(0);
    expect(run.partial().newFacts).to.equal(1);
  });

  it('a result that throws when read (a lazy record) is returned as it is and recorded as a new fact, not left in flight; streamed too', async () => {
    // An ORM-style record whose lazy field throws outside its session: LangChain hands it back untouched.
    const lazyRecord = (id: string) => ({ id, get type(): string { throw new Error('lazy field read outside its session'); } });
    const plain = tool(async ({ id }: { id: string }) => lazyRecord(id), { name: 'load_record', description: 'Load', schema: z.object({ id: z.string() }) });
    const streamed = tool(
      async function* ({ id }: { id: string }) {
        yield { progress: 0.5 };
        return lazyRecord(id);
      },
      { name: 'stream_record', description: 'Load', schema: z.object({ id: z.string() }) },
    );
    const run = new LoopGuard().startRun();
    const guardedTools = guardLangChainTools([plain, streamed], { run });
    for (const guarded of guardedTools) {
      for (const id of ['a', 'b']) {
        const result = await guarded.invoke({ id }).catch((error: unknown) => error);
        expect(result instanceof Error ? result.message : (result as { id: string }).id, guarded.name).to.equal(id);
        expect(run.inFlight, guarded.name).to.equal(0);
      }
    }
    expect(run.partial()).to.include({ executed: 4, newFacts: 4 });
  });

  // LangChain's tool() rejects the moment its signal aborts, with the abort's reason (any Error
  // or string the caller chose), and lets the tool's function run on. Recorded as that reason,
  // a deterministic error, the business key was released while the email was still being sent:
  // the next run's send_email was allowed and the email went out twice.
  it('a business-key write aborted with a reason of the caller\'s own keeps its key: the next run is refused, the email goes out once', async () => {
    const sent: string[] = [];
    const sendEmail = slowSendEmail(sent);
    const guard = new LoopGuard({ store: createMemoryRunStore(), idempotentWrites: { send_email: { key: ['to'] } }, logger: { warn: () => undefined } });
    for (const reason of [new Error('user pressed stop'), 'user pressed stop']) {
      sent.length = 0;
      const call = { id: 'c1', name: 'send_email', args: { to: `ops+${typeof reason}@example.com` }, type: 'tool_call' as const };
      const [first] = guardLangChainTools([sendEmail], { run: guard.startRun() });
      const controller = new AbortController();
      setTimeout(() => controller.abort(reason), 10);
      const thrown = await first.invoke(call, { signal: controller.signal }).then(() => 'nothing thrown', (error: Error) => error.message);
      expect(thrown).to.equal('user pressed stop');
      await new Promise((resolve) => setTimeout(resolve, 100)); // the aborted call's function sends the email anyway
      await guard.flush();
      const [second] = guardLangChainTools([sendEmail], { run: guard.startRun() });
      const answer = (await second.invoke({ ...call, id: 'c2' })) as ToolMessage;
      expect(answer.text, String(reason)).to.match(/^Not run: the same send_email \(same business key\) is being done right now/);
      expect(sent).to.deep.equal([call.args.to]);
    }
  });

  it('a result whose `next` throws when read: LangChain\'s own error, as without loopguard, and the call is not left in flight', async () => {
    const record = { id: 'a', get next(): string { throw new Error('lazy link read outside its session'); } };
    class LoadRecord extends StructuredTool {
      name = 'load_record';
      description = 'Load';
      schema = z.object({ id: z.string() });
      async _call(): Promise<string> {
        return record as unknown as string;
      }
    }
    const original = new LoadRecord();
    const unguarded = await original.invoke({ id: 'a' }).then(() => 'nothing thrown', (error: unknown) => (error as Error).message);
    const run = new LoopGuard().startRun();
    const [guarded] = guardLangChainTools([original], { run });
    const thrown = await guarded.invoke({ id: 'a' }).then(() => 'nothing thrown', (error: unknown) => (error as Error).message);
    expect(thrown).to.equal(unguarded).and.to.equal('lazy link read outside its session');
    expect(run.inFlight).to.equal(0);
  });
});

// A tool may return a ToolMessage itself (to set its status, or an artifact): LangChain hands it
// to the model as is. loopguard must judge what the model reads, its content and status, not
// the message object with its per-call tool_call_id.
describe('issue 23 #17: a tool that returns a ToolMessage is judged by its content and status (real createAgent)', () => {
  const toolCallIdOf = (config: unknown) => (config as { toolCall: { id: string } }).toolCall.id;
  const agentRun = async (tool: ReturnType<typeof makeLookup>, turns: number) => {
    const guarded = createGuardedAgentRun({ guard: new LoopGuard(), tools: [tool] });
    const model = new ScriptedChatModel(({ turn }) => (turn <= turns ? { calls: [{ tool: 'lookup_order', args: { id: 'A-1' } }] } : { text: 'done' }));
    const result = await createAgent({ model, tools: guarded.tools, middleware: [guarded.middleware] }).invoke({ messages: [new HumanMessage('Where is order A-1?')] });
    return { outputs: toolMessagesIn(result.messages), outcome: guarded.end() };
  };
  function makeLookup(executions: string[], answer: (config: unknown) => unknown) {
    return tool(async ({ id }, config) => (executions.push(id), answer(config)), {
      name: 'lookup_order',
      description: 'Look an order up',
      schema: z.object({ id: z.string() }),
    });
  }

  it('issue 23 #17: identical ToolMessage answers are identical results: refused where the same string answer is (call 3), not run 6 times', async () => {
    const answer = 'order A-1: shipped';
    const asString: string[] = [];
    const viaString = await agentRun(makeLookup(asString, () => answer), 6);
    const asMessage: string[] = [];
    const viaMessage = await agentRun(makeLookup(asMessage, (config) => new ToolMessage({ content: answer, tool_call_id: toolCallIdOf(config) })), 6);

    expect(asString, 'the string twin: the third identical call is refused').to.have.length(2);
    expect(asMessage).to.deep.equal(asString);
    expect(viaMessage.outputs.get('call_1')).to.equal(answer);
    expect(viaMessage.outputs.get('call_3')).to.equal(viaString.outputs.get('call_3'));
    expect(viaMessage.outputs.get('call_3')).to.match(/^Not run: /);
    expect(viaMessage.outcome.refusals.map((refusal) => refusal.reason)).to.deep.equal(viaString.outcome.refusals.map((refusal) => refusal.reason));
  });

  it("issue 23 #17: a ToolMessage with status 'error' is a failure: the same error twice refuses the third call, as a thrown error does", async () => {
    const attempts: string[] = [];
    const { outputs, outcome } = await agentRun(
      makeLookup(attempts, (config) => new ToolMessage({ content: 'order A-1 not found (404)', status: 'error', tool_call_id: toolCallIdOf(config) })),
      6,
    );

    expect(outputs.get('call_1')).to.equal('order A-1 not found (404)');
    expect(attempts).to.deep.equal(['A-1', 'A-1']);
    expect(outputs.get('call_3')).to.match(/^Not run: lookup_order with these arguments failed 2 times in a row with the same error/);
    expect(outcome.partial.tools.lookup_order!.failures).to.equal(2);
    expect(outcome.refusals[0]?.reason).to.equal('repeat.same_error');
  });
});
