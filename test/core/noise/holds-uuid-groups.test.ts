import { expect } from 'chai';
import { holdsUuidGroups, UUID_GROUPS_PATTERN } from '../../../src/core/noise/holds-uuid-groups.js';
import { seededRandom } from '../../helpers/seeded-random.js';
import { SHAPES, texts } from '../../helpers/json-texts.js';

/** The noise filter's UUID gate, read with indexOf, must answer what its regex answers on every text. */
describe('holdsUuidGroups', () => {
  const PIECES = ['-', '--', '-abcd-', '-ABCD-', '-12ef-', '-1234-5678-', '-abcd-efgh-', '-g123-4567-', 'a', 'F', '0', '9', 'g', 'G', ' ', '"', '\u0661', 'Ａ', '-aBc', 'D-', '9b1deb4d-3b7d-4bad-9bdd-2b0d7b3dcb6d', '|---|---|'];

  it('agrees with /-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-/ on 20,000 seeded texts built to sit at its edges, and on JSON results', () => {
    const next = seededRandom(424242);
    const cases: string[] = [...SHAPES, ...texts(2000, 5)];
    for (let index = 0; index < 20000; index++) {
      const parts: string[] = [];
      const length = Math.floor(next() * 40);
      for (let part = 0; part < length; part++) parts.push(PIECES[Math.floor(next() * PIECES.length)]!);
      cases.push(parts.join(''));
    }
    let holding = 0;
    for (const text of cases) {
      const expected = UUID_GROUPS_PATTERN.test(text);
      if (expected) holding++;
      expect(holdsUuidGroups(text), JSON.stringify(text)).to.equal(expected);
    }
    expect(holding).to.be.above(1000);
  });

  it('finds the groups at the very end of a text and past many dashes', () => {
    expect(holdsUuidGroups('x-abcd-ef01-')).to.equal(true);
    expect(holdsUuidGroups('x-abcd-ef01')).to.equal(false);
    expect(holdsUuidGroups(`${'-'.repeat(100)}abcd-ef01-`)).to.equal(true);
    expect(holdsUuidGroups(`${'- '.repeat(100)}-abcd-ef01-`)).to.equal(true);
    expect(holdsUuidGroups('-ABCD-abcd-')).to.equal(true);
    expect(holdsUuidGroups('-ABCG-abcd-')).to.equal(false);
  });
});
