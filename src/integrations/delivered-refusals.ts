import type { CallTicket, RunGuard } from '../core/run-guard.js';
import type { RefuseDecision } from '../core/types.js';

/** One refusal as an adapter delivered it: which call, why, and the words the model got. */
export interface DeliveredRefusal {
  round: number;
  tool: string;
  callId: string | undefined;
  reason: RefuseDecision['reason'];
  message: string;
  previousCallId?: string;
}

const refusalsByRun = new WeakMap<RunGuard, DeliveredRefusal[]>();

/** The refusals delivered in `run`, in order. */
export function deliveredRefusals(run: RunGuard): DeliveredRefusal[] {
  let refusals = refusalsByRun.get(run);
  if (refusals === undefined) {
    refusals = [];
    refusalsByRun.set(run, refusals);
  }
  return refusals;
}

/**
 * Records that a refused call's message reached the model. Kept beside the run (not in it)
 * because only the adapter knows the refusal was actually delivered.
 */
export function recordDeliveredRefusal(run: RunGuard, ticket: CallTicket): void {
  const decision = ticket.decision;
  if (decision.action !== 'refuse') return;
  deliveredRefusals(run).push({
    round: ticket.round,
    tool: decision.tool,
    callId: ticket.call.callId,
    reason: decision.reason,
    message: decision.message,
    ...(decision.previousCallId !== undefined ? { previousCallId: decision.previousCallId } : {}),
  });
}
