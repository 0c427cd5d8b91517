// Shared set-up for the OTel front tests: the real SDK (TracerProvider from
// @opentelemetry/sdk-trace, 2.x or 3.x: see ../helpers/otel-sdk.ts), the loopguard processor first and an in-memory exporter after it, a real
// AsyncLocalStorage context manager, and a diag logger that captures what loopguard reports.
import { context, diag, DiagLogLevel, ROOT_CONTEXT, SpanStatusCode, trace, type Context, type DiagLogger, type Span, type Tracer } from '@opentelemetry/api';
import { AsyncLocalStorageContextManager } from '@opentelemetry/context-async-hooks';
import {
  TracerProvider,
  InMemorySpanExporter,
  SimpleSpanProcessor,
  type ReadableSpan,
  type Sampler,
  type SpanLimits,
} from '../helpers/otel-sdk.js';

import { LoopGuardSpanProcessor, type LoopGuardSpanProcessorOptions } from '../../src/otel/loop-guard-span-processor.js';

export interface Harness {
  provider: TracerProvider;
  tracer: Tracer;
  exporter: InMemorySpanExporter;
  processor: LoopGuardSpanProcessor;
  /** Finished spans as exported (attributes set in onEnding included). */
  finished(): ReadableSpan[];
  /** The single finished span with this name (throws when there is not exactly one). */
  one(name: string): ReadableSpan;
  shutdown(): Promise<void>;
}

export function makeHarness(options: LoopGuardSpanProcessorOptions = {}, sampler?: Sampler, spanLimits?: SpanLimits): Harness {
  const processor = new LoopGuardSpanProcessor(options);
  const exporter = new InMemorySpanExporter();
  const provider = new TracerProvider({
    spanProcessors: [processor, new SimpleSpanProcessor({ exporter: exporter })],
    ...(sampler !== undefined ? { sampler } : {}),
    ...(spanLimits !== undefined ? { spanLimits } : {}),
  });
  const tracer = provider.getTracer('loopguard-test');
  return {
    provider,
    tracer,
    exporter,
    processor,
    finished: () => exporter.getFinishedSpans(),
    one(name: string): ReadableSpan {
      const matches = exporter.getFinishedSpans().filter((span) => span.name === name);
      if (matches.length !== 1) throw new Error(`expected exactly one finished span named ${name}, got ${matches.length}`);
      return matches[0];
    },
    shutdown: () => provider.shutdown(),
  };
}

/** Enables a real async context manager for the enclosing describe (before/after hooks). */
export function useContextManager(): void {
  let manager: AsyncLocalStorageContextManager | undefined;
  before(() => {
    manager = new AsyncLocalStorageContextManager().enable();
    context.setGlobalContextManager(manager);
  });
  after(() => {
    context.disable();
    manager = undefined;
  });
}

export interface DiagMessage {
  level: 'error' | 'warn' | 'info' | 'debug' | 'verbose';
  text: string;
}

/** Captures every diag message for the enclosing describe; `diag.messages` is reset before each test. */
export function useDiagCapture(): { messages: DiagMessage[]; matching(pattern: RegExp, level?: DiagMessage['level']): DiagMessage[] } {
  const messages: DiagMessage[] = [];
  const record =
    (level: DiagMessage['level']) =>
    (message: string, ...args: unknown[]): void => {
      const extra = args.map((arg) => (arg instanceof Error ? `${arg.name}: ${arg.message}` : String(arg))).join(' ');
      messages.push({ level, text: extra ? `${message} ${extra}` : message });
    };
  const logger: DiagLogger = {
    error: record('error'),
    warn: record('warn'),
    info: record('info'),
    debug: record('debug'),
    verbose: record('verbose'),
  };
  before(() => {
    diag.setLogger(logger, { logLevel: DiagLogLevel.ALL, suppressOverrideMessage: true });
  });
  beforeEach(() => {
    messages.length = 0;
  });
  after(() => {
    diag.disable();
  });
  return {
    messages,
    matching: (pattern, level) => messages.filter((m) => pattern.test(m.text) && (level === undefined || m.level === level)),
  };
}

export const GEN_AI = {
  op: 'gen_ai.operation.name',
  toolName: 'gen_ai.tool.name',
  callId: 'gen_ai.tool.call.id',
  args: 'gen_ai.tool.call.arguments',
  result: 'gen_ai.tool.call.result',
  inputTokens: 'gen_ai.usage.input_tokens',
  outputTokens: 'gen_ai.usage.output_tokens',
} as const;

/** Opens an invoke_agent span (a run) and returns it with its context. */
export function startRunSpan(tracer: Tracer, runId?: string, parent: Context = ROOT_CONTEXT): { span: Span; ctx: Context } {
  const attributes: Record<string, string> = { [GEN_AI.op]: 'invoke_agent' };
  if (runId !== undefined) attributes['loopguard.run.id'] = runId;
  const span = tracer.startSpan('invoke_agent researcher', { attributes }, parent);
  return { span, ctx: trace.setSpan(parent, span) };
}

/** One model call span (a round) under `ctx`, ended at once with optional token usage. */
export function modelCallSpan(tracer: Tracer, ctx: Context, usage?: { input: number; output: number }): void {
  const span = tracer.startSpan('chat gpt-test', { attributes: { [GEN_AI.op]: 'chat' } }, ctx);
  if (usage !== undefined) {
    span.setAttribute(GEN_AI.inputTokens, usage.input);
    span.setAttribute(GEN_AI.outputTokens, usage.output);
  }
  span.end();
}

/**
 * A tool call as a framework's GenAI instrumentation records it: an execute_tool span with the
 * raw arguments at start and the raw result (or an error status) at end.
 */
export function toolCallSpan(
  tracer: Tracer,
  ctx: Context,
  tool: string,
  args: unknown,
  outcome: { result: unknown } | { error: string; type?: string } = { result: 'ok' },
  callId?: string,
): ReadableSpan {
  const attributes: Record<string, string | boolean> = {
    [GEN_AI.op]: 'execute_tool',
    [GEN_AI.toolName]: tool,
    [GEN_AI.args]: typeof args === 'string' ? args : JSON.stringify(args),
    // These spans stand for a loop that reads decisionForSpan and skips refused calls (as
    // instrumentTool does); without the mark a refusal is recorded as would_refuse.
    'loopguard.enforced': true,
  };
  if (callId !== undefined) attributes[GEN_AI.callId] = callId;
  const span = tracer.startSpan(`execute_tool ${tool}`, { attributes }, ctx);
  if ('result' in outcome) {
    span.setAttribute(GEN_AI.result, typeof outcome.result === 'string' ? outcome.result : JSON.stringify(outcome.result));
  } else {
    if (outcome.type !== undefined) span.setAttribute('error.type', outcome.type);
    span.setStatus({ code: SpanStatusCode.ERROR, message: outcome.error });
  }
  span.end();
  return span as unknown as ReadableSpan;
}

export function sleep(ms: number): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, ms));
}
