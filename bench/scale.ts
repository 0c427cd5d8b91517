/**
 * Scale (issue 20, item 5): one process guarding many open runs at once. For 1, 100 and
 * 10,000 open runs, calls are made round-robin across the runs (each run: rounds of 4
 * calls, every call distinct with a distinct result, so nothing is refused and nothing
 * stops), through the engine's own door: `startCall` (the decision) then `finishCall`
 * (the outcome). Reports calls/s over the whole pass, the decision's median and p99, and the
 * heap the open runs hold afterwards.
 *
 * Inputs are built one layer (one call per run) at a time outside the timed region, so the
 * figures are the engine's alone and memory stays bounded at 10k runs.
 */
import { LoopGuard } from '../src/core/loop-guard.js';
import type { RunGuard } from '../src/core/run-guard.js';
import { smallArgs } from './lib/fixtures.js';
import { heapAfterGc, writeResult } from './lib/harness.js';
import type { ScaleCase } from './lib/result-shapes.js';

const OPEN_RUNS = (process.env.BENCH_SCALE_RUNS ?? '1,100,10000').split(',').map(Number);
/** Calls per run: at least this many, and at least 100k calls in all for the small run counts. */
const MIN_CALLS_PER_RUN = 20;
const MIN_TOTAL_CALLS = Number(process.env.BENCH_SCALE_CALLS ?? 100_000);
const CALLS_PER_ROUND = 4;

function resultOf(serial: number): unknown {
  return { total: 1, hits: [{ id: `doc-${serial}`, title: `Result ${serial}`, url: `https://docs.example.com/${serial}` }] };
}

function percentile(sorted: Float64Array, p: number): number {
  return sorted[Math.min(sorted.length - 1, Math.floor(p * sorted.length))]!;
}

function measureScale(openRuns: number): ScaleCase {
  const callsPerRun = Math.max(MIN_CALLS_PER_RUN, Math.ceil(MIN_TOTAL_CALLS / openRuns));
  const guard = new LoopGuard({ maxOpenRuns: openRuns * 2, maxToolCalls: Infinity, maxRounds: Infinity });
  const heapBefore = heapAfterGc();
  const runs: RunGuard[] = Array.from({ length: openRuns }, (_, index) => guard.startRun(`run-${index}`));
  const decisionNs = new Float64Array(openRuns * callsPerRun);
  let timedMs = 0;
  let serial = 0;
  for (let call = 0; call < callsPerRun; call++) {
    const args = Array.from({ length: openRuns }, (_, index) => smallArgs(call * openRuns + index));
    const results = Array.from({ length: openRuns }, (_, index) => resultOf(call * openRuns + index));
    const started = performance.now();
    for (let index = 0; index < openRuns; index++) {
      const run = runs[index]!;
      if (call % CALLS_PER_ROUND === 0) run.beginRound();
      const before = process.hrtime.bigint();
      const ticket = run.startCall({ tool: call % 2 === 0 ? 'search' : 'fetch', args: args[index] });
      decisionNs[serial++] = Number(process.hrtime.bigint() - before);
      if (ticket.decision.action !== 'allow') throw new Error(`call ${call} of run ${index} was refused: ${ticket.decision.reason}`);
      run.finishCall(ticket, { result: results[index] });
    }
    timedMs += performance.now() - started;
  }
  const heapAfter = heapAfterGc();
  if (guard.stats().openRuns !== openRuns) throw new Error('runs were evicted');
  for (const run of runs) if (run.shouldStop().action !== 'continue') throw new Error('a run stopped');
  decisionNs.sort();
  const calls = openRuns * callsPerRun;
  return {
    openRuns,
    callsPerRun,
    calls,
    callsPerSecond: calls / (timedMs / 1000),
    decisionMedianNs: percentile(decisionNs, 0.5),
    decisionP99Ns: percentile(decisionNs, 0.99),
    heapBytes: heapAfter - heapBefore,
    bytesPerOpenRun: (heapAfter - heapBefore) / openRuns,
  };
}

const cases: ScaleCase[] = [];
for (const openRuns of OPEN_RUNS) {
  const result = measureScale(openRuns);
  cases.push(result);
  process.stderr.write(
    `scale ${openRuns} open runs × ${result.callsPerRun} calls: ${Math.round(result.callsPerSecond).toLocaleString('en')} calls/s, decision p50 ${(result.decisionMedianNs / 1000).toFixed(2)} µs p99 ${(result.decisionP99Ns / 1000).toFixed(2)} µs, ${(result.bytesPerOpenRun / 1000).toFixed(1)} kB per open run\n`,
  );
}
writeResult({ cases });
