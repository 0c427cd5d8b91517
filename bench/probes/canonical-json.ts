/**
 * Probe (not part of `npm run bench`): canonical JSON of the bench's argument fixtures —
 * JSON.stringify (no sorting, the lower bound), json-canonicalize, loopguard's canonicalJson.
 *   npx tsc -p bench/tsconfig.json && node .tmp/bench-build/bench/probes/canonical-json.js
 */
import { canonicalize } from 'json-canonicalize';
import { canonicalJson } from '../../src/core/canonical-json.js';
import { DEFAULT_VOLATILE_ARGS } from '../../src/core/volatile-fields.js';
import { compare, printComparison } from '../lib/compare.js';
import { largeArgs, smallArgs } from '../lib/fixtures.js';

const drop = new Set(DEFAULT_VOLATILE_ARGS);
for (const [name, value, burst] of [['150 B', smallArgs(1), 2000], ['2 KB', largeArgs(1), 300]] as const) {
  if (canonicalJson(value, drop) !== canonicalize(value)) throw new Error('outputs differ');
  printComparison(name, compare({ 'JSON.stringify': () => JSON.stringify(value), 'json-canonicalize': () => canonicalize(value), canonicalJson: () => canonicalJson(value, drop) }, { burst }), 'JSON.stringify');
}
