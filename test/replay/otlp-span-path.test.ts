import { expect } from 'chai';
import { otlpSpanPath } from '../../src/replay/otlp-span-path.js';

describe('otlpSpanPath: a span\'s path inside its request', () => {
  it('names resource, scope and span, inside and past the shared paths, the same on every call', () => {
    for (const [resource, scope, span] of [[0, 0, 0], [0, 0, 1023], [3, 3, 7], [0, 0, 1024], [4, 0, 2], [1, 4, 0], [12, 9, 50_000]] as const) {
      const expected = `resourceSpans[${resource}].scopeSpans[${scope}].spans[${span}]`;
      expect(otlpSpanPath(resource, scope, span)).to.equal(expected);
      expect(otlpSpanPath(resource, scope, span)).to.equal(expected);
    }
  });
});
