import type { CallCheck } from './call-check.js';

/**
 * An identical call that is still running (typically the same call twice in one model
 * response) is refused: its result is about to arrive, a second execution can only repeat
 * it. Applies in both profiles; exempt tools were let through before this check.
 */
export const refuseInFlightRepeat: CallCheck = ({ record }) =>
  record !== undefined && record.inFlight > 0 ? { refuse: 'repeat.in_flight' } : undefined;
