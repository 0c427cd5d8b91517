/**
 * A retry's own count written into a short answer: "Search failed (attempt 3): index refund_v2
 * not found", "Retry 2/5: connection refused", "gave up after 4 attempts". Document 003's
 * runaway retry bumped an `attempt` argument 340 times; the argument is not identity
 * (volatile-fields.ts), but a tool that echoes it into its answer made every failure new, and
 * the loop was never a repeat. The count says how often the agent asked, not what the world
 * answered, so it is not part of the answer. The JSON form (`{"attempt": 3}`) is a volatile
 * field already.
 *
 * Short texts only ({@link MAX_COUNTED_TEXT}): such a line is a failure or a status, and the
 * search stays off the hot path of long results (the bench's 2 KB result never reaches it).
 */
export const MAX_COUNTED_TEXT = 512;

const COUNTER_WORD = /\b(?:attempts?|retry|retries|tries|try)\b/i;
// "attempt 3", "Attempt #3", "attempt=3", "retry 2/5", "try 2 of 5"; "after 4 attempts", "3 retries".
// Each run of spaces belongs to one token (`\s*(?:[:=]\s*)?`, not `\s*[:=]?\s*`): two adjacent `\s*` split a
// run of spaces every possible way, cubic in its length (3,300 characters: 6.5 s).
export const ATTEMPT_COUNTER = /\b((?:attempt|retry|try)\s*(?:(?:#|no\.?|number)\s*)?(?:[:=]\s*)?)\d+|\b\d+(\s+(?:attempts|retries|tries)\b)/gi;

/** The text with each attempt count replaced by `N`; the text itself when it has none or is long. */
export function withoutAttemptCounter(text: string): string {
  if (text.length > MAX_COUNTED_TEXT || !COUNTER_WORD.test(text)) return text;
  return text.replace(ATTEMPT_COUNTER, (_match, word: string | undefined, plural: string | undefined) => (word !== undefined ? `${word}N` : `N${plural}`));
}
