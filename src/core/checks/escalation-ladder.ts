import type { CallCheck } from './call-check.js';

/**
 * Escalation ladder (document 002): breaking the cycle beats killing it.
 * 1. The first stale round yields a nudge that the loop injects before the next model call
 *    (most loops break here: the model did not know it was repeating).
 * 2. A tool that returned only already-seen results `disableAfter` rounds in a row is
 *    disabled: adapters drop it from the tools offered, and calls to it are refused here.
 * 3. The stop comes last (stale-rounds.ts).
 * A round with a new fact re-enables every disabled tool: the run is learning again, and the
 * new facts may make the tool useful. Exempt and polling tools are never disabled.
 */
export const refuseDisabledTool: CallCheck = ({ ledger, tool }) =>
  ledger.disabledTools.has(tool) ? { refuse: 'tool.disabled', facts: { rounds: ledger.staleStreakByTool.get(tool) ?? 0 } } : undefined;
