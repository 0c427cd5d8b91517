import type { RunLedger } from '../run-ledger.js';
import type { CallCheck } from './call-check.js';

/**
 * Answer tools are sacred. Tools that deliver the answer, hand off or finish the task
 * (`send_msg_to_user`, `respond`, `transfer_to_human_agents`, `final_answer`, `submit`,
 * `attempt_completion`, `done`, …: the well-known tables; policy `terminal: true`; a shell
 * line that submits) are the one call a run exists to make. They are:
 * - never refused by the repeat checks or the ladder: some protocols call them twice by
 *   design (SWE-agent's first `submit` returns a review checklist, the identical second one
 *   submits), and a customer-service agent says "anything else?" more than once;
 * - never refused by a budget: the budget stop is there to end the run, and the answer is
 *   how a run ends well (this check runs before the budgets for that reason);
 * - never disabled by the ladder (round-verdict.ts skips them);
 * - not swallowed by a stop: see {@link deliversAnswerAfterStop}.
 */
export const allowTerminalTool: CallCheck = ({ terminal }) => (terminal ? { allow: 'terminal' } : undefined);

/**
 * A stop is due and the model's step carries an answer: the answer is delivered and the run
 * ends after it. Once a stop is latched every other call is refused `run.stopped`, but an
 * answer call still runs — until one has succeeded after the stop. Later answer calls are
 * refused like the rest: the answer was delivered, and a model that keeps "answering" after
 * that is looping on its answer tool. A run the host ended is over and answers nothing.
 */
export function deliversAnswerAfterStop(ledger: RunLedger, terminal: boolean): boolean {
  return terminal && !ledger.answeredAfterStop;
}
