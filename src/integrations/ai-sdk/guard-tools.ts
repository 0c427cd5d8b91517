import type { Tool, ToolSet } from 'ai';
import type { CallTicket, RunGuard } from '../../core/run-guard.js';
import type { Span } from '@opentelemetry/api';
import type { CallOutcome, Novelty } from '../../core/types.js';
import { ATTR_DECISION, ATTR_GEN_AI_TOOL_NAME, ATTR_NOVELTY, ATTR_REFUSAL_REASON, ATTR_ROUND } from '../../otel/attributes.js';
import { recordDeliveredRefusal } from '../delivered-refusals.js';
import { failOpen } from '../fail-open.js';
import { activeAiSdkToolSpan } from './active-ai-sdk-tool-span.js';
import { getAiSdkRunState } from './ai-sdk-run-state.js';

/**
 * What the wrapper reads of the SDK's per-call options (`ToolExecutionOptions`, generic over
 * the call context from AI SDK 7): the rest is passed through to the tool untouched.
 */
type ToolCallOptions = { readonly toolCallId: string };

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

  const guardedExecute = (input: unknown, options: ToolCallOptions): unknown => {
    const ticket = failOpen<CallTicket | undefined>(
      `startCall(${name})`,
      () => run.startCall({ tool: name, args: input, callId: options.toolCallId }),
      undefined,
    );
    const decision = ticket?.decision;
    const span = ticket === undefined ? undefined : failOpen('span', () => stampDecision(ticket), undefined);
    if (decision?.action === 'refuse') {
      state.refusedCallIds.add(options.toolCallId);
      recordDeliveredRefusal(run, ticket!);
      return decision.message;
    }
    const finish = (outcome: CallOutcome): void => {
      if (ticket === undefined) return;
      const novelty = failOpen<Novelty | undefined>(`finishCall(${name})`, () => run.finishCall(ticket, outcome), undefined);
      if (span !== undefined && novelty !== undefined) failOpen('span', () => span.setAttribute(ATTR_NOVELTY, novelty), undefined);
    };

    let output: unknown;
    try {
      output = (execute as (input: unknown, options: ToolCallOptions) => unknown)(input, options);
    } catch (error) {
      finish({ error });
      throw error;
    }
    if (isAsyncIterable(output)) return recordStreamedOutput(output, finish);
    return Promise.resolve(output).then(
      (result) => {
        finish({ result });
        return result;
      },
      (error: unknown) => {
        finish({ error });
        throw error;
      },
    );
  };

  const guarded: Tool = { ...tool, execute: guardedExecute as Tool['execute'] };
  if (toModelOutput !== undefined) {
    guarded.toModelOutput = ((options: { toolCallId: string; input: unknown; output: unknown }) =>
      state.refusedCallIds.has(options.toolCallId)
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
    finish({ error });
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
