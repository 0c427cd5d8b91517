import type { CallTicket, RunGuard } from '../../core/run-guard.js';
import type { CallOutcome } from '../../core/types.js';
import { failOpen } from '../fail-open.js';

/** Records a claimed call's outcome (nothing for a call that was never claimed), failing open. */
export function finishOrFailOpen(run: RunGuard, ticket: CallTicket | undefined, name: string, outcome: CallOutcome): void {
  if (ticket === undefined) return;
  failOpen(`finishCall(${name})`, () => run.finishCall(ticket, outcome), undefined);
}
