import type { RunContext, ToolInputGuardrailDefinition } from '@openai/agents';
import type { CallTicket, RunGuard } from '../../core/run-guard.js';
import { recordDeliveredRefusal } from '../delivered-refusals.js';
import { failOpen, failOpenAsync } from '../fail-open.js';
import { settleUnreturnedCalls } from './settle-unreturned-calls.js';
import { getOpenAIAgentsRunState } from './openai-agents-run-state.js';

/** Name the guardrail shows in the SDK's traces and `toolInputGuardrailResults`. */
export const LOOP_GUARD_INPUT_GUARDRAIL_NAME = 'loopguard';

/**
 * A tool input guardrail that asks loopguard before the call runs. A refused call never runs:
 * `rejectContent` hands the model loopguard's message as the call's output (what happened and
 * what to do next), and the run goes on. An allowed call is in flight until
 * {@link loopGuardToolOutputGuardrail} sees its output.
 *
 * Built as a plain definition object (no runtime import of @openai/agents), so loopguard does
 * not load the SDK for users who never call this.
 */
export function loopGuardToolInputGuardrail(run: RunGuard): ToolInputGuardrailDefinition<any> {
  const state = getOpenAIAgentsRunState(run);
  return {
    type: 'tool_input',
    name: LOOP_GUARD_INPUT_GUARDRAIL_NAME,
    run: async ({ toolCall, context }) => {
      state.runContext ??= context as RunContext<unknown>;
      // The same call guarded again: its approval came (preApprovalInputGuardrails ran this
      // guardrail before asking). The claim made then is settled first, or it would refuse this one.
      failOpen('settle', () => settleUnreturnedCalls(run, { callId: toolCall.callId }), undefined);
      // The one door (issue 23 #1): claimed across processes when the guard has a shared store.
      const ticket = await failOpenAsync<CallTicket | undefined>(
        `claimCall(${toolCall.name})`,
        () => run.claimCall({ tool: toolCall.name, args: toolCall.arguments, callId: toolCall.callId }),
        undefined,
      );
      if (ticket === undefined) return { behavior: { type: 'allow' } };
      const decision = ticket.decision;
      if (decision.action === 'refuse') {
        recordDeliveredRefusal(run, ticket);
        return {
          behavior: { type: 'rejectContent', message: decision.message },
          outputInfo: { reason: decision.reason, previousCallId: decision.previousCallId },
        };
      }
      state.tickets.set(toolCall.callId, ticket);
      return { behavior: { type: 'allow' }, outputInfo: { kind: decision.kind } };
    },
  };
}
