/*
 * The two protobuf messages the OTLP receiver answers with, written by hand (four fields in all,
 * so the package needs no protobuf library at run time):
 *   collector/trace/v1 ExportTraceServiceResponse: 1 partial_success (ExportTracePartialSuccess:
 *     1 rejected_spans int64, 2 error_message string)
 *   google.rpc.Status: 1 code int32, 2 message string (the body of an OTLP/HTTP error)
 */

/** ExportTraceServiceResponse: empty on full success, else `partialSuccess` with its count and reason. */
export function encodeExportTraceServiceResponse(partial: { rejectedSpans: number; errorMessage: string } | undefined): Buffer {
  if (partial === undefined) return Buffer.alloc(0);
  const inner = Buffer.concat([varintField(1, partial.rejectedSpans), stringField(2, partial.errorMessage)]);
  return Buffer.concat([tagAndLength(1, inner.length), inner]);
}

/** google.rpc.Status with a gRPC code (3 INVALID_ARGUMENT, 8 RESOURCE_EXHAUSTED, …) and message. */
export function encodeRpcStatus(code: number, message: string): Buffer {
  return Buffer.concat([varintField(1, code), stringField(2, message)]);
}

// Zero and '' are proto3 defaults and are not written, as protobufjs does.
function varintField(field: number, value: number): Buffer {
  if (value === 0) return Buffer.alloc(0);
  return Buffer.concat([varint(field << 3), varint(value)]);
}

function stringField(field: number, text: string): Buffer {
  if (text === '') return Buffer.alloc(0);
  const bytes = Buffer.from(text, 'utf8');
  return Buffer.concat([tagAndLength(field, bytes.length), bytes]);
}

function tagAndLength(field: number, length: number): Buffer {
  return Buffer.concat([varint((field << 3) | 2), varint(length)]);
}

/** A non-negative integer up to 2^53 as a base-128 varint. */
function varint(value: number): Buffer {
  if (!Number.isSafeInteger(value) || value < 0) throw new RangeError(`varint: ${value} is not a whole number ≥ 0`);
  const bytes: number[] = [];
  while (value >= 0x80) {
    bytes.push((value % 0x80) | 0x80);
    value = Math.floor(value / 0x80);
  }
  bytes.push(value);
  return Buffer.from(bytes);
}
