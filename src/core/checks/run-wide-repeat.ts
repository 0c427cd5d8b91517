import { CallState } from '../run-ledger.js';
import type { CallCheck } from './call-check.js';
import { isRereadAfterWrite } from './read-after-write.js';

/**
 * Run-wide repeat of a read (document 000; profiles general and researcher): a read
 * identical to one already executed without error in this run — an empty result included —
 * with nothing written since is refused before it runs. Its result would be the same, and
 * that result is already in the conversation.
 *
 * Document 001 generalised: once anything that may write has run, the state a read saw may
 * have changed, so the read may run again (read-after-write.ts). A write or a call of
 * unknown effect is judged by its outcomes instead (outcome-confirmed-repeat.ts) — except a
 * tool that needs approval, and every call in the researcher profile: the write itself
 * repeating is the loop that sends the same email every round.
 *
 * Pagination (document 001): for a tool with `cursorArg`, a cursor that did not advance asks
 * for a page the model already has; refused in every profile.
 */
export const refuseRunWideRepeat: CallCheck = ({ record, epoch, options, policy, effect }) => {
  if (record === undefined || record.state !== CallState.Succeeded) return undefined;
  const read = effect === 'read';
  if (read && isRereadAfterWrite(record, epoch)) return { allow: 'reread' };
  if (policy.cursorArg !== undefined) return { refuse: 'pagination.cursor_not_advanced', facts: { cursorArg: policy.cursorArg } };
  if (!options.runWideRepeat) return undefined;
  if (policy.approval || options.profile === 'researcher') return { refuse: 'repeat.run_wide' };
  // A read the tool answered with an error (`Error executing query: Unknown column …`) is judged
  // as the thrown error it stands for, whose identical third attempt is refused: by its outcomes
  // (outcome-confirmed-repeat.ts). Refused at the first repeat, a model that retried a failing
  // query three times, then fixed it, was stopped by refused rounds one turn before the fix
  // (InterCode-SQL, eval/WIDE.md: 3 of 1,812 healthy runs).
  if (read && !record.answeredError) return { refuse: 'repeat.run_wide' };
  return undefined;
};
