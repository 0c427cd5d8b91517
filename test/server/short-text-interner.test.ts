import { expect } from 'chai';
import { ShortTextInterner } from '../../src/server/short-text-interner.js';
import { seededRandom } from '../helpers/seeded-random.js';

describe('ShortTextInterner: short UTF-8 texts decoded once and handed out again', () => {
  it('gives what Buffer#toString gives for every range, on seeded random bytes that collide, repeat and are not valid UTF-8', () => {
    for (const seed of [1, 2, 3]) {
      const random = seededRandom(seed);
      // Few slots and a small alphabet: slots are shared, replaced and hit with near-equal bytes.
      const interner = new ShortTextInterner(8, 12);
      const pool = Array.from({ length: 40 }, () => Buffer.from(Array.from({ length: Math.floor(random() * 16) }, () => [0x61, 0x62, 0xc3, 0xa9, 0xff, 0x80, 0xe2][Math.floor(random() * 7)]!)));
      for (let read = 0; read < 5000; read++) {
        const text = pool[Math.floor(random() * pool.length)]!;
        // The range sits at a random offset of a larger buffer, as a field inside a request does.
        const before = Math.floor(random() * 4);
        const bytes = Buffer.concat([Buffer.alloc(before, 0x7a), text, Buffer.alloc(3, 0x7a)]);
        expect(interner.read(bytes, before, before + text.length), `seed ${seed} read ${read}`).to.equal(text.toString('utf8'));
      }
    }
  });

  it('hands out the same string for the same bytes, and the extra computed once for it', () => {
    let computed = 0;
    const interner = new ShortTextInterner<number>(16, 32, (text) => (computed += 1, text.length));
    const first = interner.read(Buffer.from('xxgen_ai.tool.name'), 2, 18);
    const again = interner.read(Buffer.from('gen_ai.tool.name!'), 0, 16);
    expect(again).to.equal(first).and.to.equal('gen_ai.tool.name');
    expect(interner.lastExtra).to.equal(16);
    expect(computed).to.equal(1);
  });

  it('decodes a range longer than maxBytes every time, with its extra, and keeps nothing of it', () => {
    const interner = new ShortTextInterner<string>(4, 4, (text) => text.toUpperCase());
    expect(interner.read(Buffer.from('abcdef'), 0, 6)).to.equal('abcdef');
    expect(interner.lastExtra).to.equal('ABCDEF');
    expect(interner.read(Buffer.from('abcd'), 0, 4)).to.equal('abcd');
    expect(interner.read(Buffer.from(''), 0, 0)).to.equal('');
  });

  it('refuses a slot count that is not a power of two', () => {
    expect(() => new ShortTextInterner(12, 8)).to.throw(RangeError, /power of two/);
  });
});
