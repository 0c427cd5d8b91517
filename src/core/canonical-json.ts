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

/**
 * Deeper than this the fast path goes on with {@link writeDeepPlain}: an explicit stack, so
 * depth costs neither call stack nor time per level, and the cycle test (a cycle recurses
 * forever, so it always reaches this depth).
 */
const RECURSIVE_MAX_DEPTH = 64;

/**
 * Embedded JSON text longer than this stays a string (bounded time: every parse reads a text
 * that was already counted in the input, and each level of encoding escapes its quotes, so
 * the total parse work stays within a small multiple of the input size). Same cap as whole
 * arguments sent as text (call-signature.ts).
 */
export const MAX_EMBEDDED_JSON_TEXT_LENGTH = 1024 * 1024;

const OPEN_BRACE = 0x7b;
const OPEN_BRACKET = 0x5b;

/**
 * The object or array a string encodes as JSON text, or undefined. Issue 10 #14: the same
 * argument reaches us as `filters: {"a":1}` and as `filters: '{"a":1}'` (a model re-serializing
 * a nested field); comparing text would miss a loop alternating between the two. Only text
 * starting with `{` or `[` (after whitespace) is tried, so ordinary strings pay one char test.
 */
function embeddedJsonValue(text: string): object | undefined {
  if (text.length < 2 || text.length > MAX_EMBEDDED_JSON_TEXT_LENGTH) return undefined;
  let first = text.charCodeAt(0);
  if (first !== OPEN_BRACE && first !== OPEN_BRACKET) {
    // JSON allows leading whitespace; anything else cannot be an object or array.
    if (first !== 0x20 && first !== 0x0a && first !== 0x0d && first !== 0x09) return undefined;
    first = text.trimStart().charCodeAt(0);
    if (first !== OPEN_BRACE && first !== OPEN_BRACKET) return undefined;
  }
  try {
    return JSON.parse(text) as object;
  } catch {
    return undefined;
  }
}

/**
 * Maps and Sets are written by content under a key JSON arguments do not use (a NUL
 * character), so `Map{a:1}` neither equals `Map{a:2}` (issue 10 #15: both used to be `{}`)
 * nor the plain object `{"a":1}`. Entries and members are sorted by their canonical text:
 * insertion order carries no meaning for call identity.
 */
const MAP_TAG = '{"\\u0000Map":[';
const SET_TAG = '{"\\u0000Set":[';

/** Thrown by the fast path for anything it does not handle; never escapes this module. */
class NotPlain {}
const NOT_PLAIN = new NotPlain();

/**
 * The fast path: plain JSON data only (strings, finite numbers, booleans, null, arrays,
 * objects without toJSON, at any depth: below {@link RECURSIVE_MAX_DEPTH} it continues in
 * {@link writeDeepPlain}). Anything else — functions, symbols, BigInt, non-finite numbers,
 * toJSON, Maps, Sets, cyclic values — throws NOT_PLAIN and the exact writer runs from the
 * start, so output and errors are the exact writer's by construction.
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
function writePlain(node: unknown, dropKeys: ReadonlySet<string>, depth: number, embeddedJson: boolean): string {
  switch (typeof node) {
    case 'string': {
      if (embeddedJson) {
        const embedded = embeddedJsonValue(node);
        if (embedded !== undefined) return writePlain(embedded, dropKeys, depth + 1, embeddedJson);
      }
      return NEEDS_ESCAPE.test(node) ? JSON.stringify(node) : `"${node}"`;
    }
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
  if (typeof (node as { toJSON?: unknown }).toJSON === 'function' || node instanceof Map || node instanceof Set) throw NOT_PLAIN;
  if (depth > RECURSIVE_MAX_DEPTH) return writeDeepPlain(node, dropKeys, embeddedJson);
  if (Array.isArray(node)) {
    const length = node.length;
    if (length === 0) return '[]';
    let out = '[';
    for (let index = 0; index < length; index++) {
      if (index > 0) out += ',';
      const element: unknown = node[index];
      out += element === undefined ? 'null' : writePlain(element, dropKeys, depth + 1, embeddedJson);
    }
    return `${out}]`;
  }
  const object = node as Record<string, unknown>;
  const keys = Object.keys(object);
  if (keys.length > 1) sortKeys(keys);
  let out = '{';
  let first = true;
  for (let index = 0; index < keys.length; index++) {
    const key = keys[index]!;
    if (dropKeys.has(key)) continue;
    const child = object[key];
    if (child === undefined) continue;
    if (first) first = false;
    else out += ',';
    out += quotedKey(key) + writePlain(child, dropKeys, depth + 1, embeddedJson);
  }
  return `${out}}`;
}

/**
 * Sorts an object's keys as the default sort does (UTF-16 code units, exactly RFC 8785 §3.2.3):
 * few keys by insertion in place, comparing with `<` (which also compares code units; keys are
 * distinct, so stability cannot show). Array#sort allocates its work arrays on every call.
 * Measured (node, 2–5 keys, copy included): sort 175–182 ns, insertion 50–59 ns; in the serve
 * ingestion loop the sort's allocations were 860 of the 14 200 B allocated per span (sampling
 * heap profile).
 */
function sortKeys(keys: string[]): void {
  if (keys.length > 16) {
    keys.sort();
    return;
  }
  for (let index = 1; index < keys.length; index++) {
    const key = keys[index]!;
    let at = index - 1;
    while (at >= 0 && keys[at]! > key) {
      keys[at + 1] = keys[at]!;
      at -= 1;
    }
    keys[at + 1] = key;
  }
}

/**
 * Past this many open containers {@link writeDeepPlain} gives up (NOT_PLAIN; the exact writer
 * then fails on its call stack): a getter or Proxy that makes a fresh object at every level
 * never cycles, and would otherwise grow the stack until the process runs out of memory.
 */
const DEEP_MAX_DEPTH = 100_000;

/**
 * Whether `child` is already open in `frames[0..depth)`, by Brent's cycle detection: compare
 * it with the root and with the frame at the largest power of two below its depth, instead of
 * with every ancestor. A cyclic value makes the walk descend forever, always into the same first
 * container child, so the path becomes periodic with some period L from some depth m; once
 * the checkpoint depth p is at least m and L, the node at depth p + L is the checkpoint's
 * node and the cycle is found, within about 2·max(m, L) + L levels. Never a false positive:
 * a match is a real ancestor.
 */
function isOwnAncestor(child: object, frames: readonly DeepFrame[], depth: number): boolean {
  if (depth === 0) return false;
  if (frames[0]!.node === child) return true;
  if (depth < 2) return false;
  const checkpoint = 1 << (31 - Math.clz32(depth - 1));
  return frames[checkpoint]!.node === child;
}

/** One open array or object of {@link writeDeepPlain}: `keys` undefined for an array. */
interface DeepFrame {
  node: object;
  keys: string[] | undefined;
  index: number;
  first: boolean;
  /** Text written so far, while a child container is open above it. */
  out: string;
}

/**
 * {@link writePlain} for what lies below {@link RECURSIVE_MAX_DEPTH}, with the same output
 * and the same NOT_PLAIN cases, as a loop over an explicit stack (issue 10 #15): the
 * recursive writer with an ancestor list made a 975 KiB argument nested 4,000 deep cost
 * 850 ms against 77 ms flat, and recursion alone bounds depth by the call stack. Each node
 * is entered and left once and the cycle test is two comparisons ({@link isOwnAncestor}), so
 * the time is linear in the size whatever the depth. (An ancestor Set made a 4,000-deep
 * argument 2.5x slower than a flat one: an add and a delete per node.)
 */
function writeDeepPlain(root: object, dropKeys: ReadonlySet<string>, embeddedJson: boolean): string {
  // Frames are reused by depth: one allocation per level reached, not per container (a
  // frame per container made garbage collection most of the time on wide deep values).
  const frames: DeepFrame[] = [];
  let depth = 0;
  let child: unknown = root;
  // The text of the innermost open container, kept out of its frame while it is on top.
  let out = '';
  for (;;) {
    // Write `child`: a scalar in place, a container by opening a frame.
    if (typeof child === 'string' && embeddedJson) child = embeddedJsonValue(child) ?? child;
    if (typeof child !== 'object' || child === null) {
      out += writePlain(child, dropKeys, 0, false);
    } else {
      if (typeof (child as { toJSON?: unknown }).toJSON === 'function' || child instanceof Map || child instanceof Set) throw NOT_PLAIN;
      if (depth >= DEEP_MAX_DEPTH || isOwnAncestor(child, frames, depth)) throw NOT_PLAIN;
      if (depth > 0) frames[depth - 1]!.out = out;
      let keys: string[] | undefined;
      if (Array.isArray(child)) {
        out = '[';
      } else {
        keys = Object.keys(child);
        // Default sort compares UTF-16 code units, which is exactly RFC 8785 §3.2.3.
        if (keys.length > 1) keys.sort();
        out = '{';
      }
      const frame = frames[depth];
      if (frame === undefined) frames.push({ node: child, keys, index: 0, first: true, out: '' });
      else {
        frame.node = child;
        frame.keys = keys;
        frame.index = 0;
        frame.first = true;
      }
      depth += 1;
    }
    // Find the next value to write, closing every container that has none left.
    for (;;) {
      const frame = frames[depth - 1]!;
      if (frame.keys === undefined) {
        const array = frame.node as unknown[];
        if (frame.index < array.length) {
          if (frame.index > 0) out += ',';
          const element = array[frame.index++];
          child = element === undefined ? null : element;
          break;
        }
        out += ']';
      } else {
        const object = frame.node as Record<string, unknown>;
        let found = false;
        while (frame.index < frame.keys.length) {
          const key = frame.keys[frame.index++]!;
          if (dropKeys.has(key)) continue;
          const value = object[key];
          if (value === undefined) continue;
          if (frame.first) frame.first = false;
          else out += ',';
          out += quotedKey(key);
          child = value;
          found = true;
          break;
        }
        if (found) break;
        out += '}';
      }
      // Closed: its text joins the parent's as one piece, so the result is a tree of short
      // ropes like the recursive writer's, not one long chain of appends.
      depth -= 1;
      if (depth === 0) return out;
      out = frames[depth - 1]!.out + out;
    }
  }
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
 * concatenation (V8 ropes), and cycle detection is an ancestor set (exact writer) or Brent's
 * test past depth 64 (fast path).
 *
 * Like json-canonicalize: object properties whose value is undefined are skipped, undefined
 * array elements become null, objects with toJSON are serialized through JSON.stringify.
 * Unlike it, values JSON cannot hold (cycles, functions, symbols, BigInt, NaN/Infinity)
 * throw `UnfingerprintableValueError` instead of producing text that is not JSON, and
 * Maps and Sets are written by content (see `MAP_TAG`) instead of as `{}`.
 *
 * `embeddedJson` (call identity): a string holding a JSON object or array, up to
 * `MAX_EMBEDDED_JSON_TEXT_LENGTH`, is written as the value it encodes.
 */
export function canonicalJson(
  value: unknown,
  dropKeys: ReadonlySet<string> = EMPTY_SET,
  maxLength = Infinity,
  embeddedJson = false,
): string {
  if (maxLength === Infinity) {
    try {
      return writePlain(value, dropKeys, 0, embeddedJson);
    } catch (error) {
      if (error !== NOT_PLAIN) throw error;
    }
  }
  return exactCanonicalJson(value, dropKeys, maxLength, embeddedJson);
}

/**
 * The canonical JSON of a plain object twice in one pass: whole, and without the top-level
 * members `omit` names — the same two texts `canonicalJson(object)` and `canonicalJson(copy
 * without those members)` give, member texts written once. A paged call needs both (its
 * identity and its listing's, world-state/listing-key-of.ts): writing a 2 KB argument twice
 * was 29 % of a guarded call's self time (bench/profile.js loopguard, 2 KB args with a
 * `cursor`). undefined when the object is not plain data (toJSON, a Map, a value the fast path
 * does not write): the caller then takes the exact writer's path twice.
 */
export function canonicalJsonWithAndWithout(
  object: Record<string, unknown>,
  dropKeys: ReadonlySet<string>,
  omit: (key: string) => boolean,
  embeddedJson: boolean,
): readonly [whole: string, rest: string] | undefined {
  if (typeof (object as { toJSON?: unknown }).toJSON === 'function' || object instanceof Map || object instanceof Set) return undefined;
  const keys = Object.keys(object);
  if (keys.length > 1) keys.sort();
  let whole = '{';
  let rest = '{';
  try {
    for (let index = 0; index < keys.length; index++) {
      const key = keys[index]!;
      if (dropKeys.has(key)) continue;
      const child = object[key];
      if (child === undefined) continue;
      const member = quotedKey(key) + writePlain(child, dropKeys, 1, embeddedJson);
      whole += whole.length === 1 ? member : `,${member}`;
      if (!omit(key)) rest += rest.length === 1 ? member : `,${member}`;
    }
  } catch {
    return undefined;
  }
  return [`${whole}}`, `${rest}}`];
}

/** The reference writer: handles every input, reports why a value cannot be written. */
function exactCanonicalJson(value: unknown, dropKeys: ReadonlySet<string>, maxLength: number, embeddedJson: boolean): string {
  // The objects on the path from the root: a Set, so the cycle test is O(1) per node and the
  // whole walk stays linear in nesting depth (issue 10 #15: an array scanned per node made a
  // 4,000-deep argument cost 8x a flat one of the same size).
  const onPath = new Set<object>();
  let length = 0;

  function writeMap(map: Map<unknown, unknown>): string {
    const entries: string[] = [];
    for (const [key, child] of map) {
      // A Map used as a dictionary drops volatile keys like an object does.
      if (child === undefined || (typeof key === 'string' && dropKeys.has(key))) continue;
      entries.push(`[${write(key)},${write(child)}]`);
    }
    return `${MAP_TAG}${entries.sort().join(',')}]}`;
  }

  function writeSet(set: Set<unknown>): string {
    const members: string[] = [];
    for (const member of set) members.push(member === undefined ? 'null' : write(member));
    return `${SET_TAG}${members.sort().join(',')}]}`;
  }

  function write(node: unknown): string {
    switch (typeof node) {
      case 'string': {
        if (embeddedJson) {
          const embedded = embeddedJsonValue(node);
          if (embedded !== undefined) return write(embedded);
        }
        return JSON.stringify(node);
      }
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
    if (onPath.has(object)) throw new UnfingerprintableValueError('cycle');
    onPath.add(object);
    let out: string;
    if (object instanceof Map) {
      out = writeMap(object);
    } else if (object instanceof Set) {
      out = writeSet(object);
    } else if (Array.isArray(object)) {
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
    onPath.delete(object);
    length += out.length;
    // The running total over-counts nested text (each level adds its children again), so
    // the cap trips early rather than late: a conservative bound on time and memory.
    if (length > maxLength) throw new UnfingerprintableValueError('too-large');
    return out;
  }

  return write(value);
}
