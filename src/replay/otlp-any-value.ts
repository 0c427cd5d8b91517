/**
 * Decodes an OTLP JSON AnyValue. intValue arrives as a string in protobuf-JSON (int64) and as
 * a number from some hand-written exporters; both are accepted. Arrays and key-value lists
 * are decoded recursively; bytesValue stays base64 text.
 */
export function decodeOtlpAnyValue(value: unknown): unknown {
  if (typeof value !== 'object' || value === null) return undefined;
  const v = value as Record<string, unknown>;
  if ('stringValue' in v) return v.stringValue;
  if ('boolValue' in v) return v.boolValue;
  if ('intValue' in v) {
    const n = typeof v.intValue === 'string' ? Number(v.intValue) : v.intValue;
    return typeof n === 'number' && Number.isFinite(n) ? n : undefined;
  }
  if ('doubleValue' in v) {
    const n = typeof v.doubleValue === 'string' ? Number(v.doubleValue) : v.doubleValue;
    return typeof n === 'number' ? n : undefined;
  }
  if ('arrayValue' in v) {
    const values = (v.arrayValue as { values?: unknown[] } | undefined)?.values;
    return Array.isArray(values) ? values.map(decodeOtlpAnyValue) : [];
  }
  if ('kvlistValue' in v) {
    const values = (v.kvlistValue as { values?: unknown[] } | undefined)?.values;
    return Array.isArray(values) ? decodeOtlpAttributes(values) : {};
  }
  if ('bytesValue' in v) return v.bytesValue;
  return undefined;
}

/**
 * Attributes already decoded to a plain object by a reader of another encoding (the protobuf
 * reader of `loopguard serve`), with the values {@link decodeOtlpAnyValue} gives: passed
 * through by {@link decodeOtlpAttributes}, so no `{key, value}` objects are made in between.
 */
export class DecodedOtlpAttributes {
  constructor(readonly values: Record<string, unknown>) {}
}

/** `[{key, value}]` → plain object. Entries without a string key are ignored. */
export function decodeOtlpAttributes(attributes: unknown): Record<string, unknown> {
  if (attributes instanceof DecodedOtlpAttributes) return attributes.values;
  const decoded: Record<string, unknown> = {};
  if (!Array.isArray(attributes)) return decoded;
  for (const entry of attributes) {
    if (typeof entry !== 'object' || entry === null) continue;
    const { key, value } = entry as { key?: unknown; value?: unknown };
    if (typeof key !== 'string') continue;
    decoded[key] = decodeOtlpAnyValue(value);
  }
  return decoded;
}
