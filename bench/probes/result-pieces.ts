/**
 * Probe (not part of `npm run bench`): what fingerprinting a 2 KB search result costs, piece by
 * piece, as text and as an object (issue 20). Interleaved medians:
 *   npx tsx bench/probes/result-pieces.ts
 */
import { hashPrefixed } from '../../src/core/hash.js';
import { readJsonTextShape } from '../../src/core/json-text-shape.js';
import { LoopGuard } from '../../src/core/loop-guard.js';
import { holdsUuidGroups, UUID_GROUPS_PATTERN } from '../../src/core/noise/holds-uuid-groups.js';
import { isEmptyResult } from '../../src/core/result-fingerprint.js';
import { saysNoMorePages } from '../../src/core/world-state/says-no-more-pages.js';
import { compare, printComparison } from '../lib/compare.js';
import { resultObject } from '../lib/fixtures.js';

const guard = new LoopGuard();
const policy = guard.options.defaultTool;
const object = resultObject(2048);
const text = JSON.stringify(object);
const parsed = JSON.parse(text) as unknown;
printComparison('pieces (2 KB result)', compare({
  'fingerprint(string)': () => guard.fingerprint('search', { result: text }),
  'fingerprint(object)': () => guard.fingerprint('search', { result: object }),
  'JSON.parse(text)': () => JSON.parse(text),
  'JSON.stringify(parsed)': () => JSON.stringify(parsed),
  'readJsonTextShape(text)': () => readJsonTextShape(text),
  'noiseFilter(text)': () => policy.noiseFilter!(text),
  'volatile pattern': () => policy.volatileResultPattern!.test(text),
  'UUID gate, regex': () => UUID_GROUPS_PATTERN.test(text),
  'UUID gate, indexOf': () => holdsUuidGroups(text),
  'hashPrefixed': () => hashPrefixed('j:', text),
  'isEmptyResult': () => isEmptyResult(parsed),
  'saysNoMorePages': () => saysNoMorePages(parsed),
}, { burst: 500 }));
