import { type BaseMessage, HumanMessage } from '@langchain/core/messages';
import { answerToolsNote } from '../../core/messages.js';
import type { RunDecision } from '../../core/types.js';

/** The parts of a model call loopguard changes: what the model reads and which tools it is offered. */
export interface LoopGuardModelInput<TOOL> {
  messages: BaseMessage[];
  tools: TOOL[];
}

/**
 * The model call as loopguard's decision for its round wants it. Nothing is changed in the
 * conversation state: the added message is for this call only, so a nudge never piles up in
 * the thread's history and the next turn on the thread does not start with "tools are gone".
 * - going stale: the nudge is appended (the model is told it is repeating itself before
 *   anything is taken away);
 * - a tool looped for several rounds: it is not offered;
 * - the run must stop: no tools but `answerTools` are offered and the stop message is
 *   appended, so the model writes its answer from what it gathered instead of being cut off
 *   mid-thought.
 * loopguard speaks as the user: a system message mid-conversation is rejected or warned about
 * by several providers, and the model treats a user turn as an instruction.
 */
export function applyLoopGuardDecision<TOOL>(
  decision: RunDecision,
  input: LoopGuardModelInput<TOOL>,
  answerTools: readonly string[] = [],
): LoopGuardModelInput<TOOL> {
  if (decision.action === 'stop') {
    // A stop never swallows the answer: the run's answer tools (run.toolsOfferedAfterStop) stay offered.
    const kept = answerTools.length === 0 ? [] : input.tools.filter((tool) => answerTools.includes(toolName(tool) ?? ''));
    const offered = kept.map((tool) => toolName(tool) ?? '');
    return { messages: [...input.messages, new HumanMessage(decision.message + answerToolsNote(offered))], tools: kept };
  }
  const disabled = new Set(decision.disabledTools);
  const tools = disabled.size === 0 ? input.tools : input.tools.filter((tool) => !disabled.has(toolName(tool) ?? ''));
  const messages = decision.nudge === undefined ? input.messages : [...input.messages, new HumanMessage(decision.nudge)];
  return { messages, tools };
}

export function toolName(tool: unknown): string | undefined {
  if (typeof tool !== 'object' || tool === null) return undefined;
  const name = (tool as { name?: unknown }).name;
  return typeof name === 'string' ? name : undefined;
}
