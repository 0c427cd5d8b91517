import type { ModelMessage, PrepareStepFunction, PrepareStepResult, ToolSet } from 'ai';
import { answerToolsNote } from '../../core/messages.js';
import type { RunGuard } from '../../core/run-guard.js';
import type { RunDecision } from '../../core/types.js';
import { failOpen } from '../fail-open.js';
import { requireSetupOption } from '../require-setup-option.js';
import { getAiSdkRunState } from './ai-sdk-run-state.js';
import { recordStepUsage } from './record-step-usage.js';
import { recordUnofferedToolCalls } from './record-unoffered-tool-calls.js';

/** Options of {@link loopGuardPrepareStep}. */
export interface LoopGuardPrepareStepOptions<TOOLS extends ToolSet> {
  /** The tools passed to generateText: needed to compute `activeTools` without the disabled ones. */
  tools: TOOLS;
  /** The `activeTools` you would pass to generateText, if any. Default: every tool. */
  activeTools?: Array<keyof TOOLS>;
  /** Your own prepareStep; it runs first and loopguard narrows its result. */
  prepareStep?: PrepareStepFunction<TOOLS>;
}

/**
 * A `prepareStep` that makes each AI SDK step one loopguard round.
 *
 * Before every model call it records the previous step's token usage, asks loopguard how the
 * run stands after that step, and opens the round of the coming model call. Then:
 * - going stale: the nudge is appended to this step's messages (the model is told it is
 *   repeating itself before anything is taken away);
 * - a tool looped for several rounds: it is dropped from `activeTools`;
 * - the run must stop: the model is offered no tools (`toolChoice: 'none'`, `activeTools: []`)
 *   and told why, so it answers from what it gathered instead of being cut off mid-thought.
 *
 * Messages added here apply to this step only (the SDK does not carry prepareStep messages
 * forward), which is what a per-round nudge wants. Calls the model made anyway to a tool that
 * was taken away are counted as refused, and their "unavailable tool" error is replaced by
 * loopguard's reason in every later step.
 */
export function loopGuardPrepareStep<TOOLS extends ToolSet>(
  run: RunGuard,
  options: LoopGuardPrepareStepOptions<TOOLS>,
): PrepareStepFunction<TOOLS> {
  requireSetupOption('run', 'run', run);
  requireSetupOption('options', 'options', options, 'loopGuardPrepareStep(run, { tools })');
  requireSetupOption('tool-set', 'tools', options.tools, 'the tools passed to generateText');
  const state = getAiSdkRunState(run);
  const allToolNames = (options.activeTools ?? Object.keys(options.tools)) as string[];

  return async (step) => {
    // Marked when it runs, not when it is created: settings spread into generateText with the
    // user's own prepareStep in its place must not leave stopWhen waiting for a final step
    // that this function will never offer.
    state.prepareStepInstalled = true;
    const base: PrepareStepResult<TOOLS> = (await options.prepareStep?.(step)) ?? {};

    const decision = failOpen<RunDecision | undefined>(
      'prepareStep',
      () => {
        recordUnofferedToolCalls(run, step.steps);
        recordStepUsage(run, step.steps.length, step.steps[step.steps.length - 1]?.usage);
        // Your prepareStep dropped tool results from this call's messages (pruneMessages, a
        // sliding window): the model no longer has them, so reading them again is no repeat.
        // Said before the decision, so a tool switched off for answering what is now gone is
        // offered again in this very call.
        if (base.messages !== undefined && dropsToolResults(step.messages, base.messages)) run.contextCompacted();
        // Judge the step that just finished while it is still the current round (so the nudge
        // can name the tools that repeated), then open the round of the coming model call.
        const decision = run.shouldStop();
        run.beginRound();
        return decision;
      },
      undefined,
    );
    if (decision === undefined) return base;

    const messages = withLoopGuardRefusals(base.messages ?? step.messages, state.unofferedRefusals);
    const rewritten = messages !== (base.messages ?? step.messages);
    if (decision.action === 'stop') {
      state.finalAnswerOffered = true;
      // An agent that answers through a tool keeps that tool: a stop never swallows the answer.
      const answerTools = failOpen('toolsOfferedAfterStop', () => run.toolsOfferedAfterStop(allToolNames), []);
      return {
        ...base,
        toolChoice: answerTools.length > 0 ? 'auto' : 'none',
        activeTools: answerTools as NonNullable<NonNullable<PrepareStepResult<TOOLS>>['activeTools']>,
        messages: [...messages, loopGuardMessage(decision.message + answerToolsNote(answerTools))],
      };
    }

    const disabled = new Set(decision.disabledTools);
    const offered = ((base.activeTools as string[] | undefined) ?? allToolNames).filter((name) => !disabled.has(name));
    return {
      ...base,
      ...(disabled.size > 0 ? { activeTools: offered as NonNullable<NonNullable<PrepareStepResult<TOOLS>>['activeTools']> } : {}),
      ...(decision.nudge !== undefined
        ? { messages: [...messages, loopGuardMessage(decision.nudge)] }
        : rewritten
          ? { messages }
          : {}),
    };
  };
}

/**
 * loopguard speaks to the model as the user: a system message mid-conversation is rejected or
 * warned about by several providers, and the model treats a user turn as an instruction.
 */
function loopGuardMessage(text: string): ModelMessage {
  return { role: 'user', content: [{ type: 'text', text }] };
}

/**
 * The messages with loopguard's refusal in place of the SDK's "unavailable tool" error for
 * calls to tools loopguard took away (see recordUnofferedToolCalls). Returns the same array
 * when there is nothing to replace.
 */
function withLoopGuardRefusals(messages: ModelMessage[], refusals: ReadonlyMap<string, string>): ModelMessage[] {
  if (refusals.size === 0) return messages;
  let changed = false;
  const result = messages.map((message) => {
    if (message.role !== 'tool') return message;
    let touched = false;
    const content = message.content.map((part) => {
      if (part.type !== 'tool-result') return part;
      const refusal = refusals.get(part.toolCallId);
      if (refusal === undefined) return part;
      touched = true;
      return { ...part, output: { type: 'error-text' as const, value: refusal } };
    });
    if (!touched) return message;
    changed = true;
    return { ...message, content };
  });
  return changed ? result : messages;
}

/** Does `kept` lack a tool result that `given` holds (messages pruned, summarised or trimmed)? */
function dropsToolResults(given: ModelMessage[], kept: ModelMessage[]): boolean {
  const keptIds = new Set<string>();
  for (const message of kept) {
    if (message.role !== 'tool') continue;
    for (const part of message.content) if (part.type === 'tool-result') keptIds.add(part.toolCallId);
  }
  for (const message of given) {
    if (message.role !== 'tool') continue;
    for (const part of message.content) if (part.type === 'tool-result' && !keptIds.has(part.toolCallId)) return true;
  }
  return false;
}
