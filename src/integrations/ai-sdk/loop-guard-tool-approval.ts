import type { RunGuard } from '../../core/run-guard.js';
import { recordDeliveredRefusal } from '../delivered-refusals.js';
import { failOpen } from '../fail-open.js';
import { getAiSdkRunState, markRefusedCall } from './ai-sdk-run-state.js';

/** AI SDK 7's approval status (declared here: the v6 types loopguard builds against lack it). */
export type LoopGuardApprovalStatus = undefined | { type: 'denied'; reason: string };

/**
 * AI SDK 7 (`ai@7`, Node 22): a `toolApproval` function that denies, in the loop, a call
 * loopguard refuses. The model receives an `execution-denied` result with loopguard's reason,
 * which is more honest than guardTools' stand-in result (the call did not run). Calls
 * loopguard allows return `undefined` ("not applicable") and go on to the wrapped `execute`,
 * which records their results, so use it together with {@link guardTools}:
 *
 * ```ts
 * generateText({ model, ...guarded, toolApproval: loopGuardToolApproval(guarded.run) });
 * ```
 *
 * A denied call is recorded as refused here; guardTools never sees it.
 */
export function loopGuardToolApproval(run: RunGuard): (options: { toolCall: { toolName: string; toolCallId: string; input: unknown } }) => LoopGuardApprovalStatus {
  const state = getAiSdkRunState(run);
  return ({ toolCall }) =>
    failOpen<LoopGuardApprovalStatus>(
      'toolApproval',
      () => {
        const call = { tool: toolCall.toolName, args: toolCall.input, callId: toolCall.toolCallId };
        if (run.shouldRefuse(call).action !== 'refuse') return undefined;
        const ticket = run.startCall(call);
        if (ticket.decision.action !== 'refuse') return undefined;
        // By id and message: a later call reusing this id (some providers do) is not marked.
        markRefusedCall(state, toolCall.toolCallId, ticket.decision.message);
        recordDeliveredRefusal(run, ticket);
        return { type: 'denied', reason: ticket.decision.message };
      },
      undefined,
    );
}
