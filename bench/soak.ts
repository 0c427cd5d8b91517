/**
 * Soak of issue 6: 1M runs started and ended in one process; the heap must come back to
 * its baseline (ended runs expire after their TTL, nothing else keeps them). The engine's
 * clock is injected so the 60 s TTL passes in simulated time: 1M real runs in a minute would
 * otherwise all sit inside the TTL. Run with `node --expose-gc`.
 */
import { LoopGuard } from '../src/core/loop-guard.js';
import { hashText } from '../src/core/hash.js';
import { startAgentRun } from '../src/otel/start-agent-run.js';
import { heapAfterGc, writeResult } from './lib/harness.js';
import { guardedTracing } from './lib/otel-setup.js';

const RUNS = Number(process.env.BENCH_SOAK_RUNS ?? 1_000_000);
/** Runs through the span processor (spans, trace → run maps), after the engine soak. */
const SPAN_RUNS = Number(process.env.BENCH_SOAK_SPAN_RUNS ?? 50_000);
const CALLS_PER_RUN = 3;
/** Simulated duration of one run. */
const RUN_MS = 100;
const SAMPLES = 10;

let clock = 1_700_000_000_000;
const guard = new LoopGuard({ now: () => clock, endedRunTtlMs: 60_000 });
// A small pool of identities: hashing is not what this case measures.
const argsHashes = Array.from({ length: 64 }, (_, index) => hashText(`args ${index}`));
const resultHashes = Array.from({ length: 64 }, (_, index) => hashText(`result ${index}`));

function oneRun(serial: number): void {
  const run = guard.startRun(`run-${serial}`);
  run.beginRound();
  for (let call = 0; call < CALLS_PER_RUN; call++) {
    const slot = (serial + call) & 63;
    run.recordCall({ tool: 'search', argsHash: argsHashes[slot]!, callId: `c${call}` }, { outcome: 'success', resultHash: resultHashes[slot]! });
  }
  run.shouldStop();
  clock += RUN_MS;
  guard.endRun(run.id);
}

// Warm-up: JIT, the engine's maps at their steady size.
for (let serial = 0; serial < 10_000; serial++) oneRun(-serial - 1);
clock += 120_000;
oneRun(-1_000_000);
const baseline = heapAfterGc();
const samples: Array<{ runs: number; heapBytes: number }> = [];
const started = performance.now();
for (let serial = 0; serial < RUNS; serial++) {
  oneRun(serial);
  if ((serial + 1) % (RUNS / SAMPLES) === 0) samples.push({ runs: serial + 1, heapBytes: heapAfterGc() });
}
const seconds = (performance.now() - started) / 1000;
// Let the last runs' TTL pass; the next startRun sweeps them.
clock += 120_000;
oneRun(RUNS);
clock += 120_000;
guard.startRun('probe');
guard.endRun('probe');
const final = heapAfterGc();

// The same through the OpenTelemetry front: invoke_agent + 3 execute_tool spans per run.
const tracing = guardedTracing({ now: () => clock, endedRunTtlMs: 60_000 });
async function spanRun(serial: number): Promise<void> {
  const agentRun = startAgentRun({ processor: tracing.processor!, tracer: tracing.tracer, runId: `span-run-${serial}` });
  const search = agentRun.tool('search', async (args: { q: number }) => ({ hits: [args.q & 63] }));
  for (let call = 0; call < CALLS_PER_RUN; call++) await search({ q: serial + call });
  agentRun.shouldStop();
  clock += RUN_MS;
  agentRun.end();
}
for (let serial = 0; serial < 2_000; serial++) await spanRun(-serial - 1);
clock += 120_000;
await spanRun(-1_000_000);
await tracing.provider.forceFlush();
const spanBaseline = heapAfterGc();
const spanStarted = performance.now();
let spanPeak = spanBaseline;
for (let serial = 0; serial < SPAN_RUNS; serial++) {
  await spanRun(serial);
  if ((serial + 1) % (SPAN_RUNS / 5) === 0) spanPeak = Math.max(spanPeak, heapAfterGc());
}
const spanSeconds = (performance.now() - spanStarted) / 1000;
clock += 120_000;
await spanRun(SPAN_RUNS);
clock += 120_000;
await spanRun(SPAN_RUNS + 1);
await tracing.provider.forceFlush();
const spanFinal = heapAfterGc();
const spans = {
  runs: SPAN_RUNS,
  seconds: spanSeconds,
  baselineBytes: spanBaseline,
  peakBytes: spanPeak,
  finalBytes: spanFinal,
  finalDeltaBytes: spanFinal - spanBaseline,
  openRuns: tracing.processor!.guard.stats().openRuns,
};
await tracing.provider.shutdown();
process.stderr.write(
  `soak via spans ${SPAN_RUNS} runs in ${spanSeconds.toFixed(1)} s: baseline ${(spanBaseline / 1e6).toFixed(2)} MB, peak ${(spanPeak / 1e6).toFixed(2)} MB, final ${(spanFinal / 1e6).toFixed(2)} MB (Δ ${((spanFinal - spanBaseline) / 1e3).toFixed(1)} kB)\n`,
);
const peak = Math.max(...samples.map((sample) => sample.heapBytes));
const result = {
  runs: RUNS,
  callsPerRun: CALLS_PER_RUN,
  seconds,
  baselineBytes: baseline,
  peakBytes: peak,
  finalBytes: final,
  finalDeltaBytes: final - baseline,
  samples,
  openRuns: guard.stats().openRuns,
  spans,
};
process.stderr.write(
  `soak ${RUNS} runs in ${seconds.toFixed(1)} s: baseline ${(baseline / 1e6).toFixed(2)} MB, peak ${(peak / 1e6).toFixed(2)} MB, final ${(final / 1e6).toFixed(2)} MB (Δ ${((final - baseline) / 1e3).toFixed(1)} kB)\n`,
);
writeResult(result);
