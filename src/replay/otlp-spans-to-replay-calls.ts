import type { ModelUsage, OutcomeClass, PrehashedOutcome, ToolErrorInfo } from '../core/types.js';
import {
  ATTR_ARGS_HASH,
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
 */
export function otlpSpansToReplayRuns(spans: readonly CollectedSpan[], file: string): {
  runs: OtlpReplayRun[];
  problems: ReplayInputError[];
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
    span.parentSpanId === undefined ? undefined : byKey.get((span.parentKey ??= spanKey(span.traceId, span.parentSpanId)));
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
  const bucketFor = (span: CollectedSpan): { bucket: RunBucket; modelAncestor: CollectedSpan | undefined } => {
    let modelAncestor: CollectedSpan | undefined;
    let runSpan: CollectedSpan | undefined;
    for (let ancestor = parentOf(span), depth = 0; ancestor && depth < 256; ancestor = parentOf(ancestor), depth++) {
      if (ancestor.role === 'round' && !modelAncestor) modelAncestor = ancestor;
      if (ancestor.role === 'run') {
        runSpan = ancestor;
        break;
      }
    }
    const name = runSpan ? runName(runSpan) : traceRunName(span.traceId);
    const key = runSpan ? keyOf(runSpan) : name;
    let bucket = buckets.get(key);
    if (!bucket) {
      bucket = { name, firstStart: runSpan?.startNanos ?? span.startNanos, models: [], tools: [] };
      buckets.set(key, bucket);
    }
    if (runSpan && runSpan.startNanos < bucket.firstStart) bucket.firstStart = runSpan.startNanos;
    if (span.startNanos < bucket.firstStart) bucket.firstStart = span.startNanos;
    return { bucket, modelAncestor };
  };

  for (const span of spans) {
    if (span.role === 'round') bucketFor(span).bucket.models.push(span);
    else if (span.role === 'tool' && !supersededToolSpans.has(span)) {
      const { bucket, modelAncestor } = bucketFor(span);
      bucket.tools.push({ span, modelAncestor });
    }
  }

  const runs: OtlpReplayRun[] = [];
  const orderedBuckets = [...buckets.values()].sort((a, b) => compareBigInt(a.firstStart, b.firstStart));
  const timesNamed = new Map<string, number>();
  for (const bucket of orderedBuckets) {
    if (bucket.tools.length === 0) continue;
    // Each run span is its own run, as in the span processor (a chat's turns share a
    // conversation id but each turn is a run); later ones with a taken name get #2, #3, ...
    const seen = (timesNamed.get(bucket.name) ?? 0) + 1;
    timesNamed.set(bucket.name, seen);
    if (seen > 1) bucket.name = `${bucket.name}#${seen}`;
    bucket.models.sort(compareSpansByTime);
    bucket.tools.sort((a, b) => compareSpansByTime(a.span, b.span));
    const rounds = assignRounds(bucket.tools, bucket.models);

    const calls: ReplayCall[] = [];
    bucket.tools.forEach(({ span }, index) => {
      try {
        calls.push(toolSpanToCall(span, bucket.name, rounds[index], file));
      } catch (error) {
        if (error instanceof ReplayInputError) problems.push(error);
        else throw error;
      }
    });
    // Stable sort keeps start-time order inside a round.
    calls.sort((a, b) => a.round - b.round);
    attachRoundUsage(calls, bucket.models);
    runs.push({ run: bucket.name, calls });
  }
  return { runs, problems };
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

function assignRounds(
  tools: ReadonlyArray<{ span: CollectedSpan; modelAncestor: CollectedSpan | undefined }>,
  models: readonly CollectedSpan[],
): number[] {
  const rounds: number[] = [];
  let overlapRound = 0;
  let overlapEnd = -1n;
  // The AI SDK names the tool calls each model call asked for (ai.response.toolCalls): an
  // exact link from a call to its round, better than any timing.
  const roundByToolCallId = new Map<string, number>();
  models.forEach((model, index) => {
    const asked = model.attributes['ai.response.toolCalls'];
    if (typeof asked !== 'string') return;
    try {
      const calls = JSON.parse(asked) as unknown;
      if (!Array.isArray(calls)) return;
      for (const call of calls) {
        const id = (call as { toolCallId?: unknown } | null)?.toolCallId;
        if (typeof id === 'string' && !roundByToolCallId.has(id)) roundByToolCallId.set(id, index + 1);
      }
    } catch {
      // Not JSON (truncated by an attribute length limit): fall back to timing.
    }
  });
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
  }
  return rounds;
}

/** Puts each model-call span's token usage on the first call of its round. */
function attachRoundUsage(calls: ReplayCall[], models: readonly CollectedSpan[]): void {
  let lastRound = 0;
  for (const call of calls) {
    if (call.round === lastRound) continue;
    lastRound = call.round;
    const model = models[call.round - 1];
    if (model) {
      const usage = modelUsage(model);
      if (usage) call.usage = usage;
    }
  }
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
  else if (typeof argsHash === 'string') call.argsHash = argsHash;
  else {
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
      call.outcome = prehashedOutcome(span, recordedOutcome as PrehashedOutcome['outcome'], errorType);
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
    call.outcome = prehashedOutcome(span, recordedOutcome as PrehashedOutcome['outcome'], stringOr(a[ATTR_ERROR_TYPE], undefined));
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
): PrehashedOutcome {
  const a = span.attributes;
  const prehashed: PrehashedOutcome = { outcome };
  if (typeof a[ATTR_RESULT_HASH] === 'string') prehashed.resultHash = a[ATTR_RESULT_HASH] as string;
  if (a[ATTR_UNFINGERPRINTABLE] === true) prehashed.unfingerprintable = true;
  if (errorType !== undefined) prehashed.errorType = errorType;
  return prehashed;
}

/** Results are recorded as JSON text; text that is not JSON is the result itself. */
function parseJsonOrText(text: string): unknown {
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

/** The span's `traceId/spanId`, made once (see CollectedSpan.key). */
function keyOf(span: CollectedSpan): string {
  return (span.key ??= spanKey(span.traceId, span.spanId));
}

function spanKey(traceId: string, spanId: string): string {
  return `${traceId}/${spanId}`;
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
