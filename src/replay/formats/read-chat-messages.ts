import type { CallOutcome } from '../../core/types.js';
import type { ReplayCall } from '../replay-call.js';
import { ReplayInputError } from '../replay-input-error.js';
import { describeJsonValue, isPlainObject } from '../parse-transcript-line.js';
import type { TrajectoryCalls, TrajectorySource } from './trajectory-source.js';

/**
 * Reads a conversation saved as chat messages — what most Python agents write when they log a
 * run: the OpenAI Chat Completions shape (an assistant message's `tool_calls`, answered by
 * `role: "tool"` messages with the same `tool_call_id`; the older `function_call` answered by a
 * `role: "function"` message) and the Anthropic Messages shape (`tool_use` blocks answered by
 * `tool_result` blocks in the next user message). Three documents:
 *
 * - an array of messages, or `{"messages": [...]}` (without mini-swe-agent's `info`): one run;
 * - an array of runs, each `{"messages": [...]}` or `{"traj": [...]}` (a benchmark's results
 *   file: one task per element), or `{"simulations": [...]}` of them: one run per element, named
 *   `<file>#<task_id>` (else `#<n>`); a task run several times, `#<task_id>/trial-<trial>` (else
 *   `#<task_id>/<k>`).
 *
 * - round: each assistant message is one model call, so its tool calls share a round; an
 *   assistant message with no tool call is a round too (the gap the JSONL format allows).
 * - args: `function.arguments` parsed when it is JSON text, else kept as text; `input` as given.
 * - outcome: the answer's content (text parts joined); an Anthropic `is_error` result, and a
 *   tool message with `error: true` (tau2-bench), is a failure. The OpenAI shape has no error
 *   flag, so a tool's "Error: …" text is a result: what the tool said is still what it taught
 *   the agent (a "not found" one narrows down, result-fingerprint.ts argumentErrorAnswerOf).
 * - tool calls: OpenAI's `{id, function: {name, arguments}}` or flat `{id, name, arguments}`;
 *   a simulated user's own tool calls (`role: "user"`) are not the agent's and are not read.
 * - A call never answered (the run ended first) is left out.
 */
export function readChatMessages(document: unknown, source: TrajectorySource): TrajectoryCalls {
  const problems: ReplayInputError[] = [];
  const runs = chatRuns(document);
  if (runs === undefined) {
    throw new ReplayInputError({
      file: source.file,
      line: source.line,
      problem: `chat messages are an array of {"role", "content"} messages, {"messages": [...]}, or an array of runs each with "messages" or "traj", got ${describeJsonValue(document)}`,
    });
  }
  const calls: ReplayCall[] = [];
  runs.forEach(({ messages, name, path }) => {
    const run = name === undefined ? source.run : `${source.run}#${name}`;
    calls.push(...readOneConversation(messages, path, run, source, problems));
  });
  return { calls, problems };
}

interface ChatRun {
  messages: unknown[];
  /** The run's name inside a results file (`task_id`, else its 1-based position); undefined for a lone conversation. */
  name: string | undefined;
  /** Where the messages sit in the document, for problems. */
  path: string;
}

function isMessage(value: unknown): boolean {
  return isPlainObject(value) && typeof value.role === 'string';
}

function messagesOf(value: unknown): { messages: unknown[]; key: string } | undefined {
  if (!isPlainObject(value)) return undefined;
  for (const key of ['messages', 'traj']) {
    const messages = value[key];
    if (Array.isArray(messages) && messages.some(isMessage)) return { messages, key };
  }
  return undefined;
}

function chatRuns(document: unknown): ChatRun[] | undefined {
  if (Array.isArray(document)) {
    const first = document.find(isPlainObject);
    if (isMessage(first)) return [{ messages: document, name: undefined, path: '' }];
    return resultRuns(document, '');
  }
  if (isPlainObject(document) && !isPlainObject(document.info)) {
    // A results document that keeps its runs under `simulations` (tau2-bench's results.json).
    if (Array.isArray(document.simulations)) return resultRuns(document.simulations, 'simulations');
    const found = messagesOf(document);
    if (found !== undefined) return [{ messages: found.messages, name: undefined, path: found.key }];
  }
  return undefined;
}

/**
 * The runs of a benchmark's results: one per element with messages, named by its task id
 * (else its position). A task run several times (`--num-trials`) is one run per trial: named
 * by its `trial` when it has one, else by its occurrence. Before, trials shared the task's
 * name, and every trial after the first was turned down as rounds out of order: lost.
 */
function resultRuns(entries: unknown[], path: string): ChatRun[] | undefined {
  if (messagesOf(entries.find(isPlainObject)) === undefined) return undefined;
  const runs: Array<ChatRun & { task: string; trial: unknown }> = [];
  const perTask = new Map<string, number>();
  entries.forEach((entry, index) => {
    const found = messagesOf(entry);
    if (found === undefined) return;
    const record = entry as Record<string, unknown>;
    const id = record.task_id ?? record.id ?? record.instance_id;
    const task = typeof id === 'string' || typeof id === 'number' ? String(id) : String(index + 1);
    perTask.set(task, (perTask.get(task) ?? 0) + 1);
    runs.push({ messages: found.messages, name: task, path: `${path}[${index}].${found.key}`, task, trial: record.trial });
  });
  const occurrences = new Map<string, number>();
  const trialsNamed = new Set<string>();
  for (const run of runs) {
    if (perTask.get(run.task)! === 1) continue;
    const occurrence = (occurrences.get(run.task) ?? 0) + 1;
    occurrences.set(run.task, occurrence);
    const trial = typeof run.trial === 'number' || typeof run.trial === 'string' ? `${run.task}/trial-${run.trial}` : undefined;
    run.name = trial !== undefined && !trialsNamed.has(trial) ? trial : `${run.task}/${occurrence}`;
    if (trial !== undefined) trialsNamed.add(trial);
  }
  return runs.map(({ messages, name, path: at }) => ({ messages, name, path: at }));
}

/** Whether a parsed JSON document is a conversation of chat messages (see {@link readChatMessages}). */
export function isChatMessagesDocument(document: unknown): boolean {
  const runs = chatRuns(document);
  return runs !== undefined && runs.length > 0;
}

function readOneConversation(messages: unknown[], path: string, run: string, source: TrajectorySource, problems: ReplayInputError[]): ReplayCall[] {
  const { file, line } = source;
  const answered: Array<{ call: ReplayCall; order: number }> = [];
  const pendingById = new Map<string, { call: ReplayCall; order: number }>();
  const pendingByName = new Map<string, Array<{ call: ReplayCall; order: number }>>();
  let round = 0;
  let order = 0;
  const open = (tool: string, args: unknown, callId: string | undefined) => {
    const entry = { call: { source: { file, line }, run, round, tool, args, outcome: { result: '' } } as ReplayCall, order: order++ };
    if (callId !== undefined) {
      entry.call.callId = callId;
      pendingById.set(callId, entry);
    } else {
      const queue = pendingByName.get(tool) ?? [];
      queue.push(entry);
      pendingByName.set(tool, queue);
    }
  };
  const answer = (entry: { call: ReplayCall; order: number } | undefined, outcome: CallOutcome) => {
    if (entry === undefined) return;
    entry.call.outcome = outcome;
    answered.push(entry);
  };

  messages.forEach((message, index) => {
    const at = `${path}[${index}]`;
    if (!isPlainObject(message) || typeof message.role !== 'string') {
      problems.push(new ReplayInputError({ file, line, field: at, problem: `${at} must be a message with a "role", got ${describeJsonValue(message)}` }));
      return;
    }
    if (message.role === 'assistant') {
      round++;
      if (Array.isArray(message.tool_calls)) {
        message.tool_calls.forEach((toolCall: unknown, callIndex) => {
          // OpenAI's `{id, function: {name, arguments}}`, or flat `{id, name, arguments}` (tau2-bench).
          const fn = !isPlainObject(toolCall) ? undefined : isPlainObject(toolCall.function) ? toolCall.function : typeof toolCall.name === 'string' ? toolCall : undefined;
          if (!isPlainObject(toolCall) || fn === undefined || typeof fn.name !== 'string' || fn.name === '') {
            problems.push(new ReplayInputError({ file, line, field: `${at}.tool_calls[${callIndex}]`, problem: `a tool call needs function.name (or name), got ${describeJsonValue(toolCall)}` }));
            return;
          }
          open(fn.name, parseArguments(fn.arguments), typeof toolCall.id === 'string' ? toolCall.id : undefined);
        });
      }
      if (isPlainObject(message.function_call) && typeof message.function_call.name === 'string') {
        open(message.function_call.name, parseArguments(message.function_call.arguments), undefined);
      }
      if (Array.isArray(message.content)) {
        for (const block of message.content) {
          if (isPlainObject(block) && block.type === 'tool_use' && typeof block.name === 'string') open(block.name, block.input ?? {}, typeof block.id === 'string' ? block.id : undefined);
        }
      }
      return;
    }
    if (message.role === 'tool') {
      // tau2-bench answers a call by its own `id` and flags a failure with `error: true`.
      const id = typeof message.tool_call_id === 'string' ? message.tool_call_id : typeof message.id === 'string' ? message.id : undefined;
      const entry = id !== undefined ? pendingById.get(id) : typeof message.name === 'string' ? pendingByName.get(message.name)?.shift() : undefined;
      if (id !== undefined) pendingById.delete(id);
      const text = contentText(message.content);
      answer(entry, message.error === true ? { error: { type: 'tool_error', message: text } } : { result: text });
      return;
    }
    if (message.role === 'function' && typeof message.name === 'string') {
      answer(pendingByName.get(message.name)?.shift(), { result: contentText(message.content) });
      return;
    }
    if (message.role === 'user' && Array.isArray(message.content)) {
      for (const block of message.content) {
        if (!isPlainObject(block) || block.type !== 'tool_result' || typeof block.tool_use_id !== 'string') continue;
        const entry = pendingById.get(block.tool_use_id);
        pendingById.delete(block.tool_use_id);
        const text = contentText(block.content);
        answer(entry, block.is_error === true ? { error: { type: 'tool_error', message: text } } : { result: text });
      }
    }
  });
  // Parallel calls may be answered out of order; calls keep the order they were asked in.
  answered.sort((a, b) => a.order - b.order);
  return answered.map((entry) => entry.call);
}

function parseArguments(value: unknown): unknown {
  if (typeof value !== 'string') return value ?? {};
  try {
    return JSON.parse(value) as unknown;
  } catch {
    return value;
  }
}

/** A message's content as the model read it: a string, or its text parts joined. */
function contentText(content: unknown): string {
  if (typeof content === 'string') return content;
  if (content === undefined || content === null) return '';
  if (Array.isArray(content)) {
    const texts: string[] = [];
    for (const part of content) {
      if (typeof part === 'string') texts.push(part);
      else if (isPlainObject(part) && typeof part.text === 'string') texts.push(part.text);
    }
    return texts.join('\n');
  }
  return JSON.stringify(content);
}
