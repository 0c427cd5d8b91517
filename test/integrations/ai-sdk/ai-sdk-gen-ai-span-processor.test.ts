// AiSdkGenAiSpanProcessor in front of the real LoopGuardSpanProcessor: an app that only turned
// on the AI SDK's experimental_telemetry is guarded from the SDK's own spans, results included.
import { expect } from 'chai';
import { context } from '@opentelemetry/api';
import { AsyncLocalStorageContextManager } from '@opentelemetry/context-async-hooks';
import { TracerProvider, InMemorySpanExporter, SimpleSpanProcessor } from '../../helpers/otel-sdk.js';
import { generateText, stepCountIs, tool } from 'ai';
import { z } from 'zod';

import { LoopGuardSpanProcessor } from '../../../src/otel/loop-guard-span-processor.js';
import { AiSdkGenAiSpanProcessor } from '../../../src/integrations/ai-sdk/index.js';
import { scriptedLanguageModel } from '../helpers/scripted-language-model.js';
import { aiSdkTracing } from '../helpers/ai-sdk-telemetry.js';

describe('AiSdkGenAiSpanProcessor + LoopGuardSpanProcessor', () => {
  let registered = false;
  before(() => {
    registered = context.setGlobalContextManager(new AsyncLocalStorageContextManager().enable());
  });
  after(() => {
    if (registered) context.disable();
  });

  it('reads the SDK spans as invoke_agent / chat / execute_tool and stops a stale loop from results alone', async () => {
    const guardProcessor = new LoopGuardSpanProcessor({ escalation: { enabled: false } });
    const exporter = new InMemorySpanExporter();
    const provider = new TracerProvider({
      spanProcessors: [new AiSdkGenAiSpanProcessor(), guardProcessor, new SimpleSpanProcessor({ exporter: exporter })],
    });
    const search = tool({
      description: 'Search',
      inputSchema: z.object({ query: z.string() }),
      execute: async () => ({ results: [{ id: 'data-retention' }], tookMs: Math.random() * 100 }),
    });
    const failing = tool({
      description: 'Billing',
      inputSchema: z.object({ id: z.string() }),
      execute: async (): Promise<{ total: number }> => {
        throw Object.assign(new Error('ledger down'), { name: 'BillingServiceError' });
      },
    });
    const model = scriptedLanguageModel([
      { calls: [{ tool: 'fetchInvoice', args: { id: 'INV-1' } }] },
      ...['a', 'b', 'c', 'd', 'e', 'f', 'g'].map((query) => ({ calls: [{ tool: 'search', args: { query } }] })),
    ]);
    await generateText({
      model,
      prompt: 'q',
      tools: { search, fetchInvoice: failing },
      stopWhen: stepCountIs(20),
      ...aiSdkTracing(provider.getTracer('t'), { functionId: 'support', runId: 'conversation-42' }),
    });
    await provider.forceFlush();

    const spans = exporter.getFinishedSpans();
    const agent = spans.find((span) => span.name === 'ai.generateText')!;
    expect(agent.attributes).to.include({ 'gen_ai.operation.name': 'invoke_agent', 'loopguard.run.id': 'conversation-42', 'gen_ai.agent.name': 'support' });
    expect(spans.filter((span) => span.attributes['gen_ai.operation.name'] === 'chat')).to.have.length(9);
    const tools = spans.filter((span) => span.attributes['gen_ai.operation.name'] === 'execute_tool');
    expect(tools[0].attributes).to.include({ 'gen_ai.tool.name': 'fetchInvoice', 'error.type': 'BillingServiceError' });
    expect(tools[1].attributes).to.include({ 'gen_ai.tool.name': 'search', 'gen_ai.tool.call.arguments': '{"query":"a"}' });
    expect(tools[1].attributes['gen_ai.tool.call.result']).to.be.a('string');
    expect(tools.map((span) => span.attributes['loopguard.novelty'])).to.deep.equal(['new', 'new', 'seen', 'seen', 'seen', 'seen', 'seen', 'seen']);

    const decision = guardProcessor.guard.getRun('conversation-42')?.shouldStop();
    expect(decision?.action === 'stop' && decision.reason).to.equal('stale_rounds');
  });
});
