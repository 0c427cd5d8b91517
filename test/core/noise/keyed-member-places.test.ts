import { expect } from 'chai';
import { jsonTextShape, readJsonTextShape, VolatileKeyMatcher } from '../../../src/core/json-text-shape.js';
import { createNoiseFilter } from '../../../src/core/noise/create-noise-filter.js';
import { expandNamePattern } from '../../../src/core/noise/expand-name-pattern.js';
import { KEYED_MEMBER_NAMES } from '../../../src/core/noise/keyed-member-names.js';
import {
  CLOCK_FIELD_PATTERN,
  DURATION_FIELD_PATTERN,
  RESPONSE_ID_FIELD_PATTERN,
  SCORE_FIELD_PATTERN,
} from '../../../src/core/noise/result-noise-rules.js';
import { texts } from '../../helpers/json-texts.js';
import { seededRandom } from '../../helpers/seeded-random.js';
import { createReferenceNoiseFilter } from './reference-noise-filter.js';

/**
 * Issue 20: the JSON text scan lists the keys the noise filter's keyed family can match at,
 * and the filter then tries that family only there. The output must be the filter's own on
 * the whole text, on every input the scan vouches for.
 */

const ANY_KEYED_NAME = new RegExp(`^(?:${DURATION_FIELD_PATTERN}|${SCORE_FIELD_PATTERN}|${CLOCK_FIELD_PATTERN}|${RESPONSE_ID_FIELD_PATTERN})$`);
const NAMES = [...KEYED_MEMBER_NAMES];

/** A name near a keyed one: one character dropped, added, changed or its case flipped. */
function nearName(next: () => number): string {
  const name = NAMES[Math.floor(next() * NAMES.length)]!;
  const at = Math.floor(next() * (name.length + 1));
  const roll = next();
  const character = 'aeimst_-TSMx"\\'[Math.floor(next() * 14)]!;
  if (roll < 0.25) return name.slice(0, at) + name.slice(at + 1);
  if (roll < 0.5) return name.slice(0, at) + character + name.slice(at);
  if (roll < 0.75) return name.slice(0, at) + character + name.slice(at + 1);
  return name.slice(0, at) + (name[at] ?? '').toUpperCase() + name.slice(at + 1);
}

describe('keyed member names: the four name patterns written out', () => {
  it('holds exactly the names the patterns match (every name, and near misses either way)', () => {
    expect(KEYED_MEMBER_NAMES.size).to.be.greaterThan(600);
    for (const name of KEYED_MEMBER_NAMES) expect(ANY_KEYED_NAME.test(name), name).to.equal(true);
    const next = seededRandom(77);
    let inSet = 0;
    for (let index = 0; index < 50_000; index++) {
      const name = nearName(next);
      const listed = KEYED_MEMBER_NAMES.has(name);
      if (listed) inSet++;
      expect(listed, name).to.equal(ANY_KEYED_NAME.test(name));
    }
    expect(inSet).to.be.greaterThan(1000);
  });

  it('refuses syntax it cannot write out', () => {
    for (const source of ['a*', 'a+b', '\\d', 'a.b', '(?:a', '[a-z]', 'a{2}', 'a)']) expect(() => expandNamePattern(source), source).to.throw(SyntaxError);
    expect(expandNamePattern('(?:a|b_?)[cC]?')).to.have.members(['ac', 'aC', 'a', 'b_c', 'b_C', 'b_', 'bc', 'bC', 'b']);
  });
});

const VALUES: readonly unknown[] = [
  0, -4, 12, 1.5, -0.25, 0.77, 1 / 3, 1.5e-3, 1e21, 1794474000, 1794474000123, 1794474000123.5, 179447400, true, false, null,
  '', 'r-1', '12ms', 'W/abc', 'fast', '2025-11-02T10:00:01.123Z', '2025-11-02 10:00', 'Sun, 02 Nov 2025 10:00:01 GMT', 'x'.repeat(41), 'y'.repeat(201),
  'quote " in', 'back\\slash', '{"took":12,"score":0.5}', 'ran in 1.53s at 2024-05-01T12:03:04Z', '9b1deb4d-3b7d-4bad-9bdd-2b0d7b3dcb6d', 'request id: abcdef123',
];

function randomKey(next: () => number): string {
  const roll = next();
  if (roll < 0.45) return NAMES[Math.floor(next() * NAMES.length)]!;
  if (roll < 0.7) return nearName(next);
  // A keyed name after an escaped quote or backslash inside the key: the regex can start in it.
  if (roll < 0.72) return ['a"', '"', '\\', 'a\\"', 'x\n'][Math.floor(next() * 5)]! + NAMES[Math.floor(next() * NAMES.length)]!;
  return ['id', 'title', 'hits', 'url', 'snippet', 'total', 'items', 'content'][Math.floor(next() * 8)]!;
}

function randomValue(next: () => number, depth: number): unknown {
  const roll = next();
  if (depth > 3 || roll < 0.55) return VALUES[Math.floor(next() * VALUES.length)];
  if (roll < 0.7) return Array.from({ length: Math.floor(next() * 4) }, () => randomValue(next, depth + 1));
  const object: Record<string, unknown> = {};
  for (let index = Math.floor(next() * 6); index > 0; index--) {
    Object.defineProperty(object, randomKey(next), { value: randomValue(next, depth + 1), enumerable: true, writable: true, configurable: true });
  }
  return object;
}

function keyedTexts(count: number, seed: number): string[] {
  const next = seededRandom(seed);
  const out: string[] = [];
  for (let index = 0; index < count; index++) {
    const object: Record<string, unknown> = {};
    for (let member = 1 + Math.floor(next() * 8); member > 0; member--) {
      Object.defineProperty(object, randomKey(next), { value: randomValue(next, 1), enumerable: true, writable: true, configurable: true });
    }
    out.push(JSON.stringify(next() < 0.2 ? [object, object] : object));
  }
  return out;
}

describe('noise filter with the keyed places the JSON text scan lists (issue 20)', () => {
  const names = VolatileKeyMatcher.of(KEYED_MEMBER_NAMES)!;
  const inputs = [...keyedTexts(6000, 2026), ...texts(4000, 2027)];

  for (const [label, extraPatterns] of [['built-in rules', []], ['with a tool\'s own patterns', ['build-\\d+', 'x*']]] as const) {
    it(`gives the filter's own output on ~10k seeded texts (${label})`, () => {
      const filter = createNoiseFilter({ extraPatterns });
      const reference = createReferenceNoiseFilter({ extraPatterns }, false);
      let listed = 0;
      let withPlaces = 0;
      let changed = 0;
      let unlisted = 0;
      for (const text of inputs) {
        if (!readJsonTextShape(text, undefined, names)) continue;
        if (!jsonTextShape.keyedMembersListed) {
          unlisted++;
          continue;
        }
        listed++;
        const places = jsonTextShape.keyedMemberPlaces;
        if (places.count > 0) withPlaces++;
        const expected = filter(text);
        expect(expected, text.slice(0, 300)).to.equal(reference(text));
        const got = filter(text, places);
        expect(got, text.slice(0, 300)).to.equal(expected);
        if (got !== text) changed++;
      }
      // The inputs reach every branch: listed texts with and without places, noise removed, and keys with escapes left to the full scan.
      expect(listed).to.be.greaterThan(5500);
      expect(withPlaces).to.be.greaterThan(3000);
      expect(changed).to.be.greaterThan(2500);
      expect(unlisted).to.be.greaterThan(1000);
    });
  }

  it('lists nothing when no key is a keyed name, and the filter then leaves keyed members alone only because there are none', () => {
    const text = JSON.stringify({ hits: [{ id: 'doc-1', note: '{"took":12}', title: 'took', url: 'x' }] });
    expect(readJsonTextShape(text, undefined, names)).to.equal(true);
    expect(jsonTextShape.keyedMembersListed).to.equal(true);
    expect(jsonTextShape.keyedMemberPlaces.count).to.equal(0);
    expect(createNoiseFilter()(text, jsonTextShape.keyedMemberPlaces)).to.equal(text);
  });

  it('lists the key where the keyed member starts, and the filter replaces it there', () => {
    const text = JSON.stringify({ total: 2, took: 12, hits: [{ score: 0.5 }] });
    expect(readJsonTextShape(text, undefined, names)).to.equal(true);
    const places = jsonTextShape.keyedMemberPlaces;
    expect([...places.starts.subarray(0, places.count)]).to.deep.equal([text.indexOf('"took"'), text.indexOf('"score"')]);
    expect(createNoiseFilter()(text, places)).to.equal('{"total":2,"took":0,"hits":[{"score":0}]}');
  });

  it('gives the same output when places are listed where no keyed member is (the list may be a superset)', () => {
    const filter = createNoiseFilter();
    for (const text of keyedTexts(500, 2028)) {
      const quotes: number[] = [];
      for (let at = text.indexOf('"'); at >= 0; at = text.indexOf('"', at + 1)) quotes.push(at);
      expect(filter(text, { starts: Int32Array.from(quotes), count: quotes.length }), text.slice(0, 300)).to.equal(filter(text));
    }
  });

  it('does not list a key with an escape (a keyed name can follow its escaped quote)', () => {
    const text = JSON.stringify({ 'a"took': 12 });
    expect(readJsonTextShape(text, undefined, names)).to.equal(true);
    expect(jsonTextShape.keyedMembersListed).to.equal(false);
    expect(createNoiseFilter()(text)).to.equal('{"a\\"took":0}');
  });
});
