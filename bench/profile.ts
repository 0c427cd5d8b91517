/**
 * Profiling driver for the per-call case (not part of `npm run bench`):
 *   npx tsc -p bench/tsconfig.json
 *   node --cpu-prof --cpu-prof-dir=/tmp/prof .tmp/bench-build/bench/profile.js [bare|floor|loopguard] [calls] [object|string] [150|2048]
 * Runs the same loop as bench/overhead.ts (default: 150 B arguments, 2 KB object result)
 * without tinybench, so the profile holds only the call path. `floor` is overhead.ts's floor
 * task (bare span + canonical arguments + result text + SHA-256).
 */
import { createHash } from 'node:crypto';
import { canonicalJson } from '../src/core/canonical-json.js';
import { startAgentRun } from '../src/otel/start-agent-run.js';
import { largeArgs, resultObject, smallArgs } from './lib/fixtures.js';
import { bareRun, bareTool, bareTracing, guardedTracing } from './lib/otel-setup.js';

const side = process.argv[2] ?? 'loopguard';
const calls = Number(process.argv[3] ?? 100_000);
const kind = process.argv[4] ?? 'object';
const argsBytes = Number(process.argv[5] ?? 150);
const object = resultObject(2048);
const result: unknown = kind === 'string' ? JSON.stringify(object) : object;
const pool = Array.from({ length: 50 }, (_, index) => (argsBytes > 1000 ? largeArgs(index) : smallArgs(index)));
const tool = async () => result;
const floorTool = async (args: Record<string, unknown>) => {
  canonicalJson(args);
  const value = await tool();
  createHash('sha256').update(typeof value === 'string' ? value : JSON.stringify(value)).digest();
  return value;
};
const started = performance.now();
if (side === 'bare' || side === 'floor') {
  const tracing = bareTracing();
  for (let done = 0; done < calls; ) {
    const parent = bareRun(tracing.tracer);
    const call = bareTool(tracing.tracer, 'search', side === 'bare' ? tool : floorTool, () => parent.context);
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
console.log(`${side} (${argsBytes} B args, 2 KB ${kind}): ${(((performance.now() - started) * 1000) / calls).toFixed(1)} µs per call`);
