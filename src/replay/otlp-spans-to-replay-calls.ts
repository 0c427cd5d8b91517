import { readCallFacts } from '../core/call-facts-text.js';
import { FactsTextError } from '../core/facts-text-error.js';
import { readOutcomeFacts } from '../core/outcome-facts-text.js';
import type { ModelUsage, OutcomeClass, PrehashedOutcome, ToolErrorInfo } from '../core/types.js';
import { MAX_PARSED_RESULT_LENGTH } from '../core/result-fingerprint.js';
import {
  ATTR_ARGS_HASH,
  ATTR_CALL_FACTS,
  ATTR_CONTEXT_COMPACTED,
  ATTR_DECISION,
  ATTR_ERROR_TYPE,
  ATTR_GEN_AI_CONVERSATION_ID,
  ATTR_GEN_AI_TOOL_CALL_ARGUMENTS,
  ATTR_GEN_AI_TOOL_CALL_ID,
  ATTR_GEN_AI_TOOL_CALL_RESULT,
  ATTR_GEN_AI_TOOL_NAME,
  ATTR_GEN_AI_USAGE_INPUT_TOKENS,
  ATTR_GEN_AI_USAGE_OUTPUT_TOKENS,
  ATTR_OUTCOME,
  ATTR_OUTCOME_FACTS,
  ATTR_RESULT_HASH,
  ATTR_ROUND,
  ATTR_RUN_ID,
  ATTR_UNFINGERPRINTABLE,
} from '../otel/attributes.js';
import type { CollectedSpan } from './collect-otlp-spans.js';
import type { ReplayCall } from './replay-call.js';
import { ReplayInputError } from './replay-input-error.js';

/** One run rebuilt from spans, its calls in the order they were made. */
export interface OtlpReplayRun {
  run: string;
  calls: ReplayCall[];
  /** Its model-call (round) spans: the rounds it had, those after its last call included. */
  rounds: number;
}

const PREHASHED_OUTCOMES: ReadonlySet<string> = new Set<OutcomeClass>(['success', 'empty', 'error', 'overloaded', 'timeout']);

/**
 * Rebuilds runs, rounds and calls from the spans of a whole file.
 *
 * - A call belongs to its nearest run span ancestor (`invoke_agent`, `ai.generateText`,
 *   `ai.streamText`); calls with none form one run per trace, named `trace:<traceId>`.
 * - Run name: `loopguard.run.id`, else `gen_ai.conversation.id`, else the run span's id.
 *   Every run span is its own run, as live (a chat turn is a run even when the turns share
 *   a conversation id); a name already taken by an earlier run gets `#2`, `#3`, ...
 * - Round: `loopguard.round` when recorded; else the model-call span the call sits under;
 *   else the number of the run's model-call spans that started before the call. A run with
 *   no model-call spans at all starts a new round at each call that did not overlap the
 *   previous one (parallel calls share a round).
 * - Calls are ordered by round, then start time, because exporters write spans when they
 *   end, not when they start.
 * - Outcome: the raw result (`gen_ai.tool.call.result` / `ai.toolCall.result`) when recorded,
 *   fingerprinted under the replay's policy; else loopguard's recorded hashes; an ERROR
 *   status is a failure typed by `error.type` (or the exception event); a call with none of
 *   these succeeded with unknown content (unfingerprintable: leans to a new fact).
 * - Compaction: a model-call span with `loopguard.context.compacted` marks its round's first
 *   call `compactedBefore`.
 */
export function otlpSpansToReplayRuns(
  spans: readonly CollectedSpan[],
  file: string,
  options: { keepState?: boolean } = {},
): {
  runs: OtlpReplayRun[];
  problems: ReplayInputError[];
  /** With `keepState`: what {@link appendSpansToReplayRuns} needs to read later spans alone. */
  state?: OtlpRunReaderState;
} {
  const problems: ReplayInputError[] = [];
  const byKey = new Map<string, CollectedSpan>();
  // A span id used twice in a trace makes parent links ambiguous: children of the second span
  // would silently join the first one's run. The later span is reported and skipped.
  let duplicates: Set<CollectedSpan> | undefined;
  for (const span of spans) {
    const key = keyOf(span);
    const first = byKey.get(key);
    if (first === undefined) {
      byKey.set(key, span);
      continue;
    }
    (duplicates ??= new Set()).add(span);
    problems.push(
      new ReplayInputError({
        file,
        line: span.line,
        field: `${span.path}.spanId`,
        problem: `${span.path}.spanId ${span.spanId} of trace ${span.traceId} is already used by the span at line ${first.line} (${first.path}); span ids must be unique in a trace, so this span is skipped`,
      }),
    );
  }
  if (duplicates !== undefined) spans = spans.filter((span) => !duplicates.has(span));
  const linkedParent = (span: CollectedSpan): CollectedSpan | undefined =>
    span.parentSpanId === undefined ? undefined : byKey.get(parentKeyOf(span, span.parentSpanId));
  const inCycle = findParentCycles(spans, linkedParent, file, problems);
  const parentOf = (span: CollectedSpan): CollectedSpan | undefined => (inCycle.has(span) ? undefined : linkedParent(span));

  // A Vercel ai.toolCall that wraps loopguard's own execute_tool span is the same call twice;
  // the execute_tool span carries loopguard's hashes, so it wins.
  const supersededToolSpans = new Set<CollectedSpan>();
  for (const span of spans) {
    if (span.role !== 'tool' || span.flavor !== 'genai') continue;
    for (let ancestor = parentOf(span), depth = 0; ancestor && depth < 256; ancestor = parentOf(ancestor), depth++) {
      if (ancestor.role === 'run') break;
      if (ancestor.role === 'tool') supersededToolSpans.add(ancestor);
    }
  }

  interface RunBucket {
    key: string;
    name: string;
    firstStart: bigint;
    models: CollectedSpan[];
    tools: Array<{ span: CollectedSpan; modelAncestor: CollectedSpan | undefined }>;
  }
  const buckets = new Map<string, RunBucket>();
  // Calls with no run span form one run per trace: its name made once per trace, not per call
  // (a live trace is re-read whole as its spans arrive).
  let lastTraceId: string | undefined;
  let lastTraceName = '';
  const traceRunName = (traceId: string): string => {
    if (traceId !== lastTraceId) {
      lastTraceId = traceId;
      lastTraceName = `trace:${traceId}`;
    }
    return lastTraceName;
  };
  const bucketFor = (span: CollectedSpan): { bucket: RunBucket; modelAncestor: CollectedSpan | undefined; nested: boolean } => {
    const { modelAncestor, runSpan, nested } = roundAndRunAncestors(span, parentOf);
    const name = runSpan ? runName(runSpan) : traceRunName(span.traceId);
    const key = runSpan ? keyOf(runSpan) : name;
    let bucket = buckets.get(key);
    if (!bucket) {
      bucket = { key, name, firstStart: runSpan?.startNanos ?? span.startNanos, models: [], tools: [] };
      buckets.set(key, bucket);
    }
    if (runSpan && runSpan.startNanos < bucket.firstStart) bucket.firstStart = runSpan.startNanos;
    if (span.startNanos < bucket.firstStart) bucket.firstStart = span.startNanos;
    return { bucket, modelAncestor, nested };
  };

  for (const span of spans) {
    if (span.role === 'round') {
      const { bucket, modelAncestor, nested } = bucketFor(span);
      if (nested) foldIntoRound(modelAncestor, span);
      else bucket.models.push(span);
    } else if (span.role === 'tool' && !supersededToolSpans.has(span)) {
      const { bucket, modelAncestor } = bucketFor(span);
      bucket.tools.push({ span, modelAncestor });
    }
  }

  const runs: OtlpReplayRun[] = [];
  const state: OtlpRunReaderState | undefined = options.keepState
    ? { irregular: duplicates !== undefined || inCycle.size > 0, byKey, waitingParents: new Set(), buckets: new Map() }
    : undefined;
  if (state !== undefined) {
    for (const span of spans) if (span.parentSpanId !== undefined && linkedParent(span) === undefined) state.waitingParents.add(span.parentKey!);
    // Map order is the order the buckets were made in: the tie-breaker of the sort below.
    let order = 0;
    for (const bucket of buckets.values()) {
      state.buckets.set(bucket.key, {
        name: bucket.name, order: order++, firstStart: bucket.firstStart, models: bucket.models, modelIndex: new Map(),
        roundByToolCallId: new Map(), linkableCallIds: new Set(), last: undefined,
        overlapTools: false, overlapRound: 0, overlapEnd: -1n, lastOverlap: undefined, firstCall: undefined, firstOfRound: new Map(),
      });
    }
  }
  const orderedBuckets = [...buckets.values()].sort((a, b) => compareBigInt(a.firstStart, b.firstStart));
  const timesNamed = new Map<string, number>();
  for (const bucket of orderedBuckets) {
    const kept = state?.buckets.get(bucket.key);
    if (kept !== undefined) {
      bucket.models.sort(compareSpansByTime);
      bucket.models.forEach((model, index) => kept.modelIndex.set(model, index));
      kept.last = bucket.models[bucket.models.length - 1];
    }
    if (bucket.tools.length === 0) {
      if (kept !== undefined) kept.roundByToolCallId = roundsOfAskedToolCalls(bucket.models);
      continue;
    }
    // Each run span is its own run, as in the span processor (a chat's turns share a
    // conversation id but each turn is a run); later ones with a taken name get #2, #3, ...
    const seen = (timesNamed.get(bucket.name) ?? 0) + 1;
    timesNamed.set(bucket.name, seen);
    if (seen > 1) bucket.name = `${bucket.name}#${seen}`;
    bucket.models.sort(compareSpansByTime);
    bucket.tools.sort((a, b) => compareSpansByTime(a.span, b.span));
    const rounds = assignRounds(bucket.tools, bucket.models, kept);

    const { calls, callSpans } = toolSpansToCalls(bucket.tools, bucket.name, rounds, file, problems);
    if (kept !== undefined) {
      kept.name = bucket.name;
      const lastTool = bucket.tools[bucket.tools.length - 1].span;
      if (kept.last === undefined || compareSpansByTime(lastTool, kept.last) > 0) kept.last = lastTool;
      calls.forEach((call, index) => {
        const first = kept.firstOfRound.get(call.round);
        if (first === undefined || compareSpansByTime(callSpans[index], first) < 0) kept.firstOfRound.set(call.round, callSpans[index]);
        if (kept.firstCall === undefined || compareCallPlaces(call.round, callSpans[index], kept.firstCall.round, kept.firstCall.span) < 0) {
          kept.firstCall = { round: call.round, span: callSpans[index] };
        }
      });
    }
    // Stable sort keeps start-time order inside a round.
    calls.sort((a, b) => a.round - b.round);
    attachRoundModelFacts(calls, bucket.models);
    runs.push({ run: bucket.name, calls, rounds: bucket.models.length });
  }
  return state === undefined ? { runs, problems } : { runs, problems, state };
}

/** What a trace's last whole read found, kept by `loopguard serve` to read later spans alone. */
export interface OtlpRunReaderState {
  /** Span ids used twice, or parent links in a cycle: every later batch is read whole. */
  irregular: boolean;
  byKey: Map<string, CollectedSpan>;
  /** `traceId/spanId` of parents not seen yet: a span arriving with one of them moves spans read before. */
  waitingParents: Set<string>;
  /** By the reader's bucket key (the run span's key, or `trace:<traceId>`). */
  buckets: Map<string, RunBucketState>;
}

interface RunBucketState {
  name: string;
  /** Place of the bucket in the whole read's Map: ties of firstStart keep it. */
  order: number;
  firstStart: bigint;
  /** Model-call spans by time: the round of a model is its place here. */
  models: CollectedSpan[];
  modelIndex: Map<CollectedSpan, number>;
  roundByToolCallId: Map<string, number>;
  /** `ai.toolCall.id` of tool spans placed by that link or by timing: a later model naming one would move it. */
  linkableCallIds: Set<string>;
  /** The latest span (models and tools) by start time then arrival. */
  last: CollectedSpan | undefined;
  /** Rounds by overlap (a run with no model spans): its state, to go on with later tool spans. */
  overlapTools: boolean;
  overlapRound: number;
  overlapEnd: bigint;
  lastOverlap: CollectedSpan | undefined;
  /** The run's first call (by round, then time): the live run keeps the name it got with it. */
  firstCall: { round: number; span: CollectedSpan } | undefined;
  /** First call of each round: the one that carries the round's model usage. */
  firstOfRound: Map<number, CollectedSpan>;
}

/** New calls of one run found by {@link appendSpansToReplayRuns}. */
export interface AppendedReplayRun {
  /** Calls of the spans just read, in the order a whole read lists them. */
  calls: ReplayCall[];
  /** The run's first call before these spans came (its name is the run's live name). */
  previousFirstKey: string;
  /** The run's first call now. */
  firstKey: string;
}

/**
 * The model-call (round) spans of each run a read found, by the key of the run's first call:
 * its rounds, those after its last call (the answer) included, as a whole read's `rounds` gives.
 */
export function modelRoundsByFirstCall(state: OtlpRunReaderState): Map<string, number> {
  const rounds = new Map<string, number>();
  for (const bucket of state.buckets.values()) if (bucket.firstCall !== undefined) rounds.set(keyOf(bucket.firstCall.span), bucket.models.length);
  return rounds;
}

/**
 * Reads the spans of one request against what the trace's earlier reads found, when that gives
 * exactly what re-reading the whole trace would give for the new spans: each new span lands in a
 * run that already has calls, moves nothing read before (it is no earlier parent of an earlier
 * span, a new model-call span starts after every span of its run, a call by overlap starts after
 * the last one), and no span id repeats. Otherwise returns undefined: the caller re-reads the
 * trace whole (as at a run span, which always comes after its calls). In-order arrival, the
 * common case, then costs what the new spans cost, not what the trace holds. `state` is updated
 * in place, and is stale after undefined.
 */
export function appendSpansToReplayRuns(
  state: OtlpRunReaderState,
  spans: readonly CollectedSpan[],
  file: string,
): { runs: AppendedReplayRun[]; problems: ReplayInputError[] } | undefined {
  if (state.irregular) return undefined;
  const { byKey } = state;
  for (const span of spans) {
    const key = keyOf(span);
    if (span.role === 'run' || byKey.has(key) || state.waitingParents.has(key)) return undefined;
    byKey.set(key, span);
  }
  const linkedParent = (span: CollectedSpan): CollectedSpan | undefined =>
    span.parentSpanId === undefined ? undefined : byKey.get(parentKeyOf(span, span.parentSpanId));
  if (findParentCycles(spans, linkedParent, file, []).size > 0) return undefined;
  const fresh = new Set(spans);
  const superseded = new Set<CollectedSpan>();
  for (const span of spans) {
    if (span.role !== 'tool' || span.flavor !== 'genai') continue;
    for (let ancestor = linkedParent(span), depth = 0; ancestor && depth < 256; ancestor = linkedParent(ancestor), depth++) {
      if (ancestor.role === 'run') break;
      if (ancestor.role !== 'tool') continue;
      // A call read before would stop being one.
      if (!fresh.has(ancestor)) return undefined;
      superseded.add(ancestor);
    }
  }
  const touched = new Map<RunBucketState, { models: CollectedSpan[]; tools: Array<{ span: CollectedSpan; modelAncestor: CollectedSpan | undefined }> }>();
  for (const span of spans) {
    if (span.parentSpanId !== undefined && linkedParent(span) === undefined) state.waitingParents.add(span.parentKey!);
    if (span.role !== 'round' && (span.role !== 'tool' || superseded.has(span))) continue;
    const { modelAncestor, runSpan, nested } = roundAndRunAncestors(span, linkedParent);
    if (span.role === 'round' && nested) {
      // A compaction said on a layer of a round read before may come after that round's first call.
      if (span.attributes[ATTR_CONTEXT_COMPACTED] === true) return undefined;
      continue;
    }
    const bucket = state.buckets.get(runSpan ? keyOf(runSpan) : `trace:${span.traceId}`);
    // A run with no calls yet is named by its place among the trace's runs: a whole read.
    if (bucket === undefined || bucket.firstCall === undefined) return undefined;
    if (span.startNanos < bucket.firstStart) bucket.firstStart = span.startNanos;
    let added = touched.get(bucket);
    if (added === undefined) touched.set(bucket, (added = { models: [], tools: [] }));
    if (span.role === 'round') added.models.push(span);
    else added.tools.push({ span, modelAncestor });
  }

  const runs: Array<AppendedReplayRun & { bucket: RunBucketState; problems: ReplayInputError[] }> = [];
  for (const [bucket, added] of touched) {
    const problems: ReplayInputError[] = [];
    added.models.sort(compareSpansByTime);
    added.tools.sort((a, b) => compareSpansByTime(a.span, b.span));
    if (added.models.length > 0) {
      // Later model spans would change the rounds of calls read before.
      if (bucket.overlapTools || (bucket.last !== undefined && compareSpansByTime(added.models[0], bucket.last) <= 0)) return undefined;
      for (const model of added.models) {
        bucket.modelIndex.set(model, bucket.models.length);
        bucket.models.push(model);
        for (const id of askedToolCallIds(model)) {
          if (bucket.roundByToolCallId.has(id)) continue;
          if (bucket.linkableCallIds.has(id)) return undefined;
          bucket.roundByToolCallId.set(id, bucket.models.length);
        }
      }
      bucket.last = added.models[added.models.length - 1];
    }
    const rounds: number[] = [];
    for (const { span, modelAncestor } of added.tools) {
      const round = placeCall(span, modelAncestor, bucket);
      if (round === undefined) return undefined;
      rounds.push(round);
    }
    if (added.tools.length > 0) {
      const lastTool = added.tools[added.tools.length - 1].span;
      if (bucket.last === undefined || compareSpansByTime(lastTool, bucket.last) > 0) bucket.last = lastTool;
    }
    const { calls, callSpans } = toolSpansToCalls(added.tools, bucket.name, rounds, file, problems);
    if (calls.length === 0) {
      if (problems.length > 0) runs.push({ bucket, problems, calls, previousFirstKey: '', firstKey: '' });
      continue;
    }
    // Stable sort keeps start-time order inside a round (the order a whole read gives them).
    const order = calls.map((_, index) => index).sort((a, b) => calls[a].round - calls[b].round);
    const previousFirst = bucket.firstCall!;
    const orderedCalls: ReplayCall[] = [];
    for (const index of order) {
      const call = calls[index];
      const span = callSpans[index];
      const first = bucket.firstOfRound.get(call.round);
      if (first === undefined || compareSpansByTime(span, first) < 0) {
        bucket.firstOfRound.set(call.round, span);
        // The round's first call carries what its model span says, as attachRoundModelFacts gives it.
        const model = bucket.models[call.round - 1];
        if (model) takeFromRoundModel(call, model);
      }
      if (compareCallPlaces(call.round, span, bucket.firstCall!.round, bucket.firstCall!.span) < 0) bucket.firstCall = { round: call.round, span };
      orderedCalls.push(call);
    }
    runs.push({ bucket, problems, calls: orderedCalls, previousFirstKey: keyOf(previousFirst.span), firstKey: keyOf(bucket.firstCall!.span) });
  }
  // Runs (and their problems) in the order a whole read gives them: by first start, then by when
  // the run was found.
  runs.sort((a, b) => compareBigInt(a.bucket.firstStart, b.bucket.firstStart) || a.bucket.order - b.bucket.order);
  return {
    runs: runs.filter((run) => run.calls.length > 0).map(({ calls, previousFirstKey, firstKey }) => ({ calls, previousFirstKey, firstKey })),
    problems: runs.flatMap((run) => run.problems),
  };
}

/**
 * The outermost model (round) span above a span below its run span, the run span, and whether
 * a model or tool span lies between the span and its run (`nested`), walking at most 256 parents
 * (a parent chain that long is not an agent's): the same walk for a whole read and for the spans
 * of one request read alone. Outermost, as the span processor counts rounds: a framework's
 * model-call span around the provider SDK's is one round, and a model call made inside a tool
 * (a summarizer, a sub-agent) is part of that call, not a round of the run.
 */
function roundAndRunAncestors(
  span: CollectedSpan,
  parentOf: (span: CollectedSpan) => CollectedSpan | undefined,
): { modelAncestor: CollectedSpan | undefined; runSpan: CollectedSpan | undefined; nested: boolean } {
  let modelAncestor: CollectedSpan | undefined;
  let nested = false;
  for (let ancestor = parentOf(span), depth = 0; ancestor && depth < 256; ancestor = parentOf(ancestor), depth++) {
    if (ancestor.role === 'run') return { modelAncestor, runSpan: ancestor, nested };
    if (ancestor.role === 'round') modelAncestor = ancestor;
    if (ancestor.role === 'round' || ancestor.role === 'tool') nested = true;
  }
  return { modelAncestor, runSpan: undefined, nested };
}

/**
 * A model-call span inside another model call or a tool call is not a round (roundAndRunAncestors).
 * What it says of the prompt is its round's: the processor reads a compaction on any layer.
 */
function foldIntoRound(modelAncestor: CollectedSpan | undefined, span: CollectedSpan): void {
  if (modelAncestor !== undefined && span.attributes[ATTR_CONTEXT_COMPACTED] === true) modelAncestor.attributes[ATTR_CONTEXT_COMPACTED] = true;
}

/** The round of one new tool span by assignRounds' rules; undefined where it would move calls read before. */
function placeCall(span: CollectedSpan, modelAncestor: CollectedSpan | undefined, bucket: RunBucketState): number | undefined {
  const recorded = span.attributes[ATTR_ROUND];
  if (typeof recorded === 'number' && Number.isInteger(recorded) && recorded >= 1) return recorded;
  if (modelAncestor) {
    const index = bucket.modelIndex.get(modelAncestor);
    return index === undefined ? undefined : index + 1;
  }
  const callId = span.attributes['ai.toolCall.id'];
  if (typeof callId === 'string') bucket.linkableCallIds.add(callId);
  const linked = typeof callId === 'string' ? bucket.roundByToolCallId.get(callId) : undefined;
  if (linked !== undefined) return linked;
  const models = bucket.models;
  if (models.length > 0) {
    // Models started before the call: the first model that did not, by binary search.
    let low = 0;
    let high = models.length;
    while (low < high) {
      const middle = (low + high) >> 1;
      if (startedBefore(models[middle], span)) low = middle + 1;
      else high = middle;
    }
    return Math.max(1, low);
  }
  if (bucket.lastOverlap !== undefined && compareSpansByTime(span, bucket.lastOverlap) <= 0) return undefined;
  bucket.overlapTools = true;
  bucket.lastOverlap = span;
  if (span.startNanos >= bucket.overlapEnd) bucket.overlapRound++;
  bucket.overlapEnd = span.endNanos > bucket.overlapEnd ? span.endNanos : bucket.overlapEnd;
  return bucket.overlapRound;
}

/** Round, then start time, then arrival: the order of a run's calls. */
function compareCallPlaces(roundA: number, spanA: CollectedSpan, roundB: number, spanB: CollectedSpan): number {
  return roundA - roundB || compareSpansByTime(spanA, spanB);
}

/**
 * Spans whose parent links loop back on themselves (A's parent is B, B's parent is A). Such a
 * file is damaged; each cycle is reported once, at its first span in the file, and the links
 * of its spans are ignored so that no walk up the parents goes round forever.
 */
function findParentCycles(
  spans: readonly CollectedSpan[],
  parentOf: (span: CollectedSpan) => CollectedSpan | undefined,
  file: string,
  problems: ReplayInputError[],
): Set<CollectedSpan> {
  const inCycle = new Set<CollectedSpan>();
  const walkOf = new Map<CollectedSpan, number>();
  let walk = 0;
  for (const span of spans) {
    if (walkOf.has(span)) continue;
    walk++;
    const path: CollectedSpan[] = [];
    let node: CollectedSpan | undefined = span;
    while (node !== undefined && !walkOf.has(node)) {
      walkOf.set(node, walk);
      path.push(node);
      node = parentOf(node);
    }
    if (node === undefined || walkOf.get(node) !== walk) continue;
    const cycle = path.slice(path.indexOf(node));
    for (const member of cycle) inCycle.add(member);
    const first = cycle.reduce((a, b) => (a.seq <= b.seq ? a : b));
    const ids = cycle.slice(0, 4).map((member) => member.spanId).join(' → ');
    problems.push(
      new ReplayInputError({
        file,
        line: first.line,
        field: `${first.path}.parentSpanId`,
        problem: `${first.path}.parentSpanId: the parent links of ${cycle.length} span${cycle.length === 1 ? '' : 's'} form a cycle (${ids}${cycle.length > 4 ? ' → …' : ''} → back); those links are ignored`,
      }),
    );
  }
  return inCycle;
}

/** The AI SDK's link from a tool call id to the round (model call) that asked for it. */
function roundsOfAskedToolCalls(models: readonly CollectedSpan[]): Map<string, number> {
  const roundByToolCallId = new Map<string, number>();
  models.forEach((model, index) => {
    for (const id of askedToolCallIds(model)) if (!roundByToolCallId.has(id)) roundByToolCallId.set(id, index + 1);
  });
  return roundByToolCallId;
}

/** The tool call ids a model-call span asked for (ai.response.toolCalls). */
function askedToolCallIds(model: CollectedSpan): string[] {
  const asked = model.attributes['ai.response.toolCalls'];
  if (typeof asked !== 'string') return [];
  try {
    const calls = JSON.parse(asked) as unknown;
    if (!Array.isArray(calls)) return [];
    const ids: string[] = [];
    for (const call of calls) {
      const id = (call as { toolCallId?: unknown } | null)?.toolCallId;
      if (typeof id === 'string') ids.push(id);
    }
    return ids;
  } catch {
    // Not JSON (truncated by an attribute length limit): fall back to timing.
    return [];
  }
}

function assignRounds(
  tools: ReadonlyArray<{ span: CollectedSpan; modelAncestor: CollectedSpan | undefined }>,
  models: readonly CollectedSpan[],
  kept?: RunBucketState,
): number[] {
  const rounds: number[] = [];
  let overlapRound = 0;
  let overlapEnd = -1n;
  // The AI SDK names the tool calls each model call asked for (ai.response.toolCalls): an
  // exact link from a call to its round, better than any timing.
  const roundByToolCallId = roundsOfAskedToolCalls(models);
  if (kept !== undefined) kept.roundByToolCallId = roundByToolCallId;
  for (const { span, modelAncestor } of tools) {
    const recorded = span.attributes[ATTR_ROUND];
    if (typeof recorded === 'number' && Number.isInteger(recorded) && recorded >= 1) {
      rounds.push(recorded);
      continue;
    }
    if (modelAncestor) {
      rounds.push(models.indexOf(modelAncestor) + 1);
      continue;
    }
    const callId = span.attributes['ai.toolCall.id'];
    if (kept !== undefined && typeof callId === 'string') kept.linkableCallIds.add(callId);
    const linked = typeof callId === 'string' ? roundByToolCallId.get(callId) : undefined;
    if (linked !== undefined) {
      rounds.push(linked);
      continue;
    }
    if (models.length > 0) {
      let started = 0;
      // "Started before the call": by start time, then by file order. SDKs stamp span starts
      // in whole milliseconds (and ends on another clock), so the next round's model call
      // can start in the same millisecond as the call before it; it is exported after it.
      while (started < models.length && startedBefore(models[started], span)) started++;
      rounds.push(Math.max(1, started));
      continue;
    }
    if (span.startNanos >= overlapEnd) overlapRound++;
    overlapEnd = span.endNanos > overlapEnd ? span.endNanos : overlapEnd;
    rounds.push(overlapRound);
    if (kept !== undefined) {
      kept.overlapTools = true;
      kept.lastOverlap = span;
    }
  }
  if (kept !== undefined) {
    kept.overlapRound = overlapRound;
    kept.overlapEnd = overlapEnd;
  }
  return rounds;
}

/** Puts what each model-call span says (takeFromRoundModel) on the first call of its round. */
function attachRoundModelFacts(calls: ReplayCall[], models: readonly CollectedSpan[]): void {
  let lastRound = 0;
  for (const call of calls) {
    if (call.round === lastRound) continue;
    lastRound = call.round;
    const model = models[call.round - 1];
    if (model) takeFromRoundModel(call, model);
  }
}

/**
 * What a round's model-call span says, carried by the round's first call: its token usage, and
 * whether the prompt it was sent had been compacted (live, the processor applies the compaction
 * when the round begins, before any of its calls).
 */
function takeFromRoundModel(call: ReplayCall, model: CollectedSpan): void {
  const usage = modelUsage(model);
  if (usage) call.usage = usage;
  if (model.attributes[ATTR_CONTEXT_COMPACTED] === true) call.compactedBefore = true;
}

function modelUsage(span: CollectedSpan): ModelUsage | undefined {
  const a = span.attributes;
  const input = firstNumber(a[ATTR_GEN_AI_USAGE_INPUT_TOKENS], a['ai.usage.inputTokens'], a['ai.usage.promptTokens']);
  const output = firstNumber(a[ATTR_GEN_AI_USAGE_OUTPUT_TOKENS], a['ai.usage.outputTokens'], a['ai.usage.completionTokens']);
  if (input === undefined && output === undefined) return undefined;
  const usage: ModelUsage = {};
  if (input !== undefined) usage.inputTokens = input;
  if (output !== undefined) usage.outputTokens = output;
  return usage;
}

/**
 * The calls of a run's tool spans in their rounds, and the spans they came from; a span that
 * cannot be read is a problem of its own (its run goes on), the same for a whole read and for
 * the spans of one request read alone.
 */
function toolSpansToCalls(
  tools: ReadonlyArray<{ span: CollectedSpan }>,
  run: string,
  rounds: readonly number[],
  file: string,
  problems: ReplayInputError[],
): { calls: ReplayCall[]; callSpans: CollectedSpan[] } {
  const calls: ReplayCall[] = [];
  const callSpans: CollectedSpan[] = [];
  tools.forEach(({ span }, index) => {
    try {
      calls.push(toolSpanToCall(span, run, rounds[index]!, file));
      callSpans.push(span);
    } catch (error) {
      if (error instanceof ReplayInputError) problems.push(error);
      else throw error;
    }
  });
  return { calls, callSpans };
}

function toolSpanToCall(span: CollectedSpan, run: string, round: number, file: string): ReplayCall {
  const a = span.attributes;
  const vercel = span.flavor === 'vercel';
  const fail = (field: string, problem: string): never => {
    throw new ReplayInputError({ file, line: span.line, field, problem: `${span.path} (${span.name || 'tool span'}): ${problem}` });
  };
  const tool = vercel ? a['ai.toolCall.name'] : a[ATTR_GEN_AI_TOOL_NAME];
  const toolField = vercel ? 'ai.toolCall.name' : ATTR_GEN_AI_TOOL_NAME;
  if (typeof tool !== 'string' || tool.length === 0) fail(toolField, `attribute ${toolField} is missing`);

  const call: ReplayCall = {
    source: { file, line: span.line },
    run,
    round,
    tool: tool as string,
    spanKey: keyOf(span),
    outcome: { result: null },
    startTime: nanosToMs(span.startNanos),
    durationMs: nanosToMs(span.endNanos - span.startNanos),
  };
  const callId = vercel ? a['ai.toolCall.id'] : a[ATTR_GEN_AI_TOOL_CALL_ID];
  if (typeof callId === 'string') call.callId = callId;
  // Fed to the engine already (serve): only its place in the run is still needed.
  if (span.settled === true) return call;

  const rawArgs = vercel ? a['ai.toolCall.args'] : a[ATTR_GEN_AI_TOOL_CALL_ARGUMENTS];
  const argsHash = a[ATTR_ARGS_HASH];
  if (typeof rawArgs === 'string') call.args = rawArgs;
  else if (typeof argsHash === 'string') {
    call.argsHash = argsHash;
    // What the recording guard read from the arguments it hashed (a shell command's effect, a
    // paged call's listing): without it every such call is one of unknown effect here.
    const facts = a[ATTR_CALL_FACTS];
    if (facts !== undefined) {
      if (typeof facts !== 'string') fail(ATTR_CALL_FACTS, `attribute ${ATTR_CALL_FACTS} must be JSON text`);
      try {
        call.facts = readCallFacts(facts as string);
      } catch (error) {
        if (!(error instanceof FactsTextError)) throw error;
        fail(ATTR_CALL_FACTS, `attribute ${ATTR_CALL_FACTS}: ${error.message}`);
      }
    }
  } else {
    const argsField = vercel ? 'ai.toolCall.args' : `${ATTR_GEN_AI_TOOL_CALL_ARGUMENTS} or ${ATTR_ARGS_HASH}`;
    fail(argsField, `no call identity: attribute ${argsField} is missing (record arguments, or run loopguard's span processor)`);
  }

  // A call the recording guard refused never ran, so whatever the span holds is the refusal,
  // not a tool result. If this replay allows it, its outcome is unknown; replay leans the way
  // the guard leans on ambiguity and treats it as an empty (new-fact) result.
  const refusedWhenRecorded = a[ATTR_DECISION] === 'refuse' || a[ATTR_OUTCOME] === 'refused';
  if (refusedWhenRecorded) {
    call.outcome = { outcome: 'empty' } satisfies PrehashedOutcome;
    return call;
  }

  const rawResult = vercel ? a['ai.toolCall.result'] : a[ATTR_GEN_AI_TOOL_CALL_RESULT];
  const recordedOutcome = a[ATTR_OUTCOME];
  if (span.statusError) {
    const errorType = stringOr(a[ATTR_ERROR_TYPE], span.exceptionType);
    const message = stringOr(span.statusMessage, span.exceptionMessage);
    if (typeof recordedOutcome === 'string' && PREHASHED_OUTCOMES.has(recordedOutcome) && rawResult === undefined) {
      call.outcome = prehashedOutcome(span, recordedOutcome as PrehashedOutcome['outcome'], errorType, fail);
    } else {
      const error: ToolErrorInfo = {};
      if (errorType !== undefined) error.type = errorType;
      if (message !== undefined) error.message = message;
      call.outcome = { error };
    }
    return call;
  }
  if (typeof rawResult === 'string') {
    call.outcome = { result: parseJsonOrText(rawResult) };
    return call;
  }
  if (typeof recordedOutcome === 'string' && PREHASHED_OUTCOMES.has(recordedOutcome)) {
    call.outcome = prehashedOutcome(span, recordedOutcome as PrehashedOutcome['outcome'], stringOr(a[ATTR_ERROR_TYPE], undefined), fail);
    return call;
  }
  // No result and no outcome recorded: the call succeeded with content unknown. Like the span
  // processor, replay counts that as unfingerprintable, which leans to a new fact.
  call.outcome = { outcome: 'success', unfingerprintable: true } satisfies PrehashedOutcome;
  return call;
}

function prehashedOutcome(
  span: CollectedSpan,
  outcome: PrehashedOutcome['outcome'],
  errorType: string | undefined,
  fail: (field: string, problem: string) => never,
): PrehashedOutcome {
  const a = span.attributes;
  let prehashed: PrehashedOutcome = { outcome };
  // What the recording guard read from the result besides its hash (a transient failure, a
  // rejected step, the items of a new result): without it a replay judged them otherwise.
  const facts = a[ATTR_OUTCOME_FACTS];
  if (facts !== undefined) {
    if (typeof facts !== 'string') fail(ATTR_OUTCOME_FACTS, `attribute ${ATTR_OUTCOME_FACTS} must be JSON text`);
    try {
      prehashed = { ...readOutcomeFacts(facts as string), outcome };
    } catch (error) {
      if (!(error instanceof FactsTextError)) throw error;
      fail(ATTR_OUTCOME_FACTS, `attribute ${ATTR_OUTCOME_FACTS}: ${error.message}`);
    }
  }
  if (typeof a[ATTR_RESULT_HASH] === 'string') prehashed.resultHash = a[ATTR_RESULT_HASH] as string;
  if (a[ATTR_UNFINGERPRINTABLE] === true) prehashed.unfingerprintable = true;
  if (errorType !== undefined) prehashed.errorType = errorType;
  return prehashed;
}

/**
 * Results are recorded as JSON text; text that is not JSON is the result itself. A JSON object or
 * array is handed on as its text: the engine reads such text as the value it stands for
 * (core/result-fingerprint.ts jsonTextValue: the same fingerprint, page and read window), and text
 * in JSON.stringify form it reads once without parsing. Measured (`BENCH_SUITES=serve
 * BENCH_SERVE_ONLY=ingestion`, 3 interleaved pairs, 2101 B tool spans): 45.5k / 44.2k / 49.0k →
 * 54.1k / 49.9k / 53.1k spans/s.
 */
function parseJsonOrText(text: string): unknown {
  const first = text.charCodeAt(0);
  if ((first === 123 /* { */ || first === 91) /* [ */ && text.length <= MAX_PARSED_RESULT_LENGTH) return text;
  try {
    return JSON.parse(text);
  } catch {
    return text;
  }
}

function runName(span: CollectedSpan): string {
  const a = span.attributes;
  for (const candidate of [a[ATTR_RUN_ID], a[ATTR_GEN_AI_CONVERSATION_ID], a['ai.telemetry.metadata.runId'], a['ai.settings.context.runId']]) {
    if (typeof candidate === 'string' && candidate.length > 0) return candidate;
  }
  return span.spanId;
}

function firstNumber(...values: unknown[]): number | undefined {
  for (const value of values) if (typeof value === 'number' && Number.isFinite(value)) return value;
  return undefined;
}

function stringOr(first: unknown, second: string | undefined): string | undefined {
  return typeof first === 'string' && first.length > 0 ? first : second;
}

function nanosToMs(nanos: bigint): number {
  return Number(nanos / 1000n) / 1000;
}

/**
 * Whether `span` is a span the trace's last read already holds, delivered again: same span id,
 * name, parent, start and end. OTLP delivery is at least once: an exporter or Collector whose
 * answer was lost (a timeout, a dropped connection) sends the batch again, byte for byte. Such a
 * copy is no new span and no problem of the sender's; a span id used again by a different span
 * is, and the readers report it.
 */
export function isRedelivered(state: OtlpRunReaderState, span: CollectedSpan): boolean {
  const held = state.byKey.get(keyOf(span));
  return (
    held !== undefined &&
    held !== span &&
    held.name === span.name &&
    held.parentSpanId === span.parentSpanId &&
    held.startNanos === span.startNanos &&
    held.endNanos === span.endNanos
  );
}

/** The span's `traceId/spanId`, made once (see CollectedSpan.key). */
function keyOf(span: CollectedSpan): string {
  return (span.key ??= spanKey(span.traceId, span.spanId));
}

/**
 * The span's `traceId/parentSpanId`, made once, and shared with the span read before it when
 * both have the same parent (siblings come together: a request's tool spans share their run's
 * or round's span as parent).
 */
function parentKeyOf(span: CollectedSpan, parentSpanId: string): string {
  if (span.parentKey !== undefined) return span.parentKey;
  if (parentSpanId !== lastParentSpanId || span.traceId !== lastParentTraceId) {
    lastParentTraceId = span.traceId;
    lastParentSpanId = parentSpanId;
    lastParentKey = spanKey(span.traceId, parentSpanId);
  }
  return (span.parentKey = lastParentKey);
}
let lastParentTraceId = '';
let lastParentSpanId = '';
let lastParentKey = '';

/**
 * `traceId/spanId` as one flat string: a template literal makes a rope of two cons-string nodes,
 * which a Map lookup flattens into a third string while the rope stays where it is kept
 * (span.key, and the reader's and the live runs' maps). Measured (heap snapshot of
 * bench/probes/serve-trace-memory.ts's traces, by type): 2.1 cons strings a live span, 67 B,
 * plus a parent key of its own for each sibling (104 B), gone with join and the shared parent key.
 */
function spanKey(traceId: string, spanId: string): string {
  return [traceId, spanId].join('/');
}

/**
 * Start time, then file order. SDKs stamp span starts in whole milliseconds and ends on a
 * per-span offset clock, so neither breaks ties reliably; exporters write spans in the order
 * they end, which within one millisecond is the order the steps ran.
 */
function compareSpansByTime(a: CollectedSpan, b: CollectedSpan): number {
  return compareBigInt(a.startNanos, b.startNanos) || a.seq - b.seq;
}

function startedBefore(model: CollectedSpan, call: CollectedSpan): boolean {
  return compareSpansByTime(model, call) < 0;
}

function compareBigInt(a: bigint, b: bigint): number {
  return a < b ? -1 : a > b ? 1 : 0;
}
