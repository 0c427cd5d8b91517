// The LangChain adapter driven through langchain's real createAgent graph (LangGraph underneath):
// a scripted BaseChatModel that binds tools, real tool() tools, the real engine. Assertions are
// on what the model was sent (tool messages, the nudge, the stop message), which tools each
// model call offered, what the tools actually ran, and the final state of the graph.
import { expect } from 'chai';
import { tool } from '@langchain/core/tools';
import { AIMessage, HumanMessage, ToolMessage, type BaseMessage } from '@langchain/core/messages';
import { createAgent, createMiddleware } from 'langchain';
import { z } from 'zod';

import { LoopGuard } from '../../../src/core/loop-guard.js';
import { createMemoryRunStore } from '../../../src/core/shared-ledger/create-memory-run-store.js';
import { createGuardedAgentRun, loopGuardMiddleware, guardLangChainTools } from '../../../src/integrations/langchain/index.js';
import { ScriptedChatModel, toolMessagesIn } from './helpers/scripted-chat-model.js';
import { slowSendEmail } from './helpers/slow-send-email.js';

const SAME_DOCS = { results: [{ id: 'data-retention', title: 'Data retention' }, { id: 'privacy-overview', title: 'Privacy overview' }] };

function searchDocs(executions: string[]) {
  return tool(
    async ({ query }) => {
      executions.push(query);
      return JSON.stringify({ ...SAME_DOCS, took_ms: Math.random() });
    },
    { name: 'search_docs', description: 'Search the documentation', schema: z.object({ query: z.string() }) },
  );
}

const policy = { tools: { search_docs: { readOnly: true } } };
const question = (text: string) => ({ messages: [new HumanMessage(text)] });
const lastText = (messages: BaseMessage[]) => messages.at(-1)?.text;

describe('LangChain createAgent + loopguard middleware (real graph, scripted model)', () => {
  // A middleware before loopguard's that keeps the prompt short — only the latest tool result
  // goes to the model, as summarizationMiddleware or contextEditingMiddleware's ClearToolUsesEdit
  // do once the context is long: the model no longer has what it read, so reading it again is allowed.
  it('a middleware that drops or clears old tool results is a compaction: the file read before is read again', async () => {
    const reads: string[] = [];
    const readFile = tool(
      async ({ path }) => {
        reads.push(path);
        return `contents of ${path}`;
      },
      { name: 'read_file', description: 'Read a file', schema: z.object({ path: z.string() }) },
    );
    const paths = ['src/a.ts', 'src/b.ts', 'src/c.ts', 'src/a.ts'];
    const latestResultOnly = (clear: boolean) =>
      createMiddleware({
        name: 'latest-result-only',
        wrapModelCall: async (request, handler) => {
          const results = request.messages.filter((message) => ToolMessage.isInstance(message));
          const latest = results.at(-1);
          const messages = clear
            ? request.messages.map((message) => (ToolMessage.isInstance(message) && message !== latest ? new ToolMessage({ content: '[cleared]', tool_call_id: message.tool_call_id }) : message))
            : request.messages.filter((message) => !ToolMessage.isInstance(message) || message === latest);
          return handler({ ...request, messages });
        },
      });
    const play = async (trim: 'drop' | 'clear' | undefined) => {
      reads.length = 0;
      const guarded = createGuardedAgentRun({ guard: new LoopGuard(), tools: [readFile] });
      const model = new ScriptedChatModel(({ turn }) => (turn <= paths.length ? { calls: [{ tool: 'read_file', args: { path: paths[turn - 1]! } }] } : { text: 'read' }));
      const middleware = trim === undefined ? [guarded.middleware] : [latestResultOnly(trim === 'clear'), guarded.middleware];
      await createAgent({ model, tools: guarded.tools, middleware }).invoke(question('Read the sources.'));
      return guarded.end();
    };
    for (const trim of ['drop', 'clear'] as const) {
      const outcome = await play(trim);
      expect(reads, trim).to.deep.equal(paths);
      expect(outcome.refusals, trim).to.deep.equal([]);
    }
    expect((await play(undefined)).refusals.map((refusal) => refusal.reason)).to.deep.equal(['repeat.run_wide']);
  });

  it('refuses the same search as tool messages, then stops: the model answers without tools from the stop message', async () => {
    const executions: string[] = [];
    const guarded = createGuardedAgentRun({ guard: new LoopGuard(policy), tools: [searchDocs(executions)] });
    const model = new ScriptedChatModel(() => ({ calls: [{ tool: 'search_docs', args: { query: 'retention period' } }] }));
    const agent = createAgent({ model, tools: guarded.tools, middleware: [guarded.middleware] });

    const result = await agent.invoke(question('How long is data kept?'));

    expect(executions).to.deep.equal(['retention period']);
    const outputs = toolMessagesIn(result.messages);
    expect(outputs.get('call_1')).to.contain('data-retention');
    for (const id of ['call_2', 'call_3', 'call_4']) {
      expect(outputs.get(id)).to.match(/^Not run: search_docs was already called with these same arguments in this run \(call call_1, round 1\)/);
    }
    // Three rounds in which nothing could run stop a general run; the fifth model call is the answer.
    expect(model.requests).to.have.length(5);
    expect(model.requests.slice(0, 4).map((request) => request.offered)).to.deep.equal([['search_docs'], ['search_docs'], ['search_docs'], ['search_docs']]);
    const last = model.requests[4];
    expect(last.offered).to.deep.equal([]);
    expect(last.messages.at(-1)?.text).to.match(/^Tool use has ended for this run: /);
    // The graph ended on the model's answer; the stop message was for that call only.
    const final = result.messages.at(-1)!;
    expect(AIMessage.isInstance(final) && (final.tool_calls ?? []).length).to.equal(0);
    expect(lastText(result.messages)).to.equal('From what I found: data is kept 30 days after account deletion.');
    expect(result.messages.some((message) => /Tool use has ended/.test(message.text))).to.equal(false);

    const outcome = guarded.end();
    expect(outcome.stopReason).to.equal('refused_rounds');
    expect(outcome.refusals.map((refusal) => [refusal.callId, refusal.reason])).to.deep.equal([
      ['call_2', 'repeat.run_wide'],
      ['call_3', 'repeat.run_wide'],
      ['call_4', 'repeat.run_wide'],
    ]);
    expect(outcome.partial.executed).to.equal(1);
    expect(outcome.partial.rounds).to.equal(5);
    expect(outcome.partial.wastedTokens).to.be.greaterThan(0);
  });

  it('reworded searches that bring back the same documents: nudged in the model call, then stopped (stale_rounds)', async () => {
    const executions: string[] = [];
    const guarded = createGuardedAgentRun({ guard: new LoopGuard(policy), tools: [searchDocs(executions)] });
    const model = new ScriptedChatModel(({ turn }) => ({ calls: [{ tool: 'search_docs', args: { query: `retention wording ${turn}` } }] }));
    const agent = createAgent({ model, tools: guarded.tools, middleware: [guarded.middleware] });

    const result = await agent.invoke(question('How long is data kept?'));

    const outcome = guarded.end();
    expect(outcome.stopReason).to.equal('stale_rounds');
    expect(outcome.refusals).to.deep.equal([]);
    // Every search ran (each is a new call) until the stop; none after it.
    expect(executions).to.have.length(model.requests.length - 1);
    const nudged = model.requests.filter((request) => /returned only results you have already seen/.test(request.messages.at(-1)?.text ?? ''));
    expect(nudged.length).to.be.greaterThan(0);
    expect(model.requests.at(-1)!.offered).to.deep.equal([]);
    // The nudge is not written into the thread's state.
    expect(result.messages.some((message) => /already seen/.test(message.text))).to.equal(false);
    expect(lastText(result.messages)).to.match(/^From what I found/);
  });

  it('leaves honest work alone: distinct searches and pagination are never refused, nudged or stopped', async () => {
    const searched: string[] = [];
    const search = tool(
      async ({ query }) => {
        searched.push(query);
        return JSON.stringify({ results: [{ id: `doc-${query}` }] });
      },
      { name: 'search_docs', description: 'Search', schema: z.object({ query: z.string() }) },
    );
    const pages: Array<string | undefined> = [];
    const auditLog = tool(
      async ({ cursor }) => {
        pages.push(cursor);
        const page = cursor === undefined ? 0 : Number(cursor);
        return JSON.stringify({ entries: [{ id: `entry-${page}-a` }, { id: `entry-${page}-b` }], next_cursor: page < 3 ? String(page + 1) : null });
      },
      { name: 'list_audit_log', description: 'Page through the audit log', schema: z.object({ cursor: z.string().optional() }) },
    );
    const guarded = createGuardedAgentRun({
      guard: new LoopGuard({ tools: { search_docs: { readOnly: true }, list_audit_log: { readOnly: true, cursorArg: 'cursor' } } }),
      tools: [search, auditLog],
    });
    const script = [
      { calls: [{ tool: 'search_docs', args: { query: 'retention' } }, { tool: 'list_audit_log', args: {} }] },
      { calls: [{ tool: 'search_docs', args: { query: 'deletion' } }, { tool: 'list_audit_log', args: { cursor: '1' } }] },
      { calls: [{ tool: 'search_docs', args: { query: 'backups' } }, { tool: 'list_audit_log', args: { cursor: '2' } }] },
      { calls: [{ tool: 'list_audit_log', args: { cursor: '3' } }] },
      { text: 'Retention is 30 days; the audit log shows 8 entries.' },
    ];
    const model = new ScriptedChatModel(({ turn }) => script[turn - 1]);
    const agent = createAgent({ model, tools: guarded.tools, middleware: [guarded.middleware] });

    const result = await agent.invoke(question('Audit the retention settings'));

    expect(searched).to.deep.equal(['retention', 'deletion', 'backups']);
    expect(pages).to.deep.equal([undefined, '1', '2', '3']);
    expect(model.requests.every((request) => request.offered.length === 2)).to.equal(true);
    expect(model.requests.some((request) => /Note:|Tool use has ended/.test(request.messages.at(-1)?.text ?? ''))).to.equal(false);
    expect(lastText(result.messages)).to.equal('Retention is 30 days; the audit log shows 8 entries.');
    const outcome = guarded.end();
    expect(outcome.stopReason).to.equal(undefined);
    expect(outcome.refusals).to.deep.equal([]);
    expect(outcome.partial.executed).to.equal(7);
  });

  it('a model that asks for tools after the stop is ended on its reply: the reply loses the tool calls, no recursion-limit error', async () => {
    const executions: string[] = [];
    const guarded = createGuardedAgentRun({ guard: new LoopGuard(policy), tools: [searchDocs(executions)] });
    const model = new ScriptedChatModel(() => ({ calls: [{ tool: 'search_docs', args: { query: 'retention period' } }], insist: true }));
    const agent = createAgent({ model, tools: guarded.tools, middleware: [guarded.middleware] });

    const result = await agent.invoke(question('How long is data kept?'));

    expect(executions).to.have.length(1);
    expect(model.requests).to.have.length(5);
    const final = result.messages.at(-1)!;
    expect(AIMessage.isInstance(final)).to.equal(true);
    expect((final as AIMessage).tool_calls ?? []).to.deep.equal([]);
    expect(final.text).to.match(/^The agent was stopped before it wrote an answer: /);
    // The insisted-on reply replaced the model's message (same id), it was not appended.
    expect(result.messages.filter((message) => message.id === final.id)).to.have.length(1);
    expect(guarded.end().stopReason).to.equal('refused_rounds');
  });

  it('a tool error reaches the model exactly as without loopguard, and is recorded (same error three times: refused)', async () => {
    const failing = (attempts: string[]) =>
      tool(
        async ({ id }) => {
          attempts.push(id);
          throw new Error(`document ${id} not found (404)`);
        },
        { name: 'fetch_doc', description: 'Fetch a document', schema: z.object({ id: z.string() }) },
      );
    const script = () => ({ calls: [{ tool: 'fetch_doc', args: { id: 'gdpr' } }] });

    const unguardedAttempts: string[] = [];
    const unguardedModel = new ScriptedChatModel(({ turn }) => (turn < 2 ? script() : { text: 'done' }));
    const unguarded = await createAgent({ model: unguardedModel, tools: [failing(unguardedAttempts)] }).invoke(question('Fetch it'));

    const attempts: string[] = [];
    const guarded = createGuardedAgentRun({ guard: new LoopGuard(), tools: [failing(attempts)] });
    const model = new ScriptedChatModel(({ turn }) => (turn <= 4 ? script() : { text: 'done' }));
    const result = await createAgent({ model, tools: guarded.tools, middleware: [guarded.middleware] }).invoke(question('Fetch it'));

    const unguardedOutput = toolMessagesIn(unguarded.messages).get('call_1');
    expect(unguardedOutput).to.match(/not found \(404\)/);
    const outputs = toolMessagesIn(result.messages);
    expect(outputs.get('call_1')).to.equal(unguardedOutput);
    const firstToolMessage = result.messages.find((message) => message.type === 'tool') as unknown as { status?: string };
    expect(firstToolMessage.status).to.equal('error');
    // A deterministic error repeated unchanged: the third identical call is refused.
    expect(attempts).to.deep.equal(['gdpr', 'gdpr']);
    expect(outputs.get('call_3')).to.match(/^Not run: fetch_doc with these arguments failed 2 times in a row with the same error/);
    const outcome = guarded.end();
    expect(outcome.partial.tools.fetch_doc.failures).to.equal(2);
    expect(outcome.refusals[0]?.reason).to.equal('repeat.same_error');
  });

  it('fails open: a guard that throws never stops the agent (tools run, the model answers)', async () => {
    const executions: string[] = [];
    const guarded = createGuardedAgentRun({ guard: new LoopGuard(policy), tools: [searchDocs(executions)] });
    const broken = () => {
      throw new Error('loopguard bug');
    };
    guarded.run.claimCall = () => Promise.reject(new Error('store down'));
    guarded.run.shouldStop = broken;
    guarded.run.finishCall = broken;
    const model = new ScriptedChatModel(({ turn }) => (turn <= 4 ? { calls: [{ tool: 'search_docs', args: { query: 'retention period' } }] } : { text: 'answer' }));
    const agent = createAgent({ model, tools: guarded.tools, middleware: [guarded.middleware] });

    const result = await agent.invoke(question('How long is data kept?'));

    expect(executions).to.have.length(4);
    expect(model.requests.every((request) => request.offered.includes('search_docs'))).to.equal(true);
    expect(lastText(result.messages)).to.equal('answer');
  });

  it('with guardToolCalls, the middleware claims calls of tools it did not wrap, once (not again for guarded tools)', async () => {
    const executions: string[] = [];
    const guard = new LoopGuard(policy);
    const run = guard.startRun();
    const model = new ScriptedChatModel(({ turn }) => (turn <= 2 ? { calls: [{ tool: 'search_docs', args: { query: 'retention period' } }] } : { text: 'answer' }));
    const agent = createAgent({ model, tools: [searchDocs(executions)], middleware: [loopGuardMiddleware(run, { guardToolCalls: true })] });

    const result = await agent.invoke(question('How long is data kept?'));

    expect(executions).to.have.length(1);
    expect(toolMessagesIn(result.messages).get('call_2')).to.match(/^Not run: search_docs was already called/);

    // Guarded tools and the wrapToolCall hook on the same run: each call is claimed once.
    const again: string[] = [];
    const run2 = guard.startRun();
    const model2 = new ScriptedChatModel(({ turn }) => (turn <= 1 ? { calls: [{ tool: 'search_docs', args: { query: 'x' } }] } : { text: 'answer' }));
    const agent2 = createAgent({ model: model2, tools: guardLangChainTools([searchDocs(again)], { run: run2 }), middleware: [loopGuardMiddleware(run2, { guardToolCalls: true })] });
    await agent2.invoke(question('q'));
    expect(again).to.deep.equal(['x']);
    expect(run2.partial().toolCalls).to.equal(1);
  });

  it('appends the policy to the system prompt with describePolicy', async () => {
    const guard = new LoopGuard(policy);
    const guarded = createGuardedAgentRun({ guard, tools: [searchDocs([])], describePolicy: true });
    const model = new ScriptedChatModel(() => ({ text: 'ok' }));
    await createAgent({ model, tools: guarded.tools, middleware: [guarded.middleware], systemPrompt: 'You answer from the docs.' }).invoke(question('q'));
    const system = model.requests[0].messages[0];
    expect(system.type).to.equal('system');
    expect(system.text).to.equal(`You answer from the docs.\n\n${guard.describePolicy()}`);
    guarded.end();
  });
});

describe('LangChain GuardedAgentRun reused after end()', () => {
  it('offers no tools, says tool use has ended, and warns once on diag', async () => {
    const { diag, DiagLogLevel } = await import('@opentelemetry/api');
    const warnings: string[] = [];
    diag.setLogger({ warn: (message: string) => warnings.push(message), error() {}, info() {}, debug() {}, verbose() {} }, DiagLogLevel.WARN);
    try {
      const executions: string[] = [];
      const guarded = createGuardedAgentRun({ guard: new LoopGuard(policy), tools: [searchDocs(executions)] });
      const model = new ScriptedChatModel(() => ({ calls: [{ tool: 'search_docs', args: { query: 'q' } }] }));
      const agent = createAgent({ model, tools: guarded.tools, middleware: [guarded.middleware] });
      guarded.end();
      await agent.invoke(question('q'));
      await agent.invoke(question('q'));
      expect(executions).to.deep.equal([]);
      expect(model.requests.every((request) => request.offered.length === 0)).to.equal(true);
      expect(model.requests[0].messages.at(-1)?.text).to.match(/^Tool use has ended/);
      expect(warnings.filter((warning) => /were used after end\(\)/.test(warning))).to.have.length(1);
    } finally {
      diag.disable();
    }
  });
});

// langchain's ToolNode hands the graph's signal to the tool, and tool() rejects the moment it
// aborts with the abort's reason while its function runs on; through the middleware's
// wrapToolCall that reason was recorded as a deterministic error and freed the business key.
describe('loopGuardMiddleware with guardToolCalls: a business-key write aborted with a reason of the caller\'s own', () => {
  it('keeps its key: the next run is refused, the email goes out once', async () => {
    const sent: string[] = [];
    const sendEmail = slowSendEmail(sent);
    const guard = new LoopGuard({ store: createMemoryRunStore(), idempotentWrites: { send_email: { key: ['to'] } }, logger: { warn: () => undefined } });
    const agentFor = () => {
      const run = guard.startRun();
      const model = new ScriptedChatModel(({ turn }) => (turn <= 1 ? { calls: [{ tool: 'send_email', args: { to: 'ops@example.com' } }] } : { text: 'done' }));
      return { run, agent: createAgent({ model, tools: [sendEmail], middleware: [loopGuardMiddleware(run, { guardToolCalls: true })] }) };
    };
    const first = agentFor();
    const controller = new AbortController();
    setTimeout(() => controller.abort(new Error('user pressed stop')), 20);
    await first.agent.invoke(question('send it'), { signal: controller.signal }).catch(() => undefined);
    await new Promise((resolve) => setTimeout(resolve, 100)); // the aborted call's function sends the email anyway
    await guard.flush();
    const second = agentFor();
    const result = await second.agent.invoke(question('send it'));
    expect(toolMessagesIn(result.messages).get('call_1')).to.match(/^Not run: the same send_email \(same business key\) is being done right now/);
    expect(sent).to.deep.equal(['ops@example.com']);
  });
});
