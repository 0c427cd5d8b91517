import type { LoopGuard, RunGuard } from '../core/loop-guard.js';
import type { CallTicket } from '../core/run-guard.js';
import type { ModelUsage } from '../core/types.js';
import { ATTR_GEN_AI_TOOL_CALL_ARGUMENTS, ATTR_GEN_AI_TOOL_CALL_RESULT } from '../otel/attributes.js';
import type { CollectedSpan } from '../replay/collect-otlp-spans.js';
import { appendSpansToReplayRuns, isRedelivered, modelRoundsByFirstCall, otlpSpansToReplayRuns, type OtlpRunReaderState } from '../replay/otlp-spans-to-replay-calls.js';
import type { ReplayCall } from '../replay/replay-call.js';
import { toEngineCall } from '../replay/replay-session.js';

/** Options of {@link LiveSpanRuns}. */
export interface LiveSpanRunsOptions {
  guard: LoopGuard;
  /** Traces held at once; past it the least recently active is let go. Default 10 000. */
  maxTraces?: number;
  /** Spans kept per trace; further spans of that trace are rejected. Default 10 000. */
  maxSpansPerTrace?: number;
  /** A trace with no new span for this long is let go (its run ends). Default 600 000 (10 min). */
  traceIdleMs?: number;
  /**
   * Bytes of span text (ids, names, attribute values; counted in UTF-16 code units, plus a fixed
   * overhead per span and attribute) held across all traces. Past it the least recently active
   * traces are let go, as past maxTraces; a span that alone would pass it is rejected. The counts
   * cap how many spans are held, not how large each is: 300 requests of one 3.5 MB attribute each
   * held 1 GB. Default 268 435 456 (256 MiB).
   */
  maxHeldSpanBytes?: number;
  now?: () => number;
  /**
   * Re-read each trace whole on every request, as before reads were incremental: the reference
   * the incremental read is checked against (tests) and measured against (bench probes).
   */
  alwaysReadWhole?: boolean;
}

interface LiveTrace {
  spans: CollectedSpan[];
  /**
   * The engine run of each tool span already fed to the engine (`traceId/spanId`): one map
   * for "fed?" and "in which run?" (a Set beside `call:`-prefixed keys in runIdByFirstCall measured
   * 93.2 → 87.9 KiB per open trace of 100 spans, bench/probes/serve-trace-memory.ts).
   */
  runIdOfFedCall: Map<string, string>;
  /** The engine run of each run the replay reader finds, keyed by its first fed call's span. */
  runIdByFirstCall: Map<string, string>;
  /** Round the engine run is in, by engine run id. */
  engineRound: Map<string, number>;
  /** Run spans already seen: their runs ended. */
  endedRunSpans: Set<string>;
  /** Runs its spans name that someone else drives (see LiveSpanRuns.isOthers): not fed, not ended. */
  othersRuns?: Set<string>;
  /** Span problems already reported (each is reported with the request that brought the span). */
  reported: Set<string>;
  /** What the last read of the trace found, to read the next request's spans alone; undefined: read whole. */
  reader: OtlpRunReaderState | undefined;
  lastActivity: number;
  /** Bytes its spans hold (see maxHeldSpanBytes). */
  bytes: number;
}

/**
 * Live evaluation of spans arriving over OTLP, with the readers `loopguard replay` uses: the
 * spans of each trace are kept (reduced to what the readers need), each batch is read against
 * what the trace's last read found (appendSpansToReplayRuns), or, when its spans would move calls
 * read before, the trace is re-read whole (otlpSpansToReplayRuns); every tool call not fed yet goes through the engine
 * the way ReplaySession feeds it (rounds opened as their numbers move, shouldStop before each
 * new round, claim then finish), so a trace gets the decisions its replay gets.
 *
 * Differences from replay, by necessity: exporters send a span when it ends, so a run's
 * `invoke_agent` span arrives after its calls; calls are named by their own
 * `loopguard.run.id` / `gen_ai.conversation.id`, else `trace:<traceId>`, and that name is
 * kept when the run span arrives. A run ends when its run span arrives, or when its trace
 * goes quiet for `traceIdleMs`. Calls are decided, never enforced: OTLP is after the fact;
 * enforcement is the decision API.
 */
export class LiveSpanRuns {
  private readonly guard: LoopGuard;
  /** Run objects this receiver fed (see isOthers); weak: the engine decides how long a run lives. */
  private readonly startedHere = new WeakSet<RunGuard>();
  private readonly traces = new Map<string, LiveTrace>();
  private readonly maxTraces: number;
  private readonly maxSpansPerTrace: number;
  private readonly traceIdleMs: number;
  private readonly now: () => number;
  private readonly alwaysReadWhole: boolean;
  private readonly maxHeldSpanBytes: number;
  /** Bytes held by all traces' spans (the sum of their `bytes`). */
  private heldBytes = 0;
  private wholeReads = 0;
  /** One batch at a time per server: calls of one trace must be fed in order. */
  private queue: Promise<unknown> = Promise.resolve();

  constructor(options: LiveSpanRunsOptions) {
    this.guard = options.guard;
    this.maxTraces = options.maxTraces ?? 10_000;
    this.maxSpansPerTrace = options.maxSpansPerTrace ?? 10_000;
    this.traceIdleMs = options.traceIdleMs ?? 600_000;
    this.now = options.now ?? Date.now;
    this.alwaysReadWhole = options.alwaysReadWhole ?? false;
    this.maxHeldSpanBytes = options.maxHeldSpanBytes ?? 268_435_456;
  }

  /** Bytes of span text held now (see maxHeldSpanBytes): tests and the server's gauges. */
  get bytesHeld(): number {
    return this.heldBytes;
  }

  /** Requests whose trace was read whole (its first, a run span, spans out of order): tests and probes. */
  get wholeTraceReads(): number {
    return this.wholeReads;
  }

  get traceCount(): number {
    return this.traces.size;
  }

  /**
   * Feeds one request's spans. Returns how many spans were rejected and why (a trace past its
   * span cap; a tool span the readers cannot make a call of), for OTLP partial success.
   */
  ingest(spans: readonly CollectedSpan[]): Promise<{ rejected: number; problems: string[] }> {
    const result = this.queue.then(() => this.ingestNow(spans));
    this.queue = result.then(
      () => undefined,
      () => undefined,
    );
    return result;
  }

  /** Ends every live run (shutdown). */
  endAll(): void {
    for (const traceId of [...this.traces.keys()]) this.letGo(traceId);
  }

  private async ingestNow(spans: readonly CollectedSpan[]): Promise<{ rejected: number; problems: string[] }> {
    const now = this.now();
    this.sweep(now);
    const byTrace = new Map<string, CollectedSpan[]>();
    let rejected = 0;
    const problems: string[] = [];
    for (const span of spans) {
      let list = byTrace.get(span.traceId);
      if (list === undefined) byTrace.set(span.traceId, (list = []));
      list.push(span);
    }
    for (const [traceId, incoming] of byTrace) {
      let trace = this.traces.get(traceId);
      if (trace === undefined) {
        while (this.traces.size >= this.maxTraces) this.letGo(this.traces.keys().next().value as string);
        trace = { spans: [], runIdOfFedCall: new Map(), runIdByFirstCall: new Map(), engineRound: new Map(), endedRunSpans: new Set(), reported: new Set(), reader: undefined, lastActivity: now, bytes: 0 };
        this.traces.set(traceId, trace);
      } else {
        // Map order = order of last activity, so the sweep and the cap take the idlest first.
        this.traces.delete(traceId);
        this.traces.set(traceId, trace);
      }
      trace.lastActivity = now;
      const accepted: CollectedSpan[] = [];
      let overSpanCap = false;
      const held = trace.reader;
      for (const span of incoming) {
        // A batch sent again after a lost answer: its spans are held and were fed already.
        // Reported as repeated span ids, each redelivered span cost a whole re-read of its trace
        // and an error object per earlier copy, and the exporter logged rejected spans.
        if (held !== undefined && isRedelivered(held, span)) continue;
        if (trace.spans.length >= this.maxSpansPerTrace) {
          rejected += 1;
          overSpanCap = true;
          continue;
        }
        const bytes = heldBytesOf(span);
        if (bytes > this.maxHeldSpanBytes - trace.bytes) {
          rejected += 1;
          problems.push(`trace ${traceId}: span ${span.spanId.slice(0, 64)} holds ${bytes} bytes of text, more than the ${this.maxHeldSpanBytes} the server holds for live traces (the server's maxHeldSpanBytes) leave for it; not evaluated`);
          continue;
        }
        // Room is made by letting go the idlest other traces, as past maxTraces.
        while (this.heldBytes + bytes > this.maxHeldSpanBytes) this.letGo(this.idlestOtherThan(traceId)!);
        trace.bytes += bytes;
        this.heldBytes += bytes;
        span.seq = trace.spans.length;
        trace.spans.push(span);
        accepted.push(span);
      }
      if (overSpanCap) problems.push(`trace ${traceId} has more than ${this.maxSpansPerTrace} spans (maxSpansPerTrace); later spans are not evaluated`);
      await this.evaluate(traceId, trace, accepted, problems, (count) => (rejected += count));
    }
    return { rejected, problems };
  }

  /**
   * Reads the request's spans against what earlier reads of the trace found when that gives what
   * re-reading the whole trace gives (spans in order: appendSpansToReplayRuns), else re-reads the
   * trace whole (a run span, a parent arriving after its children, a model call starting before
   * calls already read, a repeated span id). Either way the calls not fed yet go to the engine in
   * the order, rounds and runs a whole re-read gives them, so decisions do not depend on which.
   * Measured (bench/probes/serve-long-trace.ts, one trace sent 10 spans per request, medians of 5):
   * 4 000 spans 6 400 → 15 900 spans/s, 10 000 spans 2 960 → 25 900 (the re-read made it quadratic).
   */
  private async evaluate(traceId: string, trace: LiveTrace, incoming: readonly CollectedSpan[], problems: string[], reject: (count: number) => void): Promise<void> {
    // No span accepted (the trace is at its cap): a whole read would find nothing new.
    if (incoming.length === 0) return;
    const file = `trace ${traceId}`;
    const appended = trace.reader === undefined || this.alwaysReadWhole ? undefined : appendSpansToReplayRuns(trace.reader, incoming, file);
    const fed: CollectedSpan[] = [];
    if (appended !== undefined) {
      this.reportProblems(trace, appended.problems, problems, reject);
      for (const run of appended.runs) {
        // As a whole read names it: the name of the run's first call, or (the first call is new)
        // of its first call read before.
        const runId = trace.runIdOfFedCall.get(run.previousFirstKey)!;
        if (!trace.runIdByFirstCall.has(run.firstKey)) trace.runIdByFirstCall.set(run.firstKey, runId);
        for (const call of run.calls) {
          trace.runIdOfFedCall.set(call.spanKey!, runId);
          const pending = this.feed(trace, runId, call);
          if (pending !== undefined) await pending;
          fed.push(trace.reader!.byKey.get(call.spanKey!)!);
        }
      }
    } else {
      this.wholeReads += 1;
      const { runs, problems: readProblems, state } = otlpSpansToReplayRuns(trace.spans, file, { keepState: true });
      trace.reader = state;
      this.reportProblems(trace, readProblems, problems, reject);
      for (const run of runs) {
        const fresh = run.calls.filter((call) => call.spanKey !== undefined && !trace.runIdOfFedCall.has(call.spanKey));
        const firstKey = run.calls[0]?.spanKey;
        if (firstKey === undefined) continue;
        let runId = trace.runIdByFirstCall.get(firstKey);
        if (runId === undefined) {
          // The run keeps the name it got with its first call, whatever the reader names it later.
          const named = run.calls.find((call) => call.spanKey !== undefined && trace.runIdOfFedCall.has(call.spanKey));
          runId = named !== undefined ? (trace.runIdOfFedCall.get(named.spanKey!) ?? run.run) : run.run;
          trace.runIdByFirstCall.set(firstKey, runId);
        }
        for (const call of fresh) {
          trace.runIdOfFedCall.set(call.spanKey!, runId);
          const pending = this.feed(trace, runId, call);
          if (pending !== undefined) await pending;
          fed.push(state!.byKey.get(call.spanKey!)!);
        }
      }
    }
    const freed = settleFedSpans(fed);
    trace.bytes -= freed;
    this.heldBytes -= freed;
    // A run span that arrived: that run is over (exporters send it after its calls). Run spans of
    // earlier requests were handled with them.
    for (const span of incoming) {
      if (span.role !== 'run') continue;
      const key = `${span.traceId}/${span.spanId}`;
      if (trace.endedRunSpans.has(key)) continue;
      trace.endedRunSpans.add(key);
      for (const runId of this.runsUnder(trace, span)) this.endRun(trace, runId);
    }
  }

  /** Span problems, each reported once: with the request that brought its span. */
  private reportProblems(trace: LiveTrace, found: ReadonlyArray<{ line: number; message: string }>, problems: string[], reject: (count: number) => void): void {
    for (const problem of found) {
      const key = `${problem.line}|${problem.message}`;
      if (!trace.reported.has(key)) {
        trace.reported.add(key);
        problems.push(problem.message);
        reject(1);
      }
    }
  }

  /**
   * Feeds one call as ReplaySession does. Without a shared store it is fed synchronously
   * (startCall: what claimCall resolves to then) and nothing is returned; with one, the
   * promise of the claim across processes. Measured (bench/serve.ts ingestion, --cpu-prof): two
   * awaits per call (feed's, claimCall's) were two promises and microtask turns per span.
   */
  private feed(trace: LiveTrace, runId: string, call: ReplayCall): Promise<void> | undefined {
    if (trace.othersRuns?.has(runId) === true) return undefined;
    // A tool span of a run whose agent span already came (batches reordered by a Collector, or
    // two exporters): the run is over. Starting it again would forget its stop and let the same
    // id go on unguarded; a later invocation under the same id has its own agent span.
    if (trace.endedRunSpans.size > 0 && this.guard.getRun(runId)?.isEnded === true && this.isUnderEndedRunSpan(trace, call)) return undefined;
    if (this.guard.isShared) return this.feedShared(trace, runId, call);
    const known = this.guard.getRun(runId);
    if (known !== undefined && this.isOthers(trace, runId, known)) return undefined;
    const run = this.guard.startRun(runId);
    this.startedHere.add(run);
    if (!this.openRoundOf(trace, runId, run, call)) return undefined;
    finishFed(run, run.startCall(toEngineCall(call)), call);
    return undefined;
  }

  private async feedShared(trace: LiveTrace, runId: string, call: ReplayCall): Promise<void> {
    const run = await this.guard.resumeRun(runId);
    if (this.isOthers(trace, runId, run)) return;
    this.startedHere.add(run);
    if (!this.openRoundOf(trace, runId, run, call)) return;
    finishFed(run, await run.claimCall(toEngineCall(call)), call);
  }

  /**
   * Whether `run`, named by this trace's spans, is one someone else drives: open, with rounds or
   * calls this receiver did not feed. That is an agent asking the decision API (or an engine on
   * the remote store) that also exports its spans under the same run id, say its conversation id
   * on the agent span: its calls were already counted when they were claimed. Feeding them again
   * counted each one twice (the second as a repeat of itself, towards a stop the agent would be
   * told of), and the agent span ended the run under the agent, whose next round was 409
   * run_ended. Decided once per trace and run: a run this trace already feeds stays its own
   * (after an eviction it is a new object with rounds), and one another live trace started here
   * too (overlapping turns of one conversation, as before).
   */
  private isOthers(trace: LiveTrace, runId: string, run: RunGuard): boolean {
    if (trace.engineRound.has(runId) || this.startedHere.has(run) || run.isEnded) return false;
    if (run.round === 0 && run.inFlight === 0) return false;
    (trace.othersRuns ??= new Set()).add(runId);
    return true;
  }

  /**
   * Opens rounds up to the call's, then applies a compaction reported before the call (as
   * ReplaySession does); false when the run is stopped (the call is not fed).
   */
  private openRoundOf(trace: LiveTrace, runId: string, run: RunGuard, call: ReplayCall): boolean {
    if (!this.openRoundsTo(trace, runId, run, call.round, call.usage)) return false;
    if (call.compactedBefore === true) run.contextCompacted();
    return true;
  }

  /**
   * Opens the run's rounds up to `round` (`usage` on that one); false when the run is or gets
   * stopped. As ReplaySession: judge the round that ended, then open the next; a call arriving
   * late (its round already passed) counts in the round open now.
   */
  private openRoundsTo(trace: LiveTrace, runId: string, run: RunGuard, round: number, usage?: ModelUsage): boolean {
    let open = trace.engineRound.get(runId) ?? run.round;
    if (run.stopped !== undefined) return false;
    while (open < round) {
      if (open >= 1 && run.shouldStop().action === 'stop') return false;
      open += 1;
      run.beginRound(open === round ? usage : undefined);
    }
    trace.engineRound.set(runId, open);
    return true;
  }

  /** Whether the call's nearest run span is one that already ended in this trace. */
  private isUnderEndedRunSpan(trace: LiveTrace, call: ReplayCall): boolean {
    // Rare (a span after its run's end), so the walk builds its own index.
    const span = trace.reader?.byKey.get(call.spanKey!);
    const runSpan = span === undefined ? undefined : nearestRunSpan(span, spansById(trace));
    return runSpan !== undefined && trace.endedRunSpans.has(`${runSpan.traceId}/${runSpan.spanId}`);
  }

  /** Engine runs whose calls sit under this run span (names the reader gave them). */
  private runsUnder(trace: LiveTrace, runSpan: CollectedSpan): Set<string> {
    const byId = spansById(trace);
    const runs = new Set<string>();
    for (const span of trace.spans) {
      if (span.role !== 'tool' || nearestRunSpan(span, byId) !== runSpan) continue;
      const runId = trace.runIdOfFedCall.get(`${span.traceId}/${span.spanId}`);
      if (runId !== undefined) runs.add(runId);
    }
    return runs;
  }

  private endRun(trace: LiveTrace, runId: string): void {
    if (trace.othersRuns?.has(runId) === true) return;
    const run: RunGuard | undefined = this.guard.getRun(runId);
    if (run === undefined || run.isEnded) return;
    // Model calls after its last tool call (its answer) are rounds too, as in replay and live.
    let rounds = 0;
    if (trace.reader !== undefined) {
      for (const [firstKey, count] of modelRoundsByFirstCall(trace.reader)) if (trace.runIdOfFedCall.get(firstKey) === runId) rounds = Math.max(rounds, count);
    }
    this.openRoundsTo(trace, runId, run, rounds);
    // The end of a run is its last round's verdict, as in replay.
    if (run.stopped === undefined) run.shouldStop();
    run.end();
    trace.engineRound.delete(runId);
  }

  private sweep(now: number): void {
    for (const [traceId, trace] of this.traces) {
      if (now - trace.lastActivity < this.traceIdleMs) break;
      this.letGo(traceId);
    }
  }

  /** The least recently active trace but `traceId` (Map order is order of last activity). */
  private idlestOtherThan(traceId: string): string | undefined {
    for (const id of this.traces.keys()) if (id !== traceId) return id;
    return undefined;
  }

  private letGo(traceId: string): void {
    const trace = this.traces.get(traceId);
    if (trace === undefined) return;
    this.traces.delete(traceId);
    this.heldBytes -= trace.bytes;
    for (const runId of new Set(trace.runIdByFirstCall.values())) this.endRun(trace, runId);
  }
}

/**
 * A claimed call's outcome, at its recorded end time; a refused call has none. The end time is
 * set on the call's own outcome, not on a copy (withEndTime's `{ ...outcome, endTime }`): the
 * span readers make a fresh outcome for every call they read and nothing reads a fed call again.
 * Measured (bench/serve.ts ingestion, --cpu-prof): the copy was 1.9 % of the server's self time.
 */
function finishFed(run: RunGuard, ticket: CallTicket, call: ReplayCall): void {
  if (ticket.decision.action === 'refuse') return;
  const outcome = call.outcome;
  if (call.startTime !== undefined && call.durationMs !== undefined) outcome.endTime = call.startTime + call.durationMs;
  run.finishCall(ticket, outcome);
}

/** Arguments and results, by the attribute names the replay reader finds them under. */
const CALL_CONTENT_ATTRIBUTES = new Set([ATTR_GEN_AI_TOOL_CALL_ARGUMENTS, ATTR_GEN_AI_TOOL_CALL_RESULT, 'ai.toolCall.args', 'ai.toolCall.result']);

/**
 * Drops the arguments and result of every tool span whose call was fed: the engine holds their
 * hashes, and an open run's trace would otherwise keep every 2 KB argument and result string
 * until the run ends (and re-parse each result as later batches re-read the trace). Measured
 * (bench/probes/serve-trace-memory.ts, 200 open traces of 100 bench spans): 289 → 93 KiB each.
 */
function settleFedSpans(fed: readonly CollectedSpan[]): number {
  let freed = 0;
  for (const span of fed) {
    if (span.settled === true) continue;
    // A fresh object, not `delete`: deleting keys turns an object into a slow dictionary.
    const kept: Record<string, unknown> = {};
    for (const key of Object.keys(span.attributes)) {
      if (!CALL_CONTENT_ATTRIBUTES.has(key)) kept[key] = span.attributes[key];
      else freed += attributeBytes(key, span.attributes[key]);
    }
    span.attributes = kept;
    span.settled = true;
  }
  return freed;
}

/** A trace's spans by span id, for walking parent links. */
function spansById(trace: LiveTrace): Map<string, CollectedSpan> {
  const byId = new Map<string, CollectedSpan>();
  for (const span of trace.spans) byId.set(span.spanId, span);
  return byId;
}

/** The run span nearest above `span` (its run), if any within 256 levels. */
function nearestRunSpan(span: CollectedSpan, byId: ReadonlyMap<string, CollectedSpan>): CollectedSpan | undefined {
  for (let ancestor = span.parentSpanId === undefined ? undefined : byId.get(span.parentSpanId), depth = 0; ancestor && depth < 256; depth++) {
    if (ancestor.role === 'run') return ancestor;
    ancestor = ancestor.parentSpanId === undefined ? undefined : byId.get(ancestor.parentSpanId);
  }
  return undefined;
}

/** Per span and per attribute: the objects around the text (a CollectedSpan, a property). */
const SPAN_OVERHEAD_BYTES = 256;
const ATTRIBUTE_OVERHEAD_BYTES = 32;

/**
 * What a held span costs, for maxHeldSpanBytes: its text in UTF-16 code units (V8 keeps most text in
 * one byte a unit, so this errs high) and a fixed overhead. Counted once, as a span is accepted,
 * by walking its few kept attributes (a replay reader keeps only the ones it reads).
 */
function heldBytesOf(span: CollectedSpan): number {
  let bytes = SPAN_OVERHEAD_BYTES + span.traceId.length + span.spanId.length + (span.parentSpanId?.length ?? 0) + span.name.length;
  for (const key in span.attributes) bytes += attributeBytes(key, span.attributes[key]);
  return bytes + (span.statusMessage?.length ?? 0) + (span.exceptionType?.length ?? 0) + (span.exceptionMessage?.length ?? 0);
}

function attributeBytes(key: string, value: unknown): number {
  return ATTRIBUTE_OVERHEAD_BYTES + key.length + textLength(value, 0);
}

/** Text held in a decoded attribute value (strings, and strings inside arrays and maps). */
function textLength(value: unknown, depth: number): number {
  if (typeof value === 'string') return value.length;
  if (typeof value !== 'object' || value === null || depth > 256) return 8;
  let length = 0;
  if (Array.isArray(value)) for (const inner of value) length += 8 + textLength(inner, depth + 1);
  else for (const key in value) length += 8 + key.length + textLength((value as Record<string, unknown>)[key], depth + 1);
  return length;
}
