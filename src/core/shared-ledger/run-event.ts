import type { CallDecision, ModelUsage, PartialResults, PrehashedOutcome, PrehashedToolCall, StopDecision, ToolTally } from '../types.js';

/**
 * One entry of a run's shared log: everything that changes a run's ledger, in the order the
 * store accepted it. A replica is the log applied in order, so every process that applies the
 * same log holds the same ledger. Calls carry the decision that was made for them (a call
 * that ran cannot be un-run); outcomes carry their fingerprints, and novelty is recomputed
 * from the log, so "seen" means seen by any process.
 */
export type RunEvent =
  | { readonly type: 'round'; readonly time: number; readonly usage?: ModelUsage }
  | { readonly type: 'usage'; readonly usage: ModelUsage }
  | { readonly type: 'call'; readonly key: string; readonly time: number; readonly call: PrehashedToolCall; readonly decision: CallDecision }
  | {
      readonly type: 'finish';
      readonly key: string;
      readonly time: number;
      readonly outcome: PrehashedOutcome;
      /**
       * The writer's replica had seen this result whole before the outcome: its item
       * fingerprints are not logged (see encodeRunEvent).
       */
      readonly resultSeenBefore?: boolean;
    }
  | { readonly type: 'state'; readonly digest: string }
  /** The model's context was compacted (RunGuard.contextCompacted). */
  | { readonly type: 'compacted'; readonly time: number }
  | { readonly type: 'stop'; readonly decision: StopDecision }
  | { readonly type: 'end'; readonly time: number };

// Compact arrays, not objects: the log is the run's memory in Redis (BENCHMARKS.md: bytes per
// recorded call), and field names would be most of an entry. Position 0 is the type letter.
type Encoded = [string, ...unknown[]];

const ALLOW_KINDS = new Set(['new', 'repeat', 'retry', 'poll', 'reread', 'exempt', 'terminal', 'unguarded']);

/**
 * The JSON text stored for an event. `writer`, for an event without a call key (a round, usage,
 * a state, a compaction, a stop, an end), is a mark only its writer makes, written last: an
 * entry read back where it was sent is then known for the writer's own, where a round written
 * in the same millisecond by another process would be the same text (see SharedRunLink's
 * isOwnBatch). Decoders read the fields before it and ignore it, older ones included.
 */
export function encodeRunEvent(event: RunEvent, writer?: string): string {
  let encoded: Encoded;
  switch (event.type) {
    case 'round':
      encoded = event.usage === undefined ? ['r', event.time] : ['r', event.time, event.usage];
      // The mark goes after the usage's place: 0 there is no usage.
      if (writer !== undefined && event.usage === undefined) encoded.push(0);
      break;
    case 'usage':
      encoded = ['u', event.usage];
      break;
    case 'call': {
      const { call, decision } = event;
      const flags =
        (call.terminal === true ? 1 : 0) |
        (call.observeOnly === true ? 2 : 0) |
        (call.waitsOnCommand === true ? 4 : 0) |
        // A wait and a look after it: a replica that lost them would judge the look as a repeat.
        (call.sleepsOnly === true ? 8 : 0) |
        (call.pollsAfterSleep === true ? 16 : 0);
      encoded = ['c', event.key, event.time, call.tool, call.argsHash, call.callId ?? 0, call.effect ?? 0, call.family ?? 0, flags];
      if (decision.action === 'allow') encoded.push('a', decision.kind);
      else encoded.push('x', decision.reason, decision.message, decision.previousCallId ?? 0, decision.previousRound ?? 0);
      // Appended after the decision so older entries still decode: a replica judges a shell
      // poll and a paged call the way the writer did (issue 24 #2, #4).
      if (call.pollDeadlineMs !== undefined || call.listingKey !== undefined) encoded.push(call.pollDeadlineMs ?? 0, call.listingKey ?? 0);
      break;
    }
    case 'finish': {
      const { outcome } = event;
      const flags =
        (outcome.unfingerprintable === true ? 1 : 0) |
        (outcome.transient === true ? 2 : 0) |
        (outcome.transient === false ? 4 : 0) |
        (outcome.acknowledgement === true ? 8 : 0) |
        (outcome.lastPage === true ? 16 : 0) |
        // What the failure is about decides same-failure-across-tools and narrowing lookups
        // (issue 24 #3, issue 18 #3): a replica that lost it would count differently.
        (outcome.argumentIndependent === true ? 32 : 0) |
        (outcome.aboutArguments === true ? 64 : 0) |
        // A step the harness rejected is no failure of the tool (issue 18): a replica that lost
        // the flag counted twelve rejected BrowserGym steps as failures and stopped the run.
        (outcome.stepRejected === true ? 128 : 0) |
        (outcome.describesAction === true ? 256 : 0) |
        (outcome.commandRunning === true ? 512 : 0) |
        (outcome.namesRejected === true ? 1024 : 0) |
        // A status still moving makes the same answer again a poll (checks/polling.ts).
        (outcome.inProgress === true ? 2048 : 0) |
        // An edit the editor did not apply moves no epoch: a replica that lost it would.
        (outcome.wroteNothing === true ? 4096 : 0) |
        // A read answered with an error is judged by its outcomes, not refused at once.
        (outcome.errorAnswer === true ? 8192 : 0);
      encoded = ['f', event.key, event.time, outcome.outcome, outcome.resultHash ?? 0, flags, outcome.errorType ?? 0];
      // Items are read lazily (result-fingerprint.ts); only a whole result that is new needs
      // them (run-guard.ts, judgeNovelty). A result the writer had already seen whole is seen by
      // every replica at this entry: a replica is the log applied in order, the writer's
      // entries reach the log in the order it applied them (a rebase only puts other
      // processes' entries before them), and the set of results seen only grows. Its items
      // are neither read nor written: the engine without a store skips them too, and reading
      // them cost a Redis guarded call with a repeated result 4.9 us of its client CPU
      // (bench/probes/redis-guarded-call.ts, --cpu-prof). Only entries dropped past the
      // pending cap (an outage of 10,000 events) can leave a replica without the result.
      const items = event.resultSeenBefore === true ? undefined : outcome.items;
      const hasItems = items !== undefined && items.length > 0;
      if (hasItems) encoded.push(items);
      // The lines a window read returned (issue 24 #6): read from the output, which the log
      // does not keep. After the items (0 when there are none), so older entries decode.
      const window = outcome.window;
      if (window !== undefined) {
        if (!hasItems) encoded.push(0);
        encoded.push([window.resource, window.numbered ? 1 : 0, ...window.ranges.flat()]);
        // Where the file ends, and where an empty window read started (windows past the end of a
        // file): after the window (0 when there is none), so older entries decode.
        if (window.lastLine !== undefined) encoded.push(window.lastLine);
      } else if (outcome.askedFrom !== undefined) {
        if (!hasItems) encoded.push(0);
        encoded.push(0, 0, [outcome.askedFrom.resource, outcome.askedFrom.line]);
      }
      break;
    }
    case 'state':
      encoded = ['s', event.digest];
      break;
    case 'compacted':
      encoded = ['k', event.time];
      break;
    case 'stop':
      encoded = ['t', event.decision];
      break;
    case 'end':
      encoded = ['e', event.time];
      break;
  }
  if (writer !== undefined && event.type !== 'call' && event.type !== 'finish') encoded.push(writer);
  return JSON.stringify(encoded);
}

/**
 * The time recorded in an entry's JSON text (rounds, calls, outcomes, compactions and ends have one), or
 * undefined (usage, world state, a stop, or text that is not an entry). For `loopguard runs`'
 * "last change": cheaper than decoding, and it never throws on an entry it cannot read.
 */
export function runEventTime(json: string): number | undefined {
  let value: unknown;
  try {
    value = JSON.parse(json);
  } catch {
    return undefined;
  }
  if (!Array.isArray(value)) return undefined;
  const time = value[0] === 'r' || value[0] === 'e' || value[0] === 'k' ? value[1] : value[0] === 'c' || value[0] === 'f' ? value[2] : undefined;
  // The decoder's range: an entry it would skip has no time either.
  return typeof time === 'number' && time >= 0 && time <= MAX_EVENT_TIME ? time : undefined;
}

/** Thrown for a log entry this version cannot read (written by a newer loopguard, or not by loopguard). */
export class RunEventDecodeError extends Error {
  override readonly name = 'RunEventDecodeError';
}

function text(value: unknown, field: string, entry: string): string {
  if (typeof value !== 'string') throw new RunEventDecodeError(`run log entry ${entry}: ${field} must be a string`);
  return value;
}
/**
 * The last millisecond of year 9999 (Date's toISOString still writes four digits). A logged time
 * is epoch milliseconds from 0 to this.
 */
export const MAX_EVENT_TIME = 253_402_300_799_999;

/**
 * A logged time. Finite is not enough: the newest time in the log is the run's clock for every
 * replica, so one entry written by anyone but loopguard with a time like 1e300 stopped the run
 * at once on maxRunMs, made every later entry this process wrote carry that time, and kept a
 * call logged with it from ever expiring as abandoned. Such an entry is unreadable (skipped
 * with a warning naming it) instead.
 */
function time(value: unknown, entry: string): number {
  if (typeof value !== 'number' || !(value >= 0 && value <= MAX_EVENT_TIME)) {
    throw new RunEventDecodeError(`run log entry ${entry}: time must be epoch milliseconds (0 to ${MAX_EVENT_TIME}), got ${JSON.stringify(value) ?? String(value)}`);
  }
  return value;
}
function optionalText(value: unknown): string | undefined {
  return typeof value === 'string' ? value : undefined;
}
function usageOf(value: unknown): ModelUsage | undefined {
  if (value === null || typeof value !== 'object') return undefined;
  const { inputTokens, outputTokens } = value as ModelUsage;
  const usage: ModelUsage = {};
  if (typeof inputTokens === 'number') usage.inputTokens = inputTokens;
  if (typeof outputTokens === 'number') usage.outputTokens = outputTokens;
  return usage;
}

/** A logged window: `[resource, numbered, from, to, from, to, …]`; anything else is no window. */
function windowOf(value: unknown): PrehashedOutcome['window'] {
  if (!Array.isArray(value) || typeof value[0] !== 'string' || value.length < 4 || value.length % 2 !== 0) return undefined;
  const ranges: Array<[number, number]> = [];
  for (let index = 2; index < value.length; index += 2) {
    const from: unknown = value[index];
    const to: unknown = value[index + 1];
    if (typeof from !== 'number' || typeof to !== 'number') return undefined;
    ranges.push([from, to]);
  }
  return { resource: value[0], numbered: value[1] === 1, ranges };
}

const PARTIAL_COUNTS = ['rounds', 'toolCalls', 'executed', 'refused', 'newFacts', 'seenResults', 'staleRoundStreak', 'refusedRoundStreak', 'lastNewFactRound', 'wastedTokens'] as const;
const TALLY_COUNTS = ['calls', 'executed', 'refused', 'newFacts', 'seen', 'failures'] as const;

function isRecord(value: unknown): value is Record<string, unknown> {
  return value !== null && typeof value === 'object' && !Array.isArray(value);
}

/**
 * The counts of a logged stop's partial results: numbers, or null (JSON's spelling of the NaN a
 * host's odd token usage can make of wastedTokens: written by loopguard, so still readable),
 * read back as NaN.
 */
function countsOf<K extends string>(value: Record<string, unknown>, fields: readonly K[], bad: (field: string) => never, path: string): Record<K, number> {
  const counts = { ...value } as Record<K, number>;
  for (const field of fields) {
    const count = value[field];
    if (count === null) counts[field] = Number.NaN;
    else if (typeof count !== 'number') bad(`${path}${field}`);
  }
  return counts;
}

/**
 * A logged stop decision, checked field by field. A stop is latched as it is read and handed
 * to the host as is (shouldStop), and its detail goes into every later refusal message: a
 * stop with a field of another type (written by anyone but loopguard) made claimCall throw
 * into the host, or gave it a stop without a reason or a message. Such an entry is
 * unreadable, and skipped like any other (the store's run hash still says the run stopped).
 */
function stopDecisionOf(value: unknown, where: string): StopDecision {
  const bad = (field: string): never => {
    throw new RunEventDecodeError(`run log entry ${where}: not a stop decision (${field})`);
  };
  if (!isRecord(value) || value.action !== 'stop') return bad('action');
  for (const field of ['reason', 'message', 'detail'] as const) if (typeof value[field] !== 'string') bad(field);
  if (typeof value.round !== 'number' || !Number.isInteger(value.round) || value.round < 0) bad('round');
  if (!isRecord(value.partial)) return bad('partial');
  const partial = countsOf(value.partial, PARTIAL_COUNTS, bad, 'partial.');
  const tools = value.partial.tools;
  if (!isRecord(tools)) return bad('partial.tools');
  // Null prototype, as the writer's: a tool named `__proto__` is an own key like any other.
  const tallies = Object.create(null) as Record<string, ToolTally>;
  for (const [tool, tally] of Object.entries(tools)) {
    const path = `partial.tools[${JSON.stringify(tool)}]`;
    if (!isRecord(tally)) bad(path);
    tallies[tool] = countsOf(tally as Record<string, unknown>, TALLY_COUNTS, bad, `${path}.`);
  }
  return { ...(value as unknown as StopDecision), partial: { ...(partial as unknown as PartialResults), tools: tallies } };
}

/**
 * Reads an entry back. `where` names it in errors (e.g. `loopguard:{run-1}:log[12]`): a log
 * that cannot be read must say which entry, not fail somewhere inside the engine.
 */
export function decodeRunEvent(json: string, where: string): RunEvent {
  let value: unknown;
  try {
    value = JSON.parse(json);
  } catch {
    throw new RunEventDecodeError(`run log entry ${where}: not JSON`);
  }
  if (!Array.isArray(value) || typeof value[0] !== 'string') throw new RunEventDecodeError(`run log entry ${where}: not a loopguard event`);
  const v = value as unknown[];
  switch (v[0]) {
    case 'r': {
      const usage = usageOf(v[2]);
      return usage === undefined ? { type: 'round', time: time(v[1], where) } : { type: 'round', time: time(v[1], where), usage };
    }
    case 'u':
      return { type: 'usage', usage: usageOf(v[1]) ?? {} };
    case 'c': {
      const call: PrehashedToolCall = { tool: text(v[3], 'tool', where), argsHash: text(v[4], 'argsHash', where) };
      const callId = optionalText(v[5]);
      if (callId !== undefined) call.callId = callId;
      const effect = optionalText(v[6]);
      if (effect === 'read' || effect === 'write' || effect === 'unknown') call.effect = effect;
      const family = optionalText(v[7]);
      if (family !== undefined) call.family = family;
      const flags = typeof v[8] === 'number' ? v[8] : 0;
      if (flags & 1) call.terminal = true;
      if (flags & 2) call.observeOnly = true;
      if (flags & 4) call.waitsOnCommand = true;
      if (flags & 8) call.sleepsOnly = true;
      if (flags & 16) call.pollsAfterSleep = true;
      const at = time(v[2], where);
      call.startTime = at;
      let decision: CallDecision;
      if (v[9] === 'a') {
        const kind = text(v[10], 'kind', where);
        if (!ALLOW_KINDS.has(kind)) throw new RunEventDecodeError(`run log entry ${where}: unknown allow kind ${JSON.stringify(kind)}`);
        decision = { action: 'allow', kind: kind as 'new', tool: call.tool, argsHash: call.argsHash };
      } else {
        decision = {
          action: 'refuse',
          reason: text(v[10], 'reason', where) as 'repeat.run_wide',
          tool: call.tool,
          argsHash: call.argsHash,
          message: text(v[11], 'message', where),
        };
        const previousCallId = optionalText(v[12]);
        if (previousCallId !== undefined) decision.previousCallId = previousCallId;
        if (typeof v[13] === 'number' && v[13] > 0) decision.previousRound = v[13];
      }
      const extra = v[9] === 'a' ? 11 : 14;
      if (typeof v[extra] === 'number' && v[extra] > 0) call.pollDeadlineMs = v[extra];
      const listingKey = optionalText(v[extra + 1]);
      if (listingKey !== undefined) call.listingKey = listingKey;
      return { type: 'call', key: text(v[1], 'key', where), time: at, call, decision };
    }
    case 'f': {
      const outcomeClass = text(v[3], 'outcome', where);
      if (!['success', 'empty', 'error', 'timeout', 'overloaded'].includes(outcomeClass)) {
        throw new RunEventDecodeError(`run log entry ${where}: unknown outcome ${JSON.stringify(outcomeClass)}`);
      }
      const at = time(v[2], where);
      const outcome: PrehashedOutcome = { outcome: outcomeClass as PrehashedOutcome['outcome'], endTime: at };
      const resultHash = optionalText(v[4]);
      if (resultHash !== undefined) outcome.resultHash = resultHash;
      const flags = typeof v[5] === 'number' ? v[5] : 0;
      if (flags & 1) outcome.unfingerprintable = true;
      if (flags & 2) outcome.transient = true;
      if (flags & 4) outcome.transient = false;
      if (flags & 8) outcome.acknowledgement = true;
      if (flags & 16) outcome.lastPage = true;
      if (flags & 32) outcome.argumentIndependent = true;
      if (flags & 64) outcome.aboutArguments = true;
      if (flags & 128) outcome.stepRejected = true;
      if (flags & 256) outcome.describesAction = true;
      if (flags & 512) outcome.commandRunning = true;
      if (flags & 1024) outcome.namesRejected = true;
      if (flags & 2048) outcome.inProgress = true;
      if (flags & 4096) outcome.wroteNothing = true;
      if (flags & 8192) outcome.errorAnswer = true;
      const errorType = optionalText(v[6]);
      if (errorType !== undefined) outcome.errorType = errorType;
      if (Array.isArray(v[7])) outcome.items = (v[7] as unknown[]).filter((item): item is number => typeof item === 'number');
      const window = windowOf(v[8]);
      if (window !== undefined) {
        outcome.window = window;
        if (typeof v[9] === 'number' && v[9] > 0) window.lastLine = v[9];
      }
      const asked = v[10];
      if (Array.isArray(asked) && typeof asked[0] === 'string' && typeof asked[1] === 'number') outcome.askedFrom = { resource: asked[0], line: asked[1] };
      return { type: 'finish', key: text(v[1], 'key', where), time: at, outcome };
    }
    case 's':
      return { type: 'state', digest: text(v[1], 'digest', where) };
    case 'k':
      return { type: 'compacted', time: time(v[1], where) };
    case 't':
      return { type: 'stop', decision: stopDecisionOf(v[1], where) };
    case 'e':
      return { type: 'end', time: time(v[1], where) };
    default:
      throw new RunEventDecodeError(`run log entry ${where}: unknown event type ${JSON.stringify(v[0])} (written by a newer loopguard?)`);
  }
}
