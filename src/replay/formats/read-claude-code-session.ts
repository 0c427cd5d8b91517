import type { CallOutcome, ModelUsage } from '../../core/types.js';
import type { ReplayCall } from '../replay-call.js';
import { ReplayInputError } from '../replay-input-error.js';
import { describeJsonValue, isPlainObject } from '../parse-transcript-line.js';

/** Reads a Claude Code session log line by line. */
export interface ClaudeCodeSessionReader {
  /**
   * Reads one line and returns the calls of the round it closed (none unless it starts a run's
   * next response), in the order they were asked for.
   * Throws a ReplayInputError (the line is then ignored as a whole) for a line it cannot read.
   */
  line(text: string, lineNumber: number): ReplayCall[];
  /** The file ended: returns the calls of each run's last round. Tool uses that never got a result are dropped. */
  end(): ReplayCall[];
}

interface PendingUse {
  call: ReplayCall;
  round: RoundInfo;
  resolved: boolean;
}

interface RoundInfo {
  usage?: ModelUsage;
}

interface RunState {
  round: number;
  responseKey: string | undefined;
  roundInfo: RoundInfo;
  /** Tool uses of the current round in the order asked, until the round closes. */
  queue: PendingUse[];
  /** A compact_boundary came after the run's last tool use: the next one is after a compaction. */
  compacted: boolean;
}

/**
 * Claude Code session logs (`~/.claude/projects/<project>/<session>.jsonl`): one event per
 * line; `assistant` lines hold the model's `tool_use` blocks and `user` lines the
 * `tool_result` blocks, paired by id (`tool_use_id`; a result needs no run fields of its
 * own). Every other line type (summaries, snapshots, progress, ...) is ignored; a line that
 * is not JSON is a ReplayInputError naming `file:line`.
 *
 * - run: `sessionId`; sidechain lines (`isSidechain: true`, a subagent) are the run
 *   `<sessionId>/sidechain`, plus `/<agentId>` when the line names its agent (Claude Code 2
 *   writes each subagent to `<session>/subagents/agent-<agentId>.jsonl` with the parent's
 *   `sessionId`; subagents run in parallel, and one run for all of them would read two
 *   agents' identical searches as one agent repeating itself).
 * - round: each model response is one round. Claude Code writes one line per content block,
 *   so the lines of one response share `message.id`; a new id is a new round, also for a
 *   response without tool use (a gap in the call rounds, as in JSONL transcripts).
 *   `<synthetic>` responses (API errors Claude Code writes itself) are not model calls.
 * - call: tool = `name`, args = `input`, callId = `id`, ts = the line's `timestamp`,
 *   durationMs = until the result's line.
 * - outcome: the result's `content` (a string, or its text blocks joined by newlines, an
 *   image as `[image <media type>]`); `is_error: true` makes it
 *   `{"type": "tool_error", "message": <that text>}`.
 * - usage: the response's `message.usage` on its last line (input including cache reads and
 *   writes, output), once per round.
 * - a tool_use id read before (a resumed session repeating its history) is not a new call.
 * - a `compact_boundary` system line (auto-compact, `/compact`) marks the run's next call
 *   `compactedBefore`: the model no longer has what it read before it.
 *
 * A round's calls are handed out when the round is over (the run's next response starts, or
 * the file ends), in the order they were asked for, whatever order the results came in:
 * Claude Code may run a tool before it has written the rest of the response, and the usage
 * on the response's last line is the complete one. A tool use whose result never comes (the
 * session was cut off mid-call, or the next response started without it) is left out,
 * silently: nothing was recorded for the guard to judge, and a session killed mid-call is
 * not a bad input line.
 */
/** The run a line belongs to: its session, or one of the session's subagents. */
function runOf(event: Record<string, unknown>, sessionId: string): string {
  if (event.isSidechain !== true) return sessionId;
  return typeof event.agentId === 'string' && event.agentId.length > 0 ? `${sessionId}/sidechain/${event.agentId}` : `${sessionId}/sidechain`;
}

export function readClaudeCodeSession(file: string): ClaudeCodeSessionReader {
  const runs = new Map<string, RunState>();
  /**
   * Open tool uses of every run by id. Results are paired by id alone (tool_use ids are unique
   * per session), not through the result line's own run fields.
   */
  const open = new Map<string, PendingUse>();
  /** Every tool_use id read, so a repeated line (a resumed session's copied history) is not a second call. */
  const seen = new Set<string>();

  const runState = (run: string): RunState => {
    let state = runs.get(run);
    if (!state) {
      state = { round: 0, responseKey: undefined, roundInfo: {}, queue: [], compacted: false };
      runs.set(run, state);
    }
    return state;
  };

  /** Closes the run's current round: hands out its answered uses in order and drops the rest. */
  const closeRound = (state: RunState, out: ReplayCall[]): void => {
    for (const pending of state.queue) {
      open.delete(pending.call.callId as string);
      if (!pending.resolved) continue;
      if (pending.round.usage) pending.call.usage = pending.round.usage;
      out.push(pending.call);
    }
    state.queue = [];
  };

  return {
    line(text: string, lineNumber: number): ReplayCall[] {
      const fail = (problem: string, field?: string): never => {
        throw new ReplayInputError({ file, line: lineNumber, problem, field });
      };
      let value: unknown;
      try {
        value = JSON.parse(text);
      } catch (error) {
        fail(`not valid JSON (${(error as Error).message})`);
      }
      if (!isPlainObject(value)) fail(`expected a Claude Code session event (a JSON object with "type"), got ${describeJsonValue(value)}`);
      const event = value as Record<string, unknown>;
      if (event.type === 'system' && event.subtype === 'compact_boundary') {
        // Claude Code compacted the conversation: the model no longer has what it read before.
        // A boundary without a session names none: every run of the file is compacted.
        if (typeof event.sessionId === 'string' && event.sessionId.length > 0) runState(runOf(event, event.sessionId)).compacted = true;
        else for (const state of runs.values()) state.compacted = true;
        return [];
      }
      if (event.type !== 'assistant' && event.type !== 'user') return [];

      const message = event.message;
      if (!isPlainObject(message)) fail(`"message" must be an object with "role" and "content", got ${describeJsonValue(message)}`, 'message');
      const { content } = message as Record<string, unknown>;
      if (typeof content === 'string' || content === undefined || content === null) return [];
      if (!Array.isArray(content)) fail(`"message.content" must be a string or an array of blocks, got ${describeJsonValue(content)}`, 'message.content');
      const blocks = content as unknown[];
      const time = timestampOf(event.timestamp, fail);

      if (event.type === 'assistant') {
        const { model, id, usage } = message as Record<string, unknown>;
        if (model === '<synthetic>' || event.isApiErrorMessage === true) return [];
        const sessionId = event.sessionId;
        if (typeof sessionId !== 'string' || sessionId.length === 0) {
          fail(`"sessionId" must be a non-empty string, got ${describeJsonValue(sessionId)}`, 'sessionId');
        }
        const run = runOf(event, sessionId as string);
        const uses: Array<{ id: string; name: string; input: unknown }> = [];
        blocks.forEach((block, index) => {
          if (!isPlainObject(block) || block.type !== 'tool_use') return;
          const field = `message.content[${index}]`;
          if (typeof block.id !== 'string' || block.id.length === 0) fail(`"${field}.id" must be a non-empty string, got ${describeJsonValue(block.id)}`, `${field}.id`);
          if (typeof block.name !== 'string' || block.name.length === 0) fail(`"${field}.name" must be a non-empty string, got ${describeJsonValue(block.name)}`, `${field}.name`);
          const input = block.input ?? {};
          if (!isPlainObject(input)) fail(`"${field}.input" must be an object, got ${describeJsonValue(input)}`, `${field}.input`);
          uses.push({ id: block.id as string, name: block.name as string, input });
        });
        const roundUsage = usageOf(usage);

        const state = runState(run);
        const out: ReplayCall[] = [];
        const key = typeof id === 'string' && id.length > 0 ? id : typeof event.requestId === 'string' ? event.requestId : `line ${lineNumber}`;
        if (key !== state.responseKey) {
          closeRound(state, out);
          state.round++;
          state.responseKey = key;
          state.roundInfo = {};
        }
        if (roundUsage) state.roundInfo.usage = roundUsage;
        for (const use of uses) {
          if (seen.has(use.id)) continue;
          seen.add(use.id);
          const call: ReplayCall = {
            source: { file, line: lineNumber },
            run,
            round: state.round,
            tool: use.name,
            args: use.input,
            callId: use.id,
            outcome: { result: null },
          };
          if (time !== undefined) call.startTime = time;
          if (state.compacted) call.compactedBefore = true;
          state.compacted = false;
          const pending: PendingUse = { call, round: state.roundInfo, resolved: false };
          state.queue.push(pending);
          open.set(use.id, pending);
        }
        return out;
      }

      const results: Array<{ id: string; outcome: CallOutcome }> = [];
      blocks.forEach((block, index) => {
        if (!isPlainObject(block) || block.type !== 'tool_result') return;
        const field = `message.content[${index}]`;
        if (typeof block.tool_use_id !== 'string' || block.tool_use_id.length === 0) {
          fail(`"${field}.tool_use_id" must be a non-empty string, got ${describeJsonValue(block.tool_use_id)}`, `${field}.tool_use_id`);
        }
        const resultText = toolResultText(block.content, `${field}.content`, fail);
        const outcome: CallOutcome = block.is_error === true ? { error: { type: 'tool_error', message: resultText } } : { result: resultText };
        results.push({ id: block.tool_use_id as string, outcome });
      });
      for (const { id, outcome } of results) {
        const pending = open.get(id);
        if (!pending || pending.resolved) continue;
        pending.call.outcome = outcome;
        pending.resolved = true;
        const start = pending.call.startTime;
        if (time !== undefined && start !== undefined && time >= start) pending.call.durationMs = time - start;
      }
      return [];
    },

    end(): ReplayCall[] {
      const out: ReplayCall[] = [];
      for (const state of runs.values()) closeRound(state, out);
      return out;
    },
  };
}

function timestampOf(value: unknown, fail: (problem: string, field?: string) => never): number | undefined {
  if (value === undefined || value === null) return undefined;
  const ms = typeof value === 'string' ? Date.parse(value) : NaN;
  if (Number.isNaN(ms)) fail(`"timestamp" must be an ISO 8601 date, got ${describeJsonValue(value)}`, 'timestamp');
  return ms;
}

/** What the model saw of a tool result: the text, images as a placeholder naming their type. */
function toolResultText(content: unknown, field: string, fail: (problem: string, field?: string) => never): string {
  if (content === undefined || content === null) return '';
  if (typeof content === 'string') return content;
  if (!Array.isArray(content)) fail(`"${field}" must be a string or an array of blocks, got ${describeJsonValue(content)}`, field);
  const parts: string[] = [];
  for (const block of content as unknown[]) {
    if (!isPlainObject(block)) continue;
    if (block.type === 'text' && typeof block.text === 'string') parts.push(block.text);
    else if (block.type === 'image') {
      const source = isPlainObject(block.source) ? block.source : {};
      parts.push(`[image ${typeof source.media_type === 'string' ? source.media_type : 'unknown'}]`);
    } else if (typeof block.type === 'string') parts.push(`[${block.type}]`);
  }
  return parts.join('\n');
}

/** Input counts what the model read, cached or not: Claude Code's `input_tokens` alone is only the uncached tail. */
function usageOf(value: unknown): ModelUsage | undefined {
  if (!isPlainObject(value)) return undefined;
  const tokens = (field: unknown): number =>
    typeof field === 'number' && Number.isInteger(field) && field >= 0 ? field : 0;
  if (typeof value.input_tokens !== 'number' && typeof value.output_tokens !== 'number') return undefined;
  return {
    inputTokens: tokens(value.input_tokens) + tokens(value.cache_creation_input_tokens) + tokens(value.cache_read_input_tokens),
    outputTokens: tokens(value.output_tokens),
  };
}
