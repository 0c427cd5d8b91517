import { expandNamePattern } from './expand-name-pattern.js';
import { CLOCK_FIELD_PATTERN, DURATION_FIELD_PATTERN, RESPONSE_ID_FIELD_PATTERN, SCORE_FIELD_PATTERN } from './result-noise-rules.js';

/**
 * Every member name the noise filter's keyed family (create-noise-filter.ts KEYED_MEMBER)
 * reads: the duration, score, clock and response-id name patterns, written out in full. The
 * JSON text scan looks each key up in it to tell the filter where a keyed member can start.
 */
export const KEYED_MEMBER_NAMES: ReadonlySet<string> = new Set(
  [DURATION_FIELD_PATTERN, SCORE_FIELD_PATTERN, CLOCK_FIELD_PATTERN, RESPONSE_ID_FIELD_PATTERN].flatMap(expandNamePattern),
);
