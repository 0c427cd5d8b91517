/** Where a JSON value lies in a message's bytes: `bytes.subarray(start, end)` is its raw text. */
export interface RawJsonSpan {
  start: number;
  end: number;
}

/** The top level of a JSON object or array, as spans of the bytes it was read from. */
export type RawJson =
  | { kind: 'object'; members: Map<string, RawJsonSpan> }
  | { kind: 'array'; elements: RawJsonSpan[] };

const QUOTE = 0x22;
const BACKSLASH = 0x5c;
const COMMA = 0x2c;
const COLON = 0x3a;

/**
 * Reads the top level of a JSON object or array in place, without decoding or parsing the
 * values: the proxy takes a request id as the raw text the client wrote (`12345678901234567891`
 * and `1e400` do not survive a JS number), cuts a batch into its elements, and replaces one
 * member of an answer while every other byte stays as it came. Works on bytes, not text:
 * JSON's structural characters are ASCII, and no byte of a multi-byte UTF-8 sequence is.
 * Linear in the length. Lenient: meant for text `JSON.parse` accepts (or that is forwarded
 * unread); structure it cannot follow gives `undefined`.
 */
export function readRawJson(bytes: Uint8Array, start = 0, end = bytes.length): RawJson | undefined {
  let index = skipWhitespace(bytes, start, end);
  const open = bytes[index];
  if (open !== 0x7b && open !== 0x5b) return undefined;
  const isObject = open === 0x7b;
  const close = isObject ? 0x7d : 0x5d;
  const members = new Map<string, RawJsonSpan>();
  const elements: RawJsonSpan[] = [];
  index = skipWhitespace(bytes, index + 1, end);
  if (bytes[index] === close) return isObject ? { kind: 'object', members } : { kind: 'array', elements };
  for (;;) {
    let name: string | undefined;
    if (isObject) {
      if (bytes[index] !== QUOTE) return undefined;
      const nameEnd = skipString(bytes, index, end);
      if (nameEnd < 0) return undefined;
      try {
        name = JSON.parse(Buffer.from(bytes.buffer, bytes.byteOffset + index, nameEnd - index).toString('utf8')) as string;
      } catch {
        return undefined;
      }
      index = skipWhitespace(bytes, nameEnd, end);
      if (bytes[index] !== COLON) return undefined;
      index = skipWhitespace(bytes, index + 1, end);
    }
    const valueEnd = skipValue(bytes, index, end);
    if (valueEnd < 0) return undefined;
    // A repeated name: the last one counts, as in JSON.parse.
    if (name !== undefined) members.set(name, { start: index, end: valueEnd });
    else elements.push({ start: index, end: valueEnd });
    index = skipWhitespace(bytes, valueEnd, end);
    if (bytes[index] === COMMA) index = skipWhitespace(bytes, index + 1, end);
    else if (bytes[index] === close) return isObject ? { kind: 'object', members } : { kind: 'array', elements };
    else return undefined;
  }
}

function skipWhitespace(bytes: Uint8Array, index: number, end: number): number {
  while (index < end) {
    const byte = bytes[index];
    if (byte !== 0x20 && byte !== 0x09 && byte !== 0x0a && byte !== 0x0d) break;
    index += 1;
  }
  return index;
}

/** `index` is at a quote; returns the index after the closing one, or -1. */
function skipString(bytes: Uint8Array, index: number, end: number): number {
  for (index += 1; index < end; index += 1) {
    const byte = bytes[index];
    if (byte === BACKSLASH) index += 1;
    else if (byte === QUOTE) return index + 1;
  }
  return -1;
}

function skipValue(bytes: Uint8Array, index: number, end: number): number {
  const first = bytes[index];
  if (first === QUOTE) return skipString(bytes, index, end);
  if (first === 0x7b || first === 0x5b) {
    // Nested values are skipped by depth alone: strings are the only place a bracket is not one.
    let depth = 0;
    while (index < end) {
      const byte = bytes[index];
      if (byte === QUOTE) {
        index = skipString(bytes, index, end);
        if (index < 0) return -1;
        continue;
      }
      if (byte === 0x7b || byte === 0x5b) depth += 1;
      else if (byte === 0x7d || byte === 0x5d) depth -= 1;
      index += 1;
      if (depth === 0) return index;
    }
    return -1;
  }
  // A number, true, false or null: up to the next delimiter.
  const from = index;
  while (index < end) {
    const byte = bytes[index];
    if (byte === COMMA || byte === 0x7d || byte === 0x5d || byte === 0x20 || byte === 0x09 || byte === 0x0a || byte === 0x0d) break;
    index += 1;
  }
  return index > from ? index : -1;
}
