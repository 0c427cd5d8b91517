/**
 * Cases 2 and 4 of issue 6: shouldRefuse / shouldStop latency (median, p99) with 10, 1k and
 * 100k calls already in the run, and the naive detector of document 003 (stringify + linear
 * scan of the history) asked the same questions in the same run.
 */
import { LoopGuard } from '../src/core/loop-guard.js';
import type { PrehashedToolCall } from '../src/core/types.js';
import { smallArgs } from './lib/fixtures.js';
import { measure, ratioOfRounds, writeResult, type Timing } from './lib/harness.js';
import { NaiveLoopDetector } from './lib/naive-detector.js';
import type { QueryCase } from './lib/result-shapes.js';

const ROUNDS = Number(process.env.BENCH_ROUNDS ?? 5);
const RUN_LENGTHS = [10, 1_000, 100_000];
const CALLS_PER_ROUND = 10;


function resultOf(index: number): unknown {
  return { total: 1, hits: [{ id: `doc-${index}`, title: `Result ${index}` }] };
}

type Tasks = Record<string, () => unknown>;

/** A run holding `calls` executed calls, a naive detector fed the same, and their query tasks. */
function setUp(calls: number): Tasks {
  // No budget: the run must hold `calls` executed calls without being stopped.
  // Document 000's researcher: a repeat of a read is refused from its first repeat, the case
  // whose lookup this measures (the general profile needs the outcome confirmed first).
  const guard = new LoopGuard({ profile: 'researcher', maxToolCalls: Infinity, maxRounds: Infinity });
  const run = guard.startRun(`run-${calls}`);
  const naive = new NaiveLoopDetector();
  for (let index = 0; index < calls; index++) {
    if (index % CALLS_PER_ROUND === 0) run.beginRound();
    const args = smallArgs(index);
    const { decision } = run.recordCall({ tool: 'search', args, callId: `call_${index}` }, { result: resultOf(index) });
    if (decision.action !== 'allow') throw new Error(`setup call ${index} was refused: ${decision.reason}`);
    naive.record('search', args, resultOf(index));
  }
  if (run.shouldStop().action !== 'continue') throw new Error('setup run stopped');

  // Repeats of calls from the middle of the run (refused), and calls never made (allowed).
  // Each task alternates between two calls, so no query reuses the previous one's lookups.
  const repeatArgs = [smallArgs(calls >> 1), smallArgs((calls >> 1) + 1)];
  const newArgs = [smallArgs(calls + 7), smallArgs(calls + 8)];
  const repeatHashed: PrehashedToolCall[] = repeatArgs.map((args) => ({ tool: 'search', argsHash: run.argsHash('search', args) }));
  const newHashed: PrehashedToolCall[] = newArgs.map((args) => ({ tool: 'search', argsHash: run.argsHash('search', args) }));
  for (let index = 0; index < 2; index++) {
    if (run.shouldRefuse(repeatHashed[index]!).action !== 'refuse' || run.shouldRefuse(newHashed[index]!).action !== 'allow') throw new Error('unexpected decisions');
    if (!naive.shouldRefuse('search', repeatArgs[index]) || naive.shouldRefuse('search', newArgs[index])) throw new Error('unexpected naive decisions');
  }
  let turn = 0;
  const next = () => (turn ^= 1);
  return {
    'loopguard shouldRefuse (repeat, prehashed)': () => run.shouldRefuse(repeatHashed[next()]!),
    'loopguard shouldRefuse (new, prehashed)': () => run.shouldRefuse(newHashed[next()]!),
    'loopguard shouldRefuse (new, raw 150 B args)': () => run.shouldRefuse({ tool: 'search', args: newArgs[next()] }),
    'loopguard shouldStop': () => run.shouldStop(),
    'naive shouldRefuse (new, raw 150 B args)': () => naive.shouldRefuse('search', newArgs[next()]),
    'naive shouldStop': () => naive.shouldStop(),
  };
}

// All run lengths are timed in the same interleaved rounds, so "flat in run length" compares
// numbers taken under the same load; growth is the median over rounds of (N = 100k / N = 10).
const tasks: Tasks = {};
for (const calls of RUN_LENGTHS) {
  for (const [name, task] of Object.entries(setUp(calls))) tasks[`${calls}|${name}`] = task;
}
const { timings, perRound } = await measure(tasks, ROUNDS, { time: 50, iterations: 20, warmupTime: 15, warmupIterations: 20 });
const cases: QueryCase[] = RUN_LENGTHS.map((calls) => ({
  calls,
  timings: Object.fromEntries(
    Object.entries(timings)
      .filter(([key]) => key.startsWith(`${calls}|`))
      .map(([key, timing]) => [key.slice(key.indexOf('|') + 1), timing]),
  ),
}));
const growth: Record<string, number> = {};
for (const name of Object.keys(cases[0]!.timings)) {
  growth[name] = ratioOfRounds(perRound, `${RUN_LENGTHS[RUN_LENGTHS.length - 1]}|${name}`, `${RUN_LENGTHS[0]}|${name}`);
}
for (const { calls, timings: byName } of cases) {
  process.stderr.write(
    `query ${calls} calls: ${Object.entries(byName)
      .map(([name, timing]) => `${name} ${(timing.medianNs / 1000).toFixed(2)}/${(timing.p99Ns / 1000).toFixed(2)} µs`)
      .join('; ')}\n`,
  );
}
process.stderr.write(`growth 10 → 100k: ${Object.entries(growth).map(([name, ratio]) => `${name} ×${ratio.toFixed(2)}`).join('; ')}\n`);
writeResult({ rounds: ROUNDS, callsPerRound: CALLS_PER_ROUND, cases, growth });
