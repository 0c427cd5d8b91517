// Issue 10 (correctness under review and attack), the span-processor items: each test failed
// on the code before its fix. Real OTel SDK throughout (otel-test-helpers).
import { expect } from 'chai';
import { context, ROOT_CONTEXT, trace } from '@opentelemetry/api';
import { MeterProvider, type MetricData } from '@opentelemetry/sdk-metrics';
import { TestReader } from '../helpers/test-metric-reader.js';
import { JsonTraceSerializer } from '@opentelemetry/otlp-transformer';

import { LoopGuard } from '../../src/core/loop-guard.js';
import { LoopGuardConfigError } from '../../src/core/errors.js';
import { instrumentTool, isLoopGuardRefusal } from '../../src/otel/instrument-tool.js';
import { LoopGuardSpanProcessor } from '../../src/otel/loop-guard-span-processor.js';
import { startAgentRun } from '../../src/otel/start-agent-run.js';
import { AiSdkGenAiSpanProcessor } from '../../src/integrations/ai-sdk/ai-sdk-gen-ai-span-processor.js';
import { createLoopGuardTelemetry } from '../../src/telemetry/telemetry.js';
import { replayFiles, writeTempLines } from '../replay/replay-test-helpers.js';
import { GEN_AI, makeHarness, modelCallSpan, startRunSpan, toolCallSpan, useContextManager, useDiagCapture, type Harness } from './otel-test-helpers.js';
import { TracerProvider, InMemorySpanExporter, SimpleSpanProcessor } from '../helpers/otel-sdk.js';


async function metricValue(reader: TestReader, name: string, match: Record<string, unknown>): Promise<number> {
  const { resourceMetrics } = await reader.collect();
  let total = 0;
  for (const sm of resourceMetrics.scopeMetrics) {
    for (const m of sm.metrics as MetricData[]) {
      if (m.descriptor.name !== name) continue;
      for (const dp of m.dataPoints as { attributes: Record<string, unknown>; value: unknown }[]) {
        if (Object.entries(match).every(([k, v]) => dp.attributes[k] === v)) total += dp.value as number;
      }
    }
  }
  return total;
}

/** An execute_tool span as a GenAI instrumentation writes it by default: no arguments (they are opt-in). */
function toolSpanWithoutArguments(h: Harness, ctx: ReturnType<typeof startRunSpan>['ctx'], tool: string, result: string) {
  const span = h.tracer.startSpan(`execute_tool ${tool}`, { attributes: { [GEN_AI.op]: 'execute_tool', [GEN_AI.toolName]: tool } }, ctx);
  span.setAttribute(GEN_AI.result, result);
  span.end();
  return span;
}

describe('issue 10: span processor and instrumentation', () => {
  useContextManager();
  const diagnostics = useDiagCapture();
  let h: Harness | undefined;

  afterEach(async () => {
    await h?.shutdown();
    h = undefined;
  });

  it('issue 10 #3: a tool span without arguments has no call identity and is never a repeat; replay of the export agrees', async () => {
    h = makeHarness({ profile: 'researcher' });
    const { span: root, ctx } = startRunSpan(h.tracer, 'no-args');
    for (const result of ['refund docs', 'shipping docs', 'warranty docs']) {
      modelCallSpan(h.tracer, ctx);
      toolSpanWithoutArguments(h, ctx, 'search', result);
    }
    root.end();
    const calls = h.finished().filter((span) => span.name === 'execute_tool search');
    expect(calls.map((span) => span.attributes['loopguard.decision'])).to.deep.equal(['allow', 'allow', 'allow']);
    const hashes = calls.map((span) => span.attributes['loopguard.tool.args_hash']);
    expect(new Set(hashes).size, 'each call its own identity, written on the span').to.equal(3);

    const request = new TextDecoder().decode(JsonTraceSerializer.serializeRequest(h.finished()));
    const file = writeTempLines('issue-10-3.otlp.jsonl', [request]);
    const replayed = await replayFiles([file], { profile: 'researcher' });
    expect(replayed.problems).to.deep.equal([]);
    const run = replayed.runs.find((r) => r.run === 'no-args');
    expect(run?.decisions.map((d) => d.decision)).to.deep.equal(['allow', 'allow', 'allow']);
  });

  it('issue 10 #8: overlapping invoke_agent spans of one conversation in different traces are two runs; the first ending does not stop the second', () => {
    h = makeHarness({ profile: 'researcher' });
    const open = (): ReturnType<typeof startRunSpan> => {
      const span = h!.tracer.startSpan('invoke_agent support', { attributes: { [GEN_AI.op]: 'invoke_agent', 'gen_ai.conversation.id': 'conv-1' } }, ROOT_CONTEXT);
      return { span, ctx: trace.setSpan(ROOT_CONTEXT, span) };
    };
    const a = open();
    const b = open();
    expect(a.span.spanContext().traceId).to.not.equal(b.span.spanContext().traceId);
    const runA = h.processor.runForContext(a.ctx);
    const runB = h.processor.runForContext(b.ctx);
    expect(runA).to.not.equal(undefined);
    expect(runB).to.not.equal(undefined);
    expect(runB).to.not.equal(runA);
    modelCallSpan(h.tracer, a.ctx);
    toolCallSpan(h.tracer, a.ctx, 'lookup', { order: 1 }, { result: 'shipped' });
    a.span.end();
    modelCallSpan(h.tracer, b.ctx);
    // The same call in the other turn: its own run, so neither a repeat nor run.stopped.
    toolCallSpan(h.tracer, b.ctx, 'lookup', { order: 1 }, { result: 'shipped' });
    b.span.end();
    const decisions = h.finished().filter((s) => s.name === 'execute_tool lookup').map((s) => s.attributes['loopguard.decision']);
    expect(decisions).to.deep.equal(['allow', 'allow']);

    // A nested invoke_agent carrying the same conversation id (a handoff) is still the same run.
    const outer = open();
    const inner = h.tracer.startSpan('invoke_agent billing', { attributes: { [GEN_AI.op]: 'invoke_agent', 'gen_ai.conversation.id': 'conv-1' } }, outer.ctx);
    expect(h.processor.runForContext(trace.setSpan(outer.ctx, inner))).to.equal(h.processor.runForContext(outer.ctx));
    inner.end();
    outer.span.end();
  });

  it('issue 10 #9: instrumentTool with no parent span opens no run (nothing leaks); a tool given a run is guarded', async () => {
    h = makeHarness({ profile: 'researcher' });
    let ran = 0;
    const search = instrumentTool('search', () => ++ran, { processor: h.processor, tracer: h.tracer });
    for (let i = 0; i < 10; i++) await context.with(ROOT_CONTEXT, () => search({ q: 'same' }));
    expect(ran).to.equal(10);
    expect(h.processor.guard.stats().openRuns, 'no implicit run per one-span trace').to.equal(0);
    expect(diagnostics.matching(/no parent span/).length, 'said once').to.equal(1);

    const run = h.processor.guard.startRun('given');
    let ranGuarded = 0;
    const guarded = instrumentTool('search', () => ++ranGuarded, { processor: h.processor, tracer: h.tracer, run: () => run });
    const results = [];
    for (let i = 0; i < 3; i++) results.push(await context.with(ROOT_CONTEXT, () => guarded({ q: 'same' })));
    expect(ranGuarded).to.equal(1);
    expect(isLoopGuardRefusal(results[1])).to.equal(true);
    expect(h.processor.guard.stats().openRuns).to.equal(1);
  });

  it('issue 10 #12: span state of runs the engine idled out is freed, never-ended spans included', () => {
    let now = 1_000_000;
    h = makeHarness({ profile: 'researcher', now: () => now, maxIdleMs: 60_000 });
    const leaked: string[] = [];
    for (let i = 0; i < 200; i++) {
      const { span, ctx } = startRunSpan(h.tracer, `leak-${i}`);
      const chat = h.tracer.startSpan('chat gpt-test', { attributes: { [GEN_AI.op]: 'chat' } }, ctx);
      const http = h.tracer.startSpan('GET /x', {}, trace.setSpan(ctx, chat));
      leaked.push(span.spanContext().spanId, chat.spanContext().spanId, http.spanContext().spanId);
    }
    expect(leaked.every((id) => h!.processor.isTracking(id))).to.equal(true);
    now += 61_000;
    h.processor.guard.startRun('fresh'); // the engine sweeps idle runs lazily here
    expect(h.processor.guard.stats().openRuns).to.equal(1);
    expect(leaked.filter((id) => h!.processor.isTracking(id)).length, 'spans of dropped runs').to.equal(0);
    expect(h.processor.trackedSpans).to.equal(0);
  });

  it('issue 10 #13: observe-only calls record would_refuse, distinct from an enforced refuse, on spans and metrics', async () => {
    const reader = new TestReader();
    const meterProvider = new MeterProvider({ readers: [reader] });
    const processor = new LoopGuardSpanProcessor({ profile: 'researcher' });
    const telemetry = createLoopGuardTelemetry({ guard: processor.guard, meterProvider });
    const exporter = new InMemorySpanExporter();
    const provider = new TracerProvider({ spanProcessors: [new AiSdkGenAiSpanProcessor(), processor, new SimpleSpanProcessor({ exporter: exporter })] });
    const tracer = provider.getTracer('t');
    try {
      // Spans as the AI SDK writes them: the SDK runs every call, loopguard only watches.
      const run = tracer.startSpan('ai.generateText', { attributes: { 'ai.operationId': 'ai.generateText', 'ai.telemetry.metadata.runId': 'observed' } });
      const ctx = trace.setSpan(ROOT_CONTEXT, run);
      for (let i = 0; i < 4; i++) {
        tracer.startSpan('ai.generateText.doGenerate', { attributes: { 'ai.operationId': 'ai.generateText.doGenerate' } }, ctx).end();
        const call = tracer.startSpan('ai.toolCall', { attributes: { 'ai.operationId': 'ai.toolCall', 'ai.toolCall.name': 'search', 'ai.toolCall.id': `c${i}`, 'ai.toolCall.args': '{"q":"same"}' } }, ctx);
        call.setAttribute('ai.toolCall.result', '"docs"');
        call.end();
      }
      run.end();
      const calls = exporter.getFinishedSpans().filter((s) => s.name === 'ai.toolCall');
      expect(calls.map((s) => s.attributes['loopguard.decision'])).to.deep.equal(['allow', 'would_refuse', 'would_refuse', 'would_refuse']);
      expect(calls[1].attributes['loopguard.refusal.reason']).to.be.a('string');
      expect(calls[1].attributes['loopguard.tool.outcome'], 'it ran: not "refused"').to.not.equal('refused');

      // Enforced: loopguard's own instrumentation refuses.
      const agent = startAgentRun({ processor, tracer, runId: 'enforced' });
      const tool = agent.tool('search', () => 'docs');
      await agent.modelCall('m', () => ({}));
      await tool({ q: 'same' });
      await agent.modelCall('m', () => ({}));
      await tool({ q: 'same' });
      agent.end();
      const enforced = exporter.getFinishedSpans().filter((s) => s.name === 'execute_tool search');
      expect(enforced.map((s) => s.attributes['loopguard.decision'])).to.deep.equal(['allow', 'refuse']);

      const labels = { 'gen_ai.tool.name': 'search', 'loopguard.profile': 'researcher' };
      expect(await metricValue(reader, 'loopguard.tool.calls', { ...labels, 'loopguard.decision': 'would_refuse' })).to.equal(3);
      expect(await metricValue(reader, 'loopguard.tool.calls', { ...labels, 'loopguard.decision': 'refuse' })).to.equal(1);
      expect(await metricValue(reader, 'loopguard.refusals', { 'gen_ai.tool.name': 'search' }), 'only enforced refusals').to.equal(1);
    } finally {
      telemetry.shutdown();
      await provider.shutdown();
      await meterProvider.shutdown();
    }
  });

  it('issue 10 #2: evictions at the open-run cap are counted in loopguard.runs.evicted, by cause', async () => {
    const reader = new TestReader();
    const meterProvider = new MeterProvider({ readers: [reader] });
    const guard = new LoopGuard({ profile: 'researcher', maxOpenRuns: 2, logger: { warn: () => undefined } });
    const telemetry = createLoopGuardTelemetry({ guard, meterProvider });
    try {
      for (const id of ['a', 'b', 'c', 'd']) guard.startRun(id);
      expect(await metricValue(reader, 'loopguard.runs.evicted', { 'loopguard.eviction.cause': 'max_open_runs', 'loopguard.profile': 'researcher' })).to.equal(2);
      // The evicted run fails open: its next call runs.
      expect(guard.getRun('a')?.startCall({ tool: 'search', args: { q: 1 } }).decision.action ?? 'allow').to.equal('allow');
    } finally {
      telemetry.shutdown();
      await meterProvider.shutdown();
    }
  });

  it('issue 10 #2: through the processor, a run evicted at the cap keeps working unguarded and opens no run in its place', () => {
    h = makeHarness({ profile: 'researcher', maxOpenRuns: 2, logger: { warn: () => undefined } });
    const first = startRunSpan(h.tracer, 'first');
    modelCallSpan(h.tracer, first.ctx);
    toolCallSpan(h.tracer, first.ctx, 'search', { q: 'a' }, { result: 'docs' });
    startRunSpan(h.tracer, 'second');
    startRunSpan(h.tracer, 'third'); // evicts "first", the idlest
    expect(h.processor.guard.getRun('first')?.evictedBy).to.equal('max_open_runs');
    modelCallSpan(h.tracer, first.ctx);
    // The same call again: a repeat in the researcher profile, but the run is unguarded now.
    toolCallSpan(h.tracer, first.ctx, 'search', { q: 'a' }, { result: 'docs' });
    const decisions = h.finished().filter((s) => s.name === 'execute_tool search').map((s) => s.attributes['loopguard.decision']);
    expect(decisions).to.deep.equal(['allow', 'allow']);
    expect(h.processor.guard.stats().openRuns, 'no implicit run opened for the evicted run\'s trace').to.equal(2);
    expect(h.processor.guard.getRun('second')?.isEnded, 'no cascade: the other live runs are kept').to.equal(false);
  });

  it('issue 10 #4: startAgentRun with the id of a run that ended starts a fresh run, also when the trace is not recorded', async () => {
    // A provider without the processor: nothing is recorded, startAgentRun keeps the run itself.
    const processor = new LoopGuardSpanProcessor({ profile: 'researcher' });
    const provider = new TracerProvider();
    const tracer = provider.getTracer('t');
    let ran = 0;
    for (let turn = 0; turn < 2; turn++) {
      const agent = startAgentRun({ processor, tracer, runId: 'same-id' });
      const tool = agent.tool('search', () => ++ran);
      await agent.modelCall('m', () => ({}));
      const result = await tool({ q: 'x' });
      expect(isLoopGuardRefusal(result), `turn ${turn}`).to.equal(false);
      agent.end();
    }
    expect(ran).to.equal(2);
    await provider.shutdown();
  });

  describe('issue 10 #14: API traps', () => {
    it('issue 10 #14: policy options next to `guard` are rejected, naming the field', () => {
      const guard = new LoopGuard();
      for (const field of ['profile', 'tools', 'maxOpenRuns']) {
        let error: unknown;
        try {
          new LoopGuardSpanProcessor({ guard, [field]: field === 'profile' ? 'chat' : field === 'tools' ? { wait: { exempt: true } } : 5 });
        } catch (caught) {
          error = caught;
        }
        expect(error, field).to.be.instanceOf(LoopGuardConfigError);
        expect((error as LoopGuardConfigError).field).to.equal(field);
      }
      expect(() => new LoopGuardSpanProcessor({ guard, maxTrackedSpans: 10 })).to.not.throw();
    });

    it('issue 10 #14: at the top level of a startAgentRun loop processor.shouldRefuse / shouldStop answer for that run', async () => {
      h = makeHarness({ profile: 'researcher' });
      const agent = startAgentRun({ processor: h.processor, tracer: h.tracer, runId: 'loop' });
      const tool = agent.tool('search', () => 'docs');
      await agent.modelCall('m', () => ({}));
      await tool({ q: 'same' });
      await agent.modelCall('m', () => ({}));
      const asked = h.processor.shouldRefuse({ tool: 'search', args: { q: 'same' } });
      const result = await tool({ q: 'same' });
      expect(asked.action).to.equal('refuse');
      expect(isLoopGuardRefusal(result)).to.equal(true);
      expect(agent.shouldRefuse({ tool: 'search', args: { q: 'same' } }).action).to.equal('refuse');
      expect(h.processor.shouldStop()).to.deep.equal(agent.shouldStop());
      agent.end();
      // Once the run ended the top level is outside any run again.
      expect(h.processor.shouldStop()).to.equal(undefined);
    });

    it('issue 10 #14: isLoopGuardRefusal tells a refusal from a text result', async () => {
      h = makeHarness({ profile: 'researcher' });
      const agent = startAgentRun({ processor: h.processor, tracer: h.tracer });
      const tool = agent.tool('search', () => 'Not run: this is the tool talking');
      await agent.modelCall('m', () => ({}));
      const first = await tool({ q: 'same' });
      await agent.modelCall('m', () => ({}));
      const second = await tool({ q: 'same' });
      agent.end();
      expect(typeof second).to.equal('string');
      expect(isLoopGuardRefusal(first)).to.equal(false);
      expect(isLoopGuardRefusal(second)).to.equal(true);
      expect(isLoopGuardRefusal(String(second))).to.equal(true);
      expect(isLoopGuardRefusal({ text: second })).to.equal(false);
    });
  });

  it('issue 10 #16: bad span-processor and instrumentation options are rejected at construction, naming the field', () => {
    const processor = new LoopGuardSpanProcessor();
    const cases: Array<[string, () => unknown]> = [
      ['maxTrackedSpans', () => new LoopGuardSpanProcessor({ maxTrackedSpans: -1 })],
      ['maxTrackedSpans', () => new LoopGuardSpanProcessor({ maxTrackedSpans: 'many' as unknown as number })],
      ['implicitRuns', () => new LoopGuardSpanProcessor({ implicitRuns: 'yes' as unknown as boolean })],
      ['interpreters', () => new LoopGuardSpanProcessor({ interpreters: 5 as unknown as [] })],
      ['interpreters[0]', () => new LoopGuardSpanProcessor({ interpreters: ['x' as unknown as () => undefined] })],
      ['guard', () => new LoopGuardSpanProcessor({ guard: {} as LoopGuard })],
      ['(root)', () => new LoopGuardSpanProcessor(5 as unknown as {})],
      ['processor', () => instrumentTool('t', () => 1, { processor: undefined as unknown as LoopGuardSpanProcessor })],
      ['name', () => instrumentTool('', () => 1, { processor })],
      ['execute', () => instrumentTool('t', 'fn' as unknown as () => 1, { processor })],
      ['recordArguments', () => instrumentTool('t', () => 1, { processor, recordArguments: 'yes' as unknown as boolean })],
      ['recordResult', () => instrumentTool('t', () => 1, { processor, recordResult: 1 as unknown as boolean })],
      ['type', () => instrumentTool('t', () => 1, { processor, type: 3 as unknown as string })],
      ['tracer', () => instrumentTool('t', () => 1, { processor, tracer: {} as never })],
      ['parentContext', () => instrumentTool('t', () => 1, { processor, parentContext: {} as never })],
      ['run', () => instrumentTool('t', () => 1, { processor, run: 'r' as never })],
      ['recordArgs', () => instrumentTool('t', () => 1, { processor, recordArgs: true } as never)],
      ['runId', () => startAgentRun({ processor, runId: '' })],
      ['agentName', () => startAgentRun({ processor, agentName: 7 as unknown as string })],
      ['processor', () => startAgentRun({} as never)],
      ['toolOptions.recordResult', () => startAgentRun({ processor, toolOptions: { recordResult: 'no' as unknown as boolean } })],
    ];
    for (const [field, make] of cases) {
      let error: unknown;
      try {
        make();
      } catch (caught) {
        error = caught;
      }
      expect(error, field).to.be.instanceOf(LoopGuardConfigError);
      expect((error as LoopGuardConfigError).field, field).to.equal(field);
    }
  });
});
