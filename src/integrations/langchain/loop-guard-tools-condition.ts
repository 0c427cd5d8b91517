import type { BaseMessage } from '@langchain/core/messages';
import type { RunGuard } from '../../core/run-guard.js';
import { getLangChainRunState } from './lang-chain-run-state.js';

/** LangGraph's END node name (`END` from @langchain/langgraph), spelled out so this entry never loads LangGraph. */
const END = '__end__';

/** Options of {@link loopGuardToolsCondition}. */
export interface LoopGuardToolsConditionOptions<TOOLS_NODE extends string> {
  /** The name of your ToolNode in the graph. Default `'tools'`. */
  toolsNode?: TOOLS_NODE;
}

/**
 * A conditional edge for a hand-built LangGraph agent, in place of LangGraph's `toolsCondition`:
 * to the tools node when the model asked for tools, to the end when it answered — and to the end
 * once loopguard stopped the run and the model had its tool-less final call, even if it asked for
 * tools again (they would only be refused `run.stopped`, round after round, until the recursion
 * limit). Pair it with {@link prepareLoopGuardModelCall} in the model node.
 */
export function loopGuardToolsCondition<TOOLS_NODE extends string = 'tools'>(
  run: RunGuard,
  options: LoopGuardToolsConditionOptions<TOOLS_NODE> = {},
): (state: BaseMessage[] | { messages: BaseMessage[] }) => TOOLS_NODE | typeof END {
  const toolsNode = (options.toolsNode ?? 'tools') as TOOLS_NODE;
  const state = getLangChainRunState(run);
  return (graphState) => {
    const messages = Array.isArray(graphState) ? graphState : graphState.messages;
    const last = messages.at(-1) as { tool_calls?: Array<{ name?: unknown }> } | undefined;
    const calls = last?.tool_calls ?? [];
    if (calls.length === 0) return END;
    if (state.finalAnswerOffered === undefined) return toolsNode;
    // After the stop, a reply that only calls answer tools still runs them: the answer is
    // delivered, and the next (tool-less) model call ends the run.
    const names = calls.map((call) => (typeof call.name === 'string' ? call.name : ''));
    return run.toolsOfferedAfterStop(names).length === names.length ? toolsNode : END;
  };
}
