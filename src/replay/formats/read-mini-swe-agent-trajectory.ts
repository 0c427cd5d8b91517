import type { CallOutcome, ModelUsage } from '../../core/types.js';
import type { ReplayCall } from '../replay-call.js';
import { ReplayInputError } from '../replay-input-error.js';
import { describeJsonValue, isPlainObject } from '../parse-transcript-line.js';
import { parseMiniSweAgentObservation } from './parse-mini-swe-agent-observation.js';
import type { TrajectoryCalls, TrajectorySource } from './trajectory-source.js';

/** A command block of a text-based response: ```bash (v1 default), ```sh, ```mswea_bash_command (v2), or the XML tag. */
const COMMAND_BLOCK = /```(?:bash|sh|mswea_bash_command)\s*\n([\s\S]*?)\n```|<mswea_bash_command>([\s\S]*?)<\/mswea_bash_command>/g;

interface Slot {
  call: ReplayCall;
  toolCallId?: string;
  resolved: boolean;
}

/**
 * Reads a mini-swe-agent trajectory (`*.traj.json`: `{"info": {...}, "messages": [...],
 * "trajectory_format": "mini-swe-agent-1" | "mini-swe-agent-1.1"}`).
 *
 * Every model response is one round. Its calls (tool `bash`, args `{"command": ...}`) come
 * from, in this order: `extra.actions` (v2 writes the parsed commands there), OpenAI-style
 * `tool_calls`, Responses-API `function_call` items in `output`, or else the text: exactly one
 * ```bash / ```sh / ```mswea_bash_command block is one call; any other count is a format error,
 * a round without calls. v2 does not keep a response it could not parse; the `FormatError`
 * user message it keeps instead is that round.
 *
 * A call's result is the observation after it: a `tool` message (or `function_call_output`)
 * with its tool call id, or the next user message. v2 keeps the raw output and return code in
 * `extra`; otherwise the observation text is parsed (parseMiniSweAgentObservation), so
 * `<returncode>0</returncode><output></output>` is `{"returncode": 0, "output": ""}`. The
 * command that submitted gets the submission (v1: the next user message; v2: the `exit`
 * message). A call with no observation is left out. Timestamps (epoch seconds) give `ts` and
 * `durationMs`; `extra.response.usage` gives the round's usage.
 */
export function readMiniSweAgentTrajectory(document: unknown, source: TrajectorySource): TrajectoryCalls {
  const { file, line, run } = source;
  if (!isPlainObject(document) || !Array.isArray(document.messages)) {
    throw new ReplayInputError({
      file,
      line,
      field: 'messages',
      problem: `"messages" must be an array of {"role", "content"} messages, got ${describeJsonValue(isPlainObject(document) ? document.messages : document)}`,
    });
  }
  const calls: ReplayCall[] = [];
  const problems: ReplayInputError[] = [];
  let round = 0;
  let slots: Slot[] = [];
  const closeRound = (): void => {
    for (const slot of slots) if (slot.resolved) calls.push(slot.call);
    slots = [];
  };

  document.messages.forEach((message: unknown, index) => {
    const path = `messages[${index}]`;
    const problem = (field: string, what: string): void => {
      problems.push(new ReplayInputError({ file, line, field: `${path}${field}`, problem: `${path}${field} ${what}` }));
    };
    if (!isPlainObject(message)) {
      problem('', `must be an object with "role" and "content", got ${describeJsonValue(message)}`);
      return;
    }
    const extra = isPlainObject(message.extra) ? message.extra : undefined;
    const role = message.role;

    if (isModelResponse(message, extra)) {
      closeRound();
      round++;
      const startTime = epochMs(extra?.timestamp ?? message.timestamp);
      const usage = usageOf(message, extra);
      for (const action of responseActions(message, extra, problem)) {
        const call: ReplayCall = { source: { file, line }, run, round, tool: action.tool, args: action.args, outcome: { result: null } };
        if (action.id !== undefined) call.callId = action.id;
        if (startTime !== undefined) call.startTime = startTime;
        if (usage) call.usage = usage;
        slots.push({ call, toolCallId: action.id, resolved: false });
      }
      return;
    }
    if (role === 'user' && extra?.interrupt_type === 'FormatError') {
      closeRound();
      round++;
      return;
    }

    let slot: Slot | undefined;
    let outcome: CallOutcome | undefined;
    if (role === 'tool' || message.type === 'function_call_output') {
      const id = message.tool_call_id ?? message.call_id;
      slot = slots.find((s) => !s.resolved && s.toolCallId !== undefined && s.toolCallId === id) ?? slots.find((s) => !s.resolved);
      outcome = observationOutcome(message, extra);
    } else if (role === 'user' && extra?.interrupt_type === undefined) {
      slot = slots.find((s) => !s.resolved);
      outcome = observationOutcome(message, extra);
    } else if (role === 'exit') {
      const open = slots.filter((s) => !s.resolved);
      const status = extra?.exit_status;
      if (open.length === 1 && typeof status === 'string' && /^submitted/i.test(status)) {
        slot = open[0];
        outcome = { result: { returncode: 0, output: textOf(message.content) } };
      }
    }
    if (!slot || !outcome) return;
    slot.call.outcome = outcome;
    slot.resolved = true;
    const endTime = epochMs(extra?.timestamp ?? message.timestamp);
    if (endTime !== undefined && slot.call.startTime !== undefined && endTime >= slot.call.startTime) {
      slot.call.durationMs = endTime - slot.call.startTime;
    }
  });
  closeRound();
  return { calls, problems };
}

function isModelResponse(message: Record<string, unknown>, extra: Record<string, unknown> | undefined): boolean {
  if (message.role === 'assistant') return true;
  // Responses-API models store the whole response object: no role, an `output` list.
  return message.role === undefined && (message.object === 'response' || Array.isArray(message.output) || Array.isArray(extra?.actions));
}

interface Action {
  tool: string;
  args: unknown;
  id?: string;
}

function responseActions(
  message: Record<string, unknown>,
  extra: Record<string, unknown> | undefined,
  problem: (field: string, what: string) => void,
): Action[] {
  if (Array.isArray(extra?.actions)) {
    const actions: Action[] = [];
    extra.actions.forEach((action: unknown, index) => {
      const command = isPlainObject(action) ? action.command : undefined;
      if (typeof command !== 'string') {
        problem(`.extra.actions[${index}].command`, `must be a string (the bash command), got ${describeJsonValue(command)}`);
        return;
      }
      const id = isPlainObject(action) && typeof action.tool_call_id === 'string' ? action.tool_call_id : undefined;
      actions.push({ tool: 'bash', args: { command: command.trim() }, id });
    });
    return actions;
  }
  if (Array.isArray(message.tool_calls) && message.tool_calls.length > 0) {
    const actions: Action[] = [];
    message.tool_calls.forEach((toolCall: unknown, index) => {
      const fn = isPlainObject(toolCall) && isPlainObject(toolCall.function) ? toolCall.function : undefined;
      const action = functionCall(fn?.name, fn?.arguments, isPlainObject(toolCall) ? toolCall.id : undefined);
      if (typeof action === 'string') problem(`.tool_calls[${index}].function${action}`, 'is not a readable tool call');
      else actions.push(action);
    });
    return actions;
  }
  if (Array.isArray(message.output)) {
    const actions: Action[] = [];
    message.output.forEach((item: unknown, index) => {
      if (!isPlainObject(item) || item.type !== 'function_call') return;
      const action = functionCall(item.name, item.arguments, item.call_id ?? item.id);
      if (typeof action === 'string') problem(`.output[${index}]${action}`, 'is not a readable function call');
      else actions.push(action);
    });
    return actions;
  }
  const blocks = [...textOf(message.content).matchAll(COMMAND_BLOCK)];
  if (blocks.length !== 1) return [];
  return [{ tool: 'bash', args: { command: (blocks[0][1] ?? blocks[0][2]).trim() } }];
}

/** A tool call as the API recorded it; a string names the bad field instead. */
function functionCall(name: unknown, rawArguments: unknown, id: unknown): Action | string {
  if (typeof name !== 'string' || name.length === 0) return '.name';
  let args: unknown = rawArguments ?? {};
  if (typeof args === 'string') {
    try {
      args = JSON.parse(args);
    } catch {
      return '.arguments';
    }
  }
  if (!isPlainObject(args)) return '.arguments';
  if (name === 'bash' && typeof args.command === 'string') args = { ...args, command: args.command.trim() };
  return { tool: name, args, id: typeof id === 'string' ? id : undefined };
}

function observationOutcome(message: Record<string, unknown>, extra: Record<string, unknown> | undefined): CallOutcome {
  if (extra && typeof extra.raw_output === 'string' && typeof extra.returncode === 'number') {
    const info = extra.exception_info;
    if (typeof info === 'string' && info.trim() !== '') {
      const type = typeof extra.exception_type === 'string' ? extra.exception_type : undefined;
      const timeout = /timed?\s*out|timeout/i.test(`${type ?? ''} ${info}`);
      return { error: { type: timeout ? 'timeout' : (type ?? 'exception'), message: info.trim() } };
    }
    return { result: { returncode: extra.returncode, output: extra.raw_output } };
  }
  return parseMiniSweAgentObservation(textOf(message.content ?? message.output));
}

/** Message content as text: a string, or the text parts of a multimodal list. */
function textOf(content: unknown): string {
  if (typeof content === 'string') return content;
  if (!Array.isArray(content)) return '';
  return content
    .map((part: unknown) => (isPlainObject(part) && typeof part.text === 'string' ? part.text : typeof part === 'string' ? part : ''))
    .join('');
}

function epochMs(seconds: unknown): number | undefined {
  return typeof seconds === 'number' && Number.isFinite(seconds) && seconds > 0 ? Math.round(seconds * 1000) : undefined;
}

function usageOf(message: Record<string, unknown>, extra: Record<string, unknown> | undefined): ModelUsage | undefined {
  const response = isPlainObject(extra?.response) ? extra.response : undefined;
  const usage = isPlainObject(response?.usage) ? response.usage : isPlainObject(message.usage) ? message.usage : undefined;
  if (!usage) return undefined;
  const tokens = (value: unknown): number | undefined =>
    typeof value === 'number' && Number.isInteger(value) && value >= 0 ? value : undefined;
  const result: ModelUsage = {};
  const inputTokens = tokens(usage.prompt_tokens ?? usage.input_tokens);
  const outputTokens = tokens(usage.completion_tokens ?? usage.output_tokens);
  if (inputTokens !== undefined) result.inputTokens = inputTokens;
  if (outputTokens !== undefined) result.outputTokens = outputTokens;
  return inputTokens === undefined && outputTokens === undefined ? undefined : result;
}
