// The span interpretation against the SDK's real telemetry: generateText with
// experimental_telemetry on, a real TracerProvider with an in-memory exporter, and an
// async-hooks context manager so parent links are real. The interpreted spans then drive the
// real engine, the way the span processor will, and must reach the same verdict as the
// wrapped-tools adapter: a user who already traces gets the ledger without wrapping anything.
import { expect } from 'chai';
import { context } from '@opentelemetry/api';
import { AsyncLocalStorageContextManager } from '@opentelemetry/context-async-hooks';
import { TracerProvider, InMemorySpanExporter, SimpleSpanProcessor, type ReadableSpan } from '../../helpers/otel-sdk.js';
import { generateText, stepCountIs, tool } from 'ai';
import { z } from 'zod';

import { LoopGuard } from '../../../src/core/loop-guard.js';
import { interpretAiSdkSpan, type AiSdkSpanRole } from '../../../src/integrations/ai-sdk/index.js';
import { scriptedLanguageModel } from '../helpers/scripted-language-model.js';
import { aiSdkTracing } from '../helpers/ai-sdk-telemetry.js';

describe('interpretAiSdkSpan (real AI SDK telemetry)', () => {
  // Parent links need a context manager. Register one only if no other test did, and take
  // down only our own: other suites may rely on theirs.
  let registered = false;
  before(() => {
    registered = context.setGlobalContextManager(new AsyncLocalStorageContextManager().enable());
  });
  after(() => {
    if (registered) context.disable();
  });

  async function tracedRun(recordOutputs = true): Promise<ReadableSpan[]> {
    const exporter = new InMemorySpanExporter();
    const provider = new TracerProvider({ spanProcessors: [new SimpleSpanProcessor({ exporter: exporter })] });
    const tools = {
      search: tool({
        description: 'Search',
        inputSchema: z.object({ query: z.string() }),
        execute: async () => ({ results: [{ id: 'data-retention' }], tookMs: Math.random() }),
      }),
      fetchInvoice: tool({
        description: 'Fetch an invoice',
        inputSchema: z.object({ id: z.string() }),
        execute: async (): Promise<{ total: number }> => {
          throw Object.assign(new Error('billing down'), { name: 'BillingServiceError' });
        },
      }),
    };
    const queries = ['retention', 'data retention', 'retention period', 'how long is data kept', 'retention EU', 'retention policy'];
    const model = scriptedLanguageModel([
      { calls: [{ tool: 'fetchInvoice', args: { id: 'INV-1' }, id: 'failing' }] },
      ...queries.map((query) => ({ calls: [{ tool: 'search', args: { query } }] })),
    ]);
    await generateText({
      model,
      prompt: 'q',
      tools,
      stopWhen: stepCountIs(20),
      ...aiSdkTracing(provider.getTracer('test'), { functionId: 'support-agent', runId: 'conversation-7', recordOutputs }),
    });
    await provider.forceFlush();
    return exporter.getFinishedSpans();
  }

  function interpret(spans: ReadableSpan[]): Array<{ span: ReadableSpan; role: AiSdkSpanRole }> {
    const byId = new Map(spans.map((span) => [span.spanContext().spanId, span]));
    const roles: Array<{ span: ReadableSpan; role: AiSdkSpanRole }> = [];
    for (const span of [...spans].sort((a, b) => compareTime(a.startTime, b.startTime))) {
      const parent = span.parentSpanContext ? byId.get(span.parentSpanContext.spanId) : undefined;
      const role = interpretAiSdkSpan({
        name: span.name,
        attributes: span.attributes,
        parent: parent ? { name: parent.name } : undefined,
        status: span.status,
        events: span.events,
      });
      if (role) roles.push({ span, role });
    }
    return roles;
  }

  it('maps generateText, doGenerate and toolCall spans to run, round and call roles', async () => {
    const roles = interpret(await tracedRun());
    const run = roles.find((entry) => entry.role.role === 'run');
    expect(run?.role).to.deep.equal({ role: 'run', runId: 'conversation-7', agentName: 'support-agent', nested: false });

    const rounds = roles.filter((entry) => entry.role.role === 'round');
    expect(rounds).to.have.length(8);
    expect(rounds[0].role).to.deep.equal({ role: 'round', usage: { inputTokens: 100, outputTokens: 10 } });
    for (const round of rounds) expect(round.span.parentSpanContext?.spanId).to.equal(run?.span.spanContext().spanId);

    const calls = roles.filter((entry) => entry.role.role === 'call').map((entry) => entry.role);
    expect(calls).to.have.length(7);
    expect(calls[0]).to.deep.equal({
      role: 'call',
      tool: 'fetchInvoice',
      callId: 'failing',
      args: { id: 'INV-1' },
      argsRecorded: true,
      outcome: { error: { type: 'BillingServiceError', message: 'billing down' } },
    });
    expect(calls[1]).to.deep.include({ tool: 'search', args: { query: 'retention' } });
    expect((calls[1] as { outcome: { result: { results: unknown } } }).outcome.result.results).to.deep.equal([{ id: 'data-retention' }]);
  });

  it('without recorded outputs, arguments and result are unknown (not empty)', async () => {
    // The SDK files `ai.toolCall.args` under outputs too: recordOutputs: false drops both.
    const calls = interpret(await tracedRun(false)).filter((entry) => entry.role.role === 'call');
    const search = calls.find((entry) => entry.role.role === 'call' && entry.role.tool === 'search');
    expect(search?.role).to.deep.include({ args: undefined, argsRecorded: false, outcome: undefined });
  });

  it('drives the real engine to the same stale-round verdict the wrapped tools reach', async () => {
    const roles = interpret(await tracedRun());
    const guard = new LoopGuard({ escalation: { enabled: false } });
    // Replayed the way a span processor sees them: a run, then each model call opens a round
    // with the tool calls it asked for (`ai.response.toolCalls` on its span). Not by start time
    // alone: span times are whole milliseconds, so a call and the next model call can tie.
    const runRole = roles.find((entry) => entry.role.role === 'run')!.role as { runId: string };
    const run = guard.startRun(runRole.runId);
    const calls = new Map(roles.flatMap(({ role }) => (role.role === 'call' ? [[role.callId, role] as const] : [])));
    for (const { span, role } of roles) {
      if (role.role !== 'round') continue;
      if (run.shouldStop().action === 'stop') break;
      run.beginRound(role.usage);
      const asked = JSON.parse(String(span.attributes['ai.response.toolCalls'] ?? '[]')) as Array<{ toolCallId: string }>;
      for (const { toolCallId } of asked) {
        const call = calls.get(toolCallId)!;
        const outcome = call.outcome ?? { result: undefined };
        run.recordCall({ tool: call.tool, args: call.args, callId: call.callId }, 'error' in outcome ? { error: outcome.error } : outcome);
      }
    }
    const decision = run.shouldStop();
    expect(decision.action).to.equal('stop');
    expect(run.stopped?.reason).to.equal('stale_rounds');
    expect(run.partial()).to.include({ executed: 7, newFacts: 2, seenResults: 5 });
  });

  it('marks a generateText inside a tool call as a nested (sub-agent) run, and reads streamText spans', async () => {
    const exporter = new InMemorySpanExporter();
    const provider = new TracerProvider({ spanProcessors: [new SimpleSpanProcessor({ exporter: exporter })] });
    const tracer = provider.getTracer('test');
    const subAgent = tool({
      description: 'Ask a researcher sub-agent',
      inputSchema: z.object({ question: z.string() }),
      execute: async ({ question }) => {
        const inner = await generateText({
          model: scriptedLanguageModel([{ text: `notes on ${question}` }]),
          prompt: question,
          ...aiSdkTracing(tracer, { runId: 'sub-1' }),
        });
        return { notes: inner.text };
      },
    });
    await generateText({
      model: scriptedLanguageModel([{ calls: [{ tool: 'subAgent', args: { question: 'retention' } }] }]),
      prompt: 'q',
      tools: { subAgent },
      stopWhen: stepCountIs(3),
      ...aiSdkTracing(tracer, { runId: 'lead-1' }),
    });
    await provider.forceFlush();
    // Sorted: the finish order of the two run spans is the SDK's business, not what is tested.
    const runs = interpret(exporter.getFinishedSpans())
      .map((entry) => entry.role)
      .filter((role) => role.role === 'run')
      .sort((a, b) => String((a as { runId?: string }).runId).localeCompare(String((b as { runId?: string }).runId)));
    expect(runs).to.deep.equal([
      { role: 'run', runId: 'lead-1', agentName: undefined, nested: false },
      { role: 'run', runId: 'sub-1', agentName: undefined, nested: true },
    ]);

    expect(interpretAiSdkSpan({ name: 'ai.streamText', attributes: { 'ai.operationId': 'ai.streamText', 'ai.telemetry.metadata.conversationId': 'c-1' } })).to.deep.equal({
      role: 'run',
      runId: 'c-1',
      agentName: undefined,
      nested: false,
    });
    expect(interpretAiSdkSpan({ name: 'ai.streamText.doStream', attributes: { 'ai.operationId': 'ai.streamText.doStream', 'ai.usage.inputTokens': 7, 'ai.usage.outputTokens': 3 } })).to.deep.equal({
      role: 'round',
      usage: { inputTokens: 7, outputTokens: 3 },
    });
    expect(interpretAiSdkSpan({ name: 'ai.embed', attributes: { 'ai.operationId': 'ai.embed' } })).to.equal(undefined);
  });
});

function compareTime(a: [number, number], b: [number, number]): number {
  return a[0] - b[0] || a[1] - b[1];
}
