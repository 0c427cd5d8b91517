import type { CallCheck } from './call-check.js';

/**
 * Back-to-back repeat (document 000, chat profile): the `backToBackLimit`-th (3rd) call in
 * a row with the same tool and arguments is refused; a call to anything else in between
 * starts the count over, so paging with changing arguments never trips it. Retries of a
 * failed call were decided before this check (retry-budget.ts). Refused attempts count in
 * the streak: a model that insists keeps being refused.
 */
export const refuseBackToBackRepeat: CallCheck = ({ ledger, options, argsHash }) => {
  if (ledger.lastArgsHash !== argsHash) return undefined;
  const position = ledger.sameCallStreak + 1;
  return position >= options.backToBackLimit ? { refuse: 'repeat.back_to_back', facts: { position } } : undefined;
};
