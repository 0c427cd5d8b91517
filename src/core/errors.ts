/**
 * Thrown for a bad options object or policy file. `field` is the path of the offending
 * field (e.g. `tools.search.poll.deadlineMs`); the message says how to fix it.
 */
export class LoopGuardConfigError extends Error {
  override readonly name = 'LoopGuardConfigError';
  readonly field: string;
  readonly source: string | undefined;

  constructor(options: { field: string; message: string; source?: string }) {
    const where = options.source ? `${options.source}: ` : '';
    super(`${where}${options.field}: ${options.message}`);
    this.field = options.field;
    this.source = options.source;
  }
}

/** Raised internally when a value cannot be fingerprinted; never escapes the core. */
export class UnfingerprintableValueError extends Error {
  override readonly name = 'UnfingerprintableValueError';
  readonly why: 'cycle' | 'function' | 'bigint' | 'symbol' | 'non-finite-number' | 'too-large' | 'undefined';
  constructor(why: UnfingerprintableValueError['why']) {
    super(`value cannot be fingerprinted: ${why}`);
    this.why = why;
  }
}

/**
 * Thrown by the engine's call methods (`startCall`, `shouldRefuse`, `claimCall`, `recordCall`,
 * `finishCall`, `argsHash`) for a call or outcome of the wrong shape, before anything is
 * recorded: a run is never left with a call in flight that the host cannot finish. `field`
 * names the offending value (`call.tool`, `outcome`); the message says what to pass instead.
 * A programming error in the host, so it is thrown, not failed open: unlike a store outage,
 * retrying cannot fix it.
 */
export class InvalidToolCallError extends TypeError {
  override readonly name = 'InvalidToolCallError';
  readonly field: string;

  constructor(options: { field: string; message: string }) {
    super(`${options.field}: ${options.message}`);
    this.field = options.field;
  }
}
