/**
 * Probe (not part of `npm run bench`): ways to get the 22-character truncated sha256 that
 * hash.ts returns, on a 150 B call identity text and a 2.2 KB result text with a prefix.
 *   npx tsc -p bench/tsconfig.json && node .tmp/bench-build/bench/probes/hash.js
 */
import { createHash } from 'node:crypto';
import { hashPrefixed, hashText } from '../../src/core/hash.js';
import { compare, printComparison } from '../lib/compare.js';
import { resultObject, smallArgs } from '../lib/fixtures.js';

const identity = `search\u0000j:${JSON.stringify(smallArgs(1))}`;
const result = JSON.stringify(resultObject(2048));
const createHashWay = (text: string) => createHash('sha256').update(text).digest().toString('base64url', 0, 16);
if (hashText(identity) !== createHashWay(identity) || hashPrefixed('j:', result) !== createHashWay(`j:${result}`)) throw new Error('outputs differ');
printComparison('150 B identity text', compare({ 'createHash…toString(base64url, 0, 16)': () => createHashWay(identity), hashText: () => hashText(identity) }));
printComparison(
  '2.2 KB result text with "j:" prefix',
  compare({ 'createHash of concatenation': () => createHashWay(`j:${result}`), 'hashText of concatenation': () => hashText(`j:${result}`), hashPrefixed: () => hashPrefixed('j:', result), 'hashText(text alone)': () => hashText(result) }, { burst: 500 }),
);
