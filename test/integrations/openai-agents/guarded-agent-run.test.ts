// The OpenAI Agents adapter driven through the real Runner: a scripted model implementing the
// SDK's Model interface, real function tools, the real engine. Assertions are on what the
// model was sent (tool outputs, instructions) and which tools each request offered.
import { expect } from 'chai';
import { Agent, Runner, setTracingDisabled, tool } from '@openai/agents';
import { z } from 'zod';

import { LoopGuard } from '../../../src/core/loop-guard.js';
import { createMemoryRunStore } from '../../../src/core/shared-ledger/create-memory-run-store.js';
import type { RoundSummary } from '../../../src/core/types.js';
import { createGuardedAgentRun, guardAgentTools } from '../../../src/integrations/openai-agents/index.js';
import { expectSetupErrors, type SetupCase } from '../../helpers/expect-setup-errors.js';
import { ScriptedAgentsModel, functionOutputsIn, type ScriptedAgentTurn } from '../helpers/scripted-agents-model.js';

setTracingDisabled(true);

function searchTool(executions: string[]) {
  return tool({
    name: 'search',
    description: 'Search the documentation',
    parameters: z.object({ query: z.string() }),
    execute: async ({ query }) => {
      executions.push(query);
      return JSON.stringify({ results: [{ id: 'data-retention' }, { id: 'privacy-overview' }], tookMs: Math.random() });
    },
  });
}

const offered = (model: ScriptedAgentsModel) => model.requests.map((request) => request.tools.map((t) => t.name));

describe('OpenAI Agents adapter (Runner + scripted Model)', () => {
  it('setup without a run, tools or options is a LoopGuardConfigError naming the field, not a raw TypeError or a silently unguarded tool', () => {
    const guard = new LoopGuard();
    const run = guard.startRun();
    const tools = [searchTool([])];
    const setups: SetupCase[] = [
      ['guardAgentTools(tools, undefined)', () => guardAgentTools(tools, undefined as never), 'options', /^options: must be an options object .*got undefined$/],
      ['guardAgentTools(tools, {})', () => guardAgentTools(tools, {} as never), 'run', /^run: must be the run to guard \(guard\.startRun\(id\)\), got undefined$/],
      ['guardAgentTools(undefined, { run })', () => guardAgentTools(undefined as never, { run }), 'tools', /^tools: must be an array of tools/],
      ['createGuardedAgentRun(undefined)', () => createGuardedAgentRun(undefined as never), 'options', /^options: must be an options object/],
      ['createGuardedAgentRun({ guard })', () => createGuardedAgentRun({ guard } as never), 'tools', /^tools: must be an array of tools/],
      ['createGuardedAgentRun({ tools })', () => createGuardedAgentRun({ tools } as never), 'guard', /^guard: must be a LoopGuard/],
    ];
    expectSetupErrors(setups);
  });

  // A run whose callModelInputFilter keeps the history short (only the latest tool result goes
  // to the model): the model no longer has what it read before, so reading it again is allowed.
  it('a callModelInputFilter that drops old tool results is a compaction: the file read before is read again', async () => {
    const reads: string[] = [];
    const readFile = tool({
      name: 'read_file',
      description: 'Read a file',
      parameters: z.object({ path: z.string() }),
      execute: async ({ path }) => {
        reads.push(path);
        return `contents of ${path}`;
      },
    });
    const turns: ScriptedAgentTurn[] = [...['src/a.ts', 'src/b.ts', 'src/c.ts', 'src/a.ts'].map((path, index) => ({ calls: [{ tool: 'read_file', args: { path }, id: `read-${index + 1}` }] })), { text: 'read' }];
    const play = async (trim: boolean) => {
      reads.length = 0;
      const guarded = createGuardedAgentRun({
        guard: new LoopGuard(),
        tools: [readFile],
        callModelInputFilter: trim
          ? ({ modelData }) => {
              const results = modelData.input.filter((item) => item.type === 'function_call_result');
              const latest = results.at(-1);
              return { ...modelData, input: modelData.input.filter((item) => item.type !== 'function_call_result' || item === latest) };
            }
          : undefined,
      });
      const model = new ScriptedAgentsModel(turns);
      await new Runner().run(new Agent({ name: 'reader', model, tools: guarded.tools }), 'Read the sources.', { ...guarded.runOptions });
      return { model, outcome: guarded.end() };
    };
    const trimmed = await play(true);
    expect([...functionOutputsIn(trimmed.model.requests[3]!).keys()]).to.not.include('read-1');
    expect(reads).to.deep.equal(['src/a.ts', 'src/b.ts', 'src/c.ts', 'src/a.ts']);
    expect(trimmed.outcome.refusals).to.deep.equal([]);
    const kept = await play(false);
    expect(kept.outcome.refusals.map((refusal) => refusal.reason)).to.deep.equal(['repeat.run_wide']);
  });

  it('refuses an exact repeat with rejectContent: the tool does not run and the model reads why', async () => {
    const executions: string[] = [];
    // Document 000's researcher: an exact repeat is refused at the first repeat.
    const guarded = createGuardedAgentRun({ guard: new LoopGuard({ profile: 'researcher' }), tools: [searchTool(executions)] });
    const model = new ScriptedAgentsModel([
      { calls: [{ tool: 'search', args: { query: 'retention' }, id: 'first' }] },
      { calls: [{ tool: 'search', args: '{"query":  "retention"}', id: 'again' }] },
      { text: 'Data is kept 30 days after deletion.' },
    ]);
    const agent = new Agent({ name: 'support', instructions: 'Answer from the docs.', model, tools: guarded.tools });

    const result = await new Runner().run(agent, 'How long is data kept?', { ...guarded.runOptions });

    expect(executions).to.deep.equal(['retention']);
    expect(functionOutputsIn(model.requests[2]).get('again')).to.match(/^Not run: search was already called with these same arguments in this run \(call first, round 1\)/);
    expect(result.finalOutput).to.equal('Data is kept 30 days after deletion.');
    const rejection = result.toolInputGuardrailResults.find((entry) => entry.output.behavior.type === 'rejectContent');
    expect(rejection?.guardrail.name).to.equal('loopguard');
    const outcome = guarded.end();
    expect(outcome.refusals.map((refusal) => [refusal.callId, refusal.reason])).to.deep.equal([['again', 'repeat.run_wide']]);
    expect(outcome.stopReason).to.equal(undefined);
  });

  it('nudges in the instructions, hides the looping tool, and ends the run with no tools and the stop message', async () => {
    const executions: string[] = [];
    const rounds: RoundSummary[] = [];
    // Document 000's researcher in a reworded-search loop.
    const guard = new LoopGuard({ profile: 'researcher', listeners: [{ roundClosed: (_run, summary) => rounds.push(summary) }] });
    // Round 1 also reads a document: the run has used a second tool, so hiding search still
    // leaves it a tool (the ladder never disables the only tool a run uses: issue 9, item 6).
    const readDocs: string[] = [];
    const readDoc = tool({
      name: 'readDoc',
      description: 'Read one document',
      parameters: z.object({ id: z.string() }),
      execute: async ({ id }) => {
        readDocs.push(id);
        return JSON.stringify({ id, text: 'Workspace data is deleted 30 days after termination.' });
      },
    });
    const guarded = createGuardedAgentRun({ guard, tools: [searchTool(executions), readDoc], runId: 'stale' });
    const queries = ['retention', 'data retention', 'retention period', 'how long is data kept', 'EU retention', 'retention policy', 'trash'];
    const turns: ScriptedAgentTurn[] = queries.map((query, index) => ({
      calls: [{ tool: 'search', args: { query } }, ...(index === 0 ? [{ tool: 'readDoc', args: { id: 'data-retention' }, id: 'read-1' }] : [])],
    }));
    const model = new ScriptedAgentsModel(turns, 'Deleted data goes after 30 days; nothing EU-specific found.');
    const agent = new Agent({ name: 'support', instructions: 'Answer from the docs.', model, tools: guarded.tools });

    const result = await new Runner().run(agent, 'EU retention?', { ...guarded.runOptions, maxTurns: 20 });

    expect(executions).to.deep.equal(queries.slice(0, 4));
    expect(readDocs).to.deep.equal(['data-retention']);
    expect(model.requests[2].systemInstructions).to.match(/^Answer from the docs\.\n\nNote: in the last round, search returned only results you have already seen/);
    expect(offered(model).slice(0, 4)).to.deep.equal([['search', 'readDoc'], ['search', 'readDoc'], ['search', 'readDoc'], ['search', 'readDoc']]);
    expect(offered(model)[4]).to.deep.equal(['readDoc']);
    // The model called the hidden tool anyway: it is told why instead of the run failing.
    expect(functionOutputsIn(model.requests[5]).get('call-5')).to.match(/^Not run: search is switched off for this run/);
    const last = model.requests[model.requests.length - 1];
    expect(last.tools).to.deep.equal([]);
    expect(last.systemInstructions).to.match(/Tool use has ended for this run: the last 5 rounds returned only results already seen/);
    expect(result.finalOutput).to.equal('Deleted data goes after 30 days; nothing EU-specific found.');

    const outcome = guarded.end();
    expect(outcome.stopReason).to.equal('stale_rounds');
    // Four searches and the one document read ran; the read and the first search were new.
    expect(outcome.partial).to.include({ executed: 5, newFacts: 2, seenResults: 3 });
    // Each model call's usage landed in its own round, the last one included, once.
    expect(rounds).to.have.length(model.requests.length);
    expect(rounds.map((round) => round.usage)).to.deep.equal(rounds.map(() => ({ inputTokens: 100, outputTokens: 10 })));
    expect(outcome.partial.wastedTokens).to.equal(5 * 110);
  });

  it('counts the SDK default error text as a failure: a retry loop with an attempt counter stops on consecutive failures', async () => {
    let executions = 0;
    const fetchInvoice = tool({
      name: 'fetchInvoice',
      description: 'Fetch an invoice',
      parameters: z.object({ invoiceId: z.string(), attempt: z.number() }),
      execute: async (): Promise<string> => {
        executions += 1;
        throw new Error('billing service unavailable');
      },
    });
    const guarded = createGuardedAgentRun({ guard: new LoopGuard(), tools: [fetchInvoice] });
    const model = new ScriptedAgentsModel(
      Array.from({ length: 12 }, (_, attempt) => ({ calls: [{ tool: 'fetchInvoice', args: { invoiceId: 'INV-2026-0042', attempt } }] })),
      'Billing is down.',
    );
    const agent = new Agent({ name: 'billing', model, tools: guarded.tools });

    const result = await new Runner().run(agent, 'Get INV-2026-0042', { ...guarded.runOptions, maxTurns: 30 });

    // "unavailable" is transient: the first try and the default budget of 5 retries run
    // (document 003: retries inside the budget are retries, issue 10 #6); the failure that
    // spends the budget counts every one of them, and the run stops there.
    expect(executions).to.equal(6);
    expect(result.finalOutput).to.equal('Billing is down.');
    const outcome = guarded.end();
    expect(outcome.stopReason).to.equal('consecutive_failures');
    expect(outcome.partial.tools.fetchInvoice.failures).to.equal(6);
  });

  it('the SDK default error text says nothing of the cause: lookups by different emails narrow down, not a failure streak', async () => {
    // A customer-service agent looking up a customer by each email the user gave: every miss
    // throws, and the SDK hands loopguard only its fixed text. Read as any other error, the fifth
    // miss stopped the run before the sixth email, the right one, was tried.
    const looked: string[] = [];
    const findUser = tool({
      name: 'find_user_id_by_email',
      description: 'Find a customer',
      parameters: z.object({ email: z.string() }),
      execute: async ({ email }): Promise<string> => {
        looked.push(email);
        if (email !== 'ann.lee@example.com') throw new Error(`no customer with email ${email}`);
        return 'user_4711';
      },
    });
    const emails = ['ann@example.com', 'ann.lee@example.org', 'annlee@example.com', 'a.lee@example.com', 'ann_lee@example.com', 'ann.lee@example.com'];
    const guarded = createGuardedAgentRun({ guard: new LoopGuard(), tools: [findUser] });
    const model = new ScriptedAgentsModel(emails.map((email) => ({ calls: [{ tool: 'find_user_id_by_email', args: { email } }] })), 'Found you: user_4711.');
    const result = await new Runner().run(new Agent({ name: 'support', model, tools: guarded.tools }), 'Find me', { ...guarded.runOptions, maxTurns: 20 });

    expect(looked).to.deep.equal(emails);
    expect(result.finalOutput).to.equal('Found you: user_4711.');
    expect(guarded.end().stopReason).to.equal(undefined);

    // The identical lookup failing again and again still counts: stopped.
    const stuck = createGuardedAgentRun({ guard: new LoopGuard(), tools: [findUser] });
    const again = new ScriptedAgentsModel(Array.from({ length: 12 }, () => ({ calls: [{ tool: 'find_user_id_by_email', args: { email: 'ann@example.com' } }] })), 'Could not find you.');
    await new Runner().run(new Agent({ name: 'support', model: again, tools: stuck.tools }), 'Find me', { ...stuck.runOptions, maxTurns: 30 });
    expect(stuck.end().stopReason).to.be.a('string');
  });

  it('keeps your own isEnabled, guardrails and input filter working', async () => {
    const executions: string[] = [];
    const hidden = tool({ name: 'admin', description: 'Admin only', parameters: z.object({}), isEnabled: false, execute: async () => 'secret' });
    const ownGuardrailCalls: string[] = [];
    const search = tool({
      name: 'search',
      description: 'Search',
      parameters: z.object({ query: z.string() }),
      inputGuardrails: [
        {
          name: 'no-empty-query',
          run: async ({ toolCall }) => {
            ownGuardrailCalls.push(toolCall.callId);
            return JSON.parse(toolCall.arguments).query === ''
              ? { behavior: { type: 'rejectContent', message: 'Empty query.' } }
              : { behavior: { type: 'allow' } };
          },
        },
      ],
      execute: async ({ query }) => {
        executions.push(query);
        return `results for ${query}`;
      },
    });
    let filtered = 0;
    const guarded = createGuardedAgentRun({
      guard: new LoopGuard(),
      tools: [search, hidden],
      callModelInputFilter: ({ modelData }) => {
        filtered += 1;
        return modelData;
      },
    });
    const model = new ScriptedAgentsModel([
      { calls: [{ tool: 'search', args: { query: '' }, id: 'empty' }] },
      { calls: [{ tool: 'search', args: { query: 'sso' }, id: 'ok' }] },
      { text: 'done' },
    ]);
    const agent = new Agent({ name: 'a', model, tools: guarded.tools });
    await new Runner().run(agent, 'x', { ...guarded.runOptions });

    expect(offered(model)[0]).to.deep.equal(['search']);
    expect(ownGuardrailCalls).to.deep.equal(['empty', 'ok']);
    expect(functionOutputsIn(model.requests[1]).get('empty')).to.equal('Empty query.');
    expect(executions).to.deep.equal(['sso']);
    expect(filtered).to.equal(3);
    // The call your guardrail rejected never reached loopguard.
    expect(guarded.end().partial.toolCalls).to.equal(1);
  });

  it('guards a streamed run the same way', async () => {
    const executions: string[] = [];
    const guarded = createGuardedAgentRun({ guard: new LoopGuard(), tools: [searchTool(executions)] });
    const model = new ScriptedAgentsModel(Array.from({ length: 12 }, (_, i) => ({ calls: [{ tool: 'search', args: { query: `q${i}` } }] })), 'streamed answer');
    const agent = new Agent({ name: 'support', model, tools: guarded.tools });

    const stream = await new Runner().run(agent, 'loop', { ...guarded.runOptions, stream: true, maxTurns: 30 });
    for await (const _event of stream) {
      // drain
    }
    await stream.completed;

    expect(stream.finalOutput).to.equal('streamed answer');
    // search is the run's only tool, so the ladder never hides it (issue 9, item 6): round 1
    // new, rounds 2-6 stale, and the stale-rounds stop comes after round 6 as before.
    expect(executions).to.have.length(6);
    expect(model.requests).to.have.length(7);
    expect(model.requests.at(-1)?.tools).to.deep.equal([]);
    const outcome = guarded.end();
    expect(outcome.stopReason).to.equal('stale_rounds');
    expect(outcome.refusals).to.deep.equal([]);
  });

  it('counts rounds for a provider that reports no usage, and for the last turn, where the agent\'s only tool is hidden', async () => {
    const executions: string[] = [];
    const guarded = createGuardedAgentRun({ guard: new LoopGuard(), tools: [searchTool(executions)] });
    const model = new ScriptedAgentsModel(Array.from({ length: 12 }, (_, i) => ({ calls: [{ tool: 'search', args: { query: `q${i}` } }] })), 'done', false);
    const agent = new Agent({ name: 'support', model, tools: guarded.tools });
    await new Runner().run(agent, 'loop', { ...guarded.runOptions, maxTurns: 30 });
    const outcome = guarded.end();
    expect(outcome.stopReason).to.equal('stale_rounds');
    expect(outcome.partial.rounds).to.equal(model.requests.length);
    // search is the run's only tool, so the ladder never hides it mid-run (issue 9, item 6):
    // rounds 1-6 run it, and only the stop hides it, for the final answer's turn.
    expect(executions).to.have.length(6);
    expect(model.requests).to.have.length(7);
    expect(model.requests.at(-1)?.tools).to.deep.equal([]);
  });

  it('records the SDK timeout text as a timeout failure', async () => {
    const outcomes: string[] = [];
    const slow = tool({
      name: 'slowLookup',
      description: 'Slow',
      parameters: z.object({ id: z.string() }),
      timeoutMs: 20,
      execute: () => new Promise<string>((resolve) => setTimeout(() => resolve('late'), 200)),
    });
    const guard = new LoopGuard({ listeners: [{ callFinished: (_run, _call, outcome) => outcomes.push(outcome) }] });
    const guarded = createGuardedAgentRun({ guard, tools: [slow] });
    const model = new ScriptedAgentsModel([{ calls: [{ tool: 'slowLookup', args: { id: 'a' } }] }, { text: 'gave up' }]);
    await new Runner().run(new Agent({ name: 'a', model, tools: guarded.tools }), 'x', { ...guarded.runOptions });
    expect(outcomes).to.deep.equal(['timeout']);
    expect(guarded.end().partial.tools.slowLookup.failures).to.equal(1);
  });

  it('puts the policy in the instructions when asked', async () => {
    const guard = new LoopGuard();
    const guarded = createGuardedAgentRun({ guard, tools: [searchTool([])], describePolicy: true });
    const model = new ScriptedAgentsModel([{ text: 'ok' }]);
    await new Runner().run(new Agent({ name: 'a', instructions: 'Be brief.', model, tools: guarded.tools }), 'x', { ...guarded.runOptions });
    expect(model.requests[0].systemInstructions).to.equal(`Be brief.\n\n${guard.describePolicy()}`);
    guarded.end();
  });

  // The input guardrail claims the call (and its business key); the SDK may then not run it: a
  // sibling call failed and it cancels the rest of the step, the run's signal aborted, or it
  // asks for an approval first (preApprovalInputGuardrails). The claim stayed open: the email
  // that was never sent was refused in flight, then of unknown outcome for the key's whole ttl.
  describe('a call the guardrail allowed and the SDK never ran', () => {
    /** A store whose business-key claims take a Redis round trip, so the SDK cancels while one is out. */
    function slowKeyStore() {
      const memory = createMemoryRunStore();
      const claimBusinessKey: typeof memory.claimBusinessKey = async (...args) => {
        await new Promise((resolve) => setTimeout(resolve, 30));
        return memory.claimBusinessKey(...args);
      };
      return Object.assign(Object.create(memory) as typeof memory, { claimBusinessKey });
    }
    function mailTools(sent: string[], options: { needsApproval?: boolean } = {}) {
      return [
        tool({ name: 'send_email', description: 'Send', parameters: z.object({ to: z.string() }), needsApproval: options.needsApproval ?? false, execute: async ({ to }) => (sent.push(to), 'sent') }),
        tool({ name: 'crash', description: 'Fails', parameters: z.object({}), errorFunction: null, execute: async () => { throw new Error('disk full'); } }),
      ];
    }
    const mailGuard = () => new LoopGuard({ store: slowKeyStore(), idempotentWrites: { send_email: { key: ['to'] } }, logger: { warn: () => undefined } });
    const sendTurn: ScriptedAgentTurn = { calls: [{ tool: 'send_email', args: { to: 'ops@example.com' } }] };

    async function retried(guard: LoopGuard, sent: string[]): Promise<string[]> {
      const guarded = createGuardedAgentRun({ guard, tools: mailTools(sent) });
      const agent = new Agent({ name: 'mailer', instructions: 'Send it.', tools: guarded.tools, model: new ScriptedAgentsModel([sendTurn]) });
      await new Runner().run(agent, 'send it', guarded.runOptions);
      return guarded.end().refusals.map((refusal) => refusal.reason);
    }

    it('cancelled with its step when a sibling call fails: its key is released, and the retry sends the email once', async () => {
      const sent: string[] = [];
      const guard = mailGuard();
      const guarded = createGuardedAgentRun({ guard, tools: mailTools(sent) });
      const model = new ScriptedAgentsModel([{ calls: [{ tool: 'crash', args: {} }, { tool: 'send_email', args: { to: 'ops@example.com' } }] }]);
      const agent = new Agent({ name: 'mailer', instructions: 'Send it.', tools: guarded.tools, model });
      const thrown = await new Runner().run(agent, 'send it', guarded.runOptions).then(() => 'nothing thrown', (error: Error) => error.message);
      expect(thrown).to.include('disk full');
      expect(sent, 'the SDK cancelled it before it ran').to.deep.equal([]);
      guarded.end();
      await guard.flush();
      expect(await retried(guard, sent)).to.deep.equal([]);
      expect(sent).to.deep.equal(['ops@example.com']);
    });

    it("cancelled by the run's signal while its key was being claimed: its key is released", async () => {
      const sent: string[] = [];
      const guard = mailGuard();
      const guarded = createGuardedAgentRun({ guard, tools: mailTools(sent) });
      const agent = new Agent({ name: 'mailer', instructions: 'Send it.', tools: guarded.tools, model: new ScriptedAgentsModel([sendTurn]) });
      const controller = new AbortController();
      setTimeout(() => controller.abort(), 15);
      await new Runner().run(agent, 'send it', { ...guarded.runOptions, signal: controller.signal }).catch(() => undefined);
      expect(sent).to.deep.equal([]);
      guarded.end();
      await guard.flush();
      expect(await retried(guard, sent)).to.deep.equal([]);
      expect(sent).to.deep.equal(['ops@example.com']);
    });

    it('started, then threw with no errorFunction (the run throws): it may have sent, so its key stays held', async () => {
      const sent: string[] = [];
      const guard = mailGuard();
      const flaky = tool({
        name: 'send_email',
        description: 'Send',
        parameters: z.object({ to: z.string() }),
        errorFunction: null,
        execute: async ({ to }) => {
          sent.push(to);
          throw new Error('connection closed before the reply');
        },
      });
      const guarded = createGuardedAgentRun({ guard, tools: [flaky] });
      const agent = new Agent({ name: 'mailer', instructions: 'Send it.', tools: guarded.tools, model: new ScriptedAgentsModel([sendTurn]) });
      await new Runner().run(agent, 'send it', guarded.runOptions).catch(() => undefined);
      guarded.end();
      await guard.flush();
      expect(await retried(guard, sent)).to.deep.equal(['repeat.in_flight']);
      expect(sent).to.deep.equal(['ops@example.com']);
    });

    it("an agent used as a tool in the same step: its model call settles none of the step's calls still running", async () => {
      const sent: string[] = [];
      const guard = mailGuard();
      const slowSend = tool({
        name: 'send_email',
        description: 'Send',
        parameters: z.object({ to: z.string() }),
        execute: async ({ to }) => {
          await new Promise((resolve) => setTimeout(resolve, 50));
          sent.push(to);
          return 'sent';
        },
      });
      const guarded = createGuardedAgentRun({ guard, tools: [slowSend] });
      const lookup = tool({ name: 'lookup', description: 'Look up', parameters: z.object({ q: z.string() }), execute: async ({ q }) => q });
      const inner = new Agent({ name: 'inner', instructions: 'Look it up.', tools: guardAgentTools([lookup], { run: guarded.run }), model: new ScriptedAgentsModel([{ calls: [{ tool: 'lookup', args: { q: 'a' } }] }]) });
      const [askInner] = guardAgentTools([inner.asTool({ toolName: 'ask_inner', toolDescription: 'Ask' })], { run: guarded.run });
      const model = new ScriptedAgentsModel([{ calls: [{ tool: 'ask_inner', args: { input: 'hi' } }, { tool: 'send_email', args: { to: 'ops@example.com' } }] }]);
      await new Runner().run(new Agent({ name: 'outer', instructions: 'Send it.', tools: [...guarded.tools, askInner!], model }), 'send it', guarded.runOptions);
      guarded.end();
      await guard.flush();
      expect(await retried(guard, sent)).to.deep.equal(['write.already_done']);
      expect(sent).to.deep.equal(['ops@example.com']);
    });

    it('guarded before its approval (preApprovalInputGuardrails), then approved: it runs, once', async () => {
      const sent: string[] = [];
      const guard = mailGuard();
      const guarded = createGuardedAgentRun({ guard, tools: mailTools(sent, { needsApproval: true }) });
      const agent = new Agent({ name: 'mailer', instructions: 'Send it.', tools: guarded.tools, model: new ScriptedAgentsModel([sendTurn]) });
      const runner = new Runner({ toolExecution: { preApprovalInputGuardrails: true } });
      const first = await runner.run(agent, 'send it', guarded.runOptions);
      expect(first.interruptions).to.have.length(1);
      first.state.approve(first.interruptions[0]!);
      await runner.run(agent, first.state, guarded.runOptions);
      expect(guarded.end().refusals.map((refusal) => refusal.reason)).to.deep.equal([]);
      expect(sent).to.deep.equal(['ops@example.com']);
    });
  });
});
