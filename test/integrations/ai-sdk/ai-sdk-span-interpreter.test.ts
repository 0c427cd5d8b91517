// aiSdkSpanInterpreter on the real span processor: an app that only turned on the AI SDK's
// experimental_telemetry gets runs, rounds and repeat decisions without wrapping its tools.
import { expect } from 'chai';
import { context } from '@opentelemetry/api';
import { AsyncLocalStorageContextManager } from '@opentelemetry/context-async-hooks';
import { TracerProvider, InMemorySpanExporter, SimpleSpanProcessor } from '../../helpers/otel-sdk.js';
import { generateText, stepCountIs, tool } from 'ai';
import { z } from 'zod';

import { LoopGuardSpanProcessor } from '../../../src/otel/loop-guard-span-processor.js';
import { LoopGuard } from '../../../src/core/loop-guard.js';
import { aiSdkSpanInterpreter, createGuardedAgentSettings } from '../../../src/integrations/ai-sdk/index.js';
import { scriptedLanguageModel } from '../helpers/scripted-language-model.js';
import { aiSdkTracing } from '../helpers/ai-sdk-telemetry.js';

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
    // Document 000's researcher: an exact repeat is refused at the first repeat.
    const processor = new LoopGuardSpanProcessor({ interpreters: [aiSdkSpanInterpreter], profile: 'researcher' });
    const exporter = new InMemorySpanExporter();
    const provider = new TracerProvider({ spanProcessors: [processor, new SimpleSpanProcessor({ exporter: exporter })] });
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
      ...aiSdkTracing(provider.getTracer('t'), { runId: 'conversation-9' }),
    });
    await provider.forceFlush();

    const calls = exporter.getFinishedSpans().filter((span) => span.name === 'ai.toolCall');
    // The AI SDK runs every tool call it makes: from its spans loopguard only watches, so the
    // repeat is recorded as would_refuse, not as an enforced refusal (issue 10 #13).
    expect(calls.map((span) => span.attributes['loopguard.decision'])).to.deep.equal(['allow', 'would_refuse']);
    expect(calls[1].attributes['loopguard.refusal.reason']).to.equal('repeat.run_wide');
    expect(calls.map((span) => span.attributes['loopguard.round'])).to.deep.equal([1, 2]);
    // Observed, not enforced: the SDK ran the tool; the span carries the verdict for the ledger.
    expect(executions).to.equal(2);
    const run = processor.guard.getRun('conversation-9');
    expect(run?.partial()).to.include({ rounds: 3, toolCalls: 2, refused: 1 });
  });

  it('guarded tools write their decisions on the SDK tool spans (and leave spans the processor decided alone)', async () => {
    const exporter = new InMemorySpanExporter();
    const provider = new TracerProvider({ spanProcessors: [new SimpleSpanProcessor({ exporter: exporter })] });
    const search = tool({
      description: 'Search',
      inputSchema: z.object({ query: z.string() }),
      execute: async () => ({ results: ['data-retention'] }),
    });
    const guarded = createGuardedAgentSettings({ guard: new LoopGuard({ profile: 'researcher' }), tools: { search } });
    await generateText({
      model: scriptedLanguageModel([
        { calls: [{ tool: 'search', args: { query: 'a' } }] },
        { calls: [{ tool: 'search', args: { query: 'b' } }] },
        { calls: [{ tool: 'search', args: { query: 'a' } }] },
      ]),
      prompt: 'q',
      ...guarded,
      stopWhen: [guarded.stopWhen, stepCountIs(10)],
      ...aiSdkTracing(provider.getTracer('t')),
    });
    const calls = exporter.getFinishedSpans().filter((span) => span.name === 'ai.toolCall');
    expect(calls.map((span) => [span.attributes['loopguard.decision'], span.attributes['loopguard.novelty'], span.attributes['loopguard.round']])).to.deep.equal([
      ['allow', 'new', 1],
      ['allow', 'seen', 2],
      ['refuse', undefined, 3],
    ]);
    expect(calls[2].attributes['loopguard.refusal.reason']).to.equal('repeat.run_wide');
    expect(calls[2].attributes['gen_ai.tool.name']).to.equal('search');

    // With the processor deciding the same spans, its decision stands.
    const processor = new LoopGuardSpanProcessor({ interpreters: [aiSdkSpanInterpreter], profile: 'chat' });
    const observed = new InMemorySpanExporter();
    const observedProvider = new TracerProvider({ spanProcessors: [processor, new SimpleSpanProcessor({ exporter: observed })] });
    const both = createGuardedAgentSettings({ guard: new LoopGuard({ profile: 'researcher' }), tools: { search } });
    await generateText({
      model: scriptedLanguageModel([{ calls: [{ tool: 'search', args: { query: 'a' } }] }, { calls: [{ tool: 'search', args: { query: 'a' } }] }]),
      prompt: 'q',
      ...both,
      stopWhen: [both.stopWhen, stepCountIs(10)],
      ...aiSdkTracing(observedProvider.getTracer('t')),
    });
    const decided = observed.getFinishedSpans().filter((span) => span.name === 'ai.toolCall');
    // The chat-profile processor allowed the second identical call; the adapter (researcher) refused it.
    expect(decided.map((span) => span.attributes['loopguard.decision'])).to.deep.equal(['allow', 'allow']);
    expect(both.outcome().refusals.map((refusal) => refusal.reason)).to.deep.equal(['repeat.run_wide']);
  });
});

