import type { CallCheck } from './call-check.js';

/**
 * Escalation ladder (document 002): breaking the cycle beats killing it.
 * 1. The first stale round yields a nudge that the loop injects before the next model call
 *    (most loops break here: the model did not know it was repeating).
 * 2. A tool that returned only already-seen results `disableAfter` rounds in a row is
 *    disabled: adapters drop it from the tools offered, and calls to it are refused here.
 *    For a shell tool the unit is the command family (`bash(grep)`), not the tool: a coding
 *    agent with one `bash` tool would otherwise lose every command. The only tool the run
 *    uses is never disabled; the stop rule decides instead (round-verdict.ts).
 * 3. The stop comes last (stale-rounds.ts).
 * A round with a new fact re-enables everything: the run is learning again, and the new
 * facts may make the tool useful. Exempt, polling and terminal tools are never disabled.
 */
export const refuseDisabledTool: CallCheck = ({ ledger, ladderKey }) =>
  ledger.disabledTools.has(ladderKey) ? { refuse: 'tool.disabled', facts: { rounds: ledger.staleStreakByTool.get(ladderKey) ?? 0 } } : undefined;
