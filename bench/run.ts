/**
 * `npm run bench`: runs every case of issue 6, each suite in its own Node process (memory
 * cases need `--expose-gc` and a clean heap; separate processes also keep one suite's JIT
 * and GC state out of the next), then writes BENCHMARKS.md from their results.
 *
 * The suites run as JavaScript compiled by tsc (bench/tsconfig.json → .tmp/bench-build), the
 * form users run, not through tsx: tsx compiles with esbuild's keepNames, which adds a
 * `__name()` call to every closure created on the hot path (3.4 % of a per-call profile)
 * that the published package does not have, while the OpenTelemetry SDK on the other side
 * of each ratio is plain JavaScript from node_modules. BENCH_TSX=1 runs them through tsx.
 *
 * Environment: BENCH_ROUNDS (default 5) interleaved rounds per timing case; BENCH_SUITES
 * (comma list: overhead,hashing,query,memory,scale,soak,redis,serve) to run a subset — BENCHMARKS.md is only
 * written when every suite ran; BENCH_QUICK=1 shrinks the memory, soak and redis cases for a smoke run.
 * The redis suite starts its own redis-server (Debian's redis-server must be installed).
 */
import { spawnSync } from 'node:child_process';
import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { machineInfo, renderReport, type SuiteResults } from './lib/report.js';

const root = fileURLToPath(new URL('..', import.meta.url));
const SUITES = ['overhead', 'hashing', 'query', 'memory', 'scale', 'soak', 'redis', 'serve'] as const;
type Suite = (typeof SUITES)[number];
const selected = (process.env.BENCH_SUITES?.split(',') ?? [...SUITES]) as Suite[];
const quick = process.env.BENCH_QUICK === '1';
const quickEnv: Record<string, string> = quick ? { BENCH_MEMORY_RUNS: '10000', BENCH_SCALE_CALLS: '20000', BENCH_SOAK_RUNS: '100000', BENCH_SOAK_SPAN_RUNS: '10000', BENCH_REDIS_CALLS: '100', BENCH_SERVE_OTLP_REQUESTS: '60', BENCH_SERVE_CALLS: '500', BENCH_SERVE_RUNS: '1000', BENCH_ROUNDS: process.env.BENCH_ROUNDS ?? '3' } : {};

const useTsx = process.env.BENCH_TSX === '1';
if (!useTsx) {
  process.stderr.write('compiling src + bench with tsc (bench/tsconfig.json)…\n');
  const tsc = spawnSync(process.execPath, [join(root, 'node_modules', 'typescript', 'bin', 'tsc'), '-p', 'bench/tsconfig.json'], {
    cwd: root,
    stdio: ['ignore', 'inherit', 'inherit'],
  });
  // Type errors elsewhere in the working tree still emit (noEmitOnError is off); only a
  // missing output stops the bench.
  if (tsc.status !== 0) process.stderr.write(`tsc exited with ${tsc.status}; running what it emitted\n`);
}

const outDir = mkdtempSync(join(tmpdir(), 'loopguard-bench-'));
const results: Partial<SuiteResults> = {};
const commands: string[] = useTsx ? [] : ['node node_modules/typescript/bin/tsc -p bench/tsconfig.json   # src + bench → .tmp/bench-build'];
const started = Date.now();

for (const suite of selected) {
  const out = join(outDir, `${suite}.json`);
  const args = useTsx ? ['--expose-gc', '--import', 'tsx', `bench/${suite}.ts`] : ['--expose-gc', join('.tmp', 'bench-build', 'bench', `${suite}.js`)];
  commands.push(`node ${args.join(' ')}`);
  process.stderr.write(`\n== ${suite}\n`);
  const suiteStarted = Date.now();
  const child = spawnSync(process.execPath, args, {
    cwd: root,
    env: { ...process.env, ...quickEnv, BENCH_OUT: out },
    stdio: ['ignore', 'inherit', 'inherit'],
  });
  if (child.status !== 0) {
    process.stderr.write(`suite ${suite} failed (exit ${child.status ?? child.signal})\n`);
    process.exit(1);
  }
  (results as Record<string, unknown>)[suite] = { ...JSON.parse(readFileSync(out, 'utf8')), seconds: (Date.now() - suiteStarted) / 1000 };
}

const totalSeconds = (Date.now() - started) / 1000;
process.stderr.write(`\nall suites: ${totalSeconds.toFixed(0)} s\n`);
if (selected.length === SUITES.length) {
  const text = renderReport(results as SuiteResults, {
    machine: machineInfo(),
    commands,
    totalSeconds,
    rounds: Number(process.env.BENCH_ROUNDS ?? quickEnv.BENCH_ROUNDS ?? 5),
    quick,
  });
  writeFileSync(join(root, 'BENCHMARKS.md'), text);
  process.stderr.write('wrote BENCHMARKS.md\n');
} else {
  process.stderr.write(`subset run (${selected.join(',')}): BENCHMARKS.md not written; results in ${outDir}\n`);
}
