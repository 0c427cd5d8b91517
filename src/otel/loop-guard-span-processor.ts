import { context as contextApi, isSpanContextValid, isValidTraceId, trace, type Attributes, type Context, type SpanContext } from '@opentelemetry/api';
import { describeConfigValue } from '../core/describe-config-value.js';
import { LoopGuardConfigError } from '../core/errors.js';
import { LoopGuard, type LoopGuardEngineOptions } from '../core/loop-guard.js';
import type { CallTicket, RunGuard } from '../core/run-guard.js';
import { outcomeFactsText } from '../core/outcome-facts-text.js';
import { prehashCall } from '../core/prehash-call.js';
import type { CallDecision, PrehashedOutcome, PrehashedToolCall, RunDecision, RunView, StopDecision, ToolCall } from '../core/types.js';
import {
  ATTR_ARGS_HASH,
  ATTR_CONTEXT_COMPACTED,
  ATTR_DECISION,
  ATTR_ENFORCED,
  ATTR_INTERNAL,
  ATTR_NOVELTY,
  ATTR_OUTCOME,
  ATTR_OUTCOME_FACTS,
  ATTR_REFUSAL_REASON,
  ATTR_ROUND,
  ATTR_RUN_REFUSALS,
  ATTR_RUN_ROUNDS,
  ATTR_RUN_TOOL_CALLS,
  ATTR_STOP_REASON,
  DECISION_WOULD_REFUSE,
} from './attributes.js';
import { reportToDiag } from './report-to-diag.js';
import type { ProcessedReadableSpan, ProcessedSpan, SdkSpanProcessor } from './sdk-span-types.js';
import { interpretGenAiSpan, interpretSpan, isTruncatedJson, readCallOutcome, readUsage, type SpanInterpreter } from './span-roles.js';

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
   * trace only tool calls (under a request span, say) are still guarded. A tool span that is
   * the root of its trace never opens one: nothing else can join that trace, so such a run
   * could never see a repeat and would only hold memory. Default true.
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
  /** `other`: any span under a run (HTTP, framework steps), kept so its children find the run. */
  kind: 'run' | 'round' | 'call' | 'other';
  ticket?: CallTicket;
  /** For calls: the attribute holding the raw result under the span's convention. */
  resultAttribute?: string | undefined;
  /** The parent span, so a model-call span can see whether it is inside a round or a call. */
  parentSpanId?: string | undefined;
  /** For run spans: the run this one is nested in (a sub-agent), restored when it ends. */
  parentRun?: RunGuard | undefined;
  /** Set once the outcome was recorded (onEnding or, on SDKs without it, onEnd). */
  done?: boolean;
  /** The outcome as the instrumentation fingerprinted it (items included), when it handed it over. */
  outcome?: PrehashedOutcome;
  /**
   * A model-call span (a round, or a layer inside one) whose compaction is still to be read at
   * its end: false once it was reported, so the same span never reports it twice.
   */
  compaction?: boolean;
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
export class LoopGuardSpanProcessor implements SdkSpanProcessor {
  readonly guard: LoopGuard;
  private readonly interpreters: readonly SpanInterpreter[];
  private readonly implicitRuns: boolean;
  private readonly maxTrackedSpans: number;
  private readonly spans = new Map<string, TrackedSpan>();
  /**
   * Span ids tracked per run, so a run the engine ends without its span ending (idled out,
   * evicted at the cap) frees its spans at once: never-ended spans must not hold memory
   * until `maxTrackedSpans` pushes them out. Keyed by the run object (the engine hands the
   * same object to runEnded): an identity lookup, cheaper than hashing the id string on
   * every span start and end.
   */
  private readonly spansOfRun = new Map<RunView, Set<string>>();
  /** Open runs started by startAgentRun, newest last: the top level of a loop asks for these. */
  private readonly loopRuns = new Set<RunGuard>();
  private warnedAboutRootToolSpan = false;
  private readonly runsByTrace = new Map<string, RunGuard>();
  private readonly rootSpans = new Map<string, ProcessedSpan>();
  /** Trace each run was indexed under, so the index is cleaned when the engine ends or evicts the run. */
  private readonly traceOfRun = new Map<string, string>();
  /** Runs this processor opened: shutdown ends only these (the engine may be shared). */
  private readonly ownRuns = new Set<string>();
  private warnedAboutSpanCap = false;
  /** See expectCall. */
  private expectedCall: PrehashedToolCall | undefined;
  private isShutdown = false;
  private readonly unsubscribe: () => void;

  constructor(options: LoopGuardSpanProcessorOptions = {}) {
    validateProcessorOptions(options);
    const { guard, interpreters, implicitRuns, maxTrackedSpans, ...engineOptions } = options;
    this.guard = guard ?? new LoopGuard({ logger: { warn: (message) => reportToDiag('warn', `loopguard: ${message}`) }, ...engineOptions });
    this.interpreters = [...(interpreters ?? []), interpretGenAiSpan];
    this.implicitRuns = implicitRuns ?? true;
    this.maxTrackedSpans = maxTrackedSpans !== undefined ? Math.floor(maxTrackedSpans) : 100_000;
    this.unsubscribe = this.guard.addListener({
      runStopped: (run, decision) => this.annotateStop(run, decision),
      runEnded: (run) => this.forgetRun(run),
    });
  }

  /**
   * SDK hook: opens runs and rounds, decides an `execute_tool` span's call and writes the decision
   * on it. Never throws (errors go to `diag`).
   */
  onStart(span: ProcessedSpan, parentContext: Context): void {
    if (this.isShutdown) return;
    try {
      this.handleStart(span, parentContext);
    } catch (error) {
      reportToDiag('error', 'loopguard: span processor onStart failed; the span is not guarded', error);
    }
  }

  /**
   * SDK hook (SDKs that have it): records a call's outcome while the span is still writable, so
   * exporters see the result hash and novelty.
   */
  onEnding(span: ProcessedSpan): void {
    try {
      this.handleEnding(span);
    } catch (error) {
      reportToDiag('error', 'loopguard: span processor onEnding failed', error);
    }
  }

  /**
   * SDK hook: records the outcome on SDKs without `onEnding`, closes runs whose `invoke_agent`
   * span ended, and forgets the span.
   */
  onEnd(span: ProcessedReadableSpan): void {
    try {
      // SDKs before onEnding existed: record the outcome here (the span is read-only now).
      this.handleEnding(span);
      this.handleEnd(span);
    } catch (error) {
      reportToDiag('error', 'loopguard: span processor onEnd failed', error);
    }
  }

  /** With a shared store: resolves once this process's changes are in it (a serverless hand-off). */
  forceFlush(): Promise<void> {
    // Never rejects into the SDK: store failures are reported by the engine.
    return this.guard.flush().catch((error: unknown) => reportToDiag('error', 'loopguard: flushing the shared store failed', error));
  }

  /** Idempotent. Ends every open run so listeners see them end. */
  shutdown(): Promise<void> {
    if (this.isShutdown) return Promise.resolve();
    this.isShutdown = true;
    try {
      // With a shared store the runs go on in other processes: this one only lets go of them.
      for (const id of [...this.ownRuns]) {
        if (this.guard.isShared) this.guard.releaseRun(id);
        else this.guard.endRun(id);
      }
      this.unsubscribe();
      this.ownRuns.clear();
      this.traceOfRun.clear();
      this.spans.clear();
      this.spansOfRun.clear();
      this.loopRuns.clear();
      this.runsByTrace.clear();
      this.rootSpans.clear();
    } catch (error) {
      reportToDiag('error', 'loopguard: span processor shutdown failed', error);
    }
    return this.forceFlush();
  }

  /**
   * The run the given context (default: the active one) belongs to. With no context given and
   * no span active — the top level of a hand-written loop, where `startAgentRun` cannot make
   * its span active — it is the one open `startAgentRun` run, if exactly one is open; with
   * several, ask the run itself (`agent.shouldRefuse`) or pass `agent.context`.
   */
  runForContext(ctx?: Context): RunGuard | undefined {
    const spanContext = trace.getSpan(ctx ?? contextApi.active())?.spanContext();
    if (spanContext === undefined) return ctx === undefined ? this.soleLoopRun() : undefined;
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

  /**
   * Marks a run as the run of a hand-written loop (startAgentRun), so shouldRefuse /
   * shouldStop asked at the loop's top level, where no span is active, answer for it.
   * Forgotten when the run ends.
   */
  registerLoopRun(run: RunGuard): void {
    if (!this.isShutdown && !run.isEnded) this.loopRuns.add(run);
  }

  /** Spans held right now (open spans of guarded runs); bounded by `maxTrackedSpans`. */
  get trackedSpans(): number {
    return this.spans.size;
  }

  /** The decision taken when this `execute_tool` span started (undefined if not guarded). */
  decisionForSpan(spanId: string): CallDecision | undefined {
    return this.spans.get(spanId)?.ticket?.decision;
  }

  /**
   * The outcome of a call span, as loopguard's instrumentation fingerprinted it from the live
   * result. Span attributes carry only the result hash; item fingerprints (item-level novelty)
   * and the transient flag of an error would be lost on the way, so instrumentTool hands the
   * whole outcome over before it ends the span.
   */
  recordOutcomeForSpan(spanId: string, outcome: PrehashedOutcome): void {
    const tracked = this.spans.get(spanId);
    if (tracked !== undefined && tracked.kind === 'call' && !tracked.done) tracked.outcome = outcome;
  }

  /**
   * @internal instrumentTool's identity of the call whose span it starts next, with the facts
   * read from its arguments (a shell command's effect and poll window, a paged call's listing,
   * a file window): `onStart` decides on it instead of on the bare args hash the span carries.
   * Without them every shell command was a call of unknown effect, its poll window and paging
   * lost, and the processor decided otherwise than the engine and replay on the same calls
   * (test/otel/corpus-through-span-processor.test.ts: 22 of 540 corpus runs). Taken by the next
   * call span, and cleared by the instrumentation once its span started.
   */
  expectCall(call: PrehashedToolCall | undefined): void {
    this.expectedCall = call;
  }

  /** Did this processor see the span start? False for spans the sampler dropped. */
  isTracking(spanId: string): boolean {
    return this.spans.has(spanId);
  }

  /**
   * The run for a span this processor never saw (not sampled: the SDK calls processors only
   * for recording spans). Guarding must not depend on sampling, so the instrumentation asks
   * here and keeps the ledger itself: the run of the parent, else the trace's implicit run.
   */
  runForUnrecordedSpan(parentContext: Context, traceId: string): RunGuard | undefined {
    if (this.isShutdown) return undefined;
    return this.runOfParentOrImplicit(trace.getSpan(parentContext)?.spanContext().spanId, traceId);
  }

  // -------------------------------------------------------------------------------------

  private handleStart(span: ProcessedSpan, parentContext: Context): void {
    const attributes = span.attributes;
    if (attributes[ATTR_INTERNAL] === true) return;
    const role = interpretSpan(span.name, attributes, this.interpreters);
    const { spanId, traceId } = span.spanContext();
    const parentSpanId = trace.getSpan(parentContext)?.spanContext().spanId;
    if (role === undefined) {
      // Any span under a run carries the run to its children (an HTTP span, a framework
      // step): without this, a call under it falls back to "latest run of the trace", which
      // mixes two runs sharing a trace.
      const parent = parentSpanId !== undefined ? this.spans.get(parentSpanId) : undefined;
      if (parent !== undefined) this.track(spanId, { run: parent.run, kind: 'other', parentSpanId });
      return;
    }

    if (role.kind === 'run') {
      const parentRun = this.runOfParent(parentSpanId, traceId);
      let runId = role.runId ?? `span:${spanId}`;
      const open = this.guard.getRun(runId);
      if (open !== undefined && !open.isEnded && this.rootSpans.has(runId)) {
        // A nested invoke_agent naming the same run (a handoff carrying the conversation id)
        // is part of that run, not a new one: its end must not end the parent's run.
        if (!role.conversation || parentRun === open) {
          this.track(spanId, { run: open, kind: 'other' });
          return;
        }
        // A conversation id names a chat, not one run: two requests of one chat can be in
        // flight at once, in different traces. Merged, the first to end would stop the
        // other's calls, so an overlapping turn is a run of its own.
        runId = `${runId}#${spanId}`;
      }
      const run = this.guard.startRun(runId);
      this.ownRuns.add(run.id);
      this.indexTrace(traceId, run);
      this.rootSpans.set(run.id, span);
      this.track(spanId, { run, kind: 'run', parentRun });
      return;
    }
    const run = this.runOfParentOrImplicit(parentSpanId, traceId, role.kind === 'call' ? role.tool : undefined);
    if (run === undefined) return;
    if (role.kind === 'round') {
      // Two instrumentation layers for one model call (a framework span around the provider
      // SDK's span) are one round, not two; a model call made by a tool (a summarizer) is
      // part of that call, not a round of the agent.
      // Any layer may say the prompt was compacted; after the round began, as replay applies it.
      if (parentSpanId !== undefined && this.isInsideRoundOrCall(parentSpanId)) {
        this.track(spanId, { run, kind: 'other', parentSpanId, compaction: !reportCompaction(run, attributes) });
        return;
      }
      const round = run.beginRound();
      // Span start times are whole milliseconds in the SDK: replay orders rounds by this.
      span.setAttribute(ATTR_ROUND, round);
      this.track(spanId, { run, kind: 'round', parentSpanId, compaction: !reportCompaction(run, attributes) });
      return;
    }
    // A call with no identity — arguments are opt-in under the GenAI conventions, or were cut
    // off — matches no other call (document 000: unclear leans to "new fact"). The hash is
    // written on the span so a replay of the export decides exactly as this did.
    // Only a span whose maker reads decisionForSpan and skips refused calls enforces the
    // decision; on any other span the call runs anyway, and saying "refuse" would be a lie.
    const enforced = span.attributes[ATTR_ENFORCED] === true;
    const expected = this.expectedCall;
    this.expectedCall = undefined;
    let call: PrehashedToolCall;
    if (expected !== undefined && enforced && expected.tool === role.tool && expected.argsHash === role.argsHash) {
      call = expected;
    } else if (role.argsHash === undefined && role.rawArguments !== undefined && !isTruncatedJson(role.rawArguments)) {
      // Raw arguments (another instrumentation's span): identity and facts as the engine and
      // replay read them from the same text. Live spans run on the engine's clock.
      const { shellPolls, now } = this.guard.options;
      call = prehashCall({ tool: role.tool, args: role.rawArguments }, this.guard.options.tool(role.tool), shellPolls, now);
      span.setAttribute(ATTR_ARGS_HASH, call.argsHash);
    } else {
      const argsHash = role.argsHash ?? `unidentified:${spanId}`;
      if (role.argsHash === undefined) span.setAttribute(ATTR_ARGS_HASH, argsHash);
      call = { tool: role.tool, argsHash };
    }
    if (role.callId !== undefined) call.callId = role.callId;
    if (!enforced) call.observeOnly = true;
    const ticket = run.startCall(call);
    span.setAttribute(ATTR_ROUND, ticket.round);
    if (ticket.decision.action === 'refuse') {
      span.setAttribute(ATTR_DECISION, enforced ? 'refuse' : DECISION_WOULD_REFUSE);
      span.setAttribute(ATTR_REFUSAL_REASON, ticket.decision.reason);
      if (enforced) span.setAttribute(ATTR_OUTCOME, 'refused');
    } else {
      span.setAttribute(ATTR_DECISION, ticket.decision.action);
    }
    this.track(spanId, { run, kind: 'call', ticket, parentSpanId, resultAttribute: role.resultAttribute });
  }

  private handleEnding(span: ProcessedSpan | ProcessedReadableSpan): void {
    const tracked = this.spans.get(span.spanContext().spanId);
    if (tracked === undefined || tracked.done) return;
    if (tracked.compaction === true) reportCompaction(tracked.run, span.attributes);
    if (tracked.kind === 'round') {
      const usage = readUsage(span.attributes);
      if (usage !== undefined) tracked.run.recordUsage(usage);
      tracked.done = true;
      return;
    }
    if (tracked.kind === 'other') {
      tracked.done = true;
      return;
    }
    if (tracked.kind === 'run') {
      tracked.done = true;
      // A run that is only observed (nobody asks shouldStop: telemetry-only apps) still gets
      // its verdict, its stop event and loopguard.stop.reason on the span while it can be
      // written. Not earlier: latching mid-run would mark calls that really ran as refused.
      tracked.run.shouldStop();
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
    // The policy is looked up only to read an outcome off the span: instrumentTool hands its
    // outcome over, and the lookup of a tool without a policy was 0.7 % of a guarded call
    // (compiled bench/profile.js loopguard profile).
    const outcome =
      tracked.outcome ??
      readCallOutcome(span.attributes, span.status, this.guard.options.tool(ticket.call.tool), this.guard.options.maxFingerprintBytes, tracked.resultAttribute);
    // Read only for outcomes instrumentTool handed over: a span's own outcome is all on the span.
    const withItems = tracked.outcome !== undefined && !tracked.run.hasSeenResult(outcome.resultHash);
    const novelty = tracked.run.finishCall(ticket, outcome);
    if ('setAttribute' in span && !span.ended) {
      span.setAttribute(ATTR_NOVELTY, novelty);
      if (tracked.outcome !== undefined) {
        const facts = outcomeFactsText(outcome, withItems);
        if (facts !== undefined) span.setAttribute(ATTR_OUTCOME_FACTS, facts);
      }
    }
  }

  private handleEnd(span: ProcessedReadableSpan): void {
    const spanId = span.spanContext().spanId;
    const tracked = this.spans.get(spanId);
    if (tracked === undefined) return;
    this.untrack(spanId, tracked);
    if (tracked.kind === 'run') {
      const traceId = span.spanContext().traceId;
      this.guard.endRun(tracked.run.id); // forgetRun cleans the indexes
      // A sub-agent ended: calls later in the trace belong to the agent that started it.
      const parentRun = tracked.parentRun;
      if (parentRun !== undefined && !parentRun.isEnded && !this.runsByTrace.has(traceId)) this.indexTrace(traceId, parentRun);
    }
  }

  private isInsideRoundOrCall(spanId: string): boolean {
    // Walk up through `other` spans (bounded: GenAI spans are never nested deeply).
    let current = this.spans.get(spanId);
    for (let depth = 0; current !== undefined && depth < 16; depth++) {
      if (current.kind === 'round' || current.kind === 'call') return true;
      if (current.kind !== 'other' || current.parentSpanId === undefined) return false;
      current = this.spans.get(current.parentSpanId);
    }
    return false;
  }

  /**
   * Makes a run that the processor did not see start (its invoke_agent span was not
   * sampled) the run of that span and its trace, so separately instrumented tools under it
   * are guarded as if the trace were sampled. {@link releaseAdoptedRun} undoes it.
   */
  adoptRun(spanContext: SpanContext, run: RunGuard): void {
    if (this.isShutdown || !isSpanContextValid(spanContext) || this.spans.has(spanContext.spanId)) return;
    this.track(spanContext.spanId, { run, kind: 'other' });
    this.indexTrace(spanContext.traceId, run);
  }

  /**
   * Forgets a span adopted by `adoptRun` (the instrumentation calls it when its unsampled span
   * ends).
   */
  releaseAdoptedRun(spanContext: SpanContext): void {
    const tracked = this.spans.get(spanContext.spanId);
    if (tracked === undefined || tracked.kind !== 'other') return;
    this.untrack(spanContext.spanId, tracked);
    if (this.runsByTrace.get(spanContext.traceId) === tracked.run) this.runsByTrace.delete(spanContext.traceId);
  }

  private indexTrace(traceId: string, run: RunGuard): void {
    this.runsByTrace.set(traceId, run);
    this.traceOfRun.set(run.id, traceId);
  }

  /** Called for every run the engine ends: by its span, by eviction past maxOpenRuns, by shutdown. */
  private forgetRun(run: RunView): void {
    this.rootSpans.delete(run.id);
    this.ownRuns.delete(run.id);
    // The engine hands runEnded the RunGuard itself: a Set lookup, not a scan of every loop run.
    this.loopRuns.delete(run as RunGuard);
    // A run evicted at the open-run cap is live and fails open: its spans stay tracked so its
    // later calls reach it (allowed, unguarded). Dropped, each call would open an implicit
    // run of its trace, evicting another live run in turn — a cascade at the cap. Its spans
    // end as the agent works, and maxTrackedSpans bounds them. Idled-out and ended runs
    // drop their spans now: spans that never end must not hold memory (issue 10 #12).
    const spanIds = (run as RunGuard).evictedBy === 'max_open_runs' ? undefined : this.spansOfRun.get(run);
    if (spanIds !== undefined) {
      this.spansOfRun.delete(run);
      for (const spanId of spanIds) {
        const tracked = this.spans.get(spanId);
        this.spans.delete(spanId);
        // A call still running when its run ended is finished as "ran, content unknown", so
        // the ledger (queryable for endedRunTtlMs) shows nothing left in flight.
        if (tracked?.kind === 'call' && tracked.ticket !== undefined && !tracked.done && tracked.ticket.decision.action !== 'refuse') {
          tracked.done = true;
          tracked.run.finishCall(tracked.ticket, { outcome: 'success', unfingerprintable: true });
        }
      }
    }
    const traceId = this.traceOfRun.get(run.id);
    if (traceId !== undefined) {
      this.traceOfRun.delete(run.id);
      if (this.runsByTrace.get(traceId)?.id === run.id) this.runsByTrace.delete(traceId);
    }
  }

  private runOfParent(parentSpanId: string | undefined, traceId: string): RunGuard | undefined {
    const byParent = parentSpanId !== undefined ? this.spans.get(parentSpanId)?.run : undefined;
    return byParent ?? this.liveRunOfTrace(traceId);
  }

  /**
   * The parent's run, else the trace's implicit run (when implicit runs are on). Never for
   * the all-zero trace id of the API's no-op tracer: an implicit run for it would put every
   * call in the process into one run.
   */
  private runOfParentOrImplicit(parentSpanId: string | undefined, traceId: string, tool?: string): RunGuard | undefined {
    const run = this.runOfParent(parentSpanId, traceId);
    if (run !== undefined || !this.implicitRuns || !isValidTraceId(traceId)) return run;
    if (parentSpanId === undefined) {
      // A root span is alone in its trace: an implicit run for it could never see a second
      // call, and one per call would pile up open runs until they idle out.
      if (tool !== undefined && !this.warnedAboutRootToolSpan) {
        this.warnedAboutRootToolSpan = true;
        reportToDiag(
          'warn',
          `loopguard: tool call "${tool}" has no parent span, so it belongs to no run and is not guarded. ` +
            'Call tools inside a run: startAgentRun(...).tool(...), an invoke_agent span, or instrumentTool(..., { run }).',
        );
      }
      return undefined;
    }
    return this.implicitRun(traceId);
  }

  /** The one open startAgentRun run, or undefined when none or several are open. */
  private soleLoopRun(): RunGuard | undefined {
    if (this.loopRuns.size !== 1) return undefined;
    const run = this.loopRuns.values().next().value as RunGuard;
    return run.isEnded ? undefined : run;
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
    this.ownRuns.add(run.id);
    this.indexTrace(traceId, run);
    return run;
  }

  private track(spanId: string, tracked: TrackedSpan): void {
    if (this.spans.size >= this.maxTrackedSpans) {
      const oldest = this.spans.keys().next().value as string;
      const forgotten = this.spans.get(oldest);
      if (forgotten !== undefined) this.untrack(oldest, forgotten);
      // A forgotten call must not stay "in flight" forever (every identical call would be
      // refused as already running): finish it as "succeeded, content unknown" — a new fact.
      if (forgotten?.kind === 'call' && forgotten.ticket !== undefined && !forgotten.done) {
        forgotten.done = true;
        forgotten.run.finishCall(forgotten.ticket, { outcome: 'success', unfingerprintable: true });
      }
      if (!this.warnedAboutSpanCap) {
        this.warnedAboutSpanCap = true;
        reportToDiag('warn', `loopguard: more than ${this.maxTrackedSpans} guarded spans are open; forgetting the oldest. Are spans being ended?`);
      }
    }
    this.spans.set(spanId, tracked);
    let ofRun = this.spansOfRun.get(tracked.run);
    if (ofRun === undefined) this.spansOfRun.set(tracked.run, (ofRun = new Set()));
    ofRun.add(spanId);
  }

  private untrack(spanId: string, tracked: TrackedSpan): void {
    this.spans.delete(spanId);
    const ofRun = this.spansOfRun.get(tracked.run);
    if (ofRun === undefined) return;
    ofRun.delete(spanId);
    if (ofRun.size === 0) this.spansOfRun.delete(tracked.run);
  }

  /** The stop reason goes on the invoke_agent span while it is still open. */
  private annotateStop(run: RunView, decision: StopDecision): void {
    const root = this.rootSpans.get(run.id);
    if (root === undefined || root.ended) return;
    root.setAttribute(ATTR_STOP_REASON, decision.reason);
  }
}

const PROCESSOR_OPTION_KEYS = new Set(['guard', 'interpreters', 'implicitRuns', 'maxTrackedSpans']);

/**
 * Rejects what would otherwise be ignored or fail later, naming the field. With `guard`, the
 * engine exists already: a policy option beside it (`profile`, `tools`, ...) would be
 * silently dropped, so it is an error — set it on the engine.
 */
function validateProcessorOptions(options: LoopGuardSpanProcessorOptions): void {
  const fail = (field: string, message: string): never => {
    throw new LoopGuardConfigError({ field, message });
  };
  if (typeof options !== 'object' || options === null || Array.isArray(options)) {
    fail('(root)', `LoopGuardSpanProcessor options must be an object, got ${describeConfigValue(options)}`);
  }
  if (options.guard !== undefined) {
    if (!(options.guard instanceof LoopGuard)) fail('guard', `must be a LoopGuard (new LoopGuard({...})), got ${describeConfigValue(options.guard)}`);
    for (const key of Object.keys(options)) {
      if (PROCESSOR_OPTION_KEYS.has(key) || (options as Record<string, unknown>)[key] === undefined) continue;
      fail(key, `is an engine option, but \`guard\` was given and already has its options; pass it to new LoopGuard({ ${key}: ... }) instead`);
    }
  }
  const { interpreters, implicitRuns, maxTrackedSpans } = options;
  if (interpreters !== undefined) {
    if (!Array.isArray(interpreters)) fail('interpreters', `must be an array of functions, got ${describeConfigValue(interpreters)}`);
    interpreters.forEach((interpreter, index) => {
      if (typeof interpreter !== 'function') fail(`interpreters[${index}]`, `must be a function (name, attributes) => SpanRole | undefined, got ${describeConfigValue(interpreter)}`);
    });
  }
  if (implicitRuns !== undefined && typeof implicitRuns !== 'boolean') fail('implicitRuns', `must be true or false, got ${describeConfigValue(implicitRuns)}`);
  if (maxTrackedSpans !== undefined && !(typeof maxTrackedSpans === 'number' && Number.isFinite(maxTrackedSpans) && maxTrackedSpans >= 1)) {
    fail('maxTrackedSpans', `must be a number of spans >= 1 (default 100000), got ${describeConfigValue(maxTrackedSpans)}`);
  }
}

/** Reports a compaction the span says happened ({@link ATTR_CONTEXT_COMPACTED}); true when it did. */
function reportCompaction(run: RunGuard, attributes: Attributes): boolean {
  if (attributes[ATTR_CONTEXT_COMPACTED] !== true) return false;
  run.contextCompacted();
  return true;
}
