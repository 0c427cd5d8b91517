import type { CallCheck } from './call-check.js';

/**
 * Exempt tools (document 000): a tool whose protocol is to be called again with the same
 * arguments — waiting for a subagent — skips both repeat checks; checking it would refuse
 * every second wait and cancel a subagent that is still working. The tool declares this
 * once (`tools[name].exempt`), not each feature, so a new feature cannot ship without it.
 * Exempt calls still count against the call, round and time budgets (checked earlier).
 */
export const allowExemptTool: CallCheck = ({ policy }) => (policy.exempt ? { allow: 'exempt' } : undefined);
