import { UnfingerprintableValueError } from './errors.js';

const EMPTY_SET: ReadonlySet<string> = new Set();

/**
 * Strings that JSON.stringify writes as `"` + text + `"`: no control characters, quotes,
 * backslashes or surrogates (lone surrogates are escaped; pairs are tested here too and
 * simply take the JSON.stringify path). A regex test plus concatenation avoids a
 * JSON.stringify call per short string (part of the gain measured on writePlain below).
 */
const NEEDS_ESCAPE = /[\u0000-\u001f"\\\ud800-\udfff]/;

/**
 * `"key":` per property name, cached: argument objects of one tool repeat the same keys on
 * every call. Bounded so odd inputs (random keys) cannot grow it; the cache holds only
 * strings, so dropping it is always safe.
 */
const QUOTED_KEY_CACHE_MAX = 4096;
const quotedKeys = new Map<string, string>();

function quotedKey(key: string): string {
  let quoted = quotedKeys.get(key);
  if (quoted === undefined) {
    quoted = `${JSON.stringify(key)}:`;
    if (quotedKeys.size >= QUOTED_KEY_CACHE_MAX) quotedKeys.clear();
    quotedKeys.set(key, quoted);
  }
  return quoted;
}

/** Deeper than this the fast path hands over to the exact writer (which also finds cycles). */
const FAST_PATH_MAX_DEPTH = 64;

/** Thrown by the fast path for anything it does not handle; never escapes this module. */
class NotPlain {}
const NOT_PLAIN = new NotPlain();

/**
 * The fast path: plain JSON data only (strings, finite numbers, booleans, null, arrays,
 * objects without toJSON, at most {@link FAST_PATH_MAX_DEPTH} deep). Anything else —
 * functions, symbols, BigInt, non-finite numbers, toJSON, deep or cyclic values — throws
 * NOT_PLAIN and the exact writer runs from the start, so output and errors are the exact
 * writer's by construction.
 *
 * Why it is faster than {@link exactCanonicalJson} (same output, issue 6 per-call overhead):
 * a module-level recursive function instead of a closure made per call (under tsx every
 * closure also pays a `__name` call), a depth counter instead of an ancestor list scanned per
 * node, cached `"key":` strings, and no JSON.stringify call for plain strings and numbers
 * (`'' + n` is JSON's number serialization for finite numbers, -0 included). Measured with
 * interleaved medians on the bench fixtures (bench/probes/canonical-json.ts, compiled JS,
 * loaded 2-core runner): 150 B arguments 3.4 µs with json-canonicalize → 1.3 µs (JSON.stringify
 * of the same value, unsorted: 1.0 µs); 2 KB 68 → 28 µs (JSON.stringify 14 µs). The closure-
 * based writer this replaced measured 12.7 vs 3.9 µs and 91.8 vs 58.7 µs in one tsx probe.
 */
function writePlain(node: unknown, dropKeys: ReadonlySet<string>, depth: number): string {
  switch (typeof node) {
    case 'string':
      return NEEDS_ESCAPE.test(node) ? JSON.stringify(node) : `"${node}"`;
    case 'number':
      if (!Number.isFinite(node)) throw NOT_PLAIN;
      return `${node}`;
    case 'boolean':
      return node ? 'true' : 'false';
    case 'object':
      break;
    default:
      throw NOT_PLAIN;
  }
  if (node === null) return 'null';
  if (depth > FAST_PATH_MAX_DEPTH || typeof (node as { toJSON?: unknown }).toJSON === 'function') throw NOT_PLAIN;
  if (Array.isArray(node)) {
    const length = node.length;
    if (length === 0) return '[]';
    let out = '[';
    for (let index = 0; index < length; index++) {
      if (index > 0) out += ',';
      const element: unknown = node[index];
      out += element === undefined ? 'null' : writePlain(element, dropKeys, depth + 1);
    }
    return `${out}]`;
  }
  const object = node as Record<string, unknown>;
  const keys = Object.keys(object);
  // Default sort compares UTF-16 code units, which is exactly RFC 8785 §3.2.3.
  if (keys.length > 1) keys.sort();
  let out = '{';
  let first = true;
  for (let index = 0; index < keys.length; index++) {
    const key = keys[index]!;
    if (dropKeys.has(key)) continue;
    const child = object[key];
    if (child === undefined) continue;
    if (first) first = false;
    else out += ',';
    out += quotedKey(key) + writePlain(child, dropKeys, depth + 1);
  }
  return `${out}}`;
}

/**
 * RFC 8785 (JSON Canonicalization Scheme) serialization that also drops the given field
 * names at every depth, in one pass.
 *
 * Output is byte-identical to `json-canonicalize`'s `canonicalize()` for every JSON value
 * (test/core/canonical-json.test.ts proves it with fast-check), but we do not call that
 * library on the hot path: it allocates a path string per node for its cycle report and runs
 * a closure per property, which made it cost ~3 µs on a 150 B argument object and ~23 µs on
 * 2 KB (issue 6). Here the per-node work is a type switch, a sort of the keys and string
 * concatenation (V8 ropes), and cycle detection is an ancestor stack.
 *
 * Like json-canonicalize: object properties whose value is undefined are skipped, undefined
 * array elements become null, objects with toJSON are serialized through JSON.stringify.
 * Unlike it, values JSON cannot hold (cycles, functions, symbols, BigInt, NaN/Infinity)
 * throw {@link UnfingerprintableValueError} instead of producing text that is not JSON.
 */
export function canonicalJson(value: unknown, dropKeys: ReadonlySet<string> = EMPTY_SET, maxLength = Infinity): string {
  if (maxLength === Infinity) {
    try {
      return writePlain(value, dropKeys, 0);
    } catch (error) {
      if (error !== NOT_PLAIN) throw error;
    }
  }
  return exactCanonicalJson(value, dropKeys, maxLength);
}

/** The reference writer: handles every input, reports why a value cannot be written. */
function exactCanonicalJson(value: unknown, dropKeys: ReadonlySet<string>, maxLength: number): string {
  const ancestors: object[] = [];
  let length = 0;

  function write(node: unknown): string {
    switch (typeof node) {
      case 'string':
        return JSON.stringify(node);
      case 'number':
        if (!Number.isFinite(node)) throw new UnfingerprintableValueError('non-finite-number');
        return JSON.stringify(node);
      case 'boolean':
        return node ? 'true' : 'false';
      case 'bigint':
        throw new UnfingerprintableValueError('bigint');
      case 'function':
        throw new UnfingerprintableValueError('function');
      case 'symbol':
        throw new UnfingerprintableValueError('symbol');
      case 'undefined':
        throw new UnfingerprintableValueError('undefined');
    }
    if (node === null) return 'null';
    const object = node as Record<string, unknown>;
    if (typeof (object as { toJSON?: unknown }).toJSON === 'function') {
      return JSON.stringify(object);
    }
    if (ancestors.includes(object)) throw new UnfingerprintableValueError('cycle');
    ancestors.push(object);
    let out: string;
    if (Array.isArray(object)) {
      out = '[';
      for (let index = 0; index < object.length; index++) {
        if (index > 0) out += ',';
        const element = object[index];
        out += element === undefined ? 'null' : write(element);
      }
      out += ']';
    } else {
      // Default sort compares UTF-16 code units, which is exactly RFC 8785 §3.2.3.
      const keys = Object.keys(object).sort();
      out = '{';
      let first = true;
      for (const key of keys) {
        if (dropKeys.has(key)) continue;
        const child = object[key];
        if (child === undefined) continue;
        if (!first) out += ',';
        first = false;
        out += JSON.stringify(key) + ':' + write(child);
      }
      out += '}';
    }
    ancestors.pop();
    length += out.length;
    // The running total over-counts nested text (each level adds its children again), so
    // the cap trips early rather than late: a conservative bound on time and memory.
    if (length > maxLength) throw new UnfingerprintableValueError('too-large');
    return out;
  }

  return write(value);
}
