import { DecodedOtlpAttributes, MAX_OTLP_VALUE_DEPTH } from '../replay/otlp-any-value.js';
import { EXCEPTION_EVENT_ATTRIBUTES, isSpanReaderAttribute } from '../replay/span-conventions/span-reader-attributes.js';
import { OtlpProtobufReadError } from './otlp-protobuf-read-error.js';
import { ShortTextInterner } from './short-text-interner.js';

/*
 * A hand-written reader of the part of opentelemetry-proto (v1.x: collector/trace/v1
 * ExportTraceServiceRequest, trace/v1, common/v1) that the span readers use. Field numbers:
 *   ExportTraceServiceRequest: 1 resource_spans
 *   ResourceSpans: 1 resource (skipped: no reader reads it), 2 scope_spans, 3 schema_url (skipped)
 *   ScopeSpans: 1 scope (skipped), 2 spans, 3 schema_url (skipped)
 *   Span: 1 trace_id, 2 span_id, 3 trace_state (skipped), 4 parent_span_id, 5 name, 6 kind (skipped),
 *     7 start_time_unix_nano (fixed64), 8 end_time_unix_nano (fixed64), 9 attributes, 10 dropped
 *     count (skipped), 11 events, 12–14 dropped counts and links (skipped), 15 status, 16 flags (skipped)
 *   Event: 1 time (skipped), 2 name, 3 attributes; Status: 2 message, 3 code
 *   KeyValue: 1 key, 2 value; AnyValue (oneof): 1 string, 2 bool, 3 int64, 4 double, 5 ArrayValue,
 *     6 KeyValueList, 7 bytes; ArrayValue / KeyValueList: 1 values
 * Everything else is skipped by its wire type, unread. Attributes are decoded only when a
 * reader can read them (SPAN_READER_ATTRIBUTES), events only when they are `exception`
 * events: a 2 KB prompt attribute costs a key comparison, not a UTF-8 decode.
 *
 * Measured on the serve bench's requests (100 GenAI tool spans of 2 KB each, interleaved medians,
 * bench/probes/otlp-protobuf-reader.ts): 541 µs per request against 1 308 µs for protobufjs
 * (decode + toObject + hex ids, the reader it replaced). Attributes are decoded straight to
 * plain values (DecodedOtlpAttributes) rather than `{ key, value: { stringValue } }` objects the
 * collector then decodes: decode + collect 249 → 240 and 257 → 237 µs in two paired runs.
 */

const VARINT = 0;
const I64 = 1;
const LEN = 2;
const START_GROUP = 3;
const END_GROUP = 4;
const I32 = 5;
const WIRE_TYPE_NAMES = ['varint', 'i64', 'len', 'start group', 'end group', 'i32'];

/**
 * A span in its OTLP/JSON shape with ids in hex, times as bigint nanoseconds and attributes
 * already decoded (as decodeOtlpAttributes would decode their JSON form).
 */
export interface OtlpProtobufSpan {
  traceId: string | undefined;
  spanId: string | undefined;
  parentSpanId: string | undefined;
  name: string | undefined;
  startTimeUnixNano: bigint | undefined;
  endTimeUnixNano: bigint | undefined;
  attributes: DecodedOtlpAttributes;
  /** `exception` events only, with their exception.type / exception.message. */
  events: Array<{ name: 'exception'; attributes: DecodedOtlpAttributes }> | undefined;
  status: { code: number | undefined; message: string | undefined } | undefined;
}

/** A request in the shape OtlpSpanCollector.addRequest reads. */
export interface OtlpProtobufRequest {
  resourceSpans: Array<{ scopeSpans: Array<{ spans: OtlpProtobufSpan[] }> }>;
}

/**
 * The text of the last bytes read for one field, reused when the next span's bytes are the
 * same: the spans of a request share their trace id, siblings their parent id, calls of one
 * tool their name, and a live trace keeps its spans (and these strings) while its run is open.
 * Measured (bench/probes/serve-trace-memory.ts): 87.9 → 76.3 KiB per open trace of 100 spans;
 * decode + collect time unchanged (241 vs 242, 240 vs 244 µs per request, paired).
 */
class LastText {
  private start = -1;
  private end = -1;
  private text = '';

  read(bytes: Buffer, start: number, end: number, encoding: 'hex' | 'utf8'): string {
    if (this.start >= 0 && end - start === this.end - this.start && bytes.compare(bytes, this.start, this.end, start, end) === 0) return this.text;
    this.start = start;
    this.end = end;
    this.text = bytes.toString(encoding, start, end);
    return this.text;
  }
}

/** Where the reader is, for error messages: a stack of (field name, repeated index or -1). */
class Cursor {
  pos = 0;
  depth = 0;
  /** AnyValues and groups being read inside one another (see MAX_OTLP_VALUE_DEPTH). */
  nesting = 0;
  readonly fieldNames: string[] = [];
  readonly indexes: number[] = [];
  readonly traceIds = new LastText();
  readonly parentIds = new LastText();
  readonly names = new LastText();
  constructor(readonly bytes: Buffer) {}

  enter(name: string, index: number): void {
    this.fieldNames[this.depth] = name;
    this.indexes[this.depth] = index;
    this.depth += 1;
  }

  leave(): void {
    this.depth -= 1;
  }

  fail(problem: string, offset = this.pos): never {
    const parts: string[] = [];
    for (let level = 0; level < this.depth; level++) {
      // A path hundreds of levels deep says no more than its ends.
      if (level === 12 && this.depth > 20) {
        parts.push(`…${this.depth - 18} levels…`);
        level = this.depth - 7;
        continue;
      }
      const index = this.indexes[level]!;
      parts.push(index >= 0 ? `${this.fieldNames[level]}[${index}]` : this.fieldNames[level]!);
    }
    throw new OtlpProtobufReadError({ field: parts.join('.'), offset, problem });
  }
}

/**
 * Reads a protobuf ExportTraceServiceRequest into the OTLP/JSON shape the replay reader takes
 * (ids as lowercase hex, times as bigint nanoseconds, attributes decoded to plain values),
 * keeping only the attributes a span reader reads.
 *
 * @throws OtlpProtobufReadError naming the field and byte where the bytes stop being a valid
 *   message (truncated varint, bad wire type, a length past the end of its message).
 */
export function readOtlpProtobufSpans(body: Uint8Array): OtlpProtobufRequest {
  const bytes = Buffer.isBuffer(body) ? body : Buffer.from(body.buffer, body.byteOffset, body.byteLength);
  const cursor = new Cursor(bytes);
  const resourceSpans: OtlpProtobufRequest['resourceSpans'] = [];
  const end = bytes.length;
  while (cursor.pos < end) {
    const tag = readTag(cursor, end);
    if (tag === ((1 << 3) | LEN)) {
      cursor.enter('resourceSpans', resourceSpans.length);
      resourceSpans.push(readResourceSpans(cursor, readLengthEnd(cursor, end)));
      cursor.leave();
    } else skipField(cursor, tag, end, 1);
  }
  return { resourceSpans };
}

function readResourceSpans(cursor: Cursor, end: number): { scopeSpans: Array<{ spans: OtlpProtobufSpan[] }> } {
  const scopeSpans: Array<{ spans: OtlpProtobufSpan[] }> = [];
  while (cursor.pos < end) {
    const tag = readTag(cursor, end);
    if (tag === ((2 << 3) | LEN)) {
      cursor.enter('scopeSpans', scopeSpans.length);
      scopeSpans.push({ spans: readScopeSpans(cursor, readLengthEnd(cursor, end)) });
      cursor.leave();
    } else skipField(cursor, tag, end, 2);
  }
  return { scopeSpans };
}

function readScopeSpans(cursor: Cursor, end: number): OtlpProtobufSpan[] {
  const spans: OtlpProtobufSpan[] = [];
  while (cursor.pos < end) {
    const tag = readTag(cursor, end);
    if (tag === ((2 << 3) | LEN)) {
      cursor.enter('spans', spans.length);
      spans.push(readSpan(cursor, readLengthEnd(cursor, end)));
      cursor.leave();
    } else skipField(cursor, tag, end, 2);
  }
  return spans;
}

function readSpan(cursor: Cursor, end: number): OtlpProtobufSpan {
  const bytes = cursor.bytes;
  // Every field present, in one order: one hidden class for every span.
  const span: OtlpProtobufSpan = {
    traceId: undefined,
    spanId: undefined,
    parentSpanId: undefined,
    name: undefined,
    startTimeUnixNano: undefined,
    endTimeUnixNano: undefined,
    attributes: new DecodedOtlpAttributes({}),
    events: undefined,
    status: undefined,
  };
  let attributeIndex = 0;
  let eventIndex = 0;
  while (cursor.pos < end) {
    const tag = readTag(cursor, end);
    const field = tag >>> 3;
    switch (field) {
      case 1:
      case 2:
      case 4: {
        const name = field === 1 ? 'traceId' : field === 2 ? 'spanId' : 'parentSpanId';
        expectWireType(cursor, tag, LEN, name);
        const fieldEnd = readLengthEnd(cursor, end, name);
        if (field === 1) span.traceId = cursor.traceIds.read(bytes, cursor.pos, fieldEnd, 'hex');
        else if (field === 2) span.spanId = bytes.toString('hex', cursor.pos, fieldEnd);
        else span.parentSpanId = cursor.parentIds.read(bytes, cursor.pos, fieldEnd, 'hex');
        cursor.pos = fieldEnd;
        break;
      }
      case 5: {
        expectWireType(cursor, tag, LEN, 'name');
        const fieldEnd = readLengthEnd(cursor, end, 'name');
        span.name = cursor.names.read(bytes, cursor.pos, fieldEnd, 'utf8');
        cursor.pos = fieldEnd;
        break;
      }
      case 7:
      case 8: {
        const name = field === 7 ? 'startTimeUnixNano' : 'endTimeUnixNano';
        expectWireType(cursor, tag, I64, name);
        if (end - cursor.pos < 8) fieldFail(cursor, name, `fixed64 needs 8 bytes, ${end - cursor.pos} left`);
        const nanos = bytes.readBigUInt64LE(cursor.pos);
        if (field === 7) span.startTimeUnixNano = nanos;
        else span.endTimeUnixNano = nanos;
        cursor.pos += 8;
        break;
      }
      case 9: {
        expectWireType(cursor, tag, LEN, 'attributes');
        cursor.enter('attributes', attributeIndex++);
        readKeyValueInto(cursor, readLengthEnd(cursor, end), span.attributes.values, true);
        cursor.leave();
        break;
      }
      case 11: {
        expectWireType(cursor, tag, LEN, 'events');
        cursor.enter('events', eventIndex++);
        const event = readEvent(cursor, readLengthEnd(cursor, end));
        if (event !== undefined) (span.events ??= []).push(event);
        cursor.leave();
        break;
      }
      case 15: {
        expectWireType(cursor, tag, LEN, 'status');
        cursor.enter('status', -1);
        span.status = readStatus(cursor, readLengthEnd(cursor, end));
        cursor.leave();
        break;
      }
      default:
        skipField(cursor, tag, end, field);
    }
  }
  return span;
}

/** An `exception` event with the attributes replay reads; other events are skipped (undefined). */
function readEvent(cursor: Cursor, end: number): { name: 'exception'; attributes: DecodedOtlpAttributes } | undefined {
  const start = cursor.pos;
  // The name may follow the attributes on the wire: find it first, then read the attributes of
  // an exception event only.
  let name: string | undefined;
  while (cursor.pos < end) {
    const tag = readTag(cursor, end);
    if (tag === ((2 << 3) | LEN)) name = readString(cursor, end, 'name');
    else skipField(cursor, tag, end, tag >>> 3);
  }
  if (name !== 'exception') return undefined;
  const attributes: Record<string, unknown> = {};
  let index = 0;
  cursor.pos = start;
  while (cursor.pos < end) {
    const tag = readTag(cursor, end);
    if (tag === ((3 << 3) | LEN)) {
      cursor.enter('attributes', index++);
      readKeyValueInto(cursor, readLengthEnd(cursor, end), attributes, false, EXCEPTION_EVENT_ATTRIBUTES);
      cursor.leave();
    } else skipField(cursor, tag, end, tag >>> 3);
  }
  return { name: 'exception', attributes: new DecodedOtlpAttributes(attributes) };
}

function readStatus(cursor: Cursor, end: number): { code: number | undefined; message: string | undefined } {
  const status: { code: number | undefined; message: string | undefined } = { code: undefined, message: undefined };
  while (cursor.pos < end) {
    const tag = readTag(cursor, end);
    if (tag === ((2 << 3) | LEN)) status.message = readString(cursor, end, 'message');
    else if (tag === ((3 << 3) | VARINT)) status.code = readVarint32(cursor, end, 'code') | 0;
    else skipField(cursor, tag, end, tag >>> 3);
  }
  return status;
}

/**
 * A KeyValue, decoded into `into` as decodeOtlpAttributes decodes one (no key: ignored; a key
 * seen before: the later value wins). With `onlyReaderAttributes`, one no reader reads is
 * skipped without decoding its value; with `only`, any key not in it. The key may follow the
 * value on the wire, so the value is read last.
 */
function readKeyValueInto(cursor: Cursor, end: number, into: Record<string, unknown>, onlyReaderAttributes: boolean, only?: ReadonlySet<string>): void {
  let key: string | undefined;
  let readerKey = false;
  let valueStart = -1;
  let valueEnd = -1;
  while (cursor.pos < end) {
    const tag = readTag(cursor, end);
    if (tag === ((1 << 3) | LEN)) {
      const keyEnd = readLengthEnd(cursor, end, 'key');
      key = KEY_TEXTS.read(cursor.bytes, cursor.pos, keyEnd);
      readerKey = KEY_TEXTS.lastExtra!;
      cursor.pos = keyEnd;
    } else if (tag === ((2 << 3) | LEN)) {
      valueEnd = readLengthEnd(cursor, end, 'value');
      valueStart = cursor.pos;
      cursor.pos = valueEnd;
    } else skipField(cursor, tag, end, tag >>> 3);
  }
  if (key === undefined) return;
  if (onlyReaderAttributes && !readerKey) return;
  if (only !== undefined && !only.has(key)) return;
  if (valueStart < 0) {
    into[key] = undefined;
    return;
  }
  cursor.pos = valueStart;
  cursor.enter('value', -1);
  into[key] = readAnyValue(cursor, valueEnd);
  cursor.leave();
  cursor.pos = end;
}

/**
 * An array or key-value list opens inside a value: as the JSON reader (otlp-any-value.ts), one
 * nested deeper than MAX_OTLP_VALUE_DEPTH is refused by name, where the recursion would overflow
 * the stack. Counted at lists only, not at every value (a call per attribute value measured
 * +0.7 µs a 2 KB tool span, bench/probes/serve-ingestion.ts). The caller lowers the count after
 * the list; a failure abandons the whole read, cursor and all.
 */
function enterList(cursor: Cursor): void {
  if (++cursor.nesting > MAX_OTLP_VALUE_DEPTH) cursor.fail(`nests arrays or key-value lists deeper than ${MAX_OTLP_VALUE_DEPTH} levels`);
}

// Attribute keys repeat from span to span: each is decoded once, with whether a reader reads
// it (bounded: a client sending random keys evicts, never grows, the table).
const KEY_TEXTS = new ShortTextInterner<boolean>(512, 64, isSpanReaderAttribute);
// Short string values repeat too (operation and tool names, a run's conversation id): the spans
// of a live trace keep them, so one string for all of them is also memory kept once.
const VALUE_TEXTS = new ShortTextInterner(512, 48);

/** An AnyValue decoded as decodeOtlpAnyValue decodes its JSON form (an empty one: undefined). */
function readAnyValue(cursor: Cursor, end: number): unknown {
  const bytes = cursor.bytes;
  // A oneof: the last field on the wire wins, as the protobuf spec says.
  let value: unknown;
  while (cursor.pos < end) {
    const tag = readTag(cursor, end);
    switch (tag) {
      case (1 << 3) | LEN: {
        const fieldEnd = readLengthEnd(cursor, end, 'stringValue');
        value = VALUE_TEXTS.read(bytes, cursor.pos, fieldEnd);
        cursor.pos = fieldEnd;
        break;
      }
      case (2 << 3) | VARINT:
        value = readVarint32(cursor, end, 'boolValue') !== 0;
        break;
      case (3 << 3) | VARINT:
        value = readInt64AsNumber(cursor, end, 'intValue');
        break;
      case (4 << 3) | I64:
        if (end - cursor.pos < 8) fieldFail(cursor, 'doubleValue', `a double needs 8 bytes, ${end - cursor.pos} left`);
        value = bytes.readDoubleLE(cursor.pos);
        cursor.pos += 8;
        break;
      case (5 << 3) | LEN: {
        cursor.enter('arrayValue', -1);
        enterList(cursor);
        const listEnd = readLengthEnd(cursor, end);
        const values: unknown[] = [];
        while (cursor.pos < listEnd) {
          const inner = readTag(cursor, listEnd);
          if (inner === ((1 << 3) | LEN)) {
            cursor.enter('values', values.length);
            values.push(readAnyValue(cursor, readLengthEnd(cursor, listEnd)));
            cursor.leave();
          } else skipField(cursor, inner, listEnd, inner >>> 3);
        }
        cursor.nesting -= 1;
        cursor.leave();
        value = values;
        break;
      }
      case (6 << 3) | LEN: {
        cursor.enter('kvlistValue', -1);
        enterList(cursor);
        const listEnd = readLengthEnd(cursor, end);
        const values: Record<string, unknown> = {};
        let index = 0;
        while (cursor.pos < listEnd) {
          const inner = readTag(cursor, listEnd);
          if (inner === ((1 << 3) | LEN)) {
            cursor.enter('values', index++);
            readKeyValueInto(cursor, readLengthEnd(cursor, listEnd), values, false);
            cursor.leave();
          } else skipField(cursor, inner, listEnd, inner >>> 3);
        }
        cursor.nesting -= 1;
        cursor.leave();
        value = values;
        break;
      }
      case (7 << 3) | LEN: {
        const fieldEnd = readLengthEnd(cursor, end, 'bytesValue');
        // bytesValue is base64 in OTLP/JSON, as the JSON mapping says.
        value = bytes.toString('base64', cursor.pos, fieldEnd);
        cursor.pos = fieldEnd;
        break;
      }
      default: {
        const field = tag >>> 3;
        if (field >= 1 && field <= 7) {
          const names = ['', 'stringValue', 'boolValue', 'intValue', 'doubleValue', 'arrayValue', 'kvlistValue', 'bytesValue'];
          const expected = [0, LEN, VARINT, VARINT, I64, LEN, LEN, LEN][field]!;
          fieldFail(cursor, names[field]!, `has wire type ${wireTypeName(tag & 7)}, expected ${wireTypeName(expected)}`);
        }
        skipField(cursor, tag, end, field);
      }
    }
  }
  return value;
}

function readString(cursor: Cursor, end: number, name: string): string {
  const fieldEnd = readLengthEnd(cursor, end, name);
  const text = cursor.bytes.toString('utf8', cursor.pos, fieldEnd);
  cursor.pos = fieldEnd;
  return text;
}

function expectWireType(cursor: Cursor, tag: number, expected: number, name: string): void {
  if ((tag & 7) !== expected) fieldFail(cursor, name, `has wire type ${wireTypeName(tag & 7)}, expected ${wireTypeName(expected)}`);
}

function wireTypeName(wireType: number): string {
  return `${wireType} (${WIRE_TYPE_NAMES[wireType] ?? 'not a wire type'})`;
}

function fieldFail(cursor: Cursor, name: string, problem: string): never {
  cursor.enter(name, -1);
  cursor.fail(problem);
}

/** A field tag: field number and wire type, checked to be a tag at all. */
function readTag(cursor: Cursor, end: number): number {
  const bytes = cursor.bytes;
  const first = bytes[cursor.pos]!;
  // One-byte tags (fields 1–15) are nearly all of them.
  if (first < 0x80) {
    cursor.pos += 1;
    if (first >>> 3 === 0) cursor.fail('field number 0 is not a field', cursor.pos - 1);
    return first;
  }
  const start = cursor.pos;
  const tag = readVarint32(cursor, end, undefined);
  if (tag >>> 3 === 0) cursor.fail('field number 0 is not a field', start);
  return tag;
}

/** A length prefix; returns the end offset of the field it measures, checked against `end`. */
function readLengthEnd(cursor: Cursor, end: number, name?: string): number {
  const start = cursor.pos;
  const length = readVarint32(cursor, end, name);
  if (varintOverflowed || length > end - cursor.pos) {
    if (name !== undefined) cursor.enter(name, -1);
    cursor.fail(`length ${varintOverflowed ? '≥ 2^32' : length} runs past the end of its message (${end - cursor.pos} bytes left)`, start);
  }
  return cursor.pos + length;
}

/**
 * A varint read as uint32 (tags, lengths, enums, bools), as protobuf parsers read them: bits
 * past the 32nd are dropped (a negative enum is sign-extended to 10 bytes). `varintOverflowed`
 * says whether any were set, so a length of 4 GiB or more is not taken for a small one.
 */
let varintOverflowed = false;
function readVarint32(cursor: Cursor, end: number, name: string | undefined): number {
  const bytes = cursor.bytes;
  const start = cursor.pos;
  let result = 0;
  varintOverflowed = false;
  for (let shift = 0; ; shift += 7) {
    if (cursor.pos >= end) {
      if (name !== undefined) cursor.enter(name, -1);
      cursor.fail('truncated varint (the message ends inside it)', start);
    }
    const byte = bytes[cursor.pos++]!;
    if (shift < 28) result |= (byte & 0x7f) << shift;
    else if (shift === 28) {
      result |= (byte & 0x0f) << 28;
      if ((byte & 0x70) !== 0) varintOverflowed = true;
    } else if ((byte & 0x7f) !== 0) varintOverflowed = true;
    if (byte < 0x80) return result >>> 0;
    if (shift >= 63) {
      if (name !== undefined) cursor.enter(name, -1);
      cursor.fail('varint longer than 10 bytes', start);
    }
  }
}

/** An int64 varint as the nearest double (as the JSON reader's Number(decimal string) gives). */
function readInt64AsNumber(cursor: Cursor, end: number, name: string): number {
  const bytes = cursor.bytes;
  const start = cursor.pos;
  let low = 0;
  let high = 0;
  for (let shift = 0; ; shift += 7) {
    if (cursor.pos >= end) fieldFail(cursor, name, 'truncated varint (the message ends inside it)');
    const byte = bytes[cursor.pos++]!;
    const bits = byte & 0x7f;
    if (shift < 28) low |= bits << shift;
    else if (shift === 28) {
      low |= (bits & 0x0f) << 28;
      high |= bits >>> 4;
    } else if (shift < 63) high |= bits << (shift - 32);
    else high |= (bits & 0x01) << 31;
    if (byte < 0x80) break;
    if (shift >= 63) {
      cursor.pos = start;
      fieldFail(cursor, name, 'varint longer than 10 bytes');
    }
  }
  low >>>= 0;
  // Two's complement: a set top bit is a negative number. hi · 2^32 is exact; one rounding.
  return (high | 0) * 4294967296 + low;
}

/** Skips a field this reader does not read, by its wire type. */
function skipField(cursor: Cursor, tag: number, end: number, field: number): void {
  const start = cursor.pos;
  switch (tag & 7) {
    case VARINT:
      for (;;) {
        if (cursor.pos >= end) cursor.fail(`truncated varint (field ${field})`, start);
        if (cursor.bytes[cursor.pos++]! < 0x80) break;
        if (cursor.pos - start > 10) cursor.fail(`varint longer than 10 bytes (field ${field})`, start);
      }
      return;
    case I64:
      if (end - cursor.pos < 8) cursor.fail(`field ${field} (i64) needs 8 bytes, ${end - cursor.pos} left`, start);
      cursor.pos += 8;
      return;
    case LEN: {
      const length = readVarint32(cursor, end, undefined);
      if (varintOverflowed || length > end - cursor.pos) cursor.fail(`field ${field}: length ${varintOverflowed ? '≥ 2^32' : length} runs past the end of its message (${end - cursor.pos} bytes left)`, start);
      cursor.pos += length;
      return;
    }
    case I32:
      if (end - cursor.pos < 4) cursor.fail(`field ${field} (i32) needs 4 bytes, ${end - cursor.pos} left`, start);
      cursor.pos += 4;
      return;
    case START_GROUP:
      // Deprecated groups: skipped up to their end-group tag, as protobuf parsers do.
      for (;;) {
        if (cursor.pos >= end) cursor.fail(`group of field ${field} has no end-group tag`, start);
        const inner = readTag(cursor, end);
        if ((inner & 7) === END_GROUP) {
          if (inner >>> 3 !== field) cursor.fail(`end-group tag of field ${inner >>> 3} closes the group of field ${field}`, cursor.pos);
          return;
        }
        if (cursor.nesting > MAX_OTLP_VALUE_DEPTH) cursor.fail(`groups nested deeper than ${MAX_OTLP_VALUE_DEPTH} levels`, start);
        cursor.nesting += 1;
        skipField(cursor, inner, end, inner >>> 3);
        cursor.nesting -= 1;
      }
    case END_GROUP:
      cursor.fail(`end-group tag of field ${field} without a group`, start - 1);
    default:
      cursor.fail(`bad wire type ${tag & 7} (field ${field}): protobuf has wire types 0–5`, start - 1);
  }
}
