import { CallState } from '../run-ledger.js';
import type { CallCheck } from './call-check.js';
import { isRereadAfterWrite } from './read-after-write.js';

/**
 * Run-wide repeat (document 000, researcher profile): a call identical to one already
 * executed without error in this run — an empty result included — is refused before it
 * runs; researchers only get tools that need no approval, so the same call returns the same
 * result, and that result is already in the conversation.
 *
 * Pagination (document 001): for a tool with `cursorArg`, the same check runs in every
 * profile — a cursor that did not advance asks for a page the model already has.
 *
 * A read after a write is allowed again (read-after-write.ts).
 */
export const refuseRunWideRepeat: CallCheck = ({ record, ledger, options, policy }) => {
  if (record === undefined || record.state !== CallState.Succeeded) return undefined;
  // Only reads may run again after a write; the write itself repeating is the loop that
  // sends the same email every round.
  if (!policy.approval && isRereadAfterWrite(record, ledger.writeEpoch)) return { allow: 'reread' };
  if (policy.cursorArg !== undefined) return { refuse: 'pagination.cursor_not_advanced', facts: { cursorArg: policy.cursorArg } };
  if (options.runWideRepeat) return { refuse: 'repeat.run_wide' };
  return undefined;
};
