import { LoopGuard } from '../../src/core/loop-guard.js';
import { hashPrefixed } from '../../src/core/hash.js';
import { isEmptyResult } from '../../src/core/result-fingerprint.js';
import { saysNoMorePages } from '../../src/core/world-state/says-no-more-pages.js';
import { resultObject } from '../lib/fixtures.js';
import { compare, printComparison } from '../lib/compare.js';
const guard = new LoopGuard();
const policy = guard.options.defaultTool;
const object = resultObject(2048);
const text = JSON.stringify(object);
const parsed = JSON.parse(text);
printComparison('pieces (2 KB result)', compare({
  'fingerprint(string)': () => guard.fingerprint('search', { result: text }),
  'fingerprint(object)': () => guard.fingerprint('search', { result: object }),
  'JSON.parse(text)': () => JSON.parse(text),
  'JSON.stringify(parsed)': () => JSON.stringify(parsed),
  'noiseFilter(text)': () => policy.noiseFilter!(text),
  'volatile pattern': () => policy.volatileResultPattern!.test(text),
  'hashPrefixed': () => hashPrefixed('j:', text),
  'isEmptyResult': () => isEmptyResult(parsed),
  'saysNoMorePages': () => saysNoMorePages(parsed),
  'trimStart': () => text.trimStart(),
}, { burst: 500 }));
import { readJsonTextShape } from '../../src/core/json-text-shape.js';
printComparison('scan', compare({ 'readJsonTextShape': () => readJsonTextShape(text), 'JSON.parse(text)': () => JSON.parse(text) }, { burst: 500 }));
