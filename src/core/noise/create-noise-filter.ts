import {
  AGO,
  CLOCK_FIELD_PATTERN,
  DOCKER_UP,
  DURATION_FIELD_PATTERN,
  ISO_DATETIME,
  RESPONSE_ID_FIELD_PATTERN,
  SCORE_FIELD_PATTERN,
  SHAPED_NOISE,
  SHAPED_NOISE_OWN_PASS,
  TABLE_AGE,
  TABLE_AGE_HEADER,
  TEXT_DURATION_NUMBER_LED,
  TEXT_DURATION_WORD_LED,
  TEXT_REQUEST_ID_PREFIX,
  UUID,
  WRITE_RECORD_IDENTITY_FIELD_PATTERN,
} from './result-noise-rules.js';
import { holdsUuidGroups } from './holds-uuid-groups.js';

/**
 * Removes the noise from a result's text (plain, or JSON.stringify output); returns the text
 * itself when there is none. `keyedAt`: every offset where the keyed family can match, when
 * the caller knows them (the JSON text scan, json-text-shape.ts); the family is then tried
 * there only, with the same output.
 */
export type NoiseFilter = (text: string, keyedAt?: KeyedMemberPlaces) => string;

/**
 * Offsets in a text, ascending, outside which the keyed family (KEYED_MEMBER) has no match;
 * a listed offset where it does not match only costs a failed try. The keyed family's scan of
 * the whole text was the filter's costliest (a `"` starts every string, so it is tried at
 * each). Measured (compiled probe, the bench's 2 KB search result as JSON text, its nine
 * `"score"` keys listed, medians of 15 bursts, loaded 2-core runner, two rounds): the filter
 * 5.5–6.0 → 3.8–4.1 µs; the scan listing the keys 3.5–3.7 → 3.6–3.9 µs; fingerprintResult
 * 12.2–12.9 → 11.0–11.6 µs.
 */
export interface KeyedMemberPlaces {
  starts: Int32Array;
  count: number;
}

const NUMBER = '-?\\d+(?:\\.\\d+)?(?:[eE][-+]?\\d+)?';

/**
 * The rules as families, in the order they win when two match at the same place: JSON
 * members named like a duration, score, clock or response id (one family under their shared
 * leading `"`); an ISO time or a number-led duration in text (one family under their shared
 * leading digit); a request id written into text; a word-led duration (`in 3 seconds`); then
 * a tool's own patterns. This is the order of the single alternation these families
 * replaced, and two families of different leading characters never start at the same place.
 * Groups are numbered, not named: the replacement reads them from the exec array.
 *
 * Why families and not one alternation of every rule: V8 scans an alternation whose
 * alternatives share no leading character by trying every alternative at every position;
 * a family keeps one narrow leading test. Measured (tsx probes, 2,048 B JSON search result
 * without noise, `test()` to the end, interleaved medians of 15 bursts; SHA-256 of the text
 * 2.4–3.4 µs): the single alternation 21.9 µs; keyed members 1.8; ISO alone 0.8, number-led
 * durations alone 0.7, both under one leading `\b\d` 0.7 (as two alternatives not factored:
 * 1.9); request id 1.5; word-led durations 1.6, their gate (below) 0.6. Lookbehind forms of
 * the text rules (to start them at their digit) were slower: 5.7 and 28 µs.
 */
const KEYED_MEMBER = new RegExp(
  `"(?:(${DURATION_FIELD_PATTERN})":(${NUMBER}|"[^"\\\\]{0,40}")` +
    `|(${SCORE_FIELD_PATTERN})":-?\\d+\\.\\d+(?:[eE][-+]?\\d+)?` +
    `|(${CLOCK_FIELD_PATTERN})":(\\d{10}(?:\\d{3})?(?:\\.\\d+)?|"${ISO_DATETIME}"|"[A-Z][a-z]{2}, \\d{2} [A-Z][a-z]{2} \\d{4} [\\d:]{8} GMT")` +
    `|(${RESPONSE_ID_FIELD_PATTERN})":"[^"\\\\]{0,200}")`,
  'g',
);

/** `source` without its leading `\b\d+` / `\b\d{4}`, written to follow one digit already matched. */
function afterLeadingDigit(source: string): string {
  if (source.startsWith('\\b\\d+')) return `\\d*${source.slice('\\b\\d+'.length)}`;
  if (source.startsWith('\\b\\d{4}')) return `\\d{3}${source.slice('\\b\\d{4}'.length)}`;
  throw new Error(`noise rule no longer starts with a number: ${source}`);
}

/** ISO time (group 1: the rest of it after its first digit) or a number-led duration, under one `\b\d`. */
const NUMBER_LED = new RegExp(
  `\\b\\d(?:(${afterLeadingDigit(ISO_DATETIME)})|${TEXT_DURATION_NUMBER_LED.map(afterLeadingDigit).join('|')})`,
  'g',
);
/** The ISO alternative of NUMBER_LED alone (same group 1), for a text without a number-led duration. */
const ISO_ONLY = new RegExp(`\\b\\d(${afterLeadingDigit(ISO_DATETIME)})`, 'g');
/**
 * What every number-led duration holds (a digit, maybe a space, the unit's first letter):
 * absent, ISO_ONLY is scanned instead. A JSON result's numbers made NUMBER_LED backtrack
 * through each (`0.3333333333333333` tried against three duration shapes): 5.9 % of a guarded
 * call's profile (compiled bench/profile.js, 150 B args + 2 KB object result).
 */
const NUMBER_LED_DURATION_GATE = /\d ?[smµun]/;
const TEXT_REQUEST_ID = new RegExp(`(${TEXT_REQUEST_ID_PREFIX})[\\w:-]{6,}`, 'g');
/**
 * Literals every request-id prefix holds (request, REQUEST, req: `eq`/`EQ`; trace: `ace`/`ACE`;
 * correlation: `elation`): absent, the family is not scanned. Measured (tsx probe, 2 KB JSON
 * without noise): this test 0.9 µs, the family's scan 1.5 µs; 5.2 % of the profile above.
 * With both gates the 2 KB search result with scores 9.4 → 7.6 µs (its SHA-256 2.0 µs; the
 * filter before the rewrite 17.2 µs).
 */
const REQUEST_ID_GATE = /eq|EQ|ace|ACE|elation/;
const WORD_LED_DURATION = new RegExp(TEXT_DURATION_WORD_LED, 'g');
/**
 * What every word-led duration holds (its last space, the number, the unit's first letter):
 * absent, the family is not scanned. 0.6 µs against the family's own 1.6 on the text above.
 */
const WORD_LED_DURATION_GATE = /\s\d+(?:\.\d+)? ?[sm]/;
/**
 * Where the two duration families sit in a filter's families. Text that fails the number-led
 * gate (`\d ?[smµun]`) fails the word-led one too (whose match holds `\d ?[sm]`), so it is not
 * run: 1.6 % of a guarded call's profile with a JSON result (compiled bench/profile.js, 150 B
 * args + 2 KB string result).
 */
const KEYED_FAMILY = 0;
const NUMBER_LED_FAMILY = 1;
const WORD_LED_FAMILY = 3;

/** What a family's match is replaced by (the match itself when it is data after all). */
type Replacement = (match: RegExpExecArray, text: string) => string;

function replaceKeyedMember(match: RegExpExecArray): string {
  if (match[1] !== undefined) return `"${match[1]}":${match[2]!.charCodeAt(0) === 34 /* " */ ? '"#"' : '0'}`;
  if (match[3] !== undefined) return `"${match[3]}":0`;
  if (match[4] !== undefined) return `"${match[4]}":${match[5]!.charCodeAt(0) === 34 ? '"#"' : '0'}`;
  return `"${match[6]}":"#"`;
}

/** Is the match the whole value of a JSON string (`"…"` right around it)? Then it is data, not text. */
function isWholeStringValue(text: string, offset: number, length: number): boolean {
  return text.charCodeAt(offset - 1) === 34 /* " */ && text.charCodeAt(offset + length) === 34;
}

/** An ISO time that is a JSON string's whole value is data (kept); a duration is always noise. */
function replaceNumberLed(match: RegExpExecArray, text: string): string {
  return match[1] !== undefined && isWholeStringValue(text, match.index, match[0].length) ? match[0] : '#';
}

function replaceRequestId(match: RegExpExecArray): string {
  return `${match[1]}#`;
}

function replaceWithMark(): string {
  return '#';
}

/**
 * UUIDs and pytest's `=` rules get passes of their own, over the first pass's output: a UUID's
 * leading `[0-9a-fA-F]{8}` is tried at every word start and made the whole scan ×4 slower
 * (tsx probe, 1.4 KB of pytest output: UUID alone 45 µs, the other rules together 15 µs).
 * The UUID pass runs only when `-xxxx-xxxx-` is in the text (holds-uuid-groups.ts: native
 * indexOf for the dashes, 0.12 µs on a 2 KB JSON result where the regex gate took 0.92), and
 * the rule pass only when something else was noise.
 */
const UUID_PATTERN = new RegExp(UUID, 'g');
/** pytest centres its summary in a rule of `=` whose length follows the duration's: `in 9.87s` and `in 10.02s`. */
const RULE_PATTERN = /={4,}/g;

/**
 * Shaped noise (result-noise-rules.ts SHAPED_NOISE) gets a pass of its own too, run only when
 * one of its literals is in the text: most results hold none. A literal is short and led by a
 * rare character because a native search stops at every occurrence of its first character.
 * Measured (tsx probe, medians of 11 bursts, the bench's 2 KB JSON result): `' at 0x'` 1.24 µs,
 * `'pytest-of-'` 0.85, `'/tmp/tmp'` 0.80, the three as one regex 1.52; `'0x'` 0.11, `'-of-'`
 * 0.09, `'/tmp'` 0.33, `'Start at'`, `'Time: 0'`, `'_ms'`, `'=setup['` 0.025 each (on 2 KB of
 * prose, 0.02 each); `GMT`, `%|`, `B/s eta` 0.02 each on both (where `/s]` took 0.66 µs on the JSON,
 * stopping at every `/` of its URLs); `Warning:` 0.07–0.14, `Started server process [` 0.04–0.08,
 * `Z-debug-` 0.02 on the JSON, prose and 2 KB of code (`_logs/` took 0.38 on the code, whose
 * identifiers hold `_`); `Using --` 0.02–0.03 (`y-seed=` took 1.17 on the prose). All of them,
 * one search each: 0.8–1.0 µs on the JSON and the code, 0.5 on the prose. The whole filter on
 * that result 6.1 → 6.6 µs with this pass.
 */
const SHAPED_NOISE_PATTERN = new RegExp(SHAPED_NOISE.map(({ pattern }) => `(?:${pattern})`).join('|'), 'g');
/**
 * A column-aligned table (kubectl get, docker ps) pads each column to its widest value, an
 * age among them: `4 (30s ago)` and `4 (2m30s ago)` leave different runs of spaces after them.
 * Once shaped noise was replaced, runs of spaces are one space, as pytest's `=` rules are cut.
 */
const COLUMN_PADDING = / {2,}/g;

/**
 * Ages (result-noise-rules.ts AGO, DOCKER_UP, TABLE_AGE): a pass each, behind a gate that is
 * true whenever the rule can match, and cheap on a text without ages. ` ago` is not searched
 * for directly: a native search stops at every space, 1.0 µs on the bench's 2 KB JSON result and
 * 2.2 µs on 2 KB of prose, where `go` takes 0.13–0.17 µs (and the AGO pattern itself 4–5 µs,
 * the shaped alternation 8–10 µs); `Up ` and `AGE` 0.02–0.08 µs (tsx probes, 16 texts rotated).
 */
const AGO_PATTERN = new RegExp(AGO, 'g');
const DOCKER_UP_PATTERN = new RegExp(DOCKER_UP, 'g');
const TABLE_AGE_PATTERN = new RegExp(TABLE_AGE, 'g');
const TABLE_AGE_HEADER_PATTERN = new RegExp(TABLE_AGE_HEADER);

/** Does the text hold ` ago` followed by no word character (every AGO match does)? */
function holdsAgo(text: string): boolean {
  for (let at = text.indexOf('go'); at >= 0; at = text.indexOf('go', at + 2)) {
    if (at >= 2 && text.charCodeAt(at - 1) === 97 /* a */ && text.charCodeAt(at - 2) === 32 /* space */ && !isWordCode(text.charCodeAt(at + 2))) return true;
  }
  return false;
}

/** A character `\b` counts as a word character (NaN past the end is not). */
function isWordCode(code: number): boolean {
  return (code >= 48 && code <= 57) || (code >= 65 && code <= 90) || (code >= 97 && code <= 122) || code === 95;
}

/** The age passes (see above); the text itself when it holds none. */
function replaceAges(text: string): string {
  let out = holdsAgo(text) ? text.replace(AGO_PATTERN, '#') : text;
  if (out.indexOf('Up ') >= 0) out = out.replace(DOCKER_UP_PATTERN, '#');
  if (out.indexOf('AGE') >= 0 && TABLE_AGE_HEADER_PATTERN.test(out)) out = out.replace(TABLE_AGE_PATTERN, '#');
  return out;
}
// A literal holding another (`Finished server process [` holds `Finished `) is in a text only when the other is: one search is enough.
const SHAPED_NOISE_LITERALS: readonly string[] = [...new Set(SHAPED_NOISE.map(({ literal }) => literal))].filter(
  (literal, _, all) => !all.some((other) => other !== literal && literal.includes(other)),
);

function holdsShapedNoise(text: string): boolean {
  for (const literal of SHAPED_NOISE_LITERALS) if (text.indexOf(literal) >= 0) return true;
  return false;
}

const OWN_PASSES: ReadonlyArray<{ readonly literal: string; readonly pattern: RegExp }> = SHAPED_NOISE_OWN_PASS.map(({ literal, pattern }) => ({ literal, pattern: new RegExp(pattern, 'g') }));

/** Shaped noise with a pass of its own (result-noise-rules.ts SHAPED_NOISE_OWN_PASS): the text itself when it holds none. */
function replaceOwnPasses(text: string): string {
  let out = text;
  for (const pass of OWN_PASSES) if (out.indexOf(pass.literal) >= 0) out = out.replace(pass.pattern, '#');
  return out;
}

function replaceUuid(match: string, offset: number, text: string): string {
  return isWholeStringValue(text, offset, match.length) ? match : '#';
}

/**
 * The first pass: the families' matches merged in text order, exactly as one global
 * alternation of all of them would replace them (leftmost match first; at the same place
 * the earlier family wins; after an empty match the scan moves on one character). Each
 * family's next match is kept until the scan passes its start, so every family scans the
 * text once. A text where no family matches is returned as it is, without a copy: the scan
 * itself is the gate, and it cannot miss a shape a hand-written pre-check forgets (a
 * pre-check missed `2024-05-01 12:03:04` until 48f40ec).
 *
 * `active` and `pending` are the filter's own scratch (one slot per family), reused across
 * calls: a filter runs to completion synchronously, so calls never share them.
 */
function replaceFamilies(text: string, families: FilterFamilies, keyedAt: KeyedMemberPlaces | undefined): string {
  const { patterns, gates, narrowed, replacements, active, pending } = families;
  const count = patterns.length;
  let open = 0;
  let numberGatePassed = true;
  for (let family = 0; family < count; family++) {
    if (family === KEYED_FAMILY && keyedAt !== undefined) {
      families.nextPlace = 0;
      const match = nextKeyedMember(text, families, keyedAt, 0);
      pending[family] = match;
      if (match !== null) open++;
      continue;
    }
    let pattern: RegExp | undefined = patterns[family]!;
    const gate = gates[family];
    const passed: boolean = gate === undefined || ((family === WORD_LED_FAMILY ? numberGatePassed : true) && gate.test(text));
    if (family === NUMBER_LED_FAMILY) numberGatePassed = passed;
    if (!passed) pattern = narrowed[family];
    if (pattern === undefined) {
      pending[family] = null;
      continue;
    }
    active[family] = pattern;
    pattern.lastIndex = 0;
    const match = pattern.exec(text);
    pending[family] = match;
    if (match !== null) open++;
  }
  if (open === 0) return text;
  let out = '';
  let copied = 0;
  let changed = false;
  for (;;) {
    let winner = -1;
    let start = Infinity;
    for (let family = 0; family < count; family++) {
      const match = pending[family]!;
      if (match !== null && match.index < start) {
        winner = family;
        start = match.index;
      }
    }
    if (winner < 0) break;
    const match = pending[winner]!;
    const matched = match[0];
    const end = start + matched.length;
    const replacement = replacements[winner]!(match, text);
    if (replacement !== matched) {
      out += text.slice(copied, start) + replacement;
      copied = end;
      changed = true;
    }
    const resume = matched.length === 0 ? end + 1 : end;
    for (let family = 0; family < count; family++) {
      const next = pending[family]!;
      if (next === null || next.index >= resume) continue;
      if (family === KEYED_FAMILY && keyedAt !== undefined) {
        pending[family] = nextKeyedMember(text, families, keyedAt, resume);
        continue;
      }
      const pattern = active[family]!;
      pattern.lastIndex = resume;
      pending[family] = resume > text.length ? null : pattern.exec(text);
    }
  }
  for (let family = 0; family < count; family++) pending[family] = null; // keep no match (and its text) alive
  return changed ? out + text.slice(copied) : text;
}

/**
 * The keyed family's first match at or after `from`, tried at the listed places only (the
 * leftmost match, as the global scan finds it: outside the places there is none).
 */
function nextKeyedMember(text: string, families: FilterFamilies, keyedAt: KeyedMemberPlaces, from: number): RegExpExecArray | null {
  const { starts, count } = keyedAt;
  const sticky = families.keyedSticky;
  while (families.nextPlace < count) {
    const start = starts[families.nextPlace++]!;
    if (start < from) continue;
    sticky.lastIndex = start;
    const match = sticky.exec(text);
    if (match !== null) return match;
  }
  return null;
}

/** One filter's families, in the order they win (see KEYED_MEMBER), and its scratch. */
interface FilterFamilies {
  readonly patterns: readonly RegExp[];
  /** A test every match of the family passes: when the text fails it, `narrowed` is scanned instead (undefined: nothing). */
  readonly gates: ReadonlyArray<RegExp | undefined>;
  readonly narrowed: ReadonlyArray<RegExp | undefined>;
  readonly replacements: readonly Replacement[];
  /** The pattern scanned for this text, per family. */
  readonly active: RegExp[];
  /** The family's next match at or after the scan, per family. */
  readonly pending: Array<RegExpExecArray | null>;
  /** KEYED_MEMBER matching only where lastIndex is, for the listed places. */
  readonly keyedSticky: RegExp;
  /** With listed keyed places: the next one to try. */
  nextPlace: number;
}

/** Options of {@link createNoiseFilter}. */
export interface NoiseFilterOptions {
  /**
   * Extra regular expressions (source text) whose matches are noise for this tool, replaced
   * by `#`. Must not match a `"` of JSON structure. Default none.
   */
  extraPatterns?: readonly string[];
  /**
   * The tool writes: the members naming the record it made (result-noise-rules.ts
   * WRITE_RECORD_IDENTITY_FIELD_PATTERN) are replaced too, keeping the JSON valid. Default false.
   */
  recordIdentities?: boolean;
}

/** A record-identity member and its value (a string, a number): the value is replaced. */
const RECORD_IDENTITY = new RegExp(`"(${WRITE_RECORD_IDENTITY_FIELD_PATTERN})":(?:"[^"\\\\]{0,200}"|-?\\d+(?:\\.\\d+)?(?:[eE][-+]?\\d+)?)`, 'g');

function replaceRecordIdentity(match: string, key: string): string {
  return match.charCodeAt(key.length + 3) === 34 /* " */ ? `"${key}":"#"` : `"${key}":0`;
}

/**
 * Builds the noise filter once per tool policy (at construction, never per call): the
 * built-in rules (result-noise-rules.ts) plus the tool's own patterns (one more family, last
 * to win). A text without a match is returned as it is (no copy).
 *
 * Throws a SyntaxError for an invalid extra pattern; policy.ts turns it into a
 * LoopGuardConfigError naming the field.
 */
export function createNoiseFilter(options: NoiseFilterOptions = {}): NoiseFilter {
  const extras = options.extraPatterns ?? [];
  const recordIdentities = options.recordIdentities === true;
  for (const pattern of extras) new RegExp(pattern); // rejects an invalid pattern on its own, with its own message
  // Each filter owns its RegExp objects (lastIndex is state) and its scratch.
  const patterns: RegExp[] = [new RegExp(KEYED_MEMBER), new RegExp(NUMBER_LED), new RegExp(TEXT_REQUEST_ID), new RegExp(WORD_LED_DURATION)];
  const gates: Array<RegExp | undefined> = [undefined, NUMBER_LED_DURATION_GATE, REQUEST_ID_GATE, WORD_LED_DURATION_GATE];
  const narrowed: Array<RegExp | undefined> = [undefined, new RegExp(ISO_ONLY), undefined, undefined];
  const replacements: Replacement[] = [replaceKeyedMember, replaceNumberLed, replaceRequestId, replaceWithMark];
  if (extras.length > 0) {
    patterns.push(new RegExp(extras.map((pattern) => `(?:${pattern})`).join('|'), 'g'));
    gates.push(undefined);
    narrowed.push(undefined);
    replacements.push(replaceWithMark);
  }
  const keyedSticky = new RegExp(KEYED_MEMBER.source, 'y');
  const families: FilterFamilies = { patterns, gates, narrowed, replacements, active: [...patterns], pending: patterns.map(() => null), keyedSticky, nextPlace: 0 };
  return (text, keyedAt) => {
    let out = replaceFamilies(text, families, keyedAt);
    if (holdsUuidGroups(out)) out = out.replace(UUID_PATTERN, replaceUuid);
    const shaped = replaceAges(replaceOwnPasses(holdsShapedNoise(out) ? out.replace(SHAPED_NOISE_PATTERN, '#') : out));
    if (shaped !== out) out = shaped.includes('  ') ? shaped.replace(COLUMN_PADDING, ' ') : shaped;
    if (out !== text && out.includes('====')) out = out.replace(RULE_PATTERN, '==');
    if (recordIdentities) out = out.replace(RECORD_IDENTITY, replaceRecordIdentity);
    return out;
  };
}

/** The built-in rules alone: for error bodies, which are judged before any tool policy applies. */
export const defaultNoiseFilter: NoiseFilter = createNoiseFilter();

/** The built-in rules and the record identities of a write's answer: every write tool without patterns of its own. */
export const writeNoiseFilter: NoiseFilter = createNoiseFilter({ recordIdentities: true });
