import type { Tool, ToolSet } from 'ai';
import type { CallTicket, RunGuard } from '../../core/run-guard.js';
import type { Span } from '@opentelemetry/api';
import type { CallOutcome, Novelty } from '../../core/types.js';
import { ATTR_DECISION, ATTR_GEN_AI_TOOL_NAME, ATTR_NOVELTY, ATTR_REFUSAL_REASON, ATTR_ROUND } from '../../otel/attributes.js';
import { recordDeliveredRefusal } from '../delivered-refusals.js';
import { failedCallError } from '../../core/aborted-call-error.js';
import { failOpen, failOpenAsync } from '../fail-open.js';
import { requireSetupOption } from '../require-setup-option.js';
import { activeAiSdkToolSpan } from './active-ai-sdk-tool-span.js';
import { getAiSdkRunState, isRefusalOutput, markRefusedCall } from './ai-sdk-run-state.js';

/**
 * What the wrapper reads of the SDK's per-call options (`ToolExecutionOptions`, generic over
 * the call context from AI SDK 7): the rest is passed through to the tool untouched.
 */
type ToolCallOptions = { readonly toolCallId: string; readonly abortSignal?: AbortSignal };

/** Options of {@link guardTools}. */
export interface GuardToolsOptions {
  /** The run these tool calls belong to (`guard.startRun(...)`). */
  run: RunGuard;
}

/**
 * Wraps every tool of an AI SDK `tools` object so loopguard sees each call before it runs and
 * each result after. A refused call never runs: its result is loopguard's message, which tells
 * the model what happened and what to do next (the result it already has is in the
 * conversation). Errors are recorded and rethrown, so the SDK reports them exactly as it would
 * without loopguard. Tools without `execute` (provider-executed, client-side) pass through.
 *
 * With `experimental_telemetry` on, each decision is also written on the SDK's `ai.toolCall`
 * span (`loopguard.decision`, `loopguard.refusal.reason`, `loopguard.round`, `loopguard.novelty`).
 *
 * Note: a refused call's output is a string even when the tool's declared output is an
 * object. A tool's own `toModelOutput` is skipped for refused calls for that reason.
 */
export function guardTools<TOOLS extends ToolSet>(tools: TOOLS, options: GuardToolsOptions): TOOLS {
  requireSetupOption('tool-set', 'tools', tools, 'the tools you would pass to generateText');
  requireSetupOption('options', 'options', options, 'guardTools(tools, { run })');
  requireSetupOption('run', 'run', options.run);
  const guarded: Record<string, Tool> = {};
  for (const [name, tool] of Object.entries(tools)) {
    // defineProperty, not assignment: a tool named `__proto__` (tool sets built from JSON can
    // have one) would otherwise set the prototype and vanish from the set (issue 10 #15).
    Object.defineProperty(guarded, name, { value: guardTool(name, tool as Tool, options.run), enumerable: true, writable: true, configurable: true });
  }
  return guarded as TOOLS;
}

function guardTool(name: string, tool: Tool, run: RunGuard): Tool {
  const execute = tool.execute;
  if (execute === undefined) return tool;
  const state = getAiSdkRunState(run);
  const toModelOutput = tool.toModelOutput;

  // The one door (issue 23 #1): every call is decided by run.claimCall, which with a shared
  // store claims it across processes (and its business key) before it runs. Without a store
  // claimCall decides synchronously, so the decision is taken when the SDK calls execute,
  // in the order it calls them, exactly as before.
  const claim = (input: unknown, options: ToolCallOptions): Promise<CallTicket | undefined> =>
    failOpenAsync<CallTicket | undefined>(`claimCall(${name})`, () => run.claimCall({ tool: name, args: input, callId: options.toolCallId }), undefined);

  /** The decided call: its span stamped, a refusal delivered, or a `finish` for its outcome. */
  const settle = (ticket: CallTicket | undefined, options: ToolCallOptions): { refusal: string } | { finish: (outcome: CallOutcome) => void } => {
    const decision = ticket?.decision;
    const span = ticket === undefined ? undefined : failOpen('span', () => stampDecision(ticket), undefined);
    if (decision?.action === 'refuse') {
      markRefusedCall(state, options.toolCallId, decision.message);
      recordDeliveredRefusal(run, ticket!);
      return { refusal: decision.message };
    }
    return {
      finish: (outcome: CallOutcome): void => {
        if (ticket === undefined) return;
        const novelty = failOpen<Novelty | undefined>(`finishCall(${name})`, () => run.finishCall(ticket, outcome), undefined);
        if (span !== undefined && novelty !== undefined) failOpen('span', () => span.setAttribute(ATTR_NOVELTY, novelty), undefined);
      },
    };
  };

  const callTool = (input: unknown, options: ToolCallOptions): unknown => (execute as (input: unknown, options: ToolCallOptions) => unknown)(input, options);

  // A streaming tool (`async function*`) must get an async iterable back, not a promise of
  // one: the claim is made now and awaited inside the stream, before the tool starts.
  const streaming = isAsyncGeneratorFunction(execute);
  const guardedExecute = streaming
    ? (input: unknown, options: ToolCallOptions): AsyncGenerator<unknown> => {
        const claimed = claim(input, options);
        return (async function* () {
          const step = settle(await claimed, options);
          if ('refusal' in step) {
            yield step.refusal;
            return;
          }
          let output: AsyncIterable<unknown>;
          try {
            output = callTool(input, options) as AsyncIterable<unknown>;
          } catch (error) {
            step.finish({ error: failedCallError(error, options.abortSignal) });
            throw error;
          }
          yield* recordStreamedOutput(output, step.finish, options.abortSignal);
        })();
      }
    : async (input: unknown, options: ToolCallOptions): Promise<unknown> => {
        const step = settle(await claim(input, options), options);
        if ('refusal' in step) return step.refusal;
        let output: unknown;
        try {
          output = await callTool(input, options);
        } catch (error) {
          // Failed after the step was aborted: cut short whatever the abort's reason, since
          // the tool may have written (a business key stays held).
          step.finish({ error: failedCallError(error, options.abortSignal) });
          throw error;
        }
        // A plain `function` may still hand back a stream.
        if (isAsyncIterable(output)) return recordStreamedOutput(output, step.finish, options.abortSignal);
        step.finish({ result: output });
        return output;
      };

  const guarded: Tool = { ...tool, execute: guardedExecute as Tool['execute'] };
  if (toModelOutput !== undefined) {
    // The refusal is recognised by its id and its text, not the id alone: with a provider that
    // reuses ids, a later allowed call with a refused call's id must get the tool's own output.
    guarded.toModelOutput = ((options: { toolCallId: string; input: unknown; output: unknown }) =>
      isRefusalOutput(state, options.toolCallId, options.output)
        ? { type: 'text', value: String(options.output) }
        : (toModelOutput as (o: typeof options) => unknown)(options)) as Tool['toModelOutput'];
  }
  return guarded;
}

/**
 * Writes loopguard's decision on the SDK's `ai.toolCall` span, under the same attribute names
 * the span processor uses, so traces and the spanmetrics dashboards show adapter decisions too.
 */
function stampDecision(ticket: CallTicket): Span | undefined {
  const span = activeAiSdkToolSpan();
  if (span === undefined) return undefined;
  span.setAttribute(ATTR_GEN_AI_TOOL_NAME, ticket.call.tool);
  span.setAttribute(ATTR_DECISION, ticket.decision.action);
  span.setAttribute(ATTR_ROUND, ticket.round);
  if (ticket.decision.action === 'refuse') span.setAttribute(ATTR_REFUSAL_REASON, ticket.decision.reason);
  return span;
}

function isAsyncGeneratorFunction(fn: unknown): boolean {
  return typeof fn === 'function' && fn.constructor?.name === 'AsyncGeneratorFunction';
}

function isAsyncIterable(value: unknown): value is AsyncIterable<unknown> {
  return typeof value === 'object' && value !== null && Symbol.asyncIterator in value;
}

/**
 * Streaming tools (`async function*` execute) yield preliminary results and end with the final
 * one; the SDK treats the last value as the result, so that is what loopguard fingerprints.
 */
async function* recordStreamedOutput(
  output: AsyncIterable<unknown>,
  finish: (outcome: CallOutcome) => void,
  signal: AbortSignal | undefined,
): AsyncGenerator<unknown> {
  let last: unknown;
  let finished = false;
  try {
    for await (const part of output) {
      last = part;
      yield part;
    }
    finished = true;
    finish({ result: last });
  } catch (error) {
    finished = true;
    finish({ error: failedCallError(error, signal) });
    throw error;
  } finally {
    // The consumer stopped reading (abort): the call did not complete, it is not in flight.
    if (!finished) finish({ error: new ToolStreamAbandonedError() });
  }
}

/** Recorded when a streaming tool's output was abandoned before its final value. */
class ToolStreamAbandonedError extends Error {
  override readonly name = 'ToolStreamAbandonedError';
  constructor() {
    super('the streaming tool call was abandoned before it finished');
  }
}
