import { context as contextApi, diag, trace, type Context } from '@opentelemetry/api';
import type { ReadableSpan, Span, SpanProcessor } from '@opentelemetry/sdk-trace-base';
import { LoopGuard, type LoopGuardEngineOptions } from '../core/loop-guard.js';
import type { CallTicket, RunGuard } from '../core/run-guard.js';
import type { CallDecision, RunDecision, RunView, StopDecision, ToolCall } from '../core/types.js';
import {
  ATTR_DECISION,
  ATTR_INTERNAL,
  ATTR_NOVELTY,
  ATTR_REFUSAL_REASON,
  ATTR_ROUND,
  ATTR_RUN_REFUSALS,
  ATTR_RUN_ROUNDS,
  ATTR_RUN_TOOL_CALLS,
  ATTR_STOP_REASON,
} from './attributes.js';
import { interpretGenAiSpan, interpretSpan, readCallOutcome, readUsage, type SpanInterpreter } from './span-roles.js';

/** Options of {@link LoopGuardSpanProcessor}. */
export interface LoopGuardSpanProcessorOptions extends LoopGuardEngineOptions {
  /**
   * An engine to share (e.g. with telemetry or a second provider). Default: a new engine
   * built from the other options.
   */
  guard?: LoopGuard;
  /**
   * Extra span interpreters tried before the GenAI conventions, e.g. the AI SDK's
   * `ai.toolCall` mapping from loopguard's integrations. Default none.
   */
  interpreters?: SpanInterpreter[];
  /**
   * Tool spans with no `invoke_agent` ancestor open an implicit run per trace, so apps that
   * trace only tool calls are still guarded. Default true.
   */
  implicitRuns?: boolean;
  /**
   * Cap on spans tracked at once (open spans of guarded runs). Past it the oldest are
   * forgotten, with one diag warning: spans that never end must not grow memory. Default 100 000.
   */
  maxTrackedSpans?: number;
}

interface TrackedSpan {
  run: RunGuard;
  kind: 'run' | 'round' | 'call';
  ticket?: CallTicket;
  /** Set once the outcome was recorded (onEnding or, on SDKs without it, onEnd). */
  done?: boolean;
}

/**
 * A synchronous span processor that keeps the run ledger from spans and answers
 * shouldRefuse / shouldStop for the agent loop.
 *
 * - `invoke_agent` spans open runs (`loopguard.run.id`, else `gen_ai.conversation.id`,
 *   else the span id); their end ends the run.
 * - model-call spans (`gen_ai.operation.name` chat / generate_content / text_completion)
 *   open rounds; their token usage counts toward wasted tokens when the round learns nothing.
 * - `execute_tool` spans are calls: decided in onStart (the decision is written on the span
 *   and readable by the instrumentation through {@link decisionForSpan}), their outcome is
 *   recorded when they end.
 *
 * It never throws into the SDK: every hook is wrapped and reports through `diag`. It exports
 * nothing and creates no spans. Memory is bounded: runs by the engine's cap and TTL, spans
 * by {@link LoopGuardSpanProcessorOptions.maxTrackedSpans}.
 */
export class LoopGuardSpanProcessor implements SpanProcessor {
  readonly guard: LoopGuard;
  private readonly interpreters: readonly SpanInterpreter[];
  private readonly implicitRuns: boolean;
  private readonly maxTrackedSpans: number;
  private readonly spans = new Map<string, TrackedSpan>();
  private readonly runsByTrace = new Map<string, RunGuard>();
  private readonly rootSpans = new Map<string, Span>();
  private warnedAboutSpanCap = false;
  private isShutdown = false;
  private readonly unsubscribe: () => void;

  constructor(options: LoopGuardSpanProcessorOptions = {}) {
    const { guard, interpreters, implicitRuns, maxTrackedSpans, ...engineOptions } = options;
    this.guard = guard ?? new LoopGuard({ logger: { warn: (message) => diag.warn(`loopguard: ${message}`) }, ...engineOptions });
    this.interpreters = [...(interpreters ?? []), interpretGenAiSpan];
    this.implicitRuns = implicitRuns ?? true;
    if (maxTrackedSpans !== undefined && !(Number.isFinite(maxTrackedSpans) && maxTrackedSpans > 0)) {
      diag.warn(`loopguard: maxTrackedSpans must be a positive number, got ${String(maxTrackedSpans)}; using 100000`);
    }
    this.maxTrackedSpans = maxTrackedSpans !== undefined && Number.isFinite(maxTrackedSpans) && maxTrackedSpans > 0 ? Math.floor(maxTrackedSpans) : 100_000;
    this.unsubscribe = this.guard.addListener({ runStopped: (run, decision) => this.annotateStop(run, decision) });
  }

  onStart(span: Span, parentContext: Context): void {
    if (this.isShutdown) return;
    try {
      this.handleStart(span, parentContext);
    } catch (error) {
      diag.error('loopguard: span processor onStart failed; the span is not guarded', error);
    }
  }

  onEnding(span: Span): void {
    try {
      this.handleEnding(span);
    } catch (error) {
      diag.error('loopguard: span processor onEnding failed', error);
    }
  }

  onEnd(span: ReadableSpan): void {
    try {
      // SDKs before onEnding existed: record the outcome here (the span is read-only now).
      this.handleEnding(span);
      this.handleEnd(span);
    } catch (error) {
      diag.error('loopguard: span processor onEnd failed', error);
    }
  }

  forceFlush(): Promise<void> {
    return Promise.resolve();
  }

  /** Idempotent. Ends every open run so listeners see them end. */
  shutdown(): Promise<void> {
    if (this.isShutdown) return Promise.resolve();
    this.isShutdown = true;
    try {
      for (const run of [...this.guard.runs()]) this.guard.endRun(run.id);
      this.unsubscribe();
      this.spans.clear();
      this.runsByTrace.clear();
      this.rootSpans.clear();
    } catch (error) {
      diag.error('loopguard: span processor shutdown failed', error);
    }
    return Promise.resolve();
  }

  /** The run the given context (default: the active one) belongs to. */
  runForContext(ctx: Context = contextApi.active()): RunGuard | undefined {
    const spanContext = trace.getSpan(ctx)?.spanContext();
    if (spanContext === undefined) return undefined;
    return this.spans.get(spanContext.spanId)?.run ?? this.liveRunOfTrace(spanContext.traceId);
  }

  /** Would this call be refused in the run of `ctx`? Allows calls outside any known run. */
  shouldRefuse(call: ToolCall, ctx?: Context): CallDecision {
    const run = this.runForContext(ctx);
    if (run === undefined) return { action: 'allow', kind: 'new', tool: call.tool, argsHash: this.guard.argsHash(call.tool, call.args) };
    return run.shouldRefuse(call);
  }

  /** Should the run of `ctx` stop? Undefined outside any known run. */
  shouldStop(ctx?: Context): RunDecision | undefined {
    return this.runForContext(ctx)?.shouldStop();
  }

  /** The decision taken when this `execute_tool` span started (undefined if not guarded). */
  decisionForSpan(spanId: string): CallDecision | undefined {
    return this.spans.get(spanId)?.ticket?.decision;
  }

  // -------------------------------------------------------------------------------------

  private handleStart(span: Span, parentContext: Context): void {
    const attributes = span.attributes;
    if (attributes[ATTR_INTERNAL] === true) return;
    const role = interpretSpan(span.name, attributes, this.interpreters);
    if (role === undefined) return;
    const { spanId, traceId } = span.spanContext();

    if (role.kind === 'run') {
      const run = this.guard.startRun(role.runId ?? `span:${spanId}`);
      this.runsByTrace.set(traceId, run);
      this.rootSpans.set(run.id, span);
      this.track(spanId, { run, kind: 'run' });
      return;
    }
    const run = this.runOfParent(parentContext, traceId) ?? (this.implicitRuns ? this.implicitRun(traceId) : undefined);
    if (run === undefined) return;
    if (role.kind === 'round') {
      run.beginRound();
      this.track(spanId, { run, kind: 'round' });
      return;
    }
    const argsHash = role.argsHash ?? run.argsHash(role.tool, role.rawArguments ?? {});
    // Live spans run on the engine's clock; only replay feeds recorded times.
    const ticket = run.startCall({ tool: role.tool, argsHash, callId: role.callId });
    span.setAttribute(ATTR_DECISION, ticket.decision.action);
    span.setAttribute(ATTR_ROUND, ticket.round);
    if (ticket.decision.action === 'refuse') span.setAttribute(ATTR_REFUSAL_REASON, ticket.decision.reason);
    this.track(spanId, { run, kind: 'call', ticket });
  }

  private handleEnding(span: Span | ReadableSpan): void {
    const tracked = this.spans.get(span.spanContext().spanId);
    if (tracked === undefined || tracked.done) return;
    if (tracked.kind === 'round') {
      const usage = readUsage(span.attributes);
      if (usage !== undefined) tracked.run.recordUsage(usage);
      tracked.done = true;
      return;
    }
    if (tracked.kind === 'run') {
      tracked.done = true;
      const partial = tracked.run.partial();
      if ('setAttribute' in span && !span.ended) {
        span.setAttribute(ATTR_RUN_ROUNDS, partial.rounds);
        span.setAttribute(ATTR_RUN_REFUSALS, partial.refused);
        span.setAttribute(ATTR_RUN_TOOL_CALLS, partial.toolCalls);
      }
      return;
    }
    const ticket = tracked.ticket;
    tracked.done = true;
    if (ticket === undefined || ticket.decision.action === 'refuse') return;
    const policy = this.guard.options.tool(ticket.call.tool);
    const outcome = readCallOutcome(span.attributes, span.status, policy, this.guard.options.maxFingerprintBytes);
    const novelty = tracked.run.finishCall(ticket, outcome);
    if ('setAttribute' in span && !span.ended) span.setAttribute(ATTR_NOVELTY, novelty);
  }

  private handleEnd(span: ReadableSpan): void {
    const spanId = span.spanContext().spanId;
    const tracked = this.spans.get(spanId);
    if (tracked === undefined) return;
    this.spans.delete(spanId);
    if (tracked.kind === 'run') {
      this.rootSpans.delete(tracked.run.id);
      const traceId = span.spanContext().traceId;
      if (this.runsByTrace.get(traceId) === tracked.run) this.runsByTrace.delete(traceId);
      this.guard.endRun(tracked.run.id);
    }
  }

  private runOfParent(parentContext: Context, traceId: string): RunGuard | undefined {
    const parentId = trace.getSpan(parentContext)?.spanContext().spanId;
    const byParent = parentId !== undefined ? this.spans.get(parentId)?.run : undefined;
    return byParent ?? this.liveRunOfTrace(traceId);
  }

  private liveRunOfTrace(traceId: string): RunGuard | undefined {
    const run = this.runsByTrace.get(traceId);
    if (run !== undefined && run.isEnded) {
      this.runsByTrace.delete(traceId);
      return undefined;
    }
    return run;
  }

  private implicitRun(traceId: string): RunGuard {
    const run = this.guard.startRun(`trace:${traceId}`);
    this.runsByTrace.set(traceId, run);
    return run;
  }

  private track(spanId: string, tracked: TrackedSpan): void {
    if (this.spans.size >= this.maxTrackedSpans) {
      const oldest = this.spans.keys().next().value as string;
      this.spans.delete(oldest);
      if (!this.warnedAboutSpanCap) {
        this.warnedAboutSpanCap = true;
        diag.warn(`loopguard: more than ${this.maxTrackedSpans} guarded spans are open; forgetting the oldest. Are spans being ended?`);
      }
    }
    this.spans.set(spanId, tracked);
  }

  /** The stop reason goes on the invoke_agent span while it is still open. */
  private annotateStop(run: RunView, decision: StopDecision): void {
    const root = this.rootSpans.get(run.id);
    if (root === undefined || root.ended) return;
    root.setAttribute(ATTR_STOP_REASON, decision.reason);
  }
}
