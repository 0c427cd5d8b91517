import type { RunGuard } from '../../core/run-guard.js';
import { recordDeliveredRefusal } from '../delivered-refusals.js';
import { getAiSdkRunState } from './ai-sdk-run-state.js';

interface StepContent {
  type: string;
  invalid?: boolean;
  toolName?: string;
  toolCallId?: string;
  input?: unknown;
}

/**
 * Counts calls the model made to tools loopguard took away. A tool dropped from `activeTools`
 * is not offered, but a model that is looping often calls it anyway (it is in the
 * conversation); the SDK then answers "unavailable tool" itself and the wrapped `execute`
 * never runs. Insisting on a disabled tool is the stale loop going on by other means, so the
 * call is recorded as refused; without this the run would loop on "unavailable tool" answers
 * that loopguard never sees. Only calls loopguard would refuse are recorded: an invalid call
 * for any other reason (bad input, an unknown tool) is the SDK's business.
 *
 * The SDK tells the model "Model tried to call unavailable tool"; loopGuardPrepareStep replaces
 * that text with loopguard's message (why the tool is gone, what to do instead). Used without
 * prepareStep, the model sees the SDK's text.
 *
 * Idempotent per step: called from both stopWhen and prepareStep, which see the same steps.
 */
export function recordUnofferedToolCalls(run: RunGuard, steps: ReadonlyArray<{ content: ReadonlyArray<unknown> }>): void {
  const state = getAiSdkRunState(run);
  for (let index = state.unofferedCheckedSteps; index < steps.length; index += 1) {
    for (const part of steps[index].content as ReadonlyArray<StepContent>) {
      if (part.type !== 'tool-call' || part.invalid !== true || typeof part.toolName !== 'string') continue;
      const call = { tool: part.toolName, args: part.input, callId: part.toolCallId };
      if (run.shouldRefuse(call).action !== 'refuse') continue;
      const ticket = run.startCall(call);
      if (ticket.decision.action !== 'refuse') continue;
      recordDeliveredRefusal(run, ticket);
      if (part.toolCallId !== undefined) state.unofferedRefusals.set(part.toolCallId, ticket.decision.message);
    }
  }
  state.unofferedCheckedSteps = steps.length;
}
