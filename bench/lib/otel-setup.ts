import { context, SpanKind, trace, type Context, type Tracer } from '@opentelemetry/api';
import { AsyncLocalStorageContextManager } from '@opentelemetry/context-async-hooks';
import { ExportResultCode, type ExportResult } from '@opentelemetry/core';
// @opentelemetry/sdk-trace: the trace SDK of OTel JS 2.9+ and 3.x (3.x has no sdk-trace-base).
import { BatchSpanProcessor, TracerProvider, type ReadableSpan, type SpanExporter } from '@opentelemetry/sdk-trace';
import { LoopGuardSpanProcessor, type LoopGuardSpanProcessorOptions } from '../../src/otel/loop-guard-span-processor.js';

/** Accepts every batch and drops it: the cost of exporting is not what we measure. */
export class NoopSpanExporter implements SpanExporter {
  exported = 0;
  export(spans: ReadableSpan[], resultCallback: (result: ExportResult) => void): void {
    this.exported += spans.length;
    resultCallback({ code: ExportResultCode.SUCCESS });
  }
  shutdown(): Promise<void> {
    return Promise.resolve();
  }
  forceFlush(): Promise<void> {
    return Promise.resolve();
  }
}

let contextManagerInstalled = false;

/**
 * The context manager a Node app has (NodeTracerProvider registers this one). Both sides of
 * every comparison run under it, so its cost is in the baseline as well.
 */
export function installContextManager(): void {
  if (contextManagerInstalled) return;
  contextManagerInstalled = true;
  context.setGlobalContextManager(new AsyncLocalStorageContextManager().enable());
}

export interface TracingSetup {
  provider: TracerProvider;
  tracer: Tracer;
  exporter: NoopSpanExporter;
  processor?: LoopGuardSpanProcessor;
}

/** A provider with a BatchSpanProcessor and a no-op exporter: the app's own tracing. */
export function bareTracing(): TracingSetup {
  installContextManager();
  const exporter = new NoopSpanExporter();
  const provider = new TracerProvider({ spanProcessors: [new BatchSpanProcessor({ exporter })] });
  return { provider, tracer: provider.getTracer('bench'), exporter };
}

/** The same, with loopguard's processor registered in front of the batch processor. */
export function guardedTracing(options: LoopGuardSpanProcessorOptions = {}): TracingSetup {
  installContextManager();
  const exporter = new NoopSpanExporter();
  const processor = new LoopGuardSpanProcessor(options);
  const provider = new TracerProvider({ spanProcessors: [processor, new BatchSpanProcessor({ exporter })] });
  return { provider, tracer: provider.getTracer('bench'), exporter, processor };
}

/**
 * The baseline tool call: an `execute_tool` span with the same GenAI attributes loopguard's
 * instrumentation writes (minus its own), made active around the tool, ended after it.
 */
export function bareTool<A, R>(tracer: Tracer, name: string, execute: (args: A) => Promise<R> | R, parent: () => Context) {
  const attributes = { 'gen_ai.operation.name': 'execute_tool', 'gen_ai.tool.name': name, 'gen_ai.tool.type': 'function' };
  return (args: A): Promise<R> =>
    tracer.startActiveSpan(`execute_tool ${name}`, { kind: SpanKind.INTERNAL, attributes }, parent(), async (span) => {
      try {
        return await execute(args);
      } finally {
        span.end();
      }
    });
}

/** Parent span of a run on the bare side (loopguard's side uses startAgentRun). */
export function bareRun(tracer: Tracer): { context: Context; end(): void } {
  const span = tracer.startSpan('invoke_agent bench', {
    kind: SpanKind.INTERNAL,
    attributes: { 'gen_ai.operation.name': 'invoke_agent', 'gen_ai.agent.name': 'bench' },
  });
  return { context: trace.setSpan(context.active(), span), end: () => span.end() };
}
