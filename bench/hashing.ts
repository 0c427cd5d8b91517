/**
 * Case 1b of issue 6: large-result hashing throughput. loopguard's result fingerprint
 * (the public `guard.fingerprint`) against raw sha256 of the same string, and against
 * JSON.stringify + sha256 for objects, in the same run.
 */
import { createHash } from 'node:crypto';
import { LoopGuard } from '../src/core/loop-guard.js';
import { resultObject, SIZES, type SizeName } from './lib/fixtures.js';
import { measure, ratioOfRounds, writeResult, type Timing } from './lib/harness.js';
import type { HashCase } from './lib/result-shapes.js';

const ROUNDS = Number(process.env.BENCH_ROUNDS ?? 5);


const guard = new LoopGuard();

/** Plain text (not JSON) of about `bytes` bytes: a fetched page or file. */
function plainText(bytes: number): string {
  const line = 'Retries are attempted with exponential backoff; set maxAttempts to bound them and jitter to spread load.\n';
  return line.repeat(Math.ceil(bytes / line.length)).slice(0, bytes);
}

const cases: HashCase[] = [];
for (const size of Object.keys(SIZES) as SizeName[]) {
  const object = resultObject(SIZES[size]);
  const inputs = [
    { kind: 'object' as const, value: object as unknown, baselineName: 'JSON.stringify + sha256', baseline: () => createHash('sha256').update(JSON.stringify(object)).digest() },
    { kind: 'JSON text' as const, value: JSON.stringify(object) as unknown, baselineName: 'sha256 of the string', baseline: undefined },
    { kind: 'plain text' as const, value: plainText(SIZES[size]) as unknown, baselineName: 'sha256 of the string', baseline: undefined },
  ];
  for (const input of inputs) {
    const text = typeof input.value === 'string' ? input.value : JSON.stringify(input.value);
    const baseline = input.baseline ?? (() => createHash('sha256').update(input.value as string).digest());
    const fingerprint = guard.fingerprint('fetch', { result: input.value });
    if (fingerprint.resultHash === undefined) throw new Error(`no fingerprint for ${size} ${input.kind}`);
    const large = SIZES[size] > 50_000;
    const { timings, perRound } = await measure(
      { baseline, loopguard: () => guard.fingerprint('fetch', { result: input.value }) },
      ROUNDS,
      { time: large ? 200 : 80, iterations: large ? 5 : 50, warmupTime: 30, warmupIterations: large ? 2 : 50 },
    );
    const bytes = Buffer.byteLength(text);
    const loopguard = timings.loopguard!;
    const base = timings.baseline!;
    const result: HashCase = {
      name: `${size} ${input.kind}`,
      size,
      kind: input.kind,
      bytes,
      baselineName: input.baselineName,
      baseline: base,
      loopguard,
      throughputRatio: 1 / ratioOfRounds(perRound, 'loopguard', 'baseline'),
      loopguardMBps: bytes / (loopguard.medianNs / 1e9) / 1e6,
      baselineMBps: bytes / (base.medianNs / 1e9) / 1e6,
    };
    cases.push(result);
    process.stderr.write(`hashing ${result.name}: loopguard ${result.loopguardMBps.toFixed(0)} MB/s, ${result.baselineName} ${result.baselineMBps.toFixed(0)} MB/s, ${(result.throughputRatio * 100).toFixed(0)} %\n`);
  }
}
writeResult({ rounds: ROUNDS, cases });
