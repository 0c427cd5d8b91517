import { diag } from '@opentelemetry/api';
import type { CallTicket, RunGuard } from '../../core/run-guard.js';
import type { CallOutcome } from '../../core/types.js';
import { failedCallError } from '../../core/aborted-call-error.js';
import { abortSignalAt } from '../abort-signal-at.js';
import { recordDeliveredRefusal } from '../delivered-refusals.js';
import { failOpenAsync } from '../fail-open.js';
import { requireSetupOption } from '../require-setup-option.js';
import { finishOrFailOpen } from './finish-or-fail-open.js';
import { toolResultOutcome } from './tool-result-outcome.js';

/** Options of {@link guardLangChainTools}. */
export interface GuardLangChainToolsOptions {
  /** The run these tool calls belong to (`guard.startRun(...)`). */
  run: RunGuard;
}

/** Marks a guarded tool with its run, so the middleware does not claim its calls a second time. */
export const GUARDED_TOOL_RUN: unique symbol = Symbol.for('loopguard.langchain.guardedToolRun');

/** The part of a LangChain `StructuredTool` the wrapper relies on. */
interface ToolInternals {
  name: string;
  responseFormat?: string;
  _call(args: unknown, runManager: unknown, config: unknown): unknown;
}

/**
 * Guarded copies of LangChain tools (`tool()`, `StructuredTool`, `DynamicStructuredTool`,
 * `DynamicTool`): loopguard claims each call before it runs and records what it returned.
 * Use them anywhere LangChain runs tools: a LangGraph `ToolNode`, `createAgent`, your own loop.
 *
 * - A refused call never runs: its "result" is loopguard's message, which LangChain wraps in
 *   the call's ToolMessage like any result, so the model reads why it was not run and what to
 *   do instead.
 * - A call that throws is recorded as failed and the error is rethrown untouched, so the
 *   ToolNode's `handleToolErrors` (or your code) deals with it exactly as without loopguard.
 * - Arguments are those the tool runs with (after its schema parsed them, defaults filled in),
 *   so `{ query }` and `{ query, limit: 10 }` with a default limit of 10 are the same call.
 *   Arguments that fail the schema never reach the tool and are not counted.
 *
 * Each copy has the original tool as its prototype and overrides only `_call`: its name,
 * description, schema, `returnDirect`, `responseFormat`, callbacks and metadata are the
 * original's, read live. Tools without `_call` are passed through unguarded: a provider's
 * built-in tool (it runs at the provider), and a `RunnableToolLike` from `asTool()` (with a
 * warning on `diag`).
 *
 * A refused call of a `returnDirect` tool still ends the graph (LangGraph decides that from the
 * tool's name, not from the result): its refusal is then the last message.
 */
export function guardLangChainTools<TOOL extends object>(tools: readonly TOOL[], options: GuardLangChainToolsOptions): TOOL[] {
  requireSetupOption('tool-list', 'tools', tools, "the agent's tools");
  requireSetupOption('options', 'options', options, 'guardLangChainTools(tools, { run })');
  requireSetupOption('run', 'run', options.run);
  return tools.map((tool) => guardLangChainTool(tool, options.run));
}

function guardLangChainTool<TOOL extends object>(tool: TOOL, run: RunGuard): TOOL {
  const internals = tool as unknown as ToolInternals;
  const original = internals._call;
  if (typeof original !== 'function') {
    // A provider's built-in tool (a plain object such as `{ type: 'web_search' }`) runs at the
    // provider, out of loopguard's sight; a runnable without `_call` is worth a warning.
    if (typeof (tool as { invoke?: unknown }).invoke === 'function') {
      diag.warn(`loopguard: tool ${JSON.stringify(internals.name)} is not a LangChain StructuredTool (no _call); it runs unguarded. Build it with tool() or a StructuredTool subclass.`);
    }
    return tool;
  }
  // A copy, not a mutation: the same tool may serve unguarded agents or another run.
  const guarded = Object.create(tool) as TOOL & ToolInternals;
  Object.defineProperty(guarded, GUARDED_TOOL_RUN, { value: run, enumerable: false });
  Object.defineProperty(guarded, '_call', {
    configurable: true,
    writable: true,
    value: async function guardedCall(this: ToolInternals, args: unknown, runManager: unknown, config: unknown): Promise<unknown> {
      const name = this.name;
      const ticket = await failOpenAsync<CallTicket | undefined>(`claimCall(${name})`, () => run.claimCall({ tool: name, args, callId: toolCallIdOf(config) }), undefined);
      if (ticket?.decision.action === 'refuse') {
        recordDeliveredRefusal(run, ticket);
        // content_and_artifact tools return [content, artifact]; LangChain rejects anything else.
        return this.responseFormat === 'content_and_artifact' ? [ticket.decision.message, undefined] : ticket.decision.message;
      }
      const finish = (outcome: CallOutcome): void => finishOrFailOpen(run, ticket, name, outcome);
      const callId = toolCallIdOf(config);
      let raw: unknown;
      try {
        // The original runs as itself: state a tool keeps on `this` stays on the tool.
        raw = await original.call(tool, args, runManager, config);
      } catch (error) {
        // Aborted: LangChain's tool() rejects with the abort's reason and its function runs on.
        finish({ error: failedCallError(error, abortSignalAt(config, ['signal'])) });
        throw error;
      }
      if (isAsyncGenerator(raw)) return recordStreamedResult(raw, finish, this.responseFormat, callId, abortSignalAt(config, ['signal']));
      finish(toolResultOutcome(contentOf(raw, this.responseFormat), callId));
      return raw;
    },
  });
  return guarded;
}

/** `invoke(toolCall)` puts the model's tool call on the config LangChain hands to `_call`. */
function toolCallIdOf(config: unknown): string | undefined {
  if (typeof config !== 'object' || config === null) return undefined;
  const toolCall = (config as { toolCall?: { id?: unknown } }).toolCall;
  const id = toolCall?.id ?? (config as { toolCallId?: unknown }).toolCallId;
  return typeof id === 'string' ? id : undefined;
}

/**
 * The model reads the content; an artifact (`content_and_artifact`) is for code, not the model.
 * What this returns is judged by toolResultOutcome, like the middleware's and the callback
 * handler's results: a tool may return a ToolMessage (or a LangGraph Command) itself, and its
 * per-call tool_call_id must not make identical answers differ, nor `status: 'error'` pass
 * for a success.
 */
function contentOf(raw: unknown, responseFormat: string | undefined): unknown {
  if (responseFormat !== 'content_and_artifact') return raw;
  // Read after the tool returned: a pair that cannot be read (a revoked Proxy) is recorded
  // whole, and the engine records what it cannot read as unfingerprintable.
  try {
    return Array.isArray(raw) && raw.length === 2 ? raw[0] : raw;
  } catch {
    return raw;
  }
}

function isAsyncGenerator(value: unknown): value is AsyncGenerator<unknown, unknown> {
  if (typeof value !== 'object' || value === null) return false;
  // A result whose `next` getter (or Proxy) throws is no generator: it is returned as it is.
  try {
    return typeof (value as { next?: unknown }).next === 'function' && Symbol.asyncIterator in value;
  } catch {
    return false;
  }
}

/**
 * Streaming tools (`async function*`) yield events and return the result: LangChain uses the
 * generator's return value as the tool's output, so that is what loopguard records.
 */
async function* recordStreamedResult(
  generator: AsyncGenerator<unknown, unknown>,
  finish: (outcome: CallOutcome) => void,
  responseFormat: string | undefined,
  callId: string | undefined,
  signal: AbortSignal | undefined,
): AsyncGenerator<unknown, unknown> {
  let finished = false;
  try {
    const result = yield* generator;
    finished = true;
    finish(toolResultOutcome(contentOf(result, responseFormat), callId));
    return result;
  } catch (error) {
    finished = true;
    finish({ error: failedCallError(error, signal) });
    throw error;
  } finally {
    // Abandoned before it returned (aborted): the call is not in flight any more.
    if (!finished) finish({ error: new Error('the streaming tool call was abandoned before it finished') });
  }
}
