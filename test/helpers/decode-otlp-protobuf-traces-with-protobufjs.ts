import { ExportTraceServiceRequestType } from './otlp-trace-protobuf-schema.js';

const ID_FIELDS = new Set(['traceId', 'spanId', 'parentSpanId']);

/**
 * The protobufjs decoder `loopguard serve` used before its hand-written reader
 * (src/server/read-otlp-protobuf-spans.ts), kept for the tests as the reference it is checked
 * against. Decodes a protobuf ExportTraceServiceRequest into the shape of its OTLP/JSON encoding (ids
 * as lowercase hex, 64-bit integers as decimal strings, AnyValue as `{ stringValue: … }`), so
 * one reader serves both encodings, as the OTLP spec's JSON mapping intends.
 *
 * @throws Error from protobufjs when the bytes are not a valid message (the receiver answers 400).
 */
export function decodeOtlpProtobufTraces(body: Uint8Array): unknown {
  const message = ExportTraceServiceRequestType.decode(body);
  const object = ExportTraceServiceRequestType.toObject(message, { longs: String, bytes: Buffer, defaults: false, arrays: true, oneofs: false });
  return hexIds(object);
}

function hexIds(value: unknown): unknown {
  if (Array.isArray(value)) {
    for (let index = 0; index < value.length; index++) value[index] = hexIds(value[index]);
    return value;
  }
  if (typeof value !== 'object' || value === null || value instanceof Uint8Array) return value;
  const record = value as Record<string, unknown>;
  for (const key of Object.keys(record)) {
    const field = record[key];
    if (field instanceof Uint8Array) {
      // Ids are hex in OTLP/JSON; other bytes (bytesValue) base64, as the JSON mapping says.
      record[key] = ID_FIELDS.has(key) ? Buffer.from(field).toString('hex') : Buffer.from(field).toString('base64');
    } else if (typeof field === 'object' && field !== null) {
      record[key] = hexIds(field);
    }
  }
  return record;
}
