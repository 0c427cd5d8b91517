/**
 * One pass over a tool's JSON text result that proves the text is exactly what
 * `JSON.stringify(JSON.parse(text))` would write, and reads on the way what fingerprinting
 * needs from the parsed value (issue 20): whether it holds any fact, where its list of items
 * is, and its paging markers. A result that is such text is then hashed as it is — no
 * JSON.parse, no JSON.stringify, no second copy. Measured (bench/probes/result-pieces.ts, 2 KB
 * search result as text, interleaved medians on the loaded 2-core runner): JSON.parse 3.9 µs +
 * JSON.stringify of the parsed value 5.6 µs, against this scan 3.6 µs (2.6 µs when the result's
 * scores are not 16–17-digit fractions, which are checked by String(Number(token)); its
 * control/surrogate regex 0.65 µs). A charCodeAt loop for the first characters of each string
 * instead of indexOf was tried: slower (3.5–4.8 → 5.5–6.3 µs, same probe, same session).
 *
 * The proof is conservative: whatever it cannot vouch for cheaply makes it answer false, and
 * the caller parses as before. False for: any whitespace outside strings, an escape
 * JSON.stringify would not write (`\/`, `\u0041`, a surrogate escape), any surrogate or control
 * character (lone surrogates are escaped by stringify; the check is one regex over the text), a
 * number not in its shortest form (`1.0`, `1e2`, `-0`, `00`; numbers of more than 15
 * significant digits or with an exponent are checked with `String(Number(token))`), a key that starts with a digit
 * (JSON.parse puts array-index keys first), a key repeated in one object (the last one wins),
 * nesting deeper than {@link MAX_DEPTH}.
 *
 * The answer is left in {@link jsonTextShape}, one module-level record reused by every call
 * (the scan runs to completion synchronously): no allocation per call.
 */

/** Deeper text is left to JSON.parse (and the recursion stays short). */
import type { KeyedMemberPlaces } from './noise/create-noise-filter.js';
import { MOVING_VALUE, SUBJECT_KEY_TOKENS, isStatusKey } from './world-state/says-in-progress.js';

const MAX_DEPTH = 64;
/**
 * Keys of one object are checked for repeats pairwise up to this many; past it, by a Set of
 * the keys' tokens made for that object. Measured (bench/probes/wide-keys.ts, three 60-key
 * GitHub-issue-like objects, 6.7 KB): pairwise for every key 51–68 µs a scan under tsx, against
 * JSON.parse + stringify 21–64 µs on the same loaded runner; pairwise up to 16 then the Set
 * 15.7 µs compiled (JSON.parse + stringify 20.0 µs). Before, objects over 32 keys were turned
 * down after the scan had run, and paid the parse as well.
 */
const PAIRWISE_KEYS = 16;
/** How many levels of single-object wrappers findItems (result-fingerprint.ts) follows. */
const ENVELOPE_LEVELS = 3;

/** Characters JSON.stringify never leaves raw in its output (controls) or may escape (surrogates). */
const UNSAFE_CHARACTER = /[\u0000-\u001f\ud800-\udfff]/;

/**
 * What an object met on the chain of object members from the top (levels 0–2) holds, as
 * findItems reads it: its arrays (the first one, the non-empty one), and its object members
 * (how many, the last one's key). Positions are offsets in the text; keys are kept as the
 * offsets of their JSON tokens (quotes included).
 */
class EnvelopeLevel {
  arrays = 0;
  nonEmptyArrays = 0;
  firstArrayKeyStart = 0;
  firstArrayKeyEnd = 0;
  firstArrayCount = 0;
  nonEmptyArrayKeyStart = 0;
  nonEmptyArrayKeyEnd = 0;
  nonEmptyArrayCount = 0;
  objects = 0;
  objectKeyStart = 0;
  objectKeyEnd = 0;

  reset(): void {
    this.arrays = 0;
    this.nonEmptyArrays = 0;
    this.objects = 0;
  }
}

/** What {@link readJsonTextShape} found; valid until its next call. */
export interface JsonTextShape {
  /** Anything but empty containers, "", 0, false and null (isEmptyResult's facts). */
  hasFact: boolean;
  /** The top-level value is an array (its items are the list, path []). */
  topIsArray: boolean;
  /** Number of items of the top-level array. */
  topCount: number;
  /** The top-level object has a `content` member (a possible MCP envelope: judged from the parsed value). */
  hasContentMember: boolean;
  /** The top-level object has a `response_metadata` member (saysNoMorePages reads into it: judged from the parsed value). */
  hasResponseMetadata: boolean;
  /** saysNoMorePages' top-level markers: `has_more`/`hasMore` false, a next-cursor member null or "". */
  saysNoMorePages: boolean;
  /**
   * A status member (`"status"`, `"state"`, …) of the top-level object, or of a subject object
   * one level down (`"job"`, `"data"`, …), holds a word that says "moving" (world-state/says-in-progress.ts).
   */
  statusSaysMoving: boolean;
  /** A key at any depth is one of the volatile names given to the scan (what the policy's volatile-field regex finds). */
  hasVolatileMember: boolean;
  /**
   * The scan was given the noise filter's keyed member names and {@link keyedMemberPlaces}
   * lists every place the filter's keyed family can match at (false: a key holds an escape,
   * after whose `\"` a keyed name can start; the filter then scans the whole text).
   */
  keyedMembersListed: boolean;
  /** The offsets of the keys whose name may be a keyed member name (a superset: see mayMatch), in text order. */
  readonly keyedMemberPlaces: KeyedMemberPlaces;
  /** Per envelope level, what findItems reads there. */
  readonly levels: readonly EnvelopeLevel[];
}

const levels = [new EnvelopeLevel(), new EnvelopeLevel(), new EnvelopeLevel()];

/** The record every {@link readJsonTextShape} call fills. */
export const jsonTextShape: JsonTextShape = {
  hasFact: false,
  topIsArray: false,
  topCount: 0,
  hasContentMember: false,
  hasResponseMetadata: false,
  saysNoMorePages: false,
  statusSaysMoving: false,
  hasVolatileMember: false,
  keyedMembersListed: false,
  keyedMemberPlaces: { starts: new Int32Array(64), count: 0 },
  levels,
};

/** Key offsets of the objects being scanned, a stack shared by all levels of nesting. */
let keyStarts = new Int32Array(256);
let keyEnds = new Int32Array(256);
let scanText = '';
let keyTop = 0;
/** The first backslash at or after the scan's last string start (Infinity: none): strings before it hold no escape. */
let nextBackslash = Infinity;
/** The top-level member being scanned holds the object a status answer may be about (readStatusMember reads its status). */
let inSubject = false;
/** The top-level member being scanned is the first, and holds an object: a wrapper if no member follows (`{"JobRun": {…}}`). */
let inWrapper = false;
/** The first item of a top-level member's list is being scanned (a list of one is the thing itself). */
let inFirstItem = false;
/** The first item of a top-level list is being scanned: a SQL tool's one row (`[{"status": "running"}]`). */
let inTopFirstItem = false;
/**
 * A status member of a wrapper or of a list's first item says "moving": kept only if the
 * wrapper has no second member, or the list holds that one item (says-in-progress.ts).
 */
let pendingSaysMoving = false;

/**
 * Volatile field names as key tokens, for the scan to find among the keys it reads anyway.
 * The policy's volatile-field regex is `"(?:name|…)":` over the whole text; in text the scan
 * vouched for, that matches exactly a key whose token is `"name"` (a `"` inside a string is
 * escaped, and a closing quote is followed by `,` `]` `}` or `:`), as long as no name holds a
 * character JSON escapes or a structural one: such names get no matcher (the regex is run).
 * Measured (bench/probes/result-pieces.ts, 2 KB search result, interleaved medians): the regex
 * 1.34 µs a call; fingerprint() of the result as text 16.5 → 15.1 µs with the key check instead.
 */
export class VolatileKeyMatcher {
  readonly #tokens: ReadonlySet<string>;
  /**
   * A filter in front of the set: by a token's length, its first and its last character (a
   * hash of the three, so any character code fits), 1 where a name's token may sit. Before,
   * length and first character only: the bench's `"snippet"` shares both with `"span_id"`, a
   * keyed noise name (keyed-member-names.ts), and was sliced and looked up at every hit.
   * Measured (compiled probe, the bench's 2 KB result, medians of 15 bursts, loaded runner):
   * the scan listing keyed keys 4.4–4.6 µs with the old filter and the set, 3.6–3.9 µs with
   * this filter and {@link mayMatch} (the scan alone 3.5–3.7 µs).
   */
  readonly #maybe = new Uint8Array(PREFILTER_SLOTS);

  constructor(names: ReadonlySet<string>) {
    const tokens = new Set<string>();
    for (const name of names) {
      const token = `"${name}"`;
      tokens.add(token);
      this.#maybe[prefilterSlot(token.length, token.charCodeAt(1), token.charCodeAt(token.length - 2))] = 1;
    }
    this.#tokens = tokens;
  }

  /**
   * A matcher for these names, or undefined when one of them needs the regex. Built once, where
   * the names are fixed: with a tool's resolved policy (policy.ts volatileResultKeys), and for
   * the noise filter's keyed names at load.
   */
  static of(names: ReadonlySet<string>): VolatileKeyMatcher | undefined {
    for (const name of names) if (!PLAIN_NAME.test(name)) return undefined;
    return new VolatileKeyMatcher(names);
  }

  /**
   * Whether the key may be one of the names: no false negative, rare false positives. Enough
   * where listing a key too many only costs a failed try (the keyed noise places).
   */
  mayMatch(text: string, keyStart: number, keyEnd: number): boolean {
    return this.#maybe[prefilterSlot(keyEnd - keyStart, text.charCodeAt(keyStart + 1), text.charCodeAt(keyEnd - 2))] === 1;
  }

  matches(text: string, keyStart: number, keyEnd: number): boolean {
    if (this.#maybe[prefilterSlot(keyEnd - keyStart, text.charCodeAt(keyStart + 1), text.charCodeAt(keyEnd - 2))] === 0) return false;
    return this.#tokens.has(text.slice(keyStart, keyEnd));
  }
}

const PREFILTER_SLOTS = 8192;

/** The prefilter's slot of a key token: `""` reads its quotes as first and last character, at build and at lookup alike. */
function prefilterSlot(length: number, first: number, last: number): number {
  return (length * 977 + first * 31 + last) & (PREFILTER_SLOTS - 1);
}

/** Names whose key token is `"name"` as written and that cannot straddle JSON structure. */
const PLAIN_NAME = /^[^"\\\u0000-\u001f\ud800-\udfff,:[\]{}]*$/;
let volatileKeys: VolatileKeyMatcher | undefined;
let keyedNames: VolatileKeyMatcher | undefined;

/**
 * Is `text` exactly `JSON.stringify(JSON.parse(text))`, with a `{` or `[` first? When true,
 * {@link jsonTextShape} holds what the scan read. False means "not proven", never "invalid".
 * `volatile`: names whose presence as a key sets hasVolatileMember. `keyed`: the noise
 * filter's keyed member names (keyed-member-names.ts), whose keys are listed in keyedMemberPlaces.
 */
export function readJsonTextShape(text: string, volatile?: VolatileKeyMatcher, keyed?: VolatileKeyMatcher): boolean {
  const first = text.charCodeAt(0);
  if (first !== 123 /* { */ && first !== 91 /* [ */) return false;
  if (UNSAFE_CHARACTER.test(text)) return false;
  scanText = text;
  keyTop = 0;
  const backslash = text.indexOf('\\');
  nextBackslash = backslash < 0 ? Infinity : backslash;
  const shape = jsonTextShape;
  shape.hasFact = false;
  shape.topIsArray = first === 91;
  shape.topCount = 0;
  shape.hasContentMember = false;
  shape.hasResponseMetadata = false;
  shape.saysNoMorePages = false;
  shape.statusSaysMoving = false;
  inSubject = false;
  inWrapper = false;
  inFirstItem = false;
  inTopFirstItem = false;
  pendingSaysMoving = false;
  shape.hasVolatileMember = false;
  shape.keyedMembersListed = keyed !== undefined;
  shape.keyedMemberPlaces.count = 0;
  volatileKeys = volatile;
  keyedNames = keyed;
  for (const level of levels) level.reset();
  const end = first === 123 ? scanObject(0, 0, true) : scanArray(0, 0);
  scanText = '';
  volatileKeys = undefined;
  keyedNames = undefined;
  return end === text.length;
}

/** Index past the string token at `start` (a `"`), or -1 when it holds an escape stringify would not write. */
function scanString(start: number): number {
  const text = scanText;
  const quote = text.indexOf('"', start + 1);
  if (quote < 0) return -1;
  if (nextBackslash <= start) {
    const backslash = text.indexOf('\\', start + 1);
    nextBackslash = backslash < 0 ? Infinity : backslash;
  }
  if (nextBackslash > quote) return quote + 1;
  // Escapes: walk the string, accepting only the ones JSON.stringify writes.
  for (let at = start + 1; at < text.length; at++) {
    const code = text.charCodeAt(at);
    if (code === 34 /* " */) return at + 1;
    if (code !== 92 /* \ */) continue;
    const escaped = text.charCodeAt(++at);
    if (escaped === 34 || escaped === 92 || escaped === 98 /* b */ || escaped === 102 /* f */ || escaped === 110 /* n */ || escaped === 114 /* r */ || escaped === 116 /* t */) continue;
    if (escaped !== 117 /* u */ || !isStringifiedControlEscape(text, at + 1)) return -1;
    at += 4;
  }
  return -1;
}

/** `00xx` (lower-case hex) of a control character stringify writes as `\u00xx` (not \b \t \n \f \r). */
function isStringifiedControlEscape(text: string, at: number): boolean {
  if (text.charCodeAt(at) !== 48 || text.charCodeAt(at + 1) !== 48) return false;
  const high = text.charCodeAt(at + 2);
  const low = text.charCodeAt(at + 3);
  const lowValue = low >= 48 && low <= 57 ? low - 48 : low >= 97 && low <= 102 ? low - 87 : -1;
  if (lowValue < 0 || (high !== 48 && high !== 49)) return false;
  const value = (high - 48) * 16 + lowValue;
  return value !== 8 && value !== 9 && value !== 10 && value !== 12 && value !== 13;
}

function isDigit(code: number): boolean {
  return code >= 48 && code <= 57;
}

/**
 * Index past the number at `start`, or -1 when stringify would write it otherwise. Sets
 * hasFact unless it is `0`.
 */
function scanNumber(start: number): number {
  const text = scanText;
  let at = start;
  if (text.charCodeAt(at) === 45 /* - */) at++;
  const integerStart = at;
  if (!isDigit(text.charCodeAt(at))) return -1;
  if (text.charCodeAt(at) === 48 /* 0 */) {
    at++;
    if (isDigit(text.charCodeAt(at))) return -1; // a leading zero
  } else {
    while (isDigit(text.charCodeAt(at))) at++;
  }
  const integerDigits = at - integerStart;
  let significant = text.charCodeAt(integerStart) === 48 ? 0 : integerDigits;
  const next = text.charCodeAt(at);
  if (next === 46 /* . */) {
    at++;
    const fractionStart = at;
    while (isDigit(text.charCodeAt(at))) at++;
    if (at === fractionStart || text.charCodeAt(at - 1) === 48) return -1; // `1.` or a trailing zero
    if (significant === 0) {
      // 0.000001 is written as such, 0.0000001 as 1e-7.
      let zeros = 0;
      while (text.charCodeAt(fractionStart + zeros) === 48) zeros++;
      if (zeros > 5) return -1;
      significant = at - fractionStart - zeros;
    } else {
      significant += at - fractionStart;
    }
  } else if (integerDigits === 1 && text.charCodeAt(integerStart) === 48) {
    if (integerStart !== start) return -1; // -0 is written 0
    return at; // 0: no fact
  }
  const after = text.charCodeAt(at);
  if (after === 101 /* e */ || after === 69 /* E */) {
    // stringify writes 1e+21 and 5e-324: checked by the engine itself, as below.
    at++;
    const sign = text.charCodeAt(at);
    if (sign === 43 /* + */ || sign === 45 /* - */) at++;
    const exponentStart = at;
    while (isDigit(text.charCodeAt(at))) at++;
    if (at === exponentStart) return -1;
    significant = 16;
  }
  // Up to 15 significant digits a decimal is its double's shortest form (DBL_DIG); longer
  // ones (a score 0.3333333333333333) are checked by the engine itself.
  if (significant > 15) {
    const token = text.slice(start, at);
    if (String(Number(token)) !== token) return -1;
  }
  jsonTextShape.hasFact = true;
  return at;
}

/** Index past the literal `word` at `start`, or -1. */
function scanWord(start: number, word: string): number {
  return scanText.startsWith(word, start) ? start + word.length : -1;
}

/** Index past the value at `start`, or -1. `inChain`: an object here is a member of the chain findItems walks. */
function scanValue(start: number, depth: number, inChain: boolean): number {
  const code = scanText.charCodeAt(start);
  if (code === 34 /* " */) {
    const end = scanString(start);
    if (end > start + 2) jsonTextShape.hasFact = true;
    return end;
  }
  if (code === 123 /* { */) return scanObject(start, depth, inChain);
  if (code === 91 /* [ */) return scanArray(start, depth);
  if (code === 116 /* t */) {
    jsonTextShape.hasFact = true;
    return scanWord(start, 'true');
  }
  if (code === 102 /* f */) return scanWord(start, 'false');
  if (code === 110 /* n */) return scanWord(start, 'null');
  return scanNumber(start);
}

function scanArray(start: number, depth: number): number {
  if (depth >= MAX_DEPTH) return -1;
  const text = scanText;
  let at = start + 1;
  let count = 0;
  if (text.charCodeAt(at) === 93 /* ] */) {
    if (depth === 0) jsonTextShape.topCount = 0;
    lastArrayCount = 0;
    return at + 1;
  }
  for (;;) {
    // depth 1: the list is a top-level member's value (or a top-level list's), its items at depth 2.
    if (depth === 1) inFirstItem = count === 0;
    else if (depth === 0) inTopFirstItem = count === 0;
    at = scanValue(at, depth + 1, false);
    if (at < 0) return -1;
    count++;
    const next = text.charCodeAt(at);
    if (next === 93 /* ] */) break;
    if (next !== 44 /* , */) return -1;
    at++;
  }
  if (depth === 0) {
    jsonTextShape.topCount = count;
    inTopFirstItem = false;
    // The one row of a top-level list said "moving" (objectSaysInProgress reads a list of one as its record).
    if (count === 1 && pendingSaysMoving) jsonTextShape.statusSaysMoving = true;
  } else if (depth === 1) inFirstItem = false;
  lastArrayCount = count;
  return at + 1;
}

/** Item count of the array scanArray finished last (read by scanObject for its members). */
let lastArrayCount = 0;

/** The top-level keys saysNoMorePages reads, by their JSON token. */
const HAS_MORE_TOKENS: ReadonlySet<string> = new Set(['"has_more"', '"hasMore"']);
const END_MARKER_TOKENS: ReadonlySet<string> = new Set(['"next_cursor"', '"nextCursor"', '"next_page_token"', '"nextPageToken"', '"next_page"', '"nextPage"', '"next"']);

function scanObject(start: number, depth: number, inChain: boolean): number {
  if (depth >= MAX_DEPTH) return -1;
  const text = scanText;
  const level = inChain && depth < ENVELOPE_LEVELS ? levels[depth]! : undefined;
  if (level !== undefined) level.reset();
  const keysFrom = keyTop;
  /** This object's key tokens once it has more than PAIRWISE_KEYS keys. */
  let wideKeys: Set<string> | undefined;
  let at = start + 1;
  if (text.charCodeAt(at) === 125 /* } */) return at + 1;
  for (;;) {
    if (text.charCodeAt(at) !== 34 /* " */) return -1;
    const keyStart = at;
    const keyEnd = scanString(at);
    if (keyEnd < 0 || text.charCodeAt(keyEnd) !== 58 /* : */) return -1;
    if (isDigit(text.charCodeAt(keyStart + 1))) return -1; // array-index keys come first after JSON.parse
    if (keyTop - keysFrom < PAIRWISE_KEYS) {
      if (!isNewKey(keysFrom, keyStart, keyEnd)) return -1;
    } else {
      if (wideKeys === undefined) {
        wideKeys = new Set<string>();
        for (let key = keysFrom; key < keyTop; key++) wideKeys.add(text.slice(keyStarts[key]!, keyEnds[key]!));
      }
      const token = text.slice(keyStart, keyEnd);
      if (wideKeys.has(token)) return -1;
      wideKeys.add(token);
    }
    if (volatileKeys !== undefined && volatileKeys.matches(text, keyStart, keyEnd)) jsonTextShape.hasVolatileMember = true;
    if (keyedNames !== undefined && (nextBackslash < keyEnd || keyedNames.mayMatch(text, keyStart, keyEnd))) listKeyedMember(keyStart, keyEnd);
    const valueStart = keyEnd + 1;
    const valueCode = text.charCodeAt(valueStart);
    if (depth === 0) {
      inSubject = valueCode === 123 /* { */ && isSubjectKey(keyStart, keyEnd);
      inWrapper = valueCode === 123 /* { */ && !inSubject && keyTop - keysFrom === 1;
      pendingSaysMoving = false;
    }
    at = scanValue(valueStart, depth + 1, level !== undefined);
    if (at < 0) return -1;
    if (valueCode === 34 /* " */ && (depth === 0 || (depth === 1 && (inSubject || inWrapper || inTopFirstItem)) || (depth === 2 && inFirstItem))) {
      readStatusMember(keyStart, keyEnd, valueStart, at, depth === 2 || (depth === 1 && (inWrapper || inTopFirstItem)));
    }
    if (depth === 0) {
      readTopMember(keyStart, keyEnd, valueStart, at);
      if (pendingSaysMoving && valueCode === 91 /* [ */) {
        if (lastArrayCount === 1) jsonTextShape.statusSaysMoving = true;
        pendingSaysMoving = false;
      }
    }
    if (level !== undefined) {
      if (valueCode === 91 /* [ */) {
        if (level.arrays++ === 0) {
          level.firstArrayKeyStart = keyStart;
          level.firstArrayKeyEnd = keyEnd;
          level.firstArrayCount = lastArrayCount;
        }
        if (lastArrayCount > 0 && level.nonEmptyArrays++ === 0) {
          level.nonEmptyArrayKeyStart = keyStart;
          level.nonEmptyArrayKeyEnd = keyEnd;
          level.nonEmptyArrayCount = lastArrayCount;
        }
      } else if (valueCode === 123 /* { */) {
        level.objects++;
        level.objectKeyStart = keyStart;
        level.objectKeyEnd = keyEnd;
      }
    }
    const next = text.charCodeAt(at);
    if (next === 125 /* } */) break;
    if (next !== 44 /* , */) return -1;
    at++;
  }
  // A wrapper of one whose object said "moving" (its one member: no later member cleared it).
  if (depth === 0 && pendingSaysMoving && keyTop - keysFrom === 1) jsonTextShape.statusSaysMoving = true;
  keyTop = keysFrom;
  return at + 1;
}

/**
 * Lists the key at `keyStart`, whose name may be a keyed member name (or marks the list
 * incomplete: the key holds a backslash). Why this is every place
 * the filter's keyed family (`"name":` + value) can match in text the scan vouched for: that
 * match starts at a `"` followed by name characters, a `"` and a `:`. A closing quote is
 * followed by `,` `:` `]` or `}`, none a name character; the `"` after the name cannot be an
 * escaped one (a name holds no `\`), so it closes the string, and only a key's closing quote
 * is followed by `:`. So the match starts at a key's opening quote (the key is then exactly
 * the name) or at an escaped quote inside a key: a key with any backslash makes the list
 * incomplete, and the filter scans the whole text as before.
 */
function listKeyedMember(keyStart: number, keyEnd: number): void {
  const shape = jsonTextShape;
  if (nextBackslash < keyEnd) shape.keyedMembersListed = false;
  else {
    const places = shape.keyedMemberPlaces;
    if (places.count === places.starts.length) {
      const starts = new Int32Array(places.count * 2);
      starts.set(places.starts);
      places.starts = starts;
    }
    places.starts[places.count++] = keyStart;
  }
}

/** Records the key unless the object at `keysFrom` of the stack already has it. */
function isNewKey(keysFrom: number, keyStart: number, keyEnd: number): boolean {
  const text = scanText;
  const length = keyEnd - keyStart;
  for (let key = keysFrom; key < keyTop; key++) {
    const otherStart = keyStarts[key]!;
    if (keyEnds[key]! - otherStart !== length) continue;
    let same = true;
    for (let offset = 1; offset < length - 1; offset++) {
      if (text.charCodeAt(keyStart + offset) !== text.charCodeAt(otherStart + offset)) {
        same = false;
        break;
      }
    }
    if (same) return false;
  }
  if (keyTop === keyStarts.length) {
    const starts = new Int32Array(keyTop * 2);
    starts.set(keyStarts);
    keyStarts = starts;
    const ends = new Int32Array(keyTop * 2);
    ends.set(keyEnds);
    keyEnds = ends;
  }
  keyStarts[keyTop] = keyStart;
  keyEnds[keyTop++] = keyEnd;
  return true;
}

/**
 * A status member (of the top-level object, of a subject or a wrapper's object one level down, or
 * of the first item of a top-level list) whose string value says "moving": the text is then parsed and judged
 * by says-in-progress.ts. Only keys that end like a status name are sliced. Measured (/tmp
 * probe, guard.fingerprint of a 2 KB JSON record with a `data` object, medians of 15 bursts,
 * against the commit before): a case-insensitive `"status":"running"` regex over the text as the
 * gate cost +1.3–1.6 µs a result; this read is within noise (±0.3 µs). A status still moving
 * pays the parse: +1.7 µs on 1.9 KB.
 */
function readStatusMember(keyStart: number, keyEnd: number, valueStart: number, valueEnd: number, pending: boolean): void {
  // Every status name ends in `tatus` or `tate` but `phase`: other keys are not sliced.
  const text = scanText;
  const named = text.startsWith('tatus"', keyEnd - 6) || text.startsWith('tate"', keyEnd - 5) || (keyEnd - keyStart === 7 && text.startsWith('"phase"', keyStart));
  if (!named || !isStatusKey(text.slice(keyStart + 1, keyEnd - 1))) return;
  if (!MOVING_VALUE.test(scanText.slice(valueStart + 1, valueEnd - 1))) return;
  if (pending) pendingSaysMoving = true;
  else jsonTextShape.statusSaysMoving = true;
}

/** Is the top-level key at `keyStart` one a status answer may be about (`"job"`, `"data"`: 5 to 14 characters)? */
function isSubjectKey(keyStart: number, keyEnd: number): boolean {
  const length = keyEnd - keyStart;
  return length >= 5 && length <= 14 && SUBJECT_KEY_TOKENS.has(scanText.slice(keyStart, keyEnd));
}

/** The top-level members saysNoMorePages and unwrapToolResultEnvelope read. */
function readTopMember(keyStart: number, keyEnd: number, valueStart: number, valueEnd: number): void {
  const length = keyEnd - keyStart;
  // Only keys as long as one of the tokens are sliced (7 to 19 characters with quotes).
  if (length < 6 || length > 19) return;
  const text = scanText;
  const shape = jsonTextShape;
  if (length === 9 && text.startsWith('"content"', keyStart)) shape.hasContentMember = true;
  else if (length === 19 && text.startsWith('"response_metadata"', keyStart)) shape.hasResponseMetadata = true;
  else {
    const valueLength = valueEnd - valueStart;
    if (valueLength === 5 && text.startsWith('false', valueStart)) {
      if (HAS_MORE_TOKENS.has(text.slice(keyStart, keyEnd))) shape.saysNoMorePages = true;
    } else if ((valueLength === 4 && text.startsWith('null', valueStart)) || (valueLength === 2 && text.charCodeAt(valueStart) === 34)) {
      if (END_MARKER_TOKENS.has(text.slice(keyStart, keyEnd))) shape.saysNoMorePages = true;
    }
  }
}
