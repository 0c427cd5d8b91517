/**
 * Probe (not part of `npm run bench`): what a call identity costs on 2 KB arguments — the
 * canonical text is a rope of small concatenations that hashing must flatten first.
 *   npx tsc -p bench/tsconfig.json && node .tmp/bench-build/bench/probes/rope.js
 */
import { canonicalJson } from '../../src/core/canonical-json.js';
import { hashPrefixed, hashText } from '../../src/core/hash.js';
import { DEFAULT_VOLATILE_ARGS } from '../../src/core/volatile-fields.js';
import { compare, printComparison } from '../lib/compare.js';
import { largeArgs, smallArgs } from '../lib/fixtures.js';

const drop = new Set(DEFAULT_VOLATILE_ARGS);
for (const [name, value, burst] of [['150 B', smallArgs(1), 2000], ['2 KB', largeArgs(1), 300]] as const) {
  const flat = canonicalJson(value, drop);
  printComparison(name, compare({
    'canonicalJson': () => canonicalJson(value, drop),
    'hashText(flat canonical text)': () => hashText(`search\u0000j:${flat}`),
    'hashPrefixed(canonicalJson(...)) = argsHash': () => hashPrefixed('search\u0000j:', canonicalJson(value, drop)),
  }, { burst }));
}
