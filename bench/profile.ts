/**
 * Profiling driver for the per-call case (not part of `npm run bench`):
 *   node --cpu-prof --cpu-prof-dir=/tmp/prof --import tsx bench/profile.ts [bare|loopguard] [calls]
 * Runs the same loop as bench/overhead.ts (150 B arguments, 2 KB object result) without
 * tinybench, so the profile holds only the call path.
 */
import { startAgentRun } from '../src/otel/start-agent-run.js';
import { resultObject, smallArgs } from './lib/fixtures.js';
import { bareRun, bareTool, bareTracing, guardedTracing } from './lib/otel-setup.js';

const side = process.argv[2] ?? 'loopguard';
const calls = Number(process.argv[3] ?? 100_000);
const result = resultObject(2048);
const pool = Array.from({ length: 50 }, (_, index) => smallArgs(index));
const tool = async () => result;
const started = performance.now();
if (side === 'bare') {
  const tracing = bareTracing();
  for (let done = 0; done < calls; ) {
    const parent = bareRun(tracing.tracer);
    const call = bareTool(tracing.tracer, 'search', tool, () => parent.context);
    for (let index = 0; index < 50; index++, done++) await call(pool[index]!);
    parent.end();
  }
} else {
  const tracing = guardedTracing();
  for (let done = 0; done < calls; ) {
    const run = startAgentRun({ processor: tracing.processor!, tracer: tracing.tracer });
    const call = run.tool('search', tool);
    for (let index = 0; index < 50; index++, done++) await call(pool[index]!);
    run.end();
  }
}
console.log(`${side}: ${(((performance.now() - started) * 1000) / calls).toFixed(1)} µs per call`);
