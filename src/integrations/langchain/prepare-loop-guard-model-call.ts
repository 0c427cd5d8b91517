import type { BaseMessage } from '@langchain/core/messages';
import type { RunGuard } from '../../core/run-guard.js';
import type { RunDecision } from '../../core/types.js';
import { failOpen } from '../fail-open.js';
import { applyLoopGuardDecision, toolName, type LoopGuardModelInput } from './apply-loop-guard-decision.js';
import { beginLangChainRound } from './begin-lang-chain-round.js';
import { forgotToolResults, getLangChainRunState } from './lang-chain-run-state.js';
import { recordLangChainUsage } from './record-lang-chain-usage.js';

/** A model call prepared by loopguard, and the decision behind it (undefined if the guard failed open). */
export interface PreparedModelCall<TOOL> extends LoopGuardModelInput<TOOL> {
  decision: RunDecision | undefined;
}

/**
 * For a hand-built LangGraph agent: call it at the top of the model node, then call the model
 * with what it returns. It makes this model call one loopguard round and applies the decision:
 *
 * ```ts
 * const callModel = async (state: typeof MessagesAnnotation.State) => {
 *   const call = prepareLoopGuardModelCall(run, { messages: state.messages, tools });
 *   const bound = call.tools.length > 0 ? model.bindTools(call.tools) : model;
 *   return { messages: [await bound.invoke(call.messages)] };
 * };
 * ```
 *
 * The previous reply's token usage (the last AI message in `messages`) is recorded into its
 * round first. The returned messages and tools are for this call only (see
 * applyLoopGuardDecision): on a stop, no tools and the stop message. Route the edge after the
 * model node with {@link loopGuardToolsCondition}. If the guard fails, the call goes out as given.
 */
export function prepareLoopGuardModelCall<TOOL>(run: RunGuard, input: { messages: BaseMessage[]; tools: TOOL[] }): PreparedModelCall<TOOL> {
  return failOpen<PreparedModelCall<TOOL>>(
    'prepareLoopGuardModelCall',
    () => {
      const lastReply = [...input.messages].reverse().find((message) => message.type === 'ai');
      if (lastReply !== undefined) recordLangChainUsage(run, lastReply);
      const state = getLangChainRunState(run);
      // Messages trimmed or summarised since the last model call: the model no longer has those
      // results. Said before the decision, so a tool switched off for them is offered again.
      if (forgotToolResults(state, input.messages)) run.contextCompacted();
      const decision = beginLangChainRound(run);
      if (decision.action === 'stop') state.finalAnswerOffered = decision;
      const answerTools = decision.action === 'stop' ? run.toolsOfferedAfterStop(input.tools.map((tool) => toolName(tool) ?? '')) : [];
      return { ...applyLoopGuardDecision(decision, input, answerTools), decision };
    },
    { messages: input.messages, tools: input.tools, decision: undefined },
  );
}
