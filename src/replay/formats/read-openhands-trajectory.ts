import type { CallOutcome } from '../../core/types.js';
import type { ReplayCall } from '../replay-call.js';
import { ReplayInputError } from '../replay-input-error.js';
import { describeJsonValue, isPlainObject } from '../parse-transcript-line.js';
import type { TrajectoryCalls, TrajectorySource } from './trajectory-source.js';

/**
 * Actions that are conversation or bookkeeping, not tool calls: the user's and the agent's
 * messages, the system prompt, OpenHands' own context recall, state changes, history
 * condensation, and the end of the run (`finish` has no observation). `think` is a tool the
 * model calls (it answers "Your thought has been logged."), so it stays a call.
 */
const NOT_TOOL_CALLS = new Set(['message', 'system', 'recall', 'change_agent_state', 'condensation', 'condensation_request', 'finish', 'reject', 'null']);

/**
 * Fields of an action's `args` that OpenHands adds around the model's arguments (the reasoning
 * shown next to the call, the security analyser's verdict, confirmation state, display flags):
 * left out of the call's args when the model's own arguments were not kept.
 */
const ACTION_BOOKKEEPING = new Set(['thought', 'security_risk', 'confirmation_state', 'is_confirmed', 'hidden', 'blocking', 'keep_prompt', 'action_risk', 'kernel_init_code', 'include_extra', 'images_urls', 'wait_for_response']);

/** Flat 2024 events carry these next to `action`/`observation` instead of inside `args`/`extras`. */
const FLAT_EVENT_FIELDS = new Set(['action', 'observation', 'id', 'source', 'message', 'timestamp', 'cause', 'content', 'extras', 'args', 'tool_call_metadata', 'llm_metrics', 'timeout']);

interface Pending {
  call: ReplayCall;
  actionIndex: number;
}

/**
 * Reads an OpenHands trajectory: the event stream of one agent run, either as a JSON array of
 * events (the UI's "export trajectory", a replay file) or as the `history` array of a
 * document (a line of an evaluation or resolver `output.jsonl`, `{"instance_id", "history",
 * ...}`).
 *
 * - call: an agent action event (`action`: `run`, `run_ipython`, `read`, `edit`, `write`,
 *   `browse`, `browse_interactive`, `call_tool_mcp`, `think`, ...), paired with the observation event
 *   whose `cause` is the action's `id`. Events without ids (the 2024 flat form) pair an action
 *   with the next observation. Messages, the system prompt, recall, condensation and
 *   `finish` are not calls. An action that never got an observation is left out.
 * - tool: `tool_call_metadata.function_name` (the tool the model called: `execute_bash`,
 *   `str_replace_editor`, ...), else the action name.
 * - args: the model's own arguments, from the tool call with the action's `tool_call_id` in
 *   `tool_call_metadata.model_response`; else the action's `args` (flat form: its top-level
 *   fields) without OpenHands' bookkeeping fields (`thought`, `security_risk`, ...).
 * - round: one model response (`model_response.id`) is one round, so parallel tool calls share
 *   it; an action without a response id is a round of its own.
 * - outcome: the observation's `content` as the model saw it (a command's with what the shell
 *   added around it, `extras.metadata`: commandOutputAsSeen); an `error` observation is
 *   `{"type": "error", "message": content}`. A command's exit code does not make an error: its
 *   output is still what the command taught the agent.
 * - ts / durationMs: the action's `timestamp` and the time to its observation's.
 * - compactedBefore: a `condensation` event (a condenser replaced earlier events with a
 *   summary) came before the call: the model no longer has what those events showed.
 */
export function readOpenHandsTrajectory(document: unknown, source: TrajectorySource): TrajectoryCalls {
  const { file, line, run } = source;
  const events = Array.isArray(document) ? document : isPlainObject(document) ? document.history : undefined;
  if (!Array.isArray(events)) {
    throw new ReplayInputError({
      file,
      line,
      field: 'history',
      problem: `an OpenHands trajectory is an array of events or a document with a "history" array of events, got ${describeJsonValue(isPlainObject(document) ? document.history : document)}`,
    });
  }
  const calls: Array<{ call: ReplayCall; actionIndex: number }> = [];
  const problems: ReplayInputError[] = [];
  const byId = new Map<number, Pending>();
  let lastUnpaired: Pending | undefined;
  let round = 0;
  let lastResponseId: string | undefined;
  /** A condenser forgot events since the last call: the next call comes after a compaction. */
  let condensed = false;

  events.forEach((event: unknown, index) => {
    const path = Array.isArray(document) ? `[${index}]` : `history[${index}]`;
    if (!isPlainObject(event)) {
      problems.push(new ReplayInputError({ file, line, field: path, problem: `${path} must be an event object ("action" or "observation"), got ${describeJsonValue(event)}` }));
      return;
    }
    if (typeof event.action === 'string') {
      // A condenser replaced earlier events with a summary: the model no longer has them.
      if (event.action === 'condensation') condensed = true;
      if (NOT_TOOL_CALLS.has(event.action) || event.source === 'user' || event.source === 'environment') return;
      const metadata = isPlainObject(event.tool_call_metadata) ? event.tool_call_metadata : undefined;
      const responseId = metadata && isPlainObject(metadata.model_response) && typeof metadata.model_response.id === 'string' ? metadata.model_response.id : undefined;
      if (responseId === undefined || responseId !== lastResponseId) round++;
      lastResponseId = responseId;
      const call: ReplayCall = {
        source: { file, line },
        run,
        round,
        tool: metadata && typeof metadata.function_name === 'string' && metadata.function_name.length > 0 ? metadata.function_name : event.action,
        args: modelArguments(metadata) ?? actionArguments(event),
        outcome: { result: '' },
      };
      if (metadata && typeof metadata.tool_call_id === 'string') call.callId = metadata.tool_call_id;
      if (condensed) call.compactedBefore = true;
      condensed = false;
      const startTime = epochMs(event.timestamp);
      if (startTime !== undefined) call.startTime = startTime;
      const pending = { call, actionIndex: index };
      if (typeof event.id === 'number') byId.set(event.id, pending);
      lastUnpaired = pending;
      return;
    }
    if (typeof event.observation !== 'string') {
      problems.push(new ReplayInputError({ file, line, field: path, problem: `${path} has neither an "action" nor an "observation" name, got ${describeJsonValue(event)}` }));
      return;
    }
    const pending = typeof event.cause === 'number' ? byId.get(event.cause) : event.id === undefined ? lastUnpaired : undefined;
    if (pending === undefined) return;
    if (typeof event.cause === 'number') byId.delete(event.cause);
    if (pending === lastUnpaired) lastUnpaired = undefined;
    const content = event.content ?? '';
    if (typeof content !== 'string') {
      problems.push(new ReplayInputError({ file, line, field: `${path}.content`, problem: `${path}.content must be a string (what the tool returned), got ${describeJsonValue(content)}` }));
      return;
    }
    const seen = event.observation === 'run' ? commandOutputAsSeen(content, event.extras) : content;
    const outcome: CallOutcome = event.observation === 'error' ? { error: { type: 'error', message: content } } : { result: seen };
    pending.call.outcome = outcome;
    const end = epochMs(event.timestamp);
    if (end !== undefined && pending.call.startTime !== undefined && end >= pending.call.startTime) pending.call.durationMs = end - pending.call.startTime;
    calls.push(pending);
  });
  // Observations can arrive out of order (parallel calls); calls keep the order they were asked in.
  calls.sort((a, b) => a.actionIndex - b.actionIndex);
  return { calls: calls.map((entry) => entry.call), problems };
}

/**
 * A command's output as the model read it: OpenHands keeps what its shell added around the
 * output in `extras.metadata` and writes it back for the model (CmdOutputObservation
 * .to_agent_observation): the prefix, the output, the suffix ("[The command completed with exit
 * code 0.]", or "[The command has no new output after 30 seconds. You may wait longer … by
 * sending empty command '' …]"), the working directory, the interpreter and the exit code.
 * Without it a failing and a passing run of the same command looked alike, and a wait on a
 * quiet command was a read of nothing. Older runs without `metadata` are their content.
 */
function commandOutputAsSeen(content: string, extras: unknown): string {
  const metadata = isPlainObject(extras) && isPlainObject(extras.metadata) ? extras.metadata : undefined;
  if (metadata === undefined) return content;
  const text = (value: unknown) => (typeof value === 'string' ? value : '');
  let seen = `${text(metadata.prefix)}${content}${text(metadata.suffix)}`;
  if (text(metadata.working_dir) !== '') seen += `\n[Current working directory: ${text(metadata.working_dir)}]`;
  if (text(metadata.py_interpreter_path) !== '') seen += `\n[Python interpreter: ${text(metadata.py_interpreter_path)}]`;
  if (typeof metadata.exit_code === 'number' && metadata.exit_code !== -1) seen += `\n[Command finished with exit code ${metadata.exit_code}]`;
  return seen;
}

/** The arguments the model wrote for this call, when OpenHands kept its response. */
function modelArguments(metadata: Record<string, unknown> | undefined): unknown {
  if (metadata === undefined || !isPlainObject(metadata.model_response) || !Array.isArray(metadata.model_response.choices)) return undefined;
  for (const choice of metadata.model_response.choices) {
    if (!isPlainObject(choice) || !isPlainObject(choice.message) || !Array.isArray(choice.message.tool_calls)) continue;
    for (const toolCall of choice.message.tool_calls) {
      if (!isPlainObject(toolCall) || toolCall.id !== metadata.tool_call_id || !isPlainObject(toolCall.function)) continue;
      const text = toolCall.function.arguments;
      if (typeof text !== 'string') return isPlainObject(text) ? text : undefined;
      try {
        return JSON.parse(text) as unknown;
      } catch {
        return text;
      }
    }
  }
  return undefined;
}

function actionArguments(event: Record<string, unknown>): Record<string, unknown> {
  const args: Record<string, unknown> = {};
  const from = isPlainObject(event.args) ? event.args : Object.fromEntries(Object.entries(event).filter(([key]) => !FLAT_EVENT_FIELDS.has(key)));
  for (const [key, value] of Object.entries(from)) if (!ACTION_BOOKKEEPING.has(key)) args[key] = value;
  return args;
}

function epochMs(timestamp: unknown): number | undefined {
  if (typeof timestamp !== 'string') return undefined;
  // OpenHands writes local ISO times without a zone; read them as UTC so durations stay right.
  const ms = Date.parse(/(Z|[+-]\d\d:?\d\d)$/.test(timestamp) ? timestamp : `${timestamp}Z`);
  return Number.isFinite(ms) ? ms : undefined;
}

/** Whether a value is an OpenHands event list: the first object in it names an action or an observation. */
export function isOpenHandsEventList(value: unknown): boolean {
  if (!Array.isArray(value)) return false;
  const first = value.find((event) => isPlainObject(event));
  return isPlainObject(first) && (typeof first.action === 'string' || typeof first.observation === 'string');
}
