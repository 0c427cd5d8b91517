import type { CallModelInputFilter, CallModelInputFilterArgs, ModelInputData } from '@openai/agents';
import type { RunGuard } from '../../core/run-guard.js';
import { answerToolsNote } from '../../core/messages.js';
import type { RunDecision } from '../../core/types.js';
import { failOpen } from '../fail-open.js';
import { beginAgentRound } from './begin-agent-round.js';
import { getOpenAIAgentsRunState } from './openai-agents-run-state.js';

/**
 * A `callModelInputFilter` (run option) that runs right before each model call: it makes
 * sure the round is open, and tells the model where the run stands by appending to the
 * system instructions for this call only (instructions are not written to the session, so
 * a nudge does not pile up in history):
 * - going stale: the nudge (the model is told it is repeating itself);
 * - the run must stop: the stop message; the tools are already hidden by `isEnabled`.
 * With `options.policy` (`guard.describePolicy()`), the rules are appended too, so the model
 * knows which calls will be refused before it is ever refused (document 000).
 * Your own filter, if any, runs first.
 */
export function loopGuardCallModelInputFilter(
  run: RunGuard,
  filter?: CallModelInputFilter<any>,
  options: { policy?: string } = {},
): CallModelInputFilter<any> {
  const state = getOpenAIAgentsRunState(run);
  return async (args: CallModelInputFilterArgs<any>): Promise<ModelInputData> => {
    const modelData = filter === undefined ? args.modelData : await filter(args);
    const decision = failOpen<RunDecision | undefined>(
      'callModelInputFilter',
      () => {
        const decision = beginAgentRound(run, undefined);
        // This model call's turn is complete: the next isEnabled belongs to the next turn.
        state.roundPendingFilter = false;
        // Your filter dropped tool results from this call's input (a trimmed or summarised
        // history): the model no longer has them, so reading them again is no repeat.
        if (filter !== undefined && dropsToolResults(args.modelData.input, modelData.input)) run.contextCompacted();
        return decision;
      },
      undefined,
    );
    const note =
      decision?.action === 'stop'
        ? decision.message + failOpen('answerToolsNote', () => answerToolsNote(run.toolsOfferedAfterStop((args.agent?.tools ?? []).map((tool) => tool.name))), '')
        : decision?.nudge;
    const additions = [options.policy, note].filter((text): text is string => text !== undefined && text !== '');
    if (additions.length === 0) return modelData;
    return {
      ...modelData,
      instructions: [modelData.instructions, ...additions].filter(Boolean).join('\n\n'),
    };
  };
}

/** Does `kept` lack a function call result that `given` holds? */
function dropsToolResults(given: ModelInputData['input'], kept: ModelInputData['input']): boolean {
  const keptIds = new Set<string>();
  for (const item of kept) if (item.type === 'function_call_result') keptIds.add(item.callId);
  for (const item of given) if (item.type === 'function_call_result' && !keptIds.has(item.callId)) return true;
  return false;
}
