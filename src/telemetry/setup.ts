// One call for apps without their own OpenTelemetry setup: traces, metrics and logs over
// OTLP/HTTP, the LoopGuardSpanProcessor on the tracer provider, loopguard's metrics and events
// on the engine, and a shutdown that flushes. Apps that already run an SDK should instead add
// `new LoopGuardSpanProcessor()` to their tracer provider and call createLoopGuardTelemetry.

import { randomUUID } from 'node:crypto';
import { context, createContextKey, diag, metrics, propagation, ROOT_CONTEXT, trace, type ProxyTracerProvider } from '@opentelemetry/api';
import { AsyncLocalStorageContextManager } from '@opentelemetry/context-async-hooks';
import { CompositePropagator, suppressTracing, W3CBaggagePropagator, W3CTraceContextPropagator, type ExportResult } from '@opentelemetry/core';
import { OTLPLogExporter } from '@opentelemetry/exporter-logs-otlp-http';
import { OTLPMetricExporter } from '@opentelemetry/exporter-metrics-otlp-http';
import { PrometheusExporter } from '@opentelemetry/exporter-prometheus';
import { OTLPTraceExporter } from '@opentelemetry/exporter-trace-otlp-http';
import { defaultResource, envDetector, detectResources, resourceFromAttributes, type Resource } from '@opentelemetry/resources';
import { BatchLogRecordProcessor, LoggerProvider, type LogRecordExporter, type ReadableLogRecord } from '@opentelemetry/sdk-logs';
import {
  MeterProvider,
  PeriodicExportingMetricReader,
  type IMetricReader,
  type PushMetricExporter,
  type ResourceMetrics,
} from '@opentelemetry/sdk-metrics';
// @opentelemetry/sdk-trace is the trace SDK of both lines (2.9+ and 3.x); 3.x has no
// sdk-trace-base or sdk-trace-node, so the Node set-up (context manager, propagators) is done here.
import { BatchSpanProcessor, TracerProvider, type ReadableSpan, type SpanExporter } from '@opentelemetry/sdk-trace';

import type { LoopGuard } from '../core/loop-guard.js';
import { LoopGuardSpanProcessor, type LoopGuardSpanProcessorOptions } from '../otel/loop-guard-span-processor.js';
import { logs } from './logs-api.js';
import { createLoopGuardTelemetry, type LoopGuardTelemetry, type LoopGuardTelemetryOptions } from './telemetry.js';

/** Options of {@link setupLoopGuardTelemetry}. Every field is optional. */
export interface SetupLoopGuardTelemetryOptions extends LoopGuardSpanProcessorOptions {
  /**
   * `service.name` of the resource. Default: `OTEL_SERVICE_NAME` (or `service.name` in
   * `OTEL_RESOURCE_ATTRIBUTES`), else `loopguard-agent`. Given here, it wins over both.
   */
  serviceName?: string;
  /** Extra resource attributes, merged last (they win). Default none. */
  resource?: Resource;
  /**
   * Where spans go. Default: OTLP/HTTP (`OTEL_EXPORTER_OTLP_[TRACES_]ENDPOINT`, `_HEADERS`,
   * `_TIMEOUT` honoured), or none when `OTEL_TRACES_EXPORTER=none`. `false`: export no spans
   * (runs are still guarded).
   */
  traceExporter?: SpanExporter | false;
  /** Where metrics are pushed. Default: OTLP/HTTP, or none when `OTEL_METRICS_EXPORTER=none`. `false`: push none. */
  metricExporter?: PushMetricExporter | false;
  /** Where log events go. Default: OTLP/HTTP, or none when `OTEL_LOGS_EXPORTER=none`. `false`: export none. */
  logExporter?: LogRecordExporter | false;
  /**
   * Interval of the metric push in ms. Default: `OTEL_METRIC_EXPORT_INTERVAL`, else 15 000
   * (shorter than the SDK's 60 s so a demo run shows up on the dashboard while you watch).
   */
  metricExportIntervalMillis?: number;
  /**
   * Also serve the metrics for Prometheus to scrape (pull), e.g. `{ port: 9464 }`. The series
   * are the same as on the OTLP -> Collector path. Default: off.
   */
  prometheus?: { host?: string; port?: number; endpoint?: string };
  /**
   * Register the providers globally (tracer, meter, logger), with the AsyncLocalStorage context
   * manager and W3C propagators, so instrumentation libraries and `trace.getTracer` use them.
   * Default true.
   */
  registerGlobal?: boolean;
  /** Flush and shut down when the process is about to exit normally (`beforeExit`). Default true. */
  shutdownOnExit?: boolean;
  /**
   * Names of the app's tools: their per-tool series are exported at 0 before the first run
   * (see {@link LoopGuardTelemetryOptions.toolNames}). Default: the tools named in the policy.
   */
  toolNames?: string[];
}

/** What {@link setupLoopGuardTelemetry} returns. */
export interface LoopGuardTelemetrySetup {
  readonly processor: LoopGuardSpanProcessor;
  readonly guard: LoopGuard;
  readonly telemetry: LoopGuardTelemetry;
  readonly tracerProvider: TracerProvider;
  readonly meterProvider: MeterProvider;
  readonly loggerProvider: LoggerProvider;
  /** The pull endpoint, when `prometheus` was given. */
  readonly prometheusExporter?: PrometheusExporter;
  /**
   * Settles once the zero-valued series went out in a first metric push. A process that lives
   * only seconds (a CLI, a batch job, the demo) should await it before its first run: Prometheus
   * only counts an increase between two samples it has seen.
   */
  readonly ready: Promise<void>;
  /** Flushes spans, metrics and events, then shuts everything down. Idempotent; never rejects. */
  shutdown(): Promise<void>;
}

const DEFAULT_SERVICE_NAME = 'loopguard-agent';
const DEFAULT_METRIC_INTERVAL_MS = 15_000;

/**
 * Wires traces, metrics and logs over OTLP/HTTP for an app that has no OpenTelemetry setup,
 * with the {@link LoopGuardSpanProcessor} on the tracer provider and loopguard's metrics and
 * events on its engine. The standard `OTEL_*` variables configure the exporters (endpoint,
 * headers, timeout, protocol paths) and `OTEL_SDK_DISABLED=true` turns every exporter off
 * while the guard keeps working.
 */
export function setupLoopGuardTelemetry(options: SetupLoopGuardTelemetryOptions = {}): LoopGuardTelemetrySetup {
  const {
    serviceName,
    resource: extraResource,
    traceExporter,
    metricExporter,
    logExporter,
    metricExportIntervalMillis,
    prometheus,
    registerGlobal = true,
    shutdownOnExit = true,
    toolNames,
    ...processorOptions
  } = options;

  const resource = buildResource(serviceName, extraResource);
  const sdkDisabled = envFlag('OTEL_SDK_DISABLED');

  const processor = new LoopGuardSpanProcessor(processorOptions);
  const spanExporter = pick(traceExporter, 'OTEL_TRACES_EXPORTER', sdkDisabled, () => new OTLPTraceExporter());
  const tracerProvider = new TracerProvider({
    resource,
    // The guard first: it writes decisions and stop reasons on spans before exporters read them.
    spanProcessors: [processor, ...(spanExporter ? [new BatchSpanProcessor({ exporter: suppressedSpanExporter(spanExporter) })] : [])],
  });

  const readers: IMetricReader[] = [];
  const pushExporter = pick(metricExporter, 'OTEL_METRICS_EXPORTER', sdkDisabled, () => new OTLPMetricExporter());
  if (pushExporter) {
    readers.push(
      new PeriodicExportingMetricReader({
        exporter: suppressedMetricExporter(pushExporter),
        exportIntervalMillis: metricExportIntervalMillis ?? envNumber('OTEL_METRIC_EXPORT_INTERVAL') ?? DEFAULT_METRIC_INTERVAL_MS,
      }),
    );
  }
  let prometheusExporter: PrometheusExporter | undefined;
  if (prometheus && !sdkDisabled) {
    prometheusExporter = new PrometheusExporter({ ...prometheus }, (error) => {
      if (error) diag.error('loopguard: the Prometheus endpoint could not start', error);
    });
    readers.push(prometheusExporter);
  }
  const meterProvider = new MeterProvider({ resource, readers });

  const recordExporter = pick(logExporter, 'OTEL_LOGS_EXPORTER', sdkDisabled, () => new OTLPLogExporter());
  const loggerProvider = new LoggerProvider({
    resource,
    processors: recordExporter ? [new BatchLogRecordProcessor({ exporter: suppressedLogExporter(recordExporter) })] : [],
  });

  // What this call registered globally, so shutdown unregisters only its own providers and
  // never an SDK the app had set up before.
  const owned = { trace: false, context: false, metrics: false, logs: false };
  if (registerGlobal) {
    const hadContextManager = contextPropagates();
    registerTracerProvider(tracerProvider);
    owned.trace = (trace.getTracerProvider() as ProxyTracerProvider).getDelegate() === tracerProvider;
    owned.context = owned.trace && !hadContextManager;
    owned.metrics = metrics.setGlobalMeterProvider(meterProvider);
    // Read back rather than trust the return value: api-logs returns the global provider,
    // @opentelemetry/api 1.10 a boolean.
    logs.setGlobalLoggerProvider(loggerProvider);
    owned.logs = logs.getLoggerProvider() === loggerProvider;
    if (!owned.trace || !owned.metrics || !owned.logs) {
      diag.warn('loopguard: an OpenTelemetry SDK was already registered globally; setupLoopGuardTelemetry exports through its own providers, but spans of other instrumentation are not guarded. Add LoopGuardSpanProcessor to your SDK instead.');
    }
  }

  // Explicit providers, not the globals: the telemetry works the same with registerGlobal false.
  const telemetry = createLoopGuardTelemetry({ guard: processor.guard, meterProvider, loggerProvider, toolNames });
  const ready = pushExporter ? settle('first metric push', meterProvider.forceFlush()) : Promise.resolve();

  let shutdownPromise: Promise<void> | undefined;
  const onBeforeExit = (): void => void shutdown();
  const shutdown = (): Promise<void> => {
    shutdownPromise ??= (async () => {
      process.removeListener('beforeExit', onBeforeExit);
      // The tracer provider first: its shutdown ends the open runs, and the metrics and events
      // of those ends must still be recorded and flushed after it. The listener goes last so
      // the final metric collection still observes the gauges.
      await settle('tracer provider shutdown', tracerProvider.shutdown());
      await Promise.all([settle('meter provider shutdown', meterProvider.shutdown()), settle('logger provider shutdown', loggerProvider.shutdown())]);
      telemetry.shutdown();
      // Leave no global pointing at shut-down providers.
      if (owned.trace) trace.disable();
      if (owned.metrics) metrics.disable();
      if (owned.logs) logs.disable();
      if (owned.context) context.disable();
    })();
    return shutdownPromise;
  };
  if (shutdownOnExit) process.once('beforeExit', onBeforeExit);

  return {
    processor,
    guard: processor.guard,
    telemetry,
    tracerProvider,
    meterProvider,
    loggerProvider,
    prometheusExporter,
    ready,
    shutdown,
  };
}

/**
 * What NodeTracerProvider.register() did (OTel JS 2.x; 3.x has no sdk-trace-node): the global
 * tracer provider, the AsyncLocalStorage context manager and the W3C trace-context and baggage
 * propagators. Each global is set only when none is set yet (the API refuses to replace one).
 */
function registerTracerProvider(tracerProvider: TracerProvider): void {
  trace.setGlobalTracerProvider(tracerProvider);
  const contextManager = new AsyncLocalStorageContextManager().enable();
  if (!context.setGlobalContextManager(contextManager)) contextManager.disable();
  propagation.setGlobalPropagator(new CompositePropagator({ propagators: [new W3CTraceContextPropagator(), new W3CBaggagePropagator()] }));
}

const PROBE_KEY = createContextKey('loopguard.setup.probe');

/** True when a context manager is installed (with the no-op one, `context.with` keeps nothing). */
function contextPropagates(): boolean {
  return context.with(ROOT_CONTEXT.setValue(PROBE_KEY, true), () => context.active().getValue(PROBE_KEY) === true);
}

function buildResource(serviceName: string | undefined, extra: Resource | undefined): Resource {
  // Precedence, lowest first: SDK defaults, our fallbacks, OTEL_* env, explicit options.
  // service.instance.id keeps two processes of one service apart: the Collector turns it into
  // the `instance` label, and without it their counters would land on one series and read as
  // resets.
  let resource = defaultResource()
    .merge(resourceFromAttributes({ 'service.name': DEFAULT_SERVICE_NAME, 'service.instance.id': randomUUID() }))
    .merge(detectResources({ detectors: [envDetector] }));
  if (serviceName) resource = resource.merge(resourceFromAttributes({ 'service.name': serviceName }));
  return extra ? resource.merge(extra) : resource;
}

function pick<T>(given: T | false | undefined, envVar: string, sdkDisabled: boolean, create: () => T): T | undefined {
  if (given === false || sdkDisabled) return undefined;
  if (given !== undefined) return given;
  const configured = (process.env[envVar] ?? '').split(',').map((s) => s.trim().toLowerCase()).filter(Boolean);
  if (configured.includes('none')) return undefined;
  if (configured.length > 0 && !configured.includes('otlp')) {
    diag.warn(`loopguard: ${envVar}=${process.env[envVar]} is not supported by setupLoopGuardTelemetry; using otlp`);
  }
  return create();
}

function envFlag(name: string): boolean {
  return (process.env[name] ?? '').trim().toLowerCase() === 'true';
}

function envNumber(name: string): number | undefined {
  const raw = process.env[name];
  if (raw === undefined || raw.trim() === '') return undefined;
  const value = Number(raw);
  if (Number.isFinite(value) && value > 0) return value;
  diag.warn(`loopguard: ignoring ${name}=${raw}: not a positive number`);
  return undefined;
}

async function settle(what: string, work: Promise<unknown>): Promise<void> {
  try {
    await work;
  } catch (error) {
    diag.error(`loopguard: ${what} failed`, error);
  }
}

// The SDK's batch processors and metric reader already export under suppressTracing; these
// wrappers make it hold for any exporter passed in too, so an app with HTTP instrumentation
// never traces (and never guards) loopguard's own export requests.
function suppressed<T>(fn: () => T): T {
  return context.with(suppressTracing(context.active()), fn);
}

function suppressedSpanExporter(exporter: SpanExporter): SpanExporter {
  return {
    export: (spans: ReadableSpan[], done: (result: ExportResult) => void) => suppressed(() => exporter.export(spans, done)),
    shutdown: () => suppressed(() => exporter.shutdown()),
    forceFlush: exporter.forceFlush ? () => suppressed(() => exporter.forceFlush!()) : undefined,
  };
}

function suppressedMetricExporter(exporter: PushMetricExporter): PushMetricExporter {
  return {
    export: (batch: ResourceMetrics, done: (result: ExportResult) => void) => suppressed(() => exporter.export(batch, done)),
    forceFlush: () => suppressed(() => exporter.forceFlush()),
    shutdown: () => suppressed(() => exporter.shutdown()),
    selectAggregationTemporality: exporter.selectAggregationTemporality?.bind(exporter),
    selectAggregation: exporter.selectAggregation?.bind(exporter),
  };
}

function suppressedLogExporter(exporter: LogRecordExporter): LogRecordExporter {
  return {
    export: (records: ReadableLogRecord[], done: (result: ExportResult) => void) => suppressed(() => exporter.export(records, done)),
    shutdown: () => suppressed(() => exporter.shutdown()),
    forceFlush: () => suppressed(() => exporter.forceFlush?.() ?? Promise.resolve()),
  };
}
