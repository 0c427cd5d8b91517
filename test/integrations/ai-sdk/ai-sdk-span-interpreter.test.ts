// aiSdkSpanInterpreter on the real span processor: an app that only turned on the AI SDK's
// experimental_telemetry gets runs, rounds and repeat decisions without wrapping its tools.
import { expect } from 'chai';
import { context } from '@opentelemetry/api';
import { AsyncLocalStorageContextManager } from '@opentelemetry/context-async-hooks';
import { BasicTracerProvider, InMemorySpanExporter, SimpleSpanProcessor } from '@opentelemetry/sdk-trace-base';
import { generateText, stepCountIs, tool } from 'ai';
import { z } from 'zod';

import { LoopGuardSpanProcessor } from '../../../src/otel/loop-guard-span-processor.js';
import { aiSdkSpanInterpreter } from '../../../src/integrations/ai-sdk/index.js';
import { scriptedLanguageModel } from '../helpers/scripted-language-model.js';

describe('aiSdkSpanInterpreter on LoopGuardSpanProcessor', () => {
  // Parent links need a context manager. Register one only if no other test did, and take
  // down only our own: other suites may rely on theirs.
  let registered = false;
  before(() => {
    registered = context.setGlobalContextManager(new AsyncLocalStorageContextManager().enable());
  });
  after(() => {
    if (registered) context.disable();
  });

  it('opens the run from generateText, a round per doGenerate, and decides each ai.toolCall', async () => {
    const processor = new LoopGuardSpanProcessor({ interpreters: [aiSdkSpanInterpreter] });
    const exporter = new InMemorySpanExporter();
    const provider = new BasicTracerProvider({ spanProcessors: [processor, new SimpleSpanProcessor(exporter)] });
    let executions = 0;
    const search = tool({
      description: 'Search',
      inputSchema: z.object({ query: z.string() }),
      execute: async () => {
        executions += 1;
        return { results: ['data-retention'] };
      },
    });
    const model = scriptedLanguageModel([
      { calls: [{ tool: 'search', args: { query: 'retention' } }] },
      { calls: [{ tool: 'search', args: '{"query":"retention"}' }] },
      { text: 'done' },
    ]);
    await generateText({
      model,
      prompt: 'q',
      tools: { search },
      stopWhen: stepCountIs(5),
      experimental_telemetry: { isEnabled: true, tracer: provider.getTracer('t'), metadata: { runId: 'conversation-9' } },
    });
    await provider.forceFlush();

    const calls = exporter.getFinishedSpans().filter((span) => span.name === 'ai.toolCall');
    expect(calls.map((span) => span.attributes['loopguard.decision'])).to.deep.equal(['allow', 'refuse']);
    expect(calls[1].attributes['loopguard.refusal.reason']).to.equal('repeat.run_wide');
    expect(calls.map((span) => span.attributes['loopguard.round'])).to.deep.equal([1, 2]);
    // Observed, not enforced: the SDK ran the tool; the span carries the verdict for the ledger.
    expect(executions).to.equal(2);
    const run = processor.guard.getRun('conversation-9');
    expect(run?.partial()).to.include({ rounds: 3, toolCalls: 2, refused: 1 });
  });
});
