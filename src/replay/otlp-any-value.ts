/**
 * How deep an attribute value may nest (arrays and key-value lists). Tool arguments and results
 * travel as JSON text in a string; the SDKs write nested values a few levels deep at most. A
 * limit turns a hostile value 50,000 levels deep (1.3 MB, under serve's body limit) into a
 * problem naming its attribute instead of a stack overflow answered 500.
 */
export const MAX_OTLP_VALUE_DEPTH = 128;

/** An attribute value nested deeper than {@link MAX_OTLP_VALUE_DEPTH}; `key` names the attribute. */
export class OtlpValueTooDeepError extends Error {
  override readonly name = 'OtlpValueTooDeepError';
  constructor(readonly key: string) {
    super(`attribute ${JSON.stringify(key)} nests arrays or key-value lists deeper than ${MAX_OTLP_VALUE_DEPTH} levels`);
  }
}

/**
 * Decodes an OTLP JSON AnyValue. intValue arrives as a string in protobuf-JSON (int64) and as
 * a number from some hand-written exporters; both are accepted. Arrays and key-value lists
 * are decoded recursively; bytesValue stays base64 text.
 *
 * @throws OtlpValueTooDeepError past {@link MAX_OTLP_VALUE_DEPTH} levels (its key is the
 *   outermost attribute's, set by {@link decodeOtlpAttributes}).
 */
export function decodeOtlpAnyValue(value: unknown, depth = 0): unknown {
  if (typeof value !== 'object' || value === null) return undefined;
  if (depth > MAX_OTLP_VALUE_DEPTH) throw new OtlpValueTooDeepError('');
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
    return Array.isArray(values) ? values.map((inner) => decodeOtlpAnyValue(inner, depth + 1)) : [];
  }
  if ('kvlistValue' in v) {
    const values = (v.kvlistValue as { values?: unknown[] } | undefined)?.values;
    return Array.isArray(values) ? decodeKeyValues(values, depth + 1) : {};
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

/**
 * `[{key, value}]` → plain object. Entries without a string key are ignored.
 *
 * @throws OtlpValueTooDeepError naming the attribute whose value nests too deep.
 */
export function decodeOtlpAttributes(attributes: unknown): Record<string, unknown> {
  if (attributes instanceof DecodedOtlpAttributes) return attributes.values;
  return decodeKeyValues(attributes, 0);
}

function decodeKeyValues(attributes: unknown, depth: number): Record<string, unknown> {
  const decoded: Record<string, unknown> = {};
  if (!Array.isArray(attributes)) return decoded;
  for (const entry of attributes) {
    if (typeof entry !== 'object' || entry === null) continue;
    const { key, value } = entry as { key?: unknown; value?: unknown };
    if (typeof key !== 'string') continue;
    try {
      decoded[key] = decodeOtlpAnyValue(value, depth);
    } catch (error) {
      // Named by the span's own attribute, not the innermost list's key.
      if (depth === 0 && error instanceof OtlpValueTooDeepError) throw new OtlpValueTooDeepError(key);
      throw error;
    }
  }
  return decoded;
}
