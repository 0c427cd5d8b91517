// createLoopGuardTelemetry against the real engine and the real OTel SDKs (in-memory readers
// and exporters only at the very end of the pipeline).
import { expect } from 'chai';
import { context, diag, metrics, trace, DiagLogLevel } from '@opentelemetry/api';
import type { DiagLogger, MeterProvider as ApiMeterProvider } from '@opentelemetry/api';
import { AsyncLocalStorageContextManager } from '@opentelemetry/context-async-hooks';
import { MeterProvider, DataPointType } from '@opentelemetry/sdk-metrics';
import type { MetricData } from '@opentelemetry/sdk-metrics';
import { LoggerProvider, SimpleLogRecordProcessor, InMemoryLogRecordExporter } from '@opentelemetry/sdk-logs';
import { TracerProvider } from '../helpers/otel-sdk.js';

import { LoopGuard } from '../../src/core/loop-guard.js';
import type { RunGuard } from '../../src/core/loop-guard.js';
import { createLoopGuardTelemetry } from '../../src/telemetry/telemetry.js';
import { EVENT_RUN_STOP, EVENT_TOOL_REFUSED } from '../../src/telemetry/names.js';
import { collect, TestReader } from '../helpers/test-metric-reader.js';


/** Sum of the data points of `name` whose attributes include `match`. */
function value(all: Map<string, MetricData>, name: string, match: Record<string, unknown> = {}): number {
  const m = all.get(name);
  if (!m) return 0;
  let total = 0;
  for (const dp of m.dataPoints as { attributes: Record<string, unknown>; value: unknown }[]) {
    if (Object.entries(match).every(([k, v]) => dp.attributes[k] === v)) total += dp.value as number;
  }
  return total;
}

/** One round per item: each call gets new arguments; `result` decides whether it is new. */
function round(run: RunGuard, tool: string, args: unknown, result: unknown, tokens = 0): void {
  run.beginRound(tokens ? { inputTokens: tokens, outputTokens: 0 } : undefined);
  const ticket = run.startCall({ tool, args });
  if (ticket.decision.action === 'allow') run.finishCall(ticket, { result });
}

describe('createLoopGuardTelemetry', () => {
  let reader: TestReader;
  let meterProvider: MeterProvider;
  let logExporter: InMemoryLogRecordExporter;
  let loggerProvider: LoggerProvider;
  let contextManager: AsyncLocalStorageContextManager;

  beforeEach(() => {
    reader = new TestReader();
    meterProvider = new MeterProvider({ readers: [reader] });
    logExporter = new InMemoryLogRecordExporter();
    loggerProvider = new LoggerProvider({ processors: [new SimpleLogRecordProcessor({ exporter: logExporter })] });
    contextManager = new AsyncLocalStorageContextManager().enable();
    context.setGlobalContextManager(contextManager);
  });

  afterEach(async () => {
    context.disable();
    await meterProvider.shutdown();
    await loggerProvider.shutdown();
  });

  it('counts decisions, refusals, rounds, stops and wasted work with bounded labels', async () => {
    const guard = new LoopGuard({ profile: 'researcher', staleRounds: 3, escalation: { enabled: false } });
    const telemetry = createLoopGuardTelemetry({ guard, meterProvider, loggerProvider });

    // A refusal: the same call twice in one run.
    const a = guard.startRun('refuser');
    round(a, 'fetch', { id: 1 }, { v: 1 });
    round(a, 'fetch', { id: 1 }, { v: 1 });
    a.shouldStop();
    guard.endRun('refuser');

    // A stale loop: reworded queries, the same documents, until the guard stops it.
    const b = guard.startRun('looper');
    let stopped = false;
    for (let i = 0; i < 10 && !stopped; i++) {
      round(b, 'search', { q: `reworded ${i}` }, { docs: ['d1', 'd2'] }, 100);
      stopped = b.shouldStop().action === 'stop';
    }
    expect(stopped, 'the stale loop is stopped').to.equal(true);

    const all = await collect(reader);
    expect(value(all, 'loopguard.runs.started')).to.equal(2);
    expect(value(all, 'loopguard.tool.calls', { 'loopguard.decision': 'refuse', 'gen_ai.tool.name': 'fetch' })).to.equal(1);
    expect(value(all, 'loopguard.tool.calls', { 'loopguard.decision': 'allow', 'loopguard.profile': 'researcher' })).to.be.greaterThan(2);
    expect(value(all, 'loopguard.refusals', { 'loopguard.refusal.reason': 'repeat.run_wide', 'gen_ai.tool.name': 'fetch' })).to.equal(1);
    expect(value(all, 'loopguard.run.stops', { 'loopguard.stop.reason': 'stale_rounds' })).to.equal(1);
    expect(value(all, 'loopguard.rounds', { 'loopguard.round.verdict': 'stale' })).to.be.at.least(2);
    expect(value(all, 'loopguard.rounds', { 'loopguard.round.verdict': 'new' })).to.be.at.least(2);
    expect(value(all, 'loopguard.wasted.calls', { 'gen_ai.tool.name': 'search' })).to.be.at.least(3);
    // Wasted tokens follow the engine's own accounting of the stopped run.
    const stop = b.stopped!;
    expect(value(all, 'loopguard.wasted.tokens')).to.be.greaterThan(0);
    expect(value(all, 'loopguard.wasted.tokens')).to.be.at.most(stop.partial.wastedTokens);
    expect(value(all, 'loopguard.runs.open')).to.equal(1);
    expect(all.get('loopguard.runs.open')!.dataPointType).to.equal(DataPointType.GAUGE);

    // No run ids or arguments as labels.
    for (const m of all.values()) {
      for (const dp of m.dataPoints) {
        const keys = Object.keys(dp.attributes);
        expect(keys.filter((k) => /run\.id|args|arguments/.test(k)), m.descriptor.name).to.deep.equal([]);
        expect(Object.values(dp.attributes)).to.not.include('looper');
      }
    }
    telemetry.shutdown();
  });

  it('reports runs at risk from guard.stats(), and 0 before any run', async () => {
    const guard = new LoopGuard({ profile: 'researcher', escalation: { enabled: false } });
    const telemetry = createLoopGuardTelemetry({ guard, meterProvider });
    let all = await collect(reader);
    expect(all.get('loopguard.runs.at_risk')?.dataPoints.map((d) => d.value)).to.deep.equal([0]);
    expect(all.get('loopguard.runs.open')?.dataPoints.map((d) => d.value)).to.deep.equal([0]);

    const run = guard.startRun('stalling');
    for (let i = 0; i < 3; i++) round(run, 'search', { q: `q${i}` }, { docs: ['same'] });
    run.beginRound(); // closes the third round: new, stale, stale
    all = await collect(reader);
    expect(guard.stats().runsAtRisk).to.equal(1);
    expect(value(all, 'loopguard.runs.at_risk')).to.equal(1);
    telemetry.shutdown();
  });

  it('emits stop and refusal events as log records correlated with the active span', async () => {
    const tracer = new TracerProvider().getTracer('test');
    const guard = new LoopGuard({ profile: 'researcher', staleRounds: 2, escalation: { enabled: false } });
    const telemetry = createLoopGuardTelemetry({ guard, meterProvider, loggerProvider });
    const span = tracer.startSpan('invoke_agent test');
    await context.with(trace.setSpan(context.active(), span), async () => {
      const run = guard.startRun('evented');
      round(run, 'fetch', { id: 7 }, { v: 1 });
      run.beginRound();
      const refused = run.startCall({ tool: 'fetch', args: { id: 7 }, callId: 'call-2' });
      expect(refused.decision.action).to.equal('refuse');
      // The same documents every round: a stale loop. (An envelope around zero documents would be
      // an empty result, which counts as exploration for a new query and never goes stale.)
      for (let i = 0; i < 6 && run.shouldStop().action !== 'stop'; i++) round(run, 'search', { q: i }, { docs: ['doc-1'], same: true });
      expect(run.stopped, 'stopped').to.not.equal(undefined);
    });
    span.end();

    const records = logExporter.getFinishedLogRecords();
    const refusedEvent = records.find((r) => r.eventName === EVENT_TOOL_REFUSED)!;
    expect(refusedEvent, 'refusal event').to.not.equal(undefined);
    expect(refusedEvent.attributes).to.include({
      'loopguard.run.id': 'evented',
      'gen_ai.tool.name': 'fetch',
      'loopguard.refusal.reason': 'repeat.run_wide',
      'loopguard.round': 2,
      'gen_ai.tool.call.id': 'call-2',
    });
    expect(refusedEvent.body).to.be.a('string').and.include('fetch');
    expect(refusedEvent.spanContext?.traceId).to.equal(span.spanContext().traceId);

    const stopEvent = records.find((r) => r.eventName === EVENT_RUN_STOP)!;
    expect(stopEvent, 'stop event').to.not.equal(undefined);
    expect(stopEvent.severityText).to.equal('WARN');
    expect(stopEvent.attributes['loopguard.stop.reason']).to.be.a('string');
    expect(stopEvent.attributes['loopguard.run.refusals']).to.be.at.least(1);
    expect(stopEvent.attributes['loopguard.run.rounds']).to.be.at.least(3);
    expect(stopEvent.spanContext?.spanId).to.equal(span.spanContext().spanId);
    telemetry.shutdown();
  });

  it('listener failures go to diag and never reach the agent loop', () => {
    const messages: string[] = [];
    const sink = (m: string): void => void messages.push(m);
    const logger: DiagLogger = { error: sink, warn: sink, info: sink, debug: sink, verbose: sink };
    diag.setLogger(logger, DiagLogLevel.WARN);
    try {
      const broken = { getMeter: () => { throw new Error('meter exploded'); } } as unknown as ApiMeterProvider;
      const guard = new LoopGuard();
      const telemetry = createLoopGuardTelemetry({ meterProvider: broken });
      const run = guard.startRun('x');
      expect(() => telemetry.listener.runStarted!(run)).to.not.throw();
      expect(() => telemetry.listener.roundClosed!(run, { round: 1, verdict: 'stale', calls: 0, executed: 0, refused: 0, newFacts: 0, seen: 0 })).to.not.throw();
      expect(messages.some((m) => m.includes('runStarted'))).to.equal(true);
    } finally {
      diag.disable();
    }
  });

  it('picks up a global MeterProvider registered after the telemetry was created', async () => {
    const guard = new LoopGuard();
    const telemetry = createLoopGuardTelemetry({ guard });
    guard.startRun('before-sdk');
    metrics.setGlobalMeterProvider(meterProvider);
    try {
      guard.startRun('after-sdk');
      const all = await collect(reader);
      expect(value(all, 'loopguard.runs.started')).to.equal(1);
      expect(value(all, 'loopguard.runs.open')).to.equal(2);
    } finally {
      telemetry.shutdown();
      metrics.disable();
    }
  });

  it('starts counters at 0 so the first stop, refusal and wasted call count in rate()', async () => {
    const guard = new LoopGuard({ profile: 'researcher', tools: { search: { retries: 2 } } });
    const telemetry = createLoopGuardTelemetry({ guard, meterProvider });
    const all = await collect(reader);
    const zero = (name: string, match: Record<string, unknown>): void => {
      const points = (all.get(name)?.dataPoints ?? []).filter((dp) => Object.entries(match).every(([k, v]) => dp.attributes[k] === v));
      expect(points.length, `${name} ${JSON.stringify(match)}`).to.be.greaterThan(0);
      expect(points.every((dp) => dp.value === 0)).to.equal(true);
    };
    zero('loopguard.run.stops', { 'loopguard.stop.reason': 'stale_rounds', 'loopguard.profile': 'researcher' });
    zero('loopguard.run.stops', { 'loopguard.stop.reason': 'max_run_ms', 'loopguard.profile': 'chat' });
    zero('loopguard.runs.started', { 'loopguard.profile': 'researcher' });
    zero('loopguard.rounds', { 'loopguard.round.verdict': 'stale' });
    zero('loopguard.wasted.tokens', {});
    // The policy names `search`: its per-tool series exist before its first call.
    zero('loopguard.tool.calls', { 'gen_ai.tool.name': 'search', 'loopguard.decision': 'refuse', 'loopguard.profile': 'researcher' });
    zero('loopguard.refusals', { 'gen_ai.tool.name': 'search', 'loopguard.refusal.reason': 'repeat.run_wide' });
    zero('loopguard.wasted.calls', { 'gen_ai.tool.name': 'search' });
    expect((all.get('loopguard.tool.calls')?.dataPoints ?? []).filter((dp) => dp.attributes['loopguard.profile'] === 'chat')).to.deep.equal([]);
    telemetry.shutdown();
  });

  it('sums the gauges over several engines reporting to one MeterProvider', async () => {
    const chat = new LoopGuard({ profile: 'chat' });
    const research = new LoopGuard({ profile: 'researcher' });
    const a = createLoopGuardTelemetry({ guard: chat, meterProvider });
    const b = createLoopGuardTelemetry({ guard: research, meterProvider });
    const c = createLoopGuardTelemetry({ guard: research, meterProvider, stopEvents: false });
    chat.startRun('c1');
    research.startRun('r1');
    research.startRun('r2');
    expect((await collect(reader)).get('loopguard.runs.open')?.dataPoints.map((d) => d.value)).to.deep.equal([3]);
    a.shutdown();
    b.shutdown(); // c still reports the research engine
    expect((await collect(reader)).get('loopguard.runs.open')?.dataPoints.map((d) => d.value)).to.deep.equal([2]);
    c.shutdown();
  });

  it('caps distinct tool names on metrics; events keep the real name', async () => {
    const guard = new LoopGuard({ profile: 'chat' });
    const telemetry = createLoopGuardTelemetry({ guard, meterProvider, loggerProvider, maxToolNames: 2 });
    const run = guard.startRun('hallucinating');
    run.beginRound();
    for (const tool of ['a', 'b', 'invented_1', 'invented_2']) {
      run.finishCall(run.startCall({ tool, args: {} }), { result: { ok: tool } });
    }
    const all = await collect(reader);
    const tools = new Set((all.get('loopguard.tool.calls')?.dataPoints ?? []).map((dp) => dp.attributes['gen_ai.tool.name']));
    expect([...tools].sort()).to.deep.equal(['_other', 'a', 'b']);
    expect(value(all, 'loopguard.tool.calls', { 'gen_ai.tool.name': '_other', 'loopguard.decision': 'allow' })).to.equal(2);
    telemetry.shutdown();
  });

  it('shutdown is idempotent and stops recording', async () => {
    const guard = new LoopGuard();
    const telemetry = createLoopGuardTelemetry({ guard, meterProvider });
    guard.startRun('one');
    telemetry.shutdown();
    telemetry.shutdown();
    guard.startRun('two');
    const all = await collect(reader);
    expect(value(all, 'loopguard.runs.started')).to.equal(1);
    expect(all.get('loopguard.runs.open')?.dataPoints ?? []).to.deep.equal([]);
  });
});
