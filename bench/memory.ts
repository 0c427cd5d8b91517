/**
 * Case 3 of issue 6: heap bytes per idle run and per recorded call (100k runs × 20 calls,
 * heap delta after gc). Run with `node --expose-gc`; run.ts starts it in its own process
 * so the heap holds nothing else.
 */
import { LoopGuard } from '../src/core/loop-guard.js';
import type { RunGuard } from '../src/core/run-guard.js';
import { hashText } from '../src/core/hash.js';
import { heapAfterGc, writeResult } from './lib/harness.js';
import type { MemoryVariant } from './lib/result-shapes.js';

const RUNS = Number(process.env.BENCH_MEMORY_RUNS ?? 100_000);
const CALLS_PER_RUN = 20;
const CALLS_PER_ROUND = 4;


/**
 * Calls are recorded prehashed (the instrumentation computes the hashes before the ledger
 * sees the call): the ledger keeps the same 22-character strings either way, and hashing
 * 2M raw argument objects would spend a minute on work case 1 already measures.
 *
 * Every call distinct (its own signature record) with a distinct result (its own
 * fingerprint): the most the ledger can hold per call. The repeat case costs nothing extra.
 */
function measureVariant(name: string, withCallIds: boolean): MemoryVariant {
  const guard = new LoopGuard({ maxOpenRuns: RUNS * 2, maxToolCalls: Infinity, maxRounds: Infinity });
  const runs: RunGuard[] = new Array(RUNS);
  const heapBaseline = heapAfterGc();
  for (let index = 0; index < RUNS; index++) runs[index] = guard.startRun(`run-${index}`);
  const heapIdle = heapAfterGc();
  for (let index = 0; index < RUNS; index++) {
    const run = runs[index]!;
    for (let call = 0; call < CALLS_PER_RUN; call++) {
      if (call % CALLS_PER_ROUND === 0) run.beginRound();
      // Ids as the model APIs write them ("call_" + 24 characters), made fresh per call.
      // JSON.parse gives a flat string, as the SDKs' parsed responses do.
      const serial = index * CALLS_PER_RUN + call;
      const callId = withCallIds ? (JSON.parse(`"call_${serial.toString(36).padStart(24, '0')}"`) as string) : undefined;
      run.recordCall(
        { tool: call % 2 === 0 ? 'search' : 'fetch', argsHash: hashText(`a${serial}`), callId },
        { outcome: 'success', resultHash: hashText(`r${serial}`) },
      );
    }
  }
  const heapFull = heapAfterGc();
  if (guard.stats().openRuns !== RUNS) throw new Error('runs were evicted');
  const result: MemoryVariant = {
    name,
    runs: RUNS,
    callsPerRun: CALLS_PER_RUN,
    bytesPerIdleRun: (heapIdle - heapBaseline) / RUNS,
    bytesPerCall: (heapFull - heapIdle) / (RUNS * CALLS_PER_RUN),
    heapBaseline,
    heapIdle,
    heapFull,
  };
  runs.length = 0;
  return result;
}

const variants = [measureVariant('calls without call ids', false), measureVariant('calls with model call ids', true)];
for (const variant of variants) {
  process.stderr.write(`memory ${variant.name}: ${variant.bytesPerIdleRun.toFixed(0)} B per idle run, ${variant.bytesPerCall.toFixed(1)} B per call\n`);
}
writeResult({ variants });
