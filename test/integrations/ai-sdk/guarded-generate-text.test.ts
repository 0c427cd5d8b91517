// The AI SDK adapter driven through the real generateText loop: the SDK's own mock model
// (scripted), real tool functions, the real engine. Assertions are on what the model was
// told (tool results and messages in the prompt it received) and what it was offered.
import { expect } from 'chai';
import { generateText, pruneMessages, simulateReadableStream, stepCountIs, streamText, tool, ToolLoopAgent } from 'ai';
import { MockLanguageModelV3 } from 'ai/test';
import type { LanguageModelV3StreamPart } from '@ai-sdk/provider';
import { z } from 'zod';

import { LoopGuard } from '../../../src/core/loop-guard.js';
import type { RoundSummary } from '../../../src/core/types.js';
import { getLoopGuardOutcome } from '../../../src/integrations/get-loop-guard-outcome.js';
import {
  createGuardedAgentSettings,
  guardTools,
  loopGuardPrepareStep,
  loopGuardStopCondition,
} from '../../../src/integrations/ai-sdk/index.js';
import { offeredTools, scriptedLanguageModel, toolResultsIn, userTextsIn, type ScriptedTurn } from '../helpers/scripted-language-model.js';
import { AI_SDK_MAJOR } from '../helpers/ai-sdk-telemetry.js';

/** A search over a fixed index: every query about retention returns the same two documents. */
function searchTool(executions: string[]) {
  return tool({
    description: 'Search the documentation',
    inputSchema: z.object({ query: z.string(), limit: z.number().optional() }),
    execute: async ({ query }) => {
      executions.push(query);
      return { results: [{ id: 'data-retention' }, { id: 'privacy-overview' }], tookMs: Math.random() * 100 };
    },
  });
}

describe('AI SDK adapter (generateText + MockLanguageModelV3)', () => {
  // A loop that keeps its prompt short with the SDK's own pruneMessages (old tool calls and
  // results dropped before each model call): the model no longer has what it read two steps
  // ago, so reading it again must not be refused as "in the conversation above".
  it('a prepareStep that prunes old tool results (pruneMessages) is a compaction: the file read before is read again', async () => {
    const reads: string[] = [];
    const readFile = tool({
      description: 'Read a file',
      inputSchema: z.object({ path: z.string() }),
      execute: async ({ path }) => {
        reads.push(path);
        return `contents of ${path}`;
      },
    });
    const turns: ScriptedTurn[] = ['src/a.ts', 'src/b.ts', 'src/c.ts', 'src/a.ts'].map((path, index) => ({ calls: [{ tool: 'read_file', args: { path }, id: `read-${index + 1}` }] }));
    const play = async (prune: boolean) => {
      reads.length = 0;
      const guarded = createGuardedAgentSettings({
        guard: new LoopGuard(),
        tools: { read_file: readFile },
        prepareStep: prune ? ({ messages }) => ({ messages: pruneMessages({ messages, toolCalls: 'before-last-2-messages' }) }) : undefined,
      });
      const model = scriptedLanguageModel(turns, 'a.ts, b.ts and c.ts read.');
      await generateText({ model, prompt: 'Read the sources.', ...guarded, stopWhen: [guarded.stopWhen, stepCountIs(10)] });
      return { model, outcome: guarded.end() };
    };
    const pruned = await play(true);
    // The model's prompt for the last read no longer held the first one's result.
    expect([...toolResultsIn(pruned.model.doGenerateCalls[3]!.prompt).keys()]).to.not.include('read-1');
    expect(reads).to.deep.equal(['src/a.ts', 'src/b.ts', 'src/c.ts', 'src/a.ts']);
    expect(pruned.outcome.refusals).to.deep.equal([]);
    const kept = await play(false);
    expect(kept.outcome.refusals.map((refusal) => refusal.reason)).to.deep.equal(['repeat.run_wide']);
  });

  it('a tool the ladder switched off is offered again in the very step whose prompt was pruned', async () => {
    const executions: string[] = [];
    const readDoc = tool({ description: 'Read one document', inputSchema: z.object({ id: z.string() }), execute: async ({ id }) => ({ id, text: 'Data is deleted after 30 days.' }) });
    const queries = ['data retention', 'how long is data kept', 'retention period', 'storage duration', 'data kept how long', 'retention again'];
    const turns: ScriptedTurn[] = queries.map((query, index) => ({ calls: [{ tool: 'search', args: { query } }, ...(index === 0 ? [{ tool: 'readDoc', args: { id: 'data-retention' } }] : [])] }));
    const guarded = createGuardedAgentSettings({
      guard: new LoopGuard(),
      tools: { search: searchTool(executions), readDoc },
      // From the sixth model call on, the app keeps only the latest tool results.
      prepareStep: ({ stepNumber, messages }) => (stepNumber >= 5 ? { messages: pruneMessages({ messages, toolCalls: 'before-last-2-messages' }) } : undefined),
    });
    const model = scriptedLanguageModel(turns);
    await generateText({ model, prompt: 'Retention?', ...guarded, stopWhen: [guarded.stopWhen, stepCountIs(8)] });
    // Search answered only what was seen, round after round: it is switched off for the fifth model call.
    expect(offeredTools(model.doGenerateCalls[4]!)).to.deep.equal(['readDoc']);
    // The sixth call's prompt was pruned: the model no longer has those results, and search is back.
    expect(offeredTools(model.doGenerateCalls[5]!)).to.deep.equal(['search', 'readDoc']);
    guarded.end();
  });

  it('refuses an exact repeat without running it and gives the model the reason as the result', async () => {
    const executions: string[] = [];
    // Document 000's researcher: an exact repeat is refused at the first repeat.
    const guard = new LoopGuard({ profile: 'researcher' });
    const model = scriptedLanguageModel([
      { calls: [{ tool: 'search', args: { query: 'retention', limit: 5 }, id: 'first' }] },
      // Same call, keys in another order: the same call by value.
      { calls: [{ tool: 'search', args: '{ "limit": 5, "query": "retention" }', id: 'again' }] },
    ]);
    const guarded = createGuardedAgentSettings({ guard, tools: { search: searchTool(executions) } });

    const result = await generateText({ model, prompt: 'How long is data kept?', ...guarded, stopWhen: [guarded.stopWhen, stepCountIs(10)] });

    expect(executions).to.deep.equal(['retention']);
    const told = toolResultsIn(model.doGenerateCalls[2].prompt).get('again');
    expect(told?.type).to.equal('text');
    expect(told?.value).to.match(/^Not run: search was already called with these same arguments/);
    expect(told?.value).to.include('call first');
    expect(result.text).to.equal('final answer');
    const outcome = guarded.outcome();
    expect(outcome.refusals).to.have.length(1);
    expect(outcome.refusals[0]).to.include({ tool: 'search', callId: 'again', reason: 'repeat.run_wide', previousCallId: 'first' });
    expect(outcome.stopReason).to.equal(undefined);
  });

  it('nudges, then drops the looping tool, then stops on stale rounds with a tool-less final step', async () => {
    const executions: string[] = [];
    const rounds: RoundSummary[] = [];
    // Document 000's researcher in a reworded-search loop.
    const guard = new LoopGuard({ profile: 'researcher', listeners: [{ roundClosed: (_run, summary) => rounds.push(summary) }] });
    const queries = ['data retention', 'how long is data kept', 'retention period EU', 'GDPR storage duration', 'deleted workspace data', 'backup expiry', 'log retention', 'trash retention'];
    // Round 1 also reads a document: the run has used a second tool, so switching search off
    // still leaves it a tool (the ladder never disables the only tool a run uses: issue 9, item 6).
    const turns: ScriptedTurn[] = queries.map((query, index) => ({
      calls: [{ tool: 'search', args: { query } }, ...(index === 0 ? [{ tool: 'readDoc', args: { id: 'data-retention' }, id: 'read-1' }] : [])],
    }));
    const readDocs: string[] = [];
    const readDoc = tool({
      description: 'Read one document',
      inputSchema: z.object({ id: z.string() }),
      execute: async ({ id }) => {
        readDocs.push(id);
        return { id, text: 'Workspace data is deleted 30 days after termination.' };
      },
    });
    const model = scriptedLanguageModel(turns, 'Retention: 30 days after deletion; EU specifics not found.');
    const guarded = createGuardedAgentSettings({ guard, tools: { search: searchTool(executions), readDoc }, runId: 'stale-run' });

    const result = await generateText({ model, prompt: 'EU retention after termination?', ...guarded, stopWhen: [guarded.stopWhen, stepCountIs(30)] });

    const calls = model.doGenerateCalls;
    // Round 1 new, rounds 2-4 stale: the search tool is taken away after 3 stale rounds.
    expect(executions).to.deep.equal(queries.slice(0, 4));
    expect(readDocs).to.deep.equal(['data-retention']);
    expect(offeredTools(calls[0])).to.deep.equal(['search', 'readDoc']);
    expect(userTextsIn(calls[2].prompt).join('\n')).to.match(/^Note: in the last round, search returned only results you have already seen/m);
    expect(offeredTools(calls[4])).to.deep.equal(['readDoc']);
    // The model insisted on the missing tool twice; that keeps the stale count going to 5,
    // and it reads loopguard's reason instead of the SDK's "unavailable tool".
    expect(toolResultsIn(calls[5].prompt).get('call-5')).to.deep.equal({ type: 'error-text', value: toolResultsIn(calls[5].prompt).get('call-5')?.value });
    expect(toolResultsIn(calls[5].prompt).get('call-5')?.value).to.match(/^Not run: search is switched off for this run/);
    expect(toolResultsIn(calls[6].prompt).get('call-5')?.value).to.match(/^Not run: search is switched off for this run/);
    const last = calls[calls.length - 1];
    expect(last.toolChoice).to.deep.equal({ type: 'none' });
    expect(offeredTools(last)).to.deep.equal([]);
    expect(userTextsIn(last.prompt).at(-1)).to.match(/^Tool use has ended for this run: the last 5 rounds returned only results already seen/);
    expect(result.text).to.equal('Retention: 30 days after deletion; EU specifics not found.');
    expect(result.finishReason).to.equal('stop');

    const outcome = guarded.outcome();
    expect(outcome.stopReason).to.equal('stale_rounds');
    // Four searches and the one document read ran; the read and the first search were new.
    expect(outcome.partial).to.include({ executed: 5, newFacts: 2, seenResults: 3 });
    expect(outcome.refusals.map((refusal) => refusal.reason)).to.deep.equal(['tool.disabled', 'tool.disabled']);
    expect(rounds.slice(0, 4).map((round) => round.verdict)).to.deep.equal(['new', 'stale', 'stale', 'stale']);
    // Usage reached the engine once per round (prepareStep and onStepFinish both report it),
    // the final answer's included; stale and refused rounds' tokens count as wasted.
    guarded.end();
    expect(rounds.map((round) => round.usage)).to.deep.equal(rounds.map(() => ({ inputTokens: 100, outputTokens: 10 })));
    expect(rounds).to.have.length(model.doGenerateCalls.length);
    expect(outcome.partial.wastedTokens).to.equal(5 * 110);
  });

  it('records failures and rethrows them to the SDK; a retry loop whose only change is an attempt counter is caught', async () => {
    let executions = 0;
    const fetchInvoice = tool({
      description: 'Fetch an invoice',
      inputSchema: z.object({ invoiceId: z.string(), attempt: z.number() }),
      execute: async (): Promise<{ total: number }> => {
        executions += 1;
        throw Object.assign(new Error('billing service unavailable'), { name: 'BillingServiceError' });
      },
    });
    const turns = Array.from({ length: 12 }, (_, attempt) => ({ calls: [{ tool: 'fetchInvoice', args: { invoiceId: 'INV-2026-0042', attempt } }] }));

    // Defaults: the attempt counter is stripped, so each try is the same call. "unavailable" is
    // transient, so the first try and the default budget of 5 retries run (document 003,
    // issue 10 #6); the failure that spends the budget counts them all and stops the run.
    const model = scriptedLanguageModel(turns, 'The billing service is down; try later.');
    const guarded = createGuardedAgentSettings({ guard: new LoopGuard(), tools: { fetchInvoice } });
    const result = await generateText({ model, prompt: 'Get invoice INV-2026-0042', ...guarded, stopWhen: [guarded.stopWhen, stepCountIs(30)] });
    // The SDK turned each throw into a tool-error the model saw, exactly as without loopguard
    // (AI SDK 7 prefixes the error's name).
    const errorText = AI_SDK_MAJOR >= 7 ? 'BillingServiceError: billing service unavailable' : 'billing service unavailable';
    expect(toolResultsIn(model.doGenerateCalls[1].prompt).get('call-1')).to.deep.include({ type: 'error-text', value: errorText });
    expect(executions).to.equal(6);
    expect(guarded.outcome().partial.tools.fetchInvoice.failures).to.equal(6);
    expect(guarded.outcome().stopReason).to.equal('consecutive_failures');
    expect(model.doGenerateCalls.length).to.equal(7);
    expect(result.text).to.equal('The billing service is down; try later.');

    // A declared retry budget: the third identical retry is refused, with the reason.
    executions = 0;
    const budgeted = createGuardedAgentSettings({ guard: new LoopGuard({ tools: { fetchInvoice: { retries: 2 } } }), tools: { fetchInvoice } });
    const budgetedModel = scriptedLanguageModel(turns.slice(0, 4), 'down');
    await generateText({ model: budgetedModel, prompt: 'Get invoice', ...budgeted, stopWhen: [budgeted.stopWhen, stepCountIs(30)] });
    expect(executions).to.equal(3);
    expect(budgeted.outcome().refusals.map((refusal) => refusal.reason)).to.deep.equal(['retry.budget_exhausted']);
    const told = toolResultsIn(budgetedModel.doGenerateCalls[4].prompt).get('call-4');
    expect(told?.value).to.match(/^Not run: fetchInvoice with these arguments failed and has been retried 2 times/);
  });

  it('leaves pagination with an advancing cursor and an honest retry alone', async () => {
    const pages: Record<string, { events: string[]; nextCursor: string | null }> = {
      start: { events: ['login', 'export'], nextCursor: 'p2' },
      p2: { events: ['sso-change'], nextCursor: 'p3' },
      p3: { events: [], nextCursor: null },
    };
    let statusCalls = 0;
    const tools = {
      listAuditEvents: tool({
        description: 'List audit events',
        inputSchema: z.object({ cursor: z.string() }),
        execute: async ({ cursor }) => pages[cursor],
      }),
      getStatus: tool({
        description: 'Service status',
        inputSchema: z.object({ service: z.string() }),
        execute: async () => {
          statusCalls += 1;
          if (statusCalls < 3) throw Object.assign(new Error('503 Service Unavailable'), { status: 503 });
          return { service: 'billing', healthy: true };
        },
      }),
    };
    const guard = new LoopGuard({ tools: { listAuditEvents: { cursorArg: 'cursor' } } });
    const model = scriptedLanguageModel([
      { calls: [{ tool: 'listAuditEvents', args: { cursor: 'start' } }] },
      { calls: [{ tool: 'listAuditEvents', args: { cursor: 'p2' } }] },
      { calls: [{ tool: 'listAuditEvents', args: { cursor: 'p3' } }] },
      { calls: [{ tool: 'getStatus', args: { service: 'billing' } }] },
      { calls: [{ tool: 'getStatus', args: { service: 'billing' } }] },
      { calls: [{ tool: 'getStatus', args: { service: 'billing' } }] },
      { text: 'Three events; billing is healthy.' },
    ]);
    const guarded = createGuardedAgentSettings({ guard, tools });

    const result = await generateText({ model, prompt: 'Audit and status', ...guarded, stopWhen: [guarded.stopWhen, stepCountIs(30)] });

    expect(result.text).to.equal('Three events; billing is healthy.');
    expect(statusCalls).to.equal(3);
    const outcome = guarded.outcome();
    expect(outcome.stopReason).to.equal(undefined);
    expect(outcome.refusals).to.deep.equal([]);
    for (const call of model.doGenerateCalls) expect(offeredTools(call)).to.deep.equal(['listAuditEvents', 'getStatus']);
  });

  it('refuses a page whose cursor did not advance', async () => {
    const guard = new LoopGuard({ profile: 'chat', tools: { listAuditEvents: { cursorArg: 'cursor' } } });
    const run = guard.startRun();
    const tools = guardTools(
      {
        listAuditEvents: tool({
          description: 'List audit events',
          inputSchema: z.object({ cursor: z.string() }),
          execute: async ({ cursor }) => ({ events: [cursor], nextCursor: 'p2' }),
        }),
      },
      { run },
    );
    const model = scriptedLanguageModel([
      { calls: [{ tool: 'listAuditEvents', args: { cursor: 'p1' } }] },
      { calls: [{ tool: 'listAuditEvents', args: { cursor: 'p2' } }] },
      { calls: [{ tool: 'listAuditEvents', args: { cursor: 'p2' }, id: 'stuck' }] },
    ]);
    await generateText({ model, prompt: 'page', tools, prepareStep: loopGuardPrepareStep(run, { tools }), stopWhen: [loopGuardStopCondition(run), stepCountIs(10)] });
    expect(toolResultsIn(model.doGenerateCalls[3].prompt).get('stuck')?.value).to.match(/^Not run: listAuditEvents was already called with this cursor/);
  });

  it('with stopWhen alone (no prepareStep) cuts the loop as soon as the run must stop', async () => {
    const executions: string[] = [];
    const guard = new LoopGuard({ escalation: { enabled: false } });
    const run = guard.startRun();
    const tools = guardTools({ search: searchTool(executions) }, { run });
    const model = scriptedLanguageModel(Array.from({ length: 20 }, (_, i) => ({ calls: [{ tool: 'search', args: { query: `q${i}` } }] })));
    const result = await generateText({ model, prompt: 'loop', tools, stopWhen: [loopGuardStopCondition(run), stepCountIs(50)] });
    expect(run.stopped?.reason).to.equal('stale_rounds');
    // Round 1 new, rounds 2-6 stale: cut after the 6th step; no final answer step.
    expect(result.steps.length).to.equal(6);
    expect(result.finishReason).to.equal('tool-calls');
    expect(getLoopGuardOutcome(run).stopReason).to.equal('stale_rounds');
  });

  it('records a streaming tool by its final value', async () => {
    const guard = new LoopGuard();
    const run = guard.startRun();
    const tools = guardTools(
      {
        progress: tool({
          description: 'Streams progress, then the result',
          inputSchema: z.object({ job: z.string() }),
          async *execute({ job }) {
            yield { job, status: 'running' };
            yield { job, status: 'done', rows: 3 };
          },
        }),
      },
      { run },
    );
    const model = scriptedLanguageModel([{ calls: [{ tool: 'progress', args: { job: 'a' } }] }, { calls: [{ tool: 'progress', args: { job: 'b' } }] }]);
    await generateText({ model, prompt: 'x', tools, prepareStep: loopGuardPrepareStep(run, { tools }), stopWhen: stepCountIs(5) });
    expect(toolResultsIn(model.doGenerateCalls[1].prompt).get('call-1')?.value).to.deep.equal({ job: 'a', status: 'done', rows: 3 });
    expect(run.partial()).to.include({ executed: 2, newFacts: 2 });
  });

  it('keeps two concurrent runs on one guard apart', async () => {
    const guard = new LoopGuard();
    const loopingExecutions: string[] = [];
    const healthyExecutions: string[] = [];
    const looping = createGuardedAgentSettings({ guard, tools: { search: searchTool(loopingExecutions) }, runId: 'looping' });
    const healthy = createGuardedAgentSettings({ guard, tools: { search: searchTool(healthyExecutions) }, runId: 'healthy' });
    const loopingModel = scriptedLanguageModel(Array.from({ length: 12 }, (_, i) => ({ calls: [{ tool: 'search', args: { query: `q${i}` } }] })));
    const healthyModel = scriptedLanguageModel([{ calls: [{ tool: 'search', args: { query: 'q0' } }] }, { text: 'ok' }]);
    await Promise.all([
      generateText({ model: loopingModel, prompt: 'a', ...looping, stopWhen: [looping.stopWhen, stepCountIs(30)] }),
      generateText({ model: healthyModel, prompt: 'b', ...healthy, stopWhen: [healthy.stopWhen, stepCountIs(30)] }),
    ]);
    expect(looping.outcome().stopReason).to.equal('stale_rounds');
    expect(healthy.outcome().stopReason).to.equal(undefined);
    expect(healthy.outcome().refusals).to.deep.equal([]);
    expect(healthyExecutions).to.deep.equal(['q0']);
  });

  it('spreads only settings the SDK knows (run and outcome stay off the spread)', () => {
    const guard = new LoopGuard();
    const guarded = createGuardedAgentSettings({ guard, tools: {} });
    expect(Object.keys({ ...guarded }).sort()).to.deep.equal(['onStepFinish', 'prepareStep', 'stopWhen', 'tools']);
    expect(guarded.run.id).to.be.a('string');
  });

  it('works the same through streamText', async () => {
    const executions: string[] = [];
    const guard = new LoopGuard();
    const guarded = createGuardedAgentSettings({ guard, tools: { search: searchTool(executions) } });
    let turn = 0;
    const usage = { inputTokens: { total: 50, noCache: 50, cacheRead: undefined, cacheWrite: undefined }, outputTokens: { total: 5, text: 5, reasoning: undefined } };
    const model = new MockLanguageModelV3({
      doStream: async (options) => {
        turn += 1;
        const chunks: LanguageModelV3StreamPart[] =
          options.toolChoice?.type === 'none' || turn > 8
            ? [
                { type: 'text-start' as const, id: 't' },
                { type: 'text-delta' as const, id: 't', delta: 'answer' },
                { type: 'text-end' as const, id: 't' },
                { type: 'finish' as const, finishReason: { unified: 'stop' as const, raw: undefined }, usage },
              ]
            : [
                { type: 'tool-call' as const, toolCallId: `s${turn}`, toolName: 'search', input: JSON.stringify({ query: `q${turn}` }) },
                { type: 'finish' as const, finishReason: { unified: 'tool-calls' as const, raw: undefined }, usage },
              ];
        return { stream: simulateReadableStream({ chunks }) };
      },
    });
    const result = streamText({ model, prompt: 'loop', ...guarded, stopWhen: [guarded.stopWhen, stepCountIs(30)] });
    expect(await result.text).to.equal('answer');
    expect(guarded.outcome().stopReason).to.equal('stale_rounds');
    // search is the run's only tool, so the ladder never switches it off (issue 9, item 6):
    // round 1 new, rounds 2-6 stale, and the stale-rounds stop comes after round 6 as before.
    expect(executions).to.have.length(6);
    expect(guarded.outcome().refusals).to.deep.equal([]);
    expect(model.doStreamCalls).to.have.length(7);
    expect(model.doStreamCalls.at(-1)?.toolChoice).to.deep.equal({ type: 'none' });
  });

  it('still stops when the spread prepareStep is replaced by your own', async () => {
    const executions: string[] = [];
    const guarded = createGuardedAgentSettings({ guard: new LoopGuard(), tools: { search: searchTool(executions) } });
    const model = scriptedLanguageModel(Array.from({ length: 20 }, (_, i) => ({ calls: [{ tool: 'search', args: { query: `q${i}` } }] })));
    const result = await generateText({
      model,
      prompt: 'loop',
      ...guarded,
      prepareStep: () => undefined,
      stopWhen: [guarded.stopWhen, stepCountIs(50)],
    });
    expect(guarded.outcome().stopReason).to.equal('stale_rounds');
    expect(result.steps.length).to.be.lessThan(10);
  });

  it('works as ToolLoopAgent settings (one agent per run)', async () => {
    const executions: string[] = [];
    const guarded = createGuardedAgentSettings({ guard: new LoopGuard(), tools: { search: searchTool(executions) } });
    const model = scriptedLanguageModel(Array.from({ length: 12 }, (_, i) => ({ calls: [{ tool: 'search', args: { query: `q${i}` } }] })), 'agent answer');
    const agent = new ToolLoopAgent({
      model,
      ...guarded,
      stopWhen: [guarded.stopWhen, stepCountIs(30)],
    });
    const result = await agent.generate({ prompt: 'loop' });
    expect(result.text).to.equal('agent answer');
    const outcome = guarded.end();
    expect(outcome.stopReason).to.equal('stale_rounds');
    // search is the run's only tool, so the ladder never switches it off (issue 9, item 6):
    // round 1 new, rounds 2-6 stale, and the stale-rounds stop comes after round 6 as before.
    expect(executions).to.have.length(6);
    expect(outcome.refusals).to.deep.equal([]);
    expect(model.doGenerateCalls).to.have.length(7);
    expect(model.doGenerateCalls.at(-1)?.toolChoice).to.deep.equal({ type: 'none' });
  });
});

