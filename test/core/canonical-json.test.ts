import { expect } from 'chai';
import fc from 'fast-check';
import { canonicalize } from 'json-canonicalize';
import { canonicalJson } from '../../src/core/canonical-json.js';
import { UnfingerprintableValueError } from '../../src/core/errors.js';

/** JSON values as a model or a tool produces them (no undefined, no non-finite numbers). */
const jsonValue = fc.jsonValue({ maxDepth: 4 });

function shuffleKeys(value: unknown, seed: number): unknown {
  if (Array.isArray(value)) return value.map((item, index) => shuffleKeys(item, seed + index));
  if (typeof value !== 'object' || value === null) return value;
  const entries = Object.entries(value);
  // Deterministic rotation by seed: a different insertion order for the same object.
  const rotated = entries.map((_, index) => entries[(index + seed) % entries.length]!);
  return Object.fromEntries(rotated.map(([key, child]) => [key, shuffleKeys(child, seed + 1)]));
}

function dropDeep(value: unknown, keys: ReadonlySet<string>): unknown {
  if (Array.isArray(value)) return value.map((item) => dropDeep(item, keys));
  if (typeof value !== 'object' || value === null) return value;
  return Object.fromEntries(Object.entries(value).filter(([key]) => !keys.has(key)).map(([key, child]) => [key, dropDeep(child, keys)]));
}

describe('canonicalJson', () => {
  it('is byte-identical to json-canonicalize (RFC 8785) for every JSON value', () => {
    fc.assert(fc.property(jsonValue, (value) => canonicalJson(value) === canonicalize(value)), { numRuns: 2000 });
  });

  it('gives one text for every key order of the same value', () => {
    fc.assert(
      fc.property(jsonValue, fc.nat(7), (value, seed) => canonicalJson(shuffleKeys(value, seed)) === canonicalJson(value)),
      { numRuns: 1000 },
    );
  });

  it('drops the named fields at every depth, equal to canonicalizing the stripped value', () => {
    const drop = new Set(['attempt', 'ts']);
    const withVolatile = fc.jsonValue({ maxDepth: 3 }).map((value) =>
      typeof value === 'object' && value !== null && !Array.isArray(value) ? { ...value, attempt: 3, nested: { ts: 1, keep: value } } : value,
    );
    fc.assert(fc.property(withVolatile, (value) => canonicalJson(value, drop) === canonicalize(dropDeep(value, drop))), { numRuns: 500 });
  });

  it('sorts keys by UTF-16 code units as RFC 8785 requires', () => {
    expect(canonicalJson({ b: 1, a: 2, '€': 3, '\u0080': 4, A: 5 })).to.equal('{"A":5,"a":2,"b":1,"\u0080":4,"€":3}');
    expect(canonicalJson({ n: 1e21, m: -0, f: 0.1 })).to.equal(canonicalize({ n: 1e21, m: -0, f: 0.1 }));
  });

  it('sorts any number of keys of any UTF-16 text as json-canonicalize does (insertion sort up to 16 keys, Array#sort past)', () => {
    // Keys that share prefixes, differ in case, hold surrogate pairs and lone surrogates, and
    // look like array indexes (those Object.keys gives first, in numeric order).
    const key = fc.oneof(fc.string({ unit: 'binary', maxLength: 4 }), fc.constantFrom('a', 'aa', 'A', 'b', '1', '10', '2', '\ud83d\ude00', '\ud800', '\uffff', 'é'));
    const object = fc.dictionary(key, fc.integer(), { minKeys: 2, maxKeys: 24 });
    fc.assert(fc.property(object, (value) => canonicalJson(value) === canonicalize(value)), { numRuns: 1000 });
  });

  it('skips undefined properties and writes undefined array items as null, like json-canonicalize', () => {
    const value = { a: undefined, b: [1, undefined, 3] };
    expect(canonicalJson(value)).to.equal(canonicalize(value)).and.to.equal('{"b":[1,null,3]}');
  });

  it('refuses values JSON cannot hold instead of writing text that is not JSON', () => {
    const cyclic: Record<string, unknown> = { a: 1 };
    cyclic.self = cyclic;
    for (const [value, why] of [
      [cyclic, 'cycle'],
      [{ f: () => 1 }, 'function'],
      [{ n: 10n }, 'bigint'],
      [{ x: Number.NaN }, 'non-finite-number'],
      [Symbol('s'), 'symbol'],
    ] as const) {
      expect(() => canonicalJson(value), why).to.throw(UnfingerprintableValueError).with.property('why', why);
    }
  });

  it('allows the same object twice when it is not its own ancestor (shared, not cyclic)', () => {
    const shared = { k: 1 };
    expect(canonicalJson({ a: shared, b: shared })).to.equal('{"a":{"k":1},"b":{"k":1}}');
  });

  it('stops at the length cap', () => {
    const big = { items: Array.from({ length: 1000 }, (_, i) => ({ i, text: 'x'.repeat(50) })) };
    expect(() => canonicalJson(big, new Set(), 10_000)).to.throw(UnfingerprintableValueError).with.property('why', 'too-large');
    expect(canonicalJson(big, new Set(), 10_000_000)).to.equal(canonicalize(big));
  });
});
