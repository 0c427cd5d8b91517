// setupLoopGuardTelemetry end to end: a guarded agent loop (startAgentRun) exports traces,
// metrics and events over OTLP/HTTP to a loopback HTTP endpoint standing in for the Collector's
// OTLP receiver, configured only through OTEL_EXPORTER_OTLP_ENDPOINT.
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { expect } from 'chai';
import * as otelApi from '@opentelemetry/api';
import { context, createContextKey, metrics, ROOT_CONTEXT, trace, type ProxyTracerProvider } from '@opentelemetry/api';
import { logs as apiLogs } from '@opentelemetry/api-logs';
import { AsyncLocalStorageContextManager } from '@opentelemetry/context-async-hooks';
import { SDK_TRACE_MAJOR, TracerProvider } from '../helpers/otel-sdk.js';

import { startAgentRun } from '../../src/otel/start-agent-run.js';
import { setupLoopGuardTelemetry } from '../../src/telemetry/setup.js';

interface Received {
  path: string;
  body: any;
}

type OtlpValue = { stringValue?: string; intValue?: string | number; boolValue?: boolean; doubleValue?: number };
function attrs(list: { key: string; value: OtlpValue }[] = []): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  for (const { key, value } of list) {
    out[key] = value.stringValue ?? (value.intValue !== undefined ? Number(value.intValue) : undefined) ?? value.boolValue ?? value.doubleValue;
  }
  return out;
}

describe('setupLoopGuardTelemetry', function () {
  this.timeout(30_000);
  let server: Server;
  const received: Received[] = [];
  const savedEnv: Record<string, string | undefined> = {};
  const env = { OTEL_EXPORTER_OTLP_ENDPOINT: '', OTEL_SERVICE_NAME: undefined, OTEL_TRACES_EXPORTER: undefined, OTEL_METRICS_EXPORTER: undefined, OTEL_LOGS_EXPORTER: undefined, OTEL_SDK_DISABLED: undefined };

  before(async () => {
    server = createServer((req, res) => {
      let body = '';
      req.on('data', (chunk) => (body += chunk));
      req.on('end', () => {
        received.push({ path: req.url ?? '', body: JSON.parse(body) });
        res.writeHead(200, { 'content-type': 'application/json' }).end('{}');
      });
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    env.OTEL_EXPORTER_OTLP_ENDPOINT = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
    for (const [k, v] of Object.entries(env)) {
      savedEnv[k] = process.env[k];
      if (v === undefined) delete process.env[k];
      else process.env[k] = v;
    }
  });

  after(async () => {
    for (const [k, v] of Object.entries(savedEnv)) {
      if (v === undefined) delete process.env[k];
      else process.env[k] = v;
    }
    await new Promise((resolve) => server.close(resolve));
  });

  it('exports the guarded run as spans, metrics and correlated events, and shuts down idempotently', async () => {
    const lg = setupLoopGuardTelemetry({
      serviceName: 'setup-test',
      // Document 000's researcher: the repeated fetch_page is refused at the first repeat.
      profile: 'researcher',
      staleRounds: 3,
      escalation: { enabled: false },
      shutdownOnExit: false,
      toolNames: ['search', 'fetch_page'],
    });
    expect(lg.guard).to.equal(lg.processor.guard);
    // The logger provider is registered where the installed line's logs API reads it:
    // @opentelemetry/api itself from 1.10 (OTel JS 3.x), @opentelemetry/api-logs before.
    const logsApi = SDK_TRACE_MAJOR >= 3 ? (otelApi as unknown as { logs: typeof apiLogs }).logs : apiLogs;
    expect(logsApi.getLoggerProvider()).to.equal(lg.loggerProvider);

    // Before the first run: one push with every series at 0, so Prometheus has a starting sample.
    await lg.ready;
    const first = received.find((r) => r.path === '/v1/metrics');
    expect(first, 'a metric push before the first run').to.not.equal(undefined);
    const firstPoints = first!.body.resourceMetrics.flatMap((rm: any) =>
      rm.scopeMetrics.flatMap((sm: any) => sm.metrics.flatMap((m: any) => (m.sum?.dataPoints ?? []).map((dp: any) => ({ name: m.name, ...dp, attributes: attrs(dp.attributes) })))),
    );
    const zeroRefusals = firstPoints.filter((p: any) => p.name === 'loopguard.refusals' && p.attributes['gen_ai.tool.name'] === 'fetch_page');
    expect(zeroRefusals.length).to.be.greaterThan(0);
    expect(zeroRefusals.every((p: any) => Number(p.asInt ?? p.asDouble ?? 0) === 0)).to.equal(true);
    expect(firstPoints.some((p: any) => p.name === 'loopguard.run.stops' && p.attributes['loopguard.stop.reason'] === 'stale_rounds')).to.equal(true);
    expect(attrs(first!.body.resourceMetrics[0].resource.attributes)['service.instance.id']).to.be.a('string').with.length.greaterThan(10);

    const agent = startAgentRun({ processor: lg.processor, runId: 'run-setup', agentName: 'researcher' });
    const search = agent.tool('search', (args: { q: string }) => ({ docs: ['same-1', 'same-2'], q: undefined as unknown, asked: args.q.length > 0 }));
    const fetchPage = agent.tool('fetch_page', (args: { url: string }) => ({ text: `page ${args.url}` }));
    await context.with(agent.context, async () => {
      await agent.modelCall('test-model', () => ({ usage: { inputTokens: 100, outputTokens: 10 } }));
      await fetchPage({ url: 'a' });
      await agent.modelCall('test-model', () => ({ usage: { inputTokens: 100, outputTokens: 10 } }));
      await fetchPage({ url: 'a' }); // refused: already ran in this run
      for (let i = 0; i < 10 && agent.shouldStop().action !== 'stop'; i++) {
        await agent.modelCall('test-model', () => ({ usage: { inputTokens: 100, outputTokens: 10 } }));
        await search({ q: `reworded ${i}` });
      }
    });
    expect(agent.run.stopped?.reason).to.equal('stale_rounds');
    agent.end();

    await Promise.all([lg.shutdown(), lg.shutdown()]);
    await lg.shutdown();

    // Traces: the invoke_agent span carries the stop; the repeated call is marked refused.
    const spans = received
      .filter((r) => r.path === '/v1/traces')
      .flatMap((r) => r.body.resourceSpans.flatMap((rs: any) => rs.scopeSpans.flatMap((ss: any) => ss.spans.map((s: any) => ({ ...s, resource: attrs(rs.resource.attributes) })))));
    const root = spans.find((s) => s.name === 'invoke_agent researcher');
    expect(root, 'invoke_agent span exported').to.not.equal(undefined);
    expect(root.resource['service.name']).to.equal('setup-test');
    expect(attrs(root.attributes)).to.include({ 'loopguard.stop.reason': 'stale_rounds', 'loopguard.run.refusals': 1 });
    const refused = spans.filter((s) => s.name === 'execute_tool fetch_page' && attrs(s.attributes)['loopguard.decision'] === 'refuse');
    expect(refused).to.have.length(1);

    // Metrics: pushed on shutdown even though the export interval never elapsed.
    const metricNames = new Set(
      received
        .filter((r) => r.path === '/v1/metrics')
        .flatMap((r) => r.body.resourceMetrics.flatMap((rm: any) => rm.scopeMetrics.flatMap((sm: any) => sm.metrics.map((m: any) => m.name)))),
    );
    expect([...metricNames]).to.include.members(['loopguard.tool.calls', 'loopguard.refusals', 'loopguard.run.stops', 'loopguard.wasted.calls', 'loopguard.runs.open']);

    // Events: log records with eventName, in the trace of the run.
    const records = received
      .filter((r) => r.path === '/v1/logs')
      .flatMap((r) => r.body.resourceLogs.flatMap((rl: any) => rl.scopeLogs.flatMap((sl: any) => sl.logRecords)));
    const stop = records.find((l: any) => l.eventName === 'loopguard.run.stop');
    expect(stop, 'loopguard.run.stop event').to.not.equal(undefined);
    expect(attrs(stop.attributes)).to.include({ 'loopguard.stop.reason': 'stale_rounds', 'loopguard.run.id': 'run-setup' });
    expect(stop.traceId).to.equal(root.traceId);
    expect(records.some((l: any) => l.eventName === 'loopguard.tool.refused' && l.traceId === root.traceId)).to.equal(true);

    // Nothing global is left pointing at the shut-down providers.
    expect(trace.getTracerProvider()).to.not.equal(lg.tracerProvider);
    expect(metrics.getMeterProvider()).to.not.equal(lg.meterProvider);
    expect(logsApi.getLoggerProvider()).to.not.equal(lg.loggerProvider);
  });

  it("leaves an SDK the app registered before alone, at setup and at shutdown", async () => {
    const appProvider = new TracerProvider();
    const appContext = new AsyncLocalStorageContextManager().enable();
    trace.setGlobalTracerProvider(appProvider);
    context.setGlobalContextManager(appContext);
    try {
      const lg = setupLoopGuardTelemetry({ shutdownOnExit: false, traceExporter: false, metricExporter: false, logExporter: false });
      await lg.shutdown();
      expect((trace.getTracerProvider() as ProxyTracerProvider).getDelegate()).to.equal(appProvider);
      const key = createContextKey('still-there');
      expect(context.with(ROOT_CONTEXT.setValue(key, 1), () => context.active().getValue(key))).to.equal(1);
    } finally {
      trace.disable();
      context.disable();
    }
  });

  it("runs exporters' own work with tracing suppressed, so it is never traced or guarded", async () => {
    const seen: boolean[] = [];
    const spy = {
      export(_items: unknown[], done: (r: { code: number }) => void): void {
        // What an instrumented HTTP client inside an exporter would do.
        seen.push(trace.getTracer('http-client').startSpan('POST /v1/...').isRecording());
        done({ code: 0 });
      },
      shutdown: async () => {},
      forceFlush: async () => {},
    };
    const lg = setupLoopGuardTelemetry({ shutdownOnExit: false, traceExporter: spy as never, logExporter: spy as never, metricExporter: false });
    const agent = startAgentRun({ processor: lg.processor, runId: 'suppressed' });
    await context.with(agent.context, async () => {
      await agent.modelCall('m', () => ({}));
      await agent.tool('t', () => ({ ok: 1 }))({});
    });
    agent.end();
    await lg.shutdown();
    expect(seen.length).to.be.greaterThan(0);
    expect(seen.every((recording) => recording === false), 'spans started inside export() are not recorded').to.equal(true);
  });

  it('OTEL_SDK_DISABLED turns the exporters off while the guard keeps working', async () => {
    const before = received.length;
    process.env.OTEL_SDK_DISABLED = 'true';
    try {
      // Researcher: the exact repeat below is refused at the first repeat.
      const lg = setupLoopGuardTelemetry({ registerGlobal: false, shutdownOnExit: false, profile: 'researcher' });
      const run = lg.guard.startRun('quiet');
      run.beginRound();
      const first = run.startCall({ tool: 't', args: { a: 1 } });
      run.finishCall(first, { result: { ok: 1 } });
      expect(run.startCall({ tool: 't', args: { a: 1 } }).decision.action).to.equal('refuse');
      await lg.shutdown();
    } finally {
      delete process.env.OTEL_SDK_DISABLED;
    }
    expect(received.length).to.equal(before);
  });

  it('serves the same series for Prometheus to scrape when asked', async () => {
    const port = await new Promise<number>((resolve) => {
      const probe = createServer().listen(0, '127.0.0.1', () => {
        const { port: p } = probe.address() as AddressInfo;
        probe.close(() => resolve(p));
      });
    });
    const lg = setupLoopGuardTelemetry({ registerGlobal: false, shutdownOnExit: false, traceExporter: false, metricExporter: false, logExporter: false, prometheus: { host: '127.0.0.1', port } });
    try {
      lg.guard.startRun('scraped');
      let text = '';
      for (let i = 0; i < 50 && !text; i++) {
        text = await fetch(`http://127.0.0.1:${port}/metrics`).then((r) => r.text(), () => '');
        if (!text) await new Promise((r) => setTimeout(r, 50));
      }
      expect(text).to.match(/^loopguard_runs_started_total\{.*\} 1$/m);
      expect(text).to.match(/^loopguard_runs_open\{.*\} 1$/m);
    } finally {
      await lg.shutdown();
    }
  });
});
