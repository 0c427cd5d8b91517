import * as crypto from 'node:crypto';

const BASE64URL = 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_';
/** Character code → 6-bit value, for the base64url alphabet. */
const BASE64URL_VALUE = new Uint8Array(128);
for (let index = 0; index < BASE64URL.length; index++) BASE64URL_VALUE[BASE64URL.charCodeAt(index)] = index;

type OneShotHash = (algorithm: string, data: string, outputEncoding: 'base64url') => string;
/** `crypto.hash` exists from Node 20.12 / 21.7; older Node 20 lines use createHash. */
const oneShot = (crypto as unknown as { hash?: OneShotHash }).hash;

/**
 * Texts longer than this are hashed in two updates (prefix, then text) instead of one
 * concatenated string: concatenation makes a rope that hashing must first copy flat. Measured
 * (interleaved medians, 2 MB result text): sha256 of the concatenation 7.1 ms, two updates
 * 5.1 ms, the text alone 4.3 ms. For short texts the copy is lost in the noise
 * (bench/probes/hash.ts: 2.2 KB text 3.4 µs with or without the prefix), and the one-shot
 * hash of the concatenation is cheaper than a Hash object.
 */
const SPLIT_UPDATE_MIN_LENGTH = 16 * 1024;

function truncatedDigest(full: string): string {
  // Characters 0–20 of the 43-character base64url SHA-256 encode bytes 0–14 and the top six
  // bits of byte 15, exactly as in the encoding of the first 16 bytes. Character 21 holds
  // byte 15's low two bits and byte 16's top four; the 16-byte encoding pads those four with
  // zeros, so keep only the top two bits of its value. String.fromCharCode builds a flat
  // 22-character string: a slice + concat would be a rope over a sliced 43-character string,
  // and the ledger keeps these strings (memory per call is a budget).
  const last = BASE64URL.charCodeAt(BASE64URL_VALUE[full.charCodeAt(21)]! & 0x30);
  return String.fromCharCode(
    full.charCodeAt(0), full.charCodeAt(1), full.charCodeAt(2), full.charCodeAt(3), full.charCodeAt(4), full.charCodeAt(5),
    full.charCodeAt(6), full.charCodeAt(7), full.charCodeAt(8), full.charCodeAt(9), full.charCodeAt(10), full.charCodeAt(11),
    full.charCodeAt(12), full.charCodeAt(13), full.charCodeAt(14), full.charCodeAt(15), full.charCodeAt(16), full.charCodeAt(17),
    full.charCodeAt(18), full.charCodeAt(19), full.charCodeAt(20), last,
  );
}

/**
 * SHA-256 of the UTF-8 text, truncated to 128 bits and written as 22 base64url characters.
 * 128 bits keeps accidental collisions out of reach for any run length while the stored
 * string stays short: the ledger keeps one per distinct call and per distinct result, and
 * memory per recorded call is a budget (issue 6: ≤ 150 B).
 *
 * One-shot `crypto.hash(…, 'base64url')` plus {@link truncatedDigest} gives the same 22
 * characters as `createHash().update().digest().toString('base64url', 0, 16)` without a Hash
 * object and a Buffer per call. Measured (bench/probes/hash.ts, interleaved medians, 150 B
 * call identity text): 6.2 µs → 1.6 µs on the loaded 2-core runner.
 */
export function hashText(text: string): string {
  if (oneShot === undefined) return crypto.createHash('sha256').update(text).digest().toString('base64url', 0, 16);
  return truncatedDigest(oneShot('sha256', text, 'base64url'));
}

/**
 * `hashText(prefix + text)`, without building the concatenation for large texts (see
 * {@link SPLIT_UPDATE_MIN_LENGTH}). Splitting the UTF-8 encoding between two updates gives
 * the same bytes unless the prefix ends inside a surrogate pair, which falls back to the
 * concatenation.
 */
export function hashPrefixed(prefix: string, text: string): string {
  const lastCode = prefix.length > 0 ? prefix.charCodeAt(prefix.length - 1) : 0;
  if (lastCode >= 0xd800 && lastCode <= 0xdbff) return hashText(prefix + text);
  if (text.length < SPLIT_UPDATE_MIN_LENGTH) return hashText(prefix + text);
  return truncatedDigest(crypto.createHash('sha256').update(prefix).update(text).digest('base64url'));
}

/**
 * Item hashing reads UTF-16 code units from a copy of the text: `charCodeAt` per unit was the
 * cost of item-level novelty; one native `Buffer.write(text, 'utf16le')` and typed-array
 * reads give the same units 2.6× faster. Measured (/tmp probe, 2.2 KB result text,
 * interleaved best of 9): charCodeAt loop 4.8 µs, utf16 copy + typed-array loop 1.9 µs (the
 * copy 0.1 µs). The scratch buffer is made on first use and kept (512 KiB); a longer text is
 * copied a scratch-full at a time, so memory stays bounded whatever the result's size.
 */
const ITEM_SCRATCH_UNITS = 256 * 1024; // even: chunks never split a pair of units
let itemScratch: Buffer | undefined;
let itemUnits: Uint16Array | undefined;
/** The two hash lanes between chunks of one range (Int32: Math.imul's results, unchanged). */
const lanes = new Int32Array(2);

function scratchUnits(): Uint16Array {
  if (itemUnits === undefined) {
    itemScratch = Buffer.allocUnsafeSlow(ITEM_SCRATCH_UNITS * 2);
    itemUnits = new Uint16Array(itemScratch.buffer, itemScratch.byteOffset, ITEM_SCRATCH_UNITS);
  }
  return itemUnits;
}

/**
 * Mixes units [start, end) into the lanes, two UTF-16 units per step packed in one 32-bit
 * word: half the multiplications of a unit-by-unit loop. An odd last unit is mixed alone, so
 * only a range's last chunk may have odd length.
 */
function mixUnits(units: Uint16Array, start: number, end: number): void {
  let h1 = lanes[0]!;
  let h2 = lanes[1]!;
  let index = start;
  for (const last = end - 1; index < last; index += 2) {
    const word = units[index]! | (units[index + 1]! << 16);
    h1 = Math.imul(h1 ^ word, 2654435761);
    h2 = Math.imul(h2 ^ word, 1597334677);
  }
  if (index < end) {
    const code = units[index]!;
    h1 = Math.imul(h1 ^ code, 2654435761);
    h2 = Math.imul(h2 ^ code, 1597334677);
  }
  lanes[0] = h1;
  lanes[1] = h2;
}

/** The hash of `text` [start, end); `units` holds the whole text's units when it fits the scratch. */
function hashRange(text: string, start: number, end: number, units: Uint16Array | undefined): number {
  lanes[0] = 0xdeadbeef ^ (end - start);
  lanes[1] = 0x41c6ce57 ^ (end - start);
  if (units !== undefined) {
    mixUnits(units, start, end);
  } else {
    const scratch = scratchUnits();
    for (let from = start; from < end; from += ITEM_SCRATCH_UNITS) {
      const to = Math.min(end, from + ITEM_SCRATCH_UNITS);
      itemScratch!.write(text.substring(from, to), 0, 'utf16le');
      mixUnits(scratch, 0, to - from);
    }
  }
  let h1 = lanes[0]!;
  let h2 = lanes[1]!;
  h1 = Math.imul(h1 ^ (h1 >>> 16), 2246822507);
  h1 ^= Math.imul(h2 ^ (h2 >>> 13), 3266489909);
  h2 = Math.imul(h2 ^ (h2 >>> 16), 2246822507);
  h2 ^= Math.imul(h1 ^ (h1 >>> 13), 3266489909);
  return 4294967296 * (2097151 & h2) + (h1 >>> 0);
}

/** The text's units in the scratch buffer, or undefined when it is longer than the scratch. */
function loadUnits(text: string): Uint16Array | undefined {
  if (text.length > ITEM_SCRATCH_UNITS) return undefined;
  const units = scratchUnits();
  itemScratch!.write(text, 0, 'utf16le');
  return units;
}

/**
 * A 53-bit non-cryptographic hash of a result item's text (cyrb53: two 32-bit multiply-xor
 * lanes), as a safe integer. Item fingerprints only decide whether an item of a list came
 * back before in the same run: with ten thousand items in a run an accidental collision
 * (about n²/2⁵⁴) is out of reach, and a tool able to forge one could as well return the same
 * result again. A number, not a string: no base-36 formatting per item, and the ledger keeps
 * items in a Set<number>. Deterministic across processes, so a shared ledger agrees. Why not
 * SHA-256 here: see itemFingerprints in result-fingerprint.ts.
 */
export function hashItemText(text: string, start = 0, end = text.length): number {
  return hashRange(text, start, end, loadUnits(text));
}

/** Hashes of the given [start, end) ranges of `text`, equal to hashItemText(text, start, end) for each; the text is copied once. */
export function hashItemRanges(text: string, starts: readonly number[], ends: readonly number[], out: number[]): void {
  const units = loadUnits(text);
  for (let range = 0; range < starts.length; range++) out[range] = hashRange(text, starts[range]!, ends[range]!, units);
}
