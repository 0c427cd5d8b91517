import { writeFileSync } from 'node:fs';
import { Bench, type Task } from 'tinybench';

/** Median and p99 of one task, in nanoseconds, plus how many samples they come from. */
export interface Timing {
  medianNs: number;
  p99Ns: number;
  samples: number;
}

export interface BenchSettings {
  /** Time budget per task and round, ms. */
  time: number;
  /** Minimum iterations per task and round (large cases take milliseconds each). */
  iterations: number;
  warmupTime: number;
  warmupIterations: number;
}

export const DEFAULT_SETTINGS: BenchSettings = { time: 150, iterations: 10, warmupTime: 50, warmupIterations: 5 };

export type TaskFn = () => unknown | Promise<unknown>;

function timingOf(task: Task): Timing {
  const result = task.result;
  if (result.state !== 'completed') {
    throw new Error(`task ${task.name} did not complete: ${result.state}${'error' in result ? ` (${String(result.error)})` : ''}`);
  }
  // tinybench reports latency in milliseconds.
  return { medianNs: result.latency.p50 * 1e6, p99Ns: result.latency.p99 * 1e6, samples: result.latency.samplesCount };
}

function median(values: number[]): number {
  const sorted = [...values].sort((a, b) => a - b);
  const middle = sorted.length >> 1;
  return sorted.length % 2 === 1 ? sorted[middle]! : (sorted[middle - 1]! + sorted[middle]!) / 2;
}

/**
 * Runs the tasks in `rounds` tinybench passes (warm-up + timed iterations each) and
 * returns per task the median over rounds of the round medians (p99: median of the round
 * p99s). Rounds interleave the tasks, so a burst of load from another process lands on
 * all of them instead of skewing one; ratios are taken per round with {@link ratioOfRounds}.
 */
export async function measure(
  tasks: Record<string, TaskFn>,
  rounds: number,
  settings: BenchSettings = DEFAULT_SETTINGS,
): Promise<{ timings: Record<string, Timing>; perRound: Array<Record<string, Timing>> }> {
  const perRound: Array<Record<string, Timing>> = [];
  for (let round = 0; round < rounds; round++) {
    const bench = new Bench({ ...settings, throws: true });
    // Alternate the order so neither side always runs first (cold caches, GC debt).
    const names = Object.keys(tasks);
    if (round % 2 === 1) names.reverse();
    for (const name of names) bench.add(name, tasks[name]!);
    await bench.run();
    const timings: Record<string, Timing> = {};
    for (const task of bench.tasks) timings[task.name] = timingOf(task);
    perRound.push(timings);
  }
  const timings: Record<string, Timing> = {};
  for (const name of Object.keys(tasks)) {
    timings[name] = {
      medianNs: median(perRound.map((round) => round[name]!.medianNs)),
      p99Ns: median(perRound.map((round) => round[name]!.p99Ns)),
      samples: perRound.reduce((sum, round) => sum + round[name]!.samples, 0),
    };
  }
  return { timings, perRound };
}

/** Median over rounds of (numerator median / denominator median), both from the same round. */
export function ratioOfRounds(perRound: Array<Record<string, Timing>>, numerator: string, denominator: string): number {
  return median(perRound.map((round) => round[numerator]!.medianNs / round[denominator]!.medianNs));
}

/** Suites print nothing else: the parent reads this file. */
export function writeResult(value: unknown): void {
  const out = process.env.BENCH_OUT;
  const text = JSON.stringify(value, null, 2);
  if (out) writeFileSync(out, text);
  else console.log(text);
}

/**
 * Bytes the process retains after a full gc: the V8 heap plus ArrayBuffer backing stores,
 * which live outside the heap (the ledger's packed identity tables are typed arrays).
 */
export function heapAfterGc(): number {
  const gc = (globalThis as { gc?: () => void }).gc;
  if (gc === undefined) throw new Error('run with node --expose-gc');
  gc();
  gc();
  const usage = process.memoryUsage();
  return usage.heapUsed + usage.arrayBuffers;
}
