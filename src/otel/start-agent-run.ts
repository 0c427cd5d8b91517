import { randomUUID } from 'node:crypto';
import { context as contextApi, SpanKind, trace, type Attributes, type Context, type Span, type Tracer } from '@opentelemetry/api';
import type { RunGuard } from '../core/run-guard.js';
import type { CallDecision, ModelUsage, RunDecision, ToolCall } from '../core/types.js';
import {
  ATTR_CONTEXT_COMPACTED,
  ATTR_GEN_AI_AGENT_NAME,
  ATTR_GEN_AI_OPERATION_NAME,
  ATTR_GEN_AI_USAGE_INPUT_TOKENS,
  ATTR_GEN_AI_USAGE_OUTPUT_TOKENS,
  ATTR_RUN_ID,
  OPERATION_INVOKE_AGENT,
} from './attributes.js';
import { LoopGuardConfigError } from '../core/errors.js';
import { instrumentTool, validateToolOptionFields, type GuardedTool, type InstrumentToolOptions, type ToolCallExtras } from './instrument-tool.js';
import { LoopGuardSpanProcessor } from './loop-guard-span-processor.js';

/** Options of {@link startAgentRun}. */
export interface StartAgentRunOptions {
  processor: LoopGuardSpanProcessor;
  /** Default: `trace.getTracer('loopguard')`. */
  tracer?: Tracer;
  /** Default: a random UUID. */
  runId?: string;
  /** `gen_ai.agent.name`. Default `agent`. */
  agentName?: string;
  /** Passed to every tool made with {@link AgentRun.tool}. */
  toolOptions?: Omit<InstrumentToolOptions, 'processor' | 'tracer' | 'parentContext'>;
}

/** Options of {@link AgentRun.modelCall}. */
export interface ModelCallOptions {
  /**
   * The messages this call sends lost tool results the model had before: your loop compacted,
   * summarised or trimmed them. Written on the span (`loopguard.context.compacted`), so the
   * processor lets the model read them again, and a replay of the export decides the same.
   * Default false.
   */
  contextCompacted?: boolean;
}

/** A guarded run of a hand-written agent loop. */
export interface AgentRun {
  readonly runId: string;
  /** The run's context (the invoke_agent span); tool and model spans are its children. */
  readonly context: Context;
  /** The ledger, for shouldRefuse / partial() / reportState(). */
  readonly run: RunGuard;
  /**
   * One model call = one round: runs `call` inside a `chat {model}` span. When the result
   * has `usage` ({inputTokens, outputTokens}) it is recorded on the span.
   */
  modelCall<T>(model: string, call: () => Promise<T> | T, options?: ModelCallOptions): Promise<T>;
  /** A guarded tool whose spans belong to this run. */
  tool<A, R>(name: string, execute: (args: A, extras: ToolCallExtras) => Promise<R> | R): GuardedTool<A, R>;
  /** Would this call be refused now? Previews without recording (the tool call decides). */
  shouldRefuse(call: ToolCall): CallDecision;
  /**
   * Should the loop stop now? Ask once per round, before the next model call; `nudge` goes to the
   * model.
   */
  shouldStop(): RunDecision;
  /** Ends the invoke_agent span (and so the run). Idempotent. */
  end(): void;
}

/**
 * The token counts of a model result, undefined when it has none. Read after the model
 * returned: a result whose `usage` cannot be read (a getter or Proxy that throws) has none, so
 * the caller gets the model's result, and counts that are not numbers (a BigInt would throw in
 * recordUsage's sum) are left out.
 */
function usageOf(result: unknown): ModelUsage | undefined {
  if (typeof result !== 'object' || result === null) return undefined;
  try {
    const usage = (result as { usage?: unknown }).usage;
    if (typeof usage !== 'object' || usage === null) return undefined;
    const { inputTokens, outputTokens } = usage as { inputTokens?: unknown; outputTokens?: unknown };
    return { inputTokens: typeof inputTokens === 'number' ? inputTokens : undefined, outputTokens: typeof outputTokens === 'number' ? outputTokens : undefined };
  } catch {
    return undefined;
  }
}

/**
 * Guards a hand-written agent loop in a few lines: opens an `invoke_agent` span (the run),
 * wraps each model call in a `chat` span (a round) and each tool in an `execute_tool` span
 * (a call). The processor registered on the provider keeps the ledger from those spans.
 */
export function startAgentRun(options: StartAgentRunOptions): AgentRun {
  validateStartAgentRunOptions(options);
  const { processor } = options;
  const tracer = options.tracer ?? trace.getTracer('loopguard');
  const runId = options.runId ?? randomUUID();
  const agentName = options.agentName ?? 'agent';
  const rootSpan: Span = tracer.startSpan(`${OPERATION_INVOKE_AGENT} ${agentName}`, {
    kind: SpanKind.INTERNAL,
    attributes: { [ATTR_GEN_AI_OPERATION_NAME]: OPERATION_INVOKE_AGENT, [ATTR_GEN_AI_AGENT_NAME]: agentName, [ATTR_RUN_ID]: runId },
  });
  const runContext = trace.setSpan(contextApi.active(), rootSpan);
  // The processor opened the run in onStart; without one on this provider, keep a private
  // run so the loop still works (unguarded telemetry, guarded decisions).
  // An ended run of the same id (kept queryable for endedRunTtlMs) is not this one.
  const registered = processor.guard.getRun(runId);
  const run = registered !== undefined && !registered.isEnded ? registered : processor.guard.startRun(runId);
  // Unsampled: let separately instrumented tools under this context find the run too.
  const adopted = !processor.isTracking(rootSpan.spanContext().spanId);
  if (adopted) processor.adoptRun(rootSpan.spanContext(), run);
  processor.registerLoopRun(run);
  let ended = false;

  return {
    runId,
    context: runContext,
    run,
    async modelCall<T>(model: string, call: () => Promise<T> | T, callOptions?: ModelCallOptions): Promise<T> {
      const compacted = callOptions?.contextCompacted === true;
      const attributes: Attributes = { [ATTR_GEN_AI_OPERATION_NAME]: 'chat', 'gen_ai.request.model': model };
      if (compacted) attributes[ATTR_CONTEXT_COMPACTED] = true;
      const span = tracer.startSpan(`chat ${model}`, { kind: SpanKind.CLIENT, attributes }, runContext);
      // Unsampled trace: the processor never saw the span, so the round is kept here.
      const unrecorded = !processor.isTracking(span.spanContext().spanId);
      if (unrecorded) {
        run.beginRound();
        if (compacted) run.contextCompacted();
      }
      try {
        const result = await contextApi.with(trace.setSpan(runContext, span), call);
        const usage = usageOf(result);
        if (unrecorded && usage !== undefined) run.recordUsage(usage);
        if (usage?.inputTokens !== undefined) span.setAttribute(ATTR_GEN_AI_USAGE_INPUT_TOKENS, usage.inputTokens);
        if (usage?.outputTokens !== undefined) span.setAttribute(ATTR_GEN_AI_USAGE_OUTPUT_TOKENS, usage.outputTokens);
        return result;
      } finally {
        span.end();
      }
    },
    tool<A, R>(name: string, execute: (args: A, extras: ToolCallExtras) => Promise<R> | R): GuardedTool<A, R> {
      return instrumentTool(name, execute, { ...options.toolOptions, processor, tracer, parentContext: () => runContext, run: () => run });
    },
    shouldRefuse: (call) => run.shouldRefuse(call),
    shouldStop: () => run.shouldStop(),
    end(): void {
      if (ended) return;
      ended = true;
      if (adopted) processor.releaseAdoptedRun(rootSpan.spanContext());
      rootSpan.end();
      processor.guard.endRun(runId);
    },
  };
}

function validateStartAgentRunOptions(options: StartAgentRunOptions): void {
  const fail = (field: string, message: string): never => {
    throw new LoopGuardConfigError({ field, message });
  };
  if (typeof options !== 'object' || options === null) fail('(root)', 'startAgentRun needs an options object: startAgentRun({ processor })');
  if (!(options.processor instanceof LoopGuardSpanProcessor)) {
    fail('processor', 'must be the LoopGuardSpanProcessor registered on your tracer provider');
  }
  if (options.runId !== undefined && (typeof options.runId !== 'string' || options.runId.length === 0)) {
    fail('runId', 'must be a non-empty string, or left out for a random UUID');
  }
  if (options.agentName !== undefined && typeof options.agentName !== 'string') fail('agentName', 'must be a string (gen_ai.agent.name)');
  if (options.tracer !== undefined && typeof (options.tracer as { startSpan?: unknown }).startSpan !== 'function') {
    fail('tracer', 'must be an OpenTelemetry Tracer (provider.getTracer(name))');
  }
  if (options.toolOptions !== undefined) validateToolOptionFields(options.toolOptions, 'toolOptions.', false);
}
