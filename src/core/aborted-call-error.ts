import { describeError } from './result-fingerprint.js';
import type { PrehashedOutcome } from './types.js';

/**
 * Recorded in place of the error of a call that failed after its caller aborted it. What the
 * call throws then is the abort's reason, which is anything the caller chose
 * (`controller.abort(new Error('user pressed stop'))`, a string): read as a deterministic
 * error, it said the call certainly did nothing and freed a business key, while the tool may
 * have written, or (LangChain's `tool()`, which rejects on abort and lets its function run on)
 * still be writing. Named `AbortError`, it is recorded as cut short (outcome `timeout`): a write's
 * key stays held, as for a timed-out write (document 001).
 */
export class AbortedCallError extends Error {
  override readonly name = 'AbortError';
  /** `reason`: what the call threw, if it threw. */
  constructor(message: string, readonly reason?: unknown) {
    super(message);
  }
}

/** The failure to record for a call that threw `error`: an abort when `signal` was aborted by then. */
export function failedCallError(error: unknown, signal: AbortSignal | undefined): unknown {
  // A signal-like object whose `aborted` getter throws is no abort: the error is recorded as it is.
  let aborted = false;
  try {
    aborted = signal?.aborted === true;
  } catch {
    aborted = false;
  }
  return aborted && !(error instanceof AbortedCallError) ? new AbortedCallError(`aborted by its caller: ${describeError(error).message}`, error) : error;
}

/**
 * The outcome of an allowed call that was then never run (cancelled before it started): turned
 * away, like a claim the store did not take. It frees a business key, and counts as a passing
 * failure, not as an error of the call's arguments.
 */
export const CANCELLED_BEFORE_RUN: PrehashedOutcome = { outcome: 'overloaded', errorType: 'tool.cancelled' };
