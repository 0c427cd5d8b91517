// The noise filter as it was before the exec-loop rewrite (src/core/noise/create-noise-filter.ts at
// commit 48f40ec, with the gate fix for a space-separated ISO time), kept verbatim as the reference
// the rewrite must agree with. Not used by the library. `gated: false` runs its full expression on
// every text (the rules themselves, without the hand-written pre-check's misses).
import {
  CLOCK_FIELD_PATTERN,
  DURATION_FIELD_PATTERN,
  ISO_DATETIME,
  RESPONSE_ID_FIELD_PATTERN,
  SCORE_FIELD_PATTERN,
  SHAPED_NOISE,
  AGO,
  DOCKER_UP,
  TABLE_AGE,
  TABLE_AGE_HEADER,
  TEXT_DURATION,
  TEXT_REQUEST_ID_PREFIX,
  UUID,
} from '../../../src/core/noise/result-noise-rules.js';

/** Removes the noise from a result's text (plain, or JSON.stringify output); returns the text itself when there is none. */
export type NoiseFilter = (text: string) => string;

const NUMBER = '-?\\d+(?:\\.\\d+)?(?:[eE][-+]?\\d+)?';

const BUILT_IN_SOURCE = [
  `"(?<durationKey>${DURATION_FIELD_PATTERN})":(?<durationValue>${NUMBER}|"[^"\\\\]{0,40}")`,
  `"(?<scoreKey>${SCORE_FIELD_PATTERN})":(?<scoreValue>-?\\d+\\.\\d+(?:[eE][-+]?\\d+)?)`,
  `"(?<clockKey>${CLOCK_FIELD_PATTERN})":(?<clockValue>\\d{10}(?:\\d{3})?(?:\\.\\d+)?|"${ISO_DATETIME}"|"[A-Z][a-z]{2}, \\d{2} [A-Z][a-z]{2} \\d{4} [\\d:]{8} GMT")`,
  `"(?<idKey>${RESPONSE_ID_FIELD_PATTERN})":(?<idValue>"[^"\\\\]{0,200}")`,
  `(?<isoDatetime>${ISO_DATETIME})`,
  `(?<requestIdPrefix>${TEXT_REQUEST_ID_PREFIX})[\\w:-]{6,}`,
  TEXT_DURATION,
].join('|');

/**
 * UUIDs and pytest's `=` rules get passes of their own: in the alternation above, a UUID's
 * leading `[0-9a-fA-F]{8}` is tried at every word start and made the whole scan ×4 slower
 * (tsx probe, 1.4 KB of pytest output: UUID alone 45 µs, the other rules together 15 µs).
 * Here the UUID pass runs only when `-xxxx-xxxx-` is in the text (a literal-led test, a
 * third of a SHA-256 of the text), and the rule pass only when something else was noise.
 */
const UUID_GATE = /-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-/;
const UUID_PATTERN = new RegExp(UUID, 'g');
/** pytest centres its summary in a rule of `=` whose length follows the duration's: `in 9.87s` and `in 10.02s`. */
const RULE_PATTERN = /={4,}/g;
const SHAPED_NOISE_PATTERN = new RegExp(SHAPED_NOISE.map(({ pattern }) => `(?:${pattern})`).join('|'), 'g');

function replaceUuid(match: string, offset: number, text: string): string {
  return isWholeStringValue(text, offset, match.length) ? match : '#';
}

interface NoiseGroups {
  durationKey?: string;
  durationValue?: string;
  scoreKey?: string;
  clockKey?: string;
  clockValue?: string;
  idKey?: string;
  idValue?: string;
  isoDatetime?: string;
  requestIdPrefix?: string;
}

/** Is the match the whole value of a JSON string (`"…"` right around it)? Then it is data, not text. */
function isWholeStringValue(text: string, offset: number, length: number): boolean {
  return text.charCodeAt(offset - 1) === 34 /* " */ && text.charCodeAt(offset + length) === 34;
}

function replaceNoise(match: string, ...rest: unknown[]): string {
  const groups = rest[rest.length - 1] as NoiseGroups;
  const text = rest[rest.length - 2] as string;
  const offset = rest[rest.length - 3] as number;
  if (groups.durationKey !== undefined) return `"${groups.durationKey}":${groups.durationValue!.startsWith('"') ? '"#"' : '0'}`;
  if (groups.scoreKey !== undefined) return `"${groups.scoreKey}":0`;
  if (groups.clockKey !== undefined) return `"${groups.clockKey}":${groups.clockValue!.startsWith('"') ? '"#"' : '0'}`;
  if (groups.idKey !== undefined) return `"${groups.idKey}":"#"`;
  if (groups.isoDatetime !== undefined) {
    return isWholeStringValue(text, offset, match.length) ? match : '#';
  }
  if (groups.requestIdPrefix !== undefined) return `${groups.requestIdPrefix}#`;
  return '#';
}

/**
 * The cheap check that says whether the rules can match at all: a digit right before a time
 * unit's letter or `T` (`1.53s`, `12ms`, `0m10s`, an ISO time) or before a space and a unit
 * (`1.234 s`) or a space and a time of day (`2024-05-01 12:03:04`, an ISO time written with a space); `-` + four hex digits + `-` (a UUID); `id` after `request` / `trace` /
 * `correlation` / `req`; a duration, score or clock member holding a number. `"id":`,
 * `"count":3` and `Document 1` do not open the full expression. One native regex test:
 * measured (tsx probe on the shared 2-core runner under load 11, a 2.7 KB search result of 9
 * hits without noise, ratios to the SHA-256 of the same text, 3 rounds): the full combined
 * expression ×6–12, a charCode walk doing the same checks ×3.6–6.3, this test ×2.3–3.4.
 * fingerprintResult as a whole, interleaved against the commit before noise removal
 * (.tmp probe, 7 rounds, medians): 2 KB JSON search result without noise ×1.5–1.7; a 1.4 KB
 * pytest output holding its duration ×10 (≈30 µs: the full pass runs — paid only by results
 * that hold noise, next to a test run of seconds); a small `{ok, id}` acknowledgement ×1.2.
 */
const MAY_HOLD_NOISE = new RegExp(
  `\\d(?:[smµunT]| [smµun]| \\d\\d:)|-[0-9a-fA-F]{4}-|[tTeEnNqQ][-_ ]?[iI][dD]\\b|"(?:${DURATION_FIELD_PATTERN}|${SCORE_FIELD_PATTERN}|${CLOCK_FIELD_PATTERN})":\\d`,
);

/** Could `text` hold noise at all? (A false "yes" only costs the full expression's scan.) */
export function mayHoldNoise(text: string): boolean {
  return MAY_HOLD_NOISE.test(text);
}

/** Options of {@link createNoiseFilter}. */
export interface NoiseFilterOptions {
  /**
   * Extra regular expressions (source text) whose matches are noise for this tool, replaced
   * by `#`. Must not match a `"` of JSON structure. Default none.
   */
  extraPatterns?: readonly string[];
}

/**
 * Builds the noise filter once per tool policy (at construction, never per call): the
 * built-in rules (result-noise-rules.ts) plus the tool's own patterns, compiled into one
 * regular expression so a result's text is scanned once. A text without a match is returned
 * as it is (no copy).
 *
 * Throws a SyntaxError for an invalid extra pattern; policy.ts turns it into a
 * LoopGuardConfigError naming the field.
 */
export function createReferenceNoiseFilter(options: NoiseFilterOptions = {}, gated = true): NoiseFilter {
  const extras = options.extraPatterns ?? [];
  for (const pattern of extras) new RegExp(pattern); // rejects an invalid pattern on its own, with its own message
  const source = extras.length === 0 ? BUILT_IN_SOURCE : `${BUILT_IN_SOURCE}|${extras.map((pattern) => `(?:${pattern})`).join('|')}`;
  const expression = new RegExp(source, 'g');
  const always = extras.length > 0 || !gated;
  return (text) => {
    let out = text;
    if (always || mayHoldNoise(text)) {
      out = text.replace(expression, replaceNoise);
      if (UUID_GATE.test(out)) out = out.replace(UUID_PATTERN, replaceUuid);
    }
    // Shaped noise (added after the rewrite, to both): a pass of its own, ungated here.
    let shaped = out.replace(SHAPED_NOISE_PATTERN, '#').replace(new RegExp(AGO, 'g'), '#').replace(new RegExp(DOCKER_UP, 'g'), '#');
    // kubectl's AGE column counts only under a header naming it (a condition of the rule, not a gate).
    if (new RegExp(TABLE_AGE_HEADER).test(shaped)) shaped = shaped.replace(new RegExp(TABLE_AGE, 'g'), '#');
    // Column padding after an age: collapsed once shaped noise was replaced.
    out = shaped !== out ? shaped.replace(/ {2,}/g, ' ') : shaped;
    if (out !== text && out.includes('====')) out = out.replace(RULE_PATTERN, '==');
    return out;
  };
}

