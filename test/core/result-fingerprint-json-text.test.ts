import { expect } from 'chai';
import { readJsonTextShape } from '../../src/core/json-text-shape.js';
import { resolveOptions, type ResolvedToolPolicy } from '../../src/core/policy.js';
import { fingerprintResult } from '../../src/core/result-fingerprint.js';
import type { PrehashedOutcome } from '../../src/core/types.js';
import { SHAPES, texts } from '../helpers/json-texts.js';

/**
 * Issue 20: JSON text exactly as JSON.stringify writes it is fingerprinted in one pass, without
 * JSON.parse and JSON.stringify. The one-pass path must give what the parse → stringify path
 * gives: for JSON text, fingerprintResult(text) was fingerprintResult(JSON.parse(text)) (the
 * object path, unchanged), on every input, down to the item fingerprints and the flags.
 */

function snapshot(outcome: PrehashedOutcome): Record<string, unknown> {
  return { ...outcome, items: outcome.items };
}

const noNoise = resolveOptions({ tools: { quiet: { resultNoise: false } } }).tool('quiet');
const policies: Array<[string, ResolvedToolPolicy]> = [
  ['default policy', resolveOptions().defaultTool],
  ['no noise filter', noNoise],
  ['extra volatile result field', resolveOptions({ tools: { v: { volatileResult: ['id'] } } }).tool('v')],
  // A name JSON would escape, or a structural character: no key matcher, the regex runs.
  ['volatile names only the regex reads', resolveOptions({ tools: { r: { volatileResult: ['k"q', 'a b', 'ключ'] } } }).tool('r')],
  ['no volatile result fields', resolveOptions({ volatileResult: [] }).defaultTool],
];

describe('fingerprintResult of JSON text in one pass (issue 20)', () => {
  for (const [name, policy] of policies) {
    it(`gives what parse → stringify gives, on shapes and 4,000 seeded random texts (${name})`, () => {
      let oneShot = 0;
      for (const text of [...SHAPES, ...texts(4000, 2020)]) {
        let parsed: unknown;
        try {
          parsed = JSON.parse(text);
        } catch {
          continue;
        }
        if (readJsonTextShape(text)) oneShot++;
        const expected = snapshot(fingerprintResult(parsed, policy, 1 << 24));
        const actual = snapshot(fingerprintResult(text, policy, 1 << 24));
        expect(actual, text).to.deep.equal(expected);
      }
      // The random texts are mostly JSON.stringify's own output: most must take the one pass.
      expect(oneShot).to.be.above(2000);
    });
  }

  it('hashes the given text when nothing in it is noise: the same fingerprint as the object it was written from', () => {
    const policy = resolveOptions().defaultTool;
    const object = { total: 2, hits: [{ id: 'doc-1', title: 'a' }, { id: 'doc-2', title: 'b' }] };
    const text = JSON.stringify(object);
    expect(readJsonTextShape(text)).to.equal(true);
    expect(snapshot(fingerprintResult(text, policy, 1 << 24))).to.deep.equal(snapshot(fingerprintResult(object, policy, 1 << 24)));
    expect(fingerprintResult(text, policy, 1 << 24).items).to.have.length(2);
  });
});
