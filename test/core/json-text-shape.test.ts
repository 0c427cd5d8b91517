import { expect } from 'chai';
import { jsonTextShape, readJsonTextShape, VolatileKeyMatcher } from '../../src/core/json-text-shape.js';
import { resolveOptions } from '../../src/core/policy.js';
import { SHAPES, texts } from '../helpers/json-texts.js';

/**
 * The one-pass JSON text scan (issue 20) may vouch only for text that is exactly
 * JSON.stringify(JSON.parse(text)), and its key check must find volatile keys exactly where the
 * policy's regex does. What it reads for fingerprinting is held equal to the parse path in
 * test/core/result-fingerprint-json-text.test.ts.
 */
describe('readJsonTextShape (issue 20)', () => {
  it('vouches only for text that is exactly JSON.stringify(JSON.parse(text)), and for all stringify output but digit keys and surrogate escapes', () => {
    let vouched = 0;
    let canonical = 0;
    for (const text of [...SHAPES, ...texts(20000, 7)]) {
      const accepted = readJsonTextShape(text);
      let roundTrip: string | undefined;
      try {
        roundTrip = JSON.stringify(JSON.parse(text));
      } catch {
        roundTrip = undefined;
      }
      if (accepted) {
        vouched++;
        expect(roundTrip, text).to.equal(text);
      }
      if (roundTrip === text && !/[\ud800-\udfff]/.test(text) && /^[{[]/.test(text)) {
        canonical++;
        // What it may still turn down: digit keys and repeated keys cannot be in stringify's output; long numbers are checked.
        if (!accepted) expect(text, 'turned down canonical text').to.match(/"\d|\\u/);
      }
    }
    // Digit keys and surrogate escapes are common in these texts on purpose; the rest is all vouched for.
    expect(vouched).to.be.above(canonical * 0.7);
  });

  it('finds volatile keys exactly where the policy\'s regex finds them', () => {
    for (const names of [['took', 'timestamp', 'etag', 'request_id'], ['id', 'ключ', ''], ['a b', 'tags', 'hasMore']]) {
      const policy = resolveOptions({ volatileResult: names }).defaultTool;
      const matcher = VolatileKeyMatcher.of(policy.volatileResult)!;
      expect(matcher, names.join()).to.not.equal(undefined);
      let found = 0;
      for (const text of [...SHAPES, ...texts(3000, 99)]) {
        if (!readJsonTextShape(text, matcher)) continue;
        const expected = policy.volatileResultPattern!.test(text);
        if (expected) found++;
        expect(jsonTextShape.hasVolatileMember, text).to.equal(expected);
      }
      expect(found, names.join()).to.be.above(50);
    }
    expect(VolatileKeyMatcher.of(resolveOptions({ volatileResult: ['k"q'] }).defaultTool.volatileResult)).to.equal(undefined);
  });

});
