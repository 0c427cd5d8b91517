/**
 * The UTF-8 text of short byte ranges (attribute keys, tool and operation names, ids), decoded
 * once and handed out again when the same bytes come back: the spans of an OTLP request repeat
 * their keys and most short values span after span. A hit is a hash and a compare of the bytes
 * in JavaScript: no native decode call, no new string, and the string given is the one given
 * before, whose hash V8 has already computed (a Map lookup by it costs no rehash).
 *
 * Direct-mapped and bounded: `slots` entries of at most `maxBytes` bytes each, a new text
 * replaces the one in its slot. Texts equal `bytes.toString('utf8', start, end)` always: a slot
 * holds a copy of the bytes it was decoded from and is used only when they are equal (invalid
 * UTF-8 decodes to U+FFFD the same way each time).
 *
 * Measured (bench/serve.ts ingestion, --cpu-prof, 2 KB GenAI tool spans, 4 keys and 2 short
 * values a span): decoding keys and values with Buffer#toString plus the reader-attribute Map
 * lookup by the new key string was 7.9 % of the server's self time (toString wrappers 4.3 %,
 * utf8Slice 1.6 %, Map lookup 1.5 %, and the strings' share of GC).
 */
export class ShortTextInterner<Extra = undefined> {
  private readonly arena: Uint8Array;
  private readonly lengths: Int32Array;
  private readonly texts: string[];
  private readonly extras: Array<Extra | undefined>;
  private readonly mask: number;
  /** The extra value of the text the last `read` gave (see {@link read}). */
  lastExtra: Extra | undefined = undefined;

  /**
   * @param slots a power of two
   * @param maxBytes longer ranges are decoded every time, never kept
   * @param extraOf computed once per text kept, given back as `lastExtra` on every read of it
   */
  constructor(
    slots: number,
    readonly maxBytes: number,
    private readonly extraOf?: (text: string) => Extra,
  ) {
    if (!Number.isInteger(Math.log2(slots))) throw new RangeError(`slots must be a power of two, got ${slots}`);
    this.arena = new Uint8Array(slots * maxBytes);
    this.lengths = new Int32Array(slots).fill(-1);
    this.texts = new Array<string>(slots).fill('');
    this.extras = new Array<Extra | undefined>(slots).fill(undefined);
    this.mask = slots - 1;
  }

  /** `bytes.toString('utf8', start, end)`, from the slot of these bytes when it holds them. */
  read(bytes: Buffer, start: number, end: number): string {
    const length = end - start;
    if (length > this.maxBytes) {
      const text = bytes.toString('utf8', start, end);
      this.lastExtra = this.extraOf?.(text);
      return text;
    }
    // FNV-1a over the bytes, folded to the slot index.
    let hash = 0x811c9dc5 ^ length;
    for (let index = start; index < end; index++) hash = Math.imul(hash ^ bytes[index]!, 0x01000193);
    const slot = (hash ^ (hash >>> 15)) & this.mask;
    const arena = this.arena;
    const base = slot * this.maxBytes;
    if (this.lengths[slot] === length) {
      let same = true;
      for (let index = 0; index < length; index++) {
        if (arena[base + index] !== bytes[start + index]) {
          same = false;
          break;
        }
      }
      if (same) {
        this.lastExtra = this.extras[slot];
        return this.texts[slot]!;
      }
    }
    const text = bytes.toString('utf8', start, end);
    for (let index = 0; index < length; index++) arena[base + index] = bytes[start + index]!;
    this.lengths[slot] = length;
    this.texts[slot] = text;
    const extra = this.extraOf?.(text);
    this.extras[slot] = extra;
    this.lastExtra = extra;
    return text;
  }
}
