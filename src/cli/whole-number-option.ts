import { CliOptionError } from './cli-option-error.js';

/** Node's largest timer: a longer delay fires after 1 ms (TimeoutOverflowWarning), the opposite of what was asked. */
export { MAX_TIMER_MS } from '../core/shared-ledger/shared-ledger-options.js';

export interface WholeNumberRange {
  min: number;
  /** Default: none (up to Number.MAX_SAFE_INTEGER). */
  max?: number;
  /** What the number counts, for the message: `milliseconds`. */
  unit?: string;
}

/**
 * A commander argument parser for an option that takes a whole number in a range. Throws a
 * {@link CliOptionError} naming the flag, the range and the value given (`--port must be a
 * whole number from 0 to 65535, got "abc"`). Only plain digits are accepted: `Number()` alone
 * would take `1e3`, `0x10`, `' 7'` and `''` (as 0), none of which a user means as a count.
 */
export function wholeNumberOption(command: string, flag: string, range: WholeNumberRange): (value: string) => number {
  const what = `a whole number${range.unit !== undefined ? ` of ${range.unit}` : ''}`;
  const bounds = range.max !== undefined ? `from ${range.min} to ${range.max}` : `≥ ${range.min}`;
  return (value: string): number => {
    const number = Number(value);
    const fits = /^\d+$/.test(value) && Number.isSafeInteger(number) && number >= range.min && (range.max === undefined || number <= range.max);
    if (!fits) throw new CliOptionError(command, flag, `${flag} must be ${what} ${bounds}, got ${JSON.stringify(value)}`);
    return number;
  };
}
