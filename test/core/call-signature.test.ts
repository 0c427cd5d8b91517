import { expect } from 'chai';
import fc from 'fast-check';
import { callSignature } from '../../src/core/call-signature.js';
import { resolveOptions } from '../../src/core/policy.js';

const options = resolveOptions({ tools: { search: { volatileArgs: ['session'] } } });
const policy = options.defaultTool;

function permute(value: unknown, seed: number): unknown {
  if (Array.isArray(value)) return value.map((item) => permute(item, seed));
  if (typeof value !== 'object' || value === null) return value;
  const entries = Object.entries(value).reverse();
  if (seed % 2 === 0) entries.push(entries.shift()!);
  return Object.fromEntries(entries.filter(Boolean).map(([key, child]) => [key, permute(child, seed + 1)]));
}

describe('callSignature', () => {
  const objects = fc.dictionary(fc.string({ maxLength: 6 }), fc.jsonValue({ maxDepth: 3 }), { maxKeys: 6 });

  it('gives one identity for every key order of the same arguments', () => {
    fc.assert(fc.property(objects, fc.nat(5), (args, seed) => callSignature('t', permute(args, seed), policy) === callSignature('t', args, policy)), {
      numRuns: 1000,
    });
  });

  it('gives the same identity to arguments as an object and as JSON text, whatever the whitespace', () => {
    fc.assert(
      fc.property(objects, fc.constantFrom(0, 2, '\t'), (args, indent) =>
        callSignature('t', JSON.stringify(args, null, indent), policy) === callSignature('t', args, policy),
      ),
      { numRuns: 1000 },
    );
  });

  it('tells different arguments and different tools apart', () => {
    expect(callSignature('search', { q: 'refunds' }, policy)).to.not.equal(callSignature('search', { q: 'returns' }, policy));
    expect(callSignature('search', { q: 'x' }, policy)).to.not.equal(callSignature('lookup', { q: 'x' }, policy));
    expect(callSignature('search', { limit: 1 }, policy)).to.not.equal(callSignature('search', { limit: '1' }, policy));
  });

  it('ignores attempt counters, timestamps, nonces and request ids at any depth (document 003)', () => {
    const base = callSignature('search_docs', { query: 'refund window', filters: { lang: 'en' } }, policy);
    for (let attempt = 1; attempt <= 5; attempt++) {
      expect(
        callSignature('search_docs', { query: 'refund window', attempt, filters: { lang: 'en', request_id: `r-${attempt}` }, nonce: Math.random() }, policy),
      ).to.equal(base);
    }
  });

  it('adds per-tool volatile fields without affecting other tools', () => {
    const searchPolicy = options.tool('search');
    expect(callSignature('search', { q: 'a', session: 1 }, searchPolicy)).to.equal(callSignature('search', { q: 'a', session: 2 }, searchPolicy));
    expect(callSignature('other', { q: 'a', session: 1 }, policy)).to.not.equal(callSignature('other', { q: 'a', session: 2 }, policy));
  });

  it('compares text that is not JSON as exact text, and never throws on it', () => {
    expect(callSignature('t', '{not json', policy)).to.equal(callSignature('t', '{not json', policy));
    expect(callSignature('t', '{not json', policy)).to.not.equal(callSignature('t', '{not json ', policy));
    expect(callSignature('t', 'plain words', policy)).to.be.a('string');
  });

  it('gives arguments that cannot be serialized an identity that matches nothing (leans to a new call)', () => {
    const cyclic: Record<string, unknown> = { q: 'x' };
    cyclic.self = cyclic;
    expect(callSignature('t', cyclic, policy)).to.not.equal(callSignature('t', cyclic, policy));
    expect(callSignature('t', { big: 1n }, policy)).to.not.equal(callSignature('t', { big: 1n }, policy));
  });

  it('treats missing arguments as an empty object', () => {
    expect(callSignature('t', undefined, policy)).to.equal(callSignature('t', {}, policy));
  });
});
