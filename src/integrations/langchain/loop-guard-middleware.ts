import { AIMessage, type BaseMessage, ToolMessage } from '@langchain/core/messages';
import type { ToolCall as LangChainToolCall } from '@langchain/core/messages/tool';
import type { CallTicket, RunGuard } from '../../core/run-guard.js';
import type { CallOutcome, StopDecision } from '../../core/types.js';
import { recordDeliveredRefusal } from '../delivered-refusals.js';
import { failOpen, failOpenAsync } from '../fail-open.js';
import { requireSetupOption } from '../require-setup-option.js';
import { applyLoopGuardDecision, toolName } from './apply-loop-guard-decision.js';
import { beginLangChainRound } from './begin-lang-chain-round.js';
import { GUARDED_TOOL_RUN } from './guard-lang-chain-tools.js';
import { forgotToolResults, getLangChainRunState } from './lang-chain-run-state.js';
import { recordLangChainUsage } from './record-lang-chain-usage.js';
import { toolResultOutcome } from './tool-result-outcome.js';
import { finishOrFailOpen } from './finish-or-fail-open.js';
import { failedCallError } from '../../core/aborted-call-error.js';
import { abortSignalAt } from '../abort-signal-at.js';

/** What loopguard reads and changes of langchain's `ModelRequest` (the rest passes through). */
export interface LoopGuardModelRequest {
  messages: BaseMessage[];
  tools: unknown[];
  systemPrompt?: string;
  toolChoice?: unknown;
  /** The agent state; its `messages` array identifies the model call across retries. */
  state?: { messages?: unknown };
}

/** What loopguard reads of langchain's `ToolCallRequest`. */
export interface LoopGuardToolCallRequest {
  toolCall: LangChainToolCall;
  tool?: unknown;
}

/**
 * A langchain `createAgent` middleware (the same shape `createMiddleware` returns), written
 * structurally so `loopguard/langchain` needs only `@langchain/core` to load.
 */
export interface LoopGuardMiddleware {
  readonly name: string;
  /**
   * Judges the run and opens a round, then shapes this model call: the nudge, the tools still
   * offered, or on a stop no tools and the stop message.
   */
  readonly wrapModelCall: <REQUEST extends LoopGuardModelRequest, RESPONSE>(
    request: REQUEST,
    handler: (request: REQUEST) => RESPONSE | PromiseLike<RESPONSE>,
  ) => Promise<RESPONSE>;
  /**
   * Present only with `guardToolCalls: true`: claims each tool call before it runs and answers a
   * refusal with a ToolMessage.
   */
  readonly wrapToolCall?: <REQUEST extends LoopGuardToolCallRequest, RESULT>(
    request: REQUEST,
    handler: (request: REQUEST) => RESULT | PromiseLike<RESULT>,
  ) => Promise<RESULT | ToolMessage>;
}

/** Options of {@link loopGuardMiddleware}. */
export interface LoopGuardMiddlewareOptions {
  /**
   * Text appended to the system prompt of every model call, e.g. `guard.describePolicy()`, so
   * the model knows which calls are refused before it is ever refused. Default none.
   */
  policy?: string;
  /** Called at the start of every hook (createGuardedAgentRun warns about reuse after end here). */
  onUse?: () => void;
  /**
   * Also claim every tool call in a `wrapToolCall` hook, for tools you cannot wrap with
   * {@link guardLangChainTools} (tools another middleware registers). Default false, because
   * langchain treats an error passing through any `wrapToolCall` middleware as fatal: with it,
   * a tool that throws fails the agent unless a `toolErrorMiddleware` turns the error into a
   * message, where without it the ToolNode hands the model an error ToolMessage. Guarded tools
   * keep the agent's error handling as it was.
   */
  guardToolCalls?: boolean;
}

/** langchain brands middleware with this registered symbol (`createMiddleware` sets it too). */
const MIDDLEWARE_BRAND = Symbol.for('AgentMiddleware');

/**
 * loopguard as a langchain agent middleware, for `createAgent({ middleware: [...] })`. One model
 * call is one round; every tool call the agent makes is one loopguard call of `run`.
 *
 * - `wrapModelCall` judges the run and opens the round of the model call, then applies the
 *   decision to this call only: the nudge appended, looping tools not offered, and on a stop no
 *   tools and the stop message, so the model answers from what it gathered and the agent ends
 *   on that answer. If the model asks for tools anyway after the stop, its reply is kept without
 *   the tool calls (see withoutInsistedToolCalls). Its token usage is recorded.
 * - with `guardToolCalls`, `wrapToolCall` claims each call before it runs; a refused call never
 *   runs and its ToolMessage carries loopguard's message; a thrown error is recorded and
 *   rethrown (langchain then re-raises it unless a `toolErrorMiddleware` handles it). Without
 *   it, pass the tools through {@link guardLangChainTools} (createGuardedAgentRun does).
 *
 * Only wrap hooks, no `beforeModel` / `afterModel`: those are graph nodes, and each would spend
 * a step of LangGraph's recursion limit (25 by default) on every round, so a healthy agent
 * would hit the limit in half the rounds. Tools already wrapped with {@link guardLangChainTools}
 * for the same run are not claimed twice.
 */
export function loopGuardMiddleware(run: RunGuard, options: LoopGuardMiddlewareOptions = {}): LoopGuardMiddleware {
  requireSetupOption('run', 'run', run);
  requireSetupOption('options', 'options', options, 'loopGuardMiddleware(run, { policy? }), or left out');
  const state = getLangChainRunState(run);
  const wrapToolCall: LoopGuardMiddleware['wrapToolCall'] = async (request, handler) => {
    options.onUse?.();
    const { toolCall } = request;
    const tool = request.tool as { [GUARDED_TOOL_RUN]?: RunGuard } | undefined;
    if (tool?.[GUARDED_TOOL_RUN] === run) return handler(request);
    const ticket = await failOpenAsync<CallTicket | undefined>(`claimCall(${toolCall.name})`, () => run.claimCall({ tool: toolCall.name, args: toolCall.args, callId: toolCall.id }), undefined);
    if (ticket?.decision.action === 'refuse') {
      recordDeliveredRefusal(run, ticket);
      return new ToolMessage({ content: ticket.decision.message, tool_call_id: toolCall.id ?? '', name: toolCall.name });
    }
    const finish = (outcome: CallOutcome): void => finishOrFailOpen(run, ticket, toolCall.name, outcome);
    let result: Awaited<ReturnType<typeof handler>>;
    try {
      result = await handler(request);
    } catch (error) {
      // Aborted: tool() rejects with the abort's reason and its function runs on.
      finish({ error: failedCallError(error, abortSignalAt(request, ['runtime', 'signal'])) });
      throw error;
    }
    finish(toolResultOutcome(result, toolCall.id));
    return result;
  };
  const middleware: LoopGuardMiddleware = {
    name: 'loopguard',
    wrapModelCall: async (request, handler) => {
      options.onUse?.();
      // One model call is one round. A retry middleware outside this one calls the handler
      // again for the same model call, with the same state: that is not a new round.
      const roundKey = request.state?.messages;
      if (roundKey === undefined || roundKey !== state.roundKey) {
        state.roundKey = roundKey;
        // A middleware before this one dropped or cleared tool results the model saw last time.
        // Said before the decision, so a tool switched off for what is now gone is offered again.
        failOpen('contextCompacted', () => forgotToolResults(state, request.messages) && run.contextCompacted(), undefined);
        failOpen('beginRound', () => beginLangChainRound(run), undefined);
      }
      const decision = state.decision;
      const prepared = failOpen(
        'wrapModelCall',
        () => {
          let next = request;
          if (decision !== undefined) {
            const answerTools = decision.action === 'stop' ? run.toolsOfferedAfterStop(request.tools.map((tool) => toolName(tool) ?? '')) : [];
            const applied = applyLoopGuardDecision(decision, { messages: request.messages, tools: request.tools }, answerTools);
            next = { ...next, messages: applied.messages, tools: applied.tools };
            // Forcing a tool choice with no tools offered is an error at every provider.
            if (decision.action === 'stop') {
              next = { ...next, toolChoice: undefined };
              state.finalAnswerOffered = decision;
            }
          }
          if (options.policy !== undefined && options.policy !== '') {
            next = { ...next, systemPrompt: [request.systemPrompt, options.policy].filter(Boolean).join('\n\n') };
          }
          return next;
        },
        request,
      );
      const response = await handler(prepared);
      failOpen('recordUsage', () => recordLangChainUsage(run, response), undefined);
      if (decision?.action !== 'stop') return response;
      return failOpen('wrapModelCall', () => withoutInsistedToolCalls(run, decision, response), response);
    },
    ...(options.guardToolCalls === true ? { wrapToolCall } : {}),
  };
  Object.defineProperty(middleware, MIDDLEWARE_BRAND, { value: true, enumerable: true });
  return middleware;
}

/**
 * The reply to the stop's tool-less model call. A model offered no tools should answer, but a
 * looping one may still ask for tools; running them would only be refused `run.stopped`, round
 * after round, until LangGraph's recursion limit fails the invocation. So the reply keeps its
 * text (and id, usage, metadata) and loses its tool calls, and the agent ends on it as its
 * final answer. A reply with no text gets one line saying why the run ended.
 */
function withoutInsistedToolCalls<RESPONSE>(run: RunGuard, stop: StopDecision, response: RESPONSE): RESPONSE {
  if (!AIMessage.isInstance(response) || (response.tool_calls?.length ?? 0) === 0) return response;
  // Calls of an answer tool are the answer itself (send_msg_to_user): they stay and run.
  const answerTools = run.toolsOfferedAfterStop(response.tool_calls!.map((call) => call.name));
  const answers = response.tool_calls!.filter((call) => answerTools.includes(call.name));
  if (answers.length === response.tool_calls!.length) return response;
  const text = response.text.trim();
  return new AIMessage({
    ...(response.id !== undefined ? { id: response.id } : {}),
    ...(answers.length > 0 ? { tool_calls: answers } : {}),
    content: text !== '' || answers.length > 0 ? text : `The agent was stopped before it wrote an answer: ${stop.detail}.`,
    response_metadata: response.response_metadata,
    ...(response.usage_metadata !== undefined ? { usage_metadata: response.usage_metadata } : {}),
  }) as RESPONSE;
}
