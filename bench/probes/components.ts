import { LoopGuard } from '../../src/core/loop-guard.js';
import { resultObject, smallArgs } from '../lib/fixtures.js';
import { compare, printComparison } from '../lib/compare.js';
const guard = new LoopGuard();
const result = resultObject(2048);
const args = smallArgs(3);
const text = JSON.stringify(result);
printComparison('components (150 B args, 2 KB object result)', compare({
  'JSON.stringify(result)': () => JSON.stringify(result),
  'fingerprint(result)': () => guard.fingerprint('search', { result }),
  'argsHash(args)': () => guard.argsHash('search', args),
  'new AbortController().signal': () => new AbortController().signal,
  'regex on result text': () => guard.options.defaultTool.volatileResultPattern!.test(text),
}, { burst: 500 }));
