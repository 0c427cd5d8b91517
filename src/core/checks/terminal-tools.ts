import type { CallCheck } from './call-check.js';

/**
 * Terminal tools (`submit`, `finish`, `final_answer`; policy `terminal: true`, or a shell
 * line that submits) are never refused by the repeat checks or the ladder: some protocols
 * call them twice by design — SWE-agent's first `submit` returns a review checklist, the
 * identical second one submits — and refusing the last step of a finished task wastes the
 * whole run. Budgets were checked before this, so a terminal call still cannot start past a
 * limit.
 */
export const allowTerminalTool: CallCheck = ({ terminal }) => (terminal ? { allow: 'terminal' } : undefined);
