/**
 * Case 1 of issue 6: per-call overhead. One tool call through loopguard's instrumentation
 * and processor (span, call identity, result fingerprint, ledger, decision) against the same
 * call with a bare SDK span; both providers carry a BatchSpanProcessor with a no-op exporter.
 */
import { createHash } from 'node:crypto';
import { canonicalize } from 'json-canonicalize';
import { canonicalJson } from '../src/core/canonical-json.js';
import { hashText } from '../src/core/hash.js';
import { startAgentRun, type AgentRun } from '../src/otel/start-agent-run.js';
import { byteLength, largeArgs, resultObject, SIZES, smallArgs, type SizeName } from './lib/fixtures.js';
import { measure, ratioOfRounds, writeResult, type Timing } from './lib/harness.js';
import { bareRun, bareTool, bareTracing, guardedTracing } from './lib/otel-setup.js';
import type { OverheadCase } from './lib/result-shapes.js';

/** Distinct calls per run: every call is allowed and executed (no repeat refusals). */
const CALLS_PER_RUN = 50;
const ROUNDS = Number(process.env.BENCH_ROUNDS ?? 5);


type Args = Record<string, unknown>;

async function runCase(argsName: '150 B' | '2 KB', size: SizeName, kind: 'object' | 'string'): Promise<OverheadCase> {
  const makeArgs = argsName === '150 B' ? smallArgs : largeArgs;
  const argsPool = Array.from({ length: CALLS_PER_RUN }, (_, index) => makeArgs(index));
  const object = resultObject(SIZES[size]);
  const result: unknown = kind === 'object' ? object : JSON.stringify(object);
  const tool = async (_args: Args) => result;

  const bare = bareTracing();
  let bareParent = bareRun(bare.tracer);
  const bareCall = bareTool(bare.tracer, 'search', tool, () => bareParent.context);
  let bareCount = 0;

  // The floor (issue 20): what any detector that reads results must pay on top of the span —
  // one canonical serialisation of the arguments, the result as text (JSON.stringify, or the
  // string itself) and one SHA-256 of it. canonicalJson is the faster of the two canonical
  // serialisers measured below, so the floor is the stricter one.
  const floorTool = async (args: Args) => {
    canonicalJson(args);
    const value = await tool(args);
    createHash('sha256').update(typeof value === 'string' ? value : JSON.stringify(value)).digest();
    return value;
  };
  let floorParent = bareRun(bare.tracer);
  const floorCall = bareTool(bare.tracer, 'search', floorTool, () => floorParent.context);
  let floorCount = 0;

  const guarded = guardedTracing();
  const processor = guarded.processor!;
  let run: AgentRun = startAgentRun({ processor, tracer: guarded.tracer });
  let guardedCall = run.tool('search', tool);
  let guardedCount = 0;

  const tasks = {
    bare: async () => {
      if (bareCount === CALLS_PER_RUN) {
        bareParent.end();
        bareParent = bareRun(bare.tracer);
        bareCount = 0;
      }
      await bareCall(argsPool[bareCount++]!);
    },
    floor: async () => {
      if (floorCount === CALLS_PER_RUN) {
        floorParent.end();
        floorParent = bareRun(bare.tracer);
        floorCount = 0;
      }
      await floorCall(argsPool[floorCount++]!);
    },
    loopguard: async () => {
      if (guardedCount === CALLS_PER_RUN) {
        run.end();
        run = startAgentRun({ processor, tracer: guarded.tracer });
        guardedCall = run.tool('search', tool);
        guardedCount = 0;
      }
      const value = await guardedCall(argsPool[guardedCount++]!);
      if (value !== result) throw new Error('loopguard refused a call the bench expects to run');
    },
  };
  const large = SIZES[size] > 50_000;
  // The ≤ 2 KB cases carry the 3× target and take microseconds: more rounds for a steadier
  // median ratio on a shared machine.
  const { timings, perRound } = await measure(tasks, large ? ROUNDS : 2 * ROUNDS - 1, {
    time: large ? 250 : 120,
    iterations: large ? 8 : 50,
    warmupTime: 40,
    warmupIterations: large ? 3 : 50,
  });
  bareParent.end();
  floorParent.end();
  run.end();
  await Promise.all([bare.provider.shutdown(), guarded.provider.shutdown()]);
  return {
    name: `args ${argsName}, result ${size} ${kind}`,
    argsName,
    argsBytes: byteLength(argsPool[0]),
    resultName: size,
    resultBytes: byteLength(result),
    resultKind: kind,
    bare: timings.bare!,
    loopguard: timings.loopguard!,
    floor: timings.floor!,
    ratio: ratioOfRounds(perRound, 'loopguard', 'bare'),
    floorRatio: ratioOfRounds(perRound, 'loopguard', 'floor'),
  };
}

const only = process.env.BENCH_ONLY;
const cases: OverheadCase[] = [];
for (const argsName of ['150 B', '2 KB'] as const) {
  for (const size of Object.keys(SIZES) as SizeName[]) {
    for (const kind of ['object', 'string'] as const) {
      const label = `${argsName}/${size}/${kind}`;
      if (only !== undefined && !label.includes(only)) continue;
      const result = await runCase(argsName, size, kind);
      cases.push(result);
      process.stderr.write(`overhead ${result.name}: bare ${(result.bare.medianNs / 1000).toFixed(1)} µs, floor ${(result.floor.medianNs / 1000).toFixed(1)} µs, loopguard ${(result.loopguard.medianNs / 1000).toFixed(1)} µs, ×${result.ratio.toFixed(2)} bare, ×${result.floorRatio.toFixed(2)} floor\n`);
    }
  }
}
/**
 * The floor: what the per-call work that cannot be skipped costs next to the bare span, in
 * the same run. A call must be identified (canonical JSON of the arguments + sha256) and its
 * result fingerprinted (at least JSON.stringify + sha256 of the result).
 */
async function components(): Promise<{ timings: Record<string, Timing>; bareNs: number; ratios: Record<string, number> }> {
  const processor = guardedTracing().processor!;
  const guard = processor.guard;
  const small = smallArgs(1);
  const large = largeArgs(1);
  const result = resultObject(SIZES['2 KB']);
  const resultText = JSON.stringify(result);
  const identityText = `search\u0000j:${canonicalJson(small)}`;
  const bare = bareTracing();
  const parent = bareRun(bare.tracer);
  const bareCall = bareTool(bare.tracer, 'search', async () => result, () => parent.context);
  const { timings, perRound } = await measure(
    {
      'bare span call (baseline)': () => bareCall(small),
      'json-canonicalize(150 B args)': () => canonicalize(small),
      'canonicalJson(150 B args)': () => canonicalJson(small, guard.options.defaultTool.volatileArgs),
      'json-canonicalize(2 KB args)': () => canonicalize(large),
      'canonicalJson(2 KB args)': () => canonicalJson(large, guard.options.defaultTool.volatileArgs),
      'hashText(150 B identity text)': () => hashText(identityText),
      'guard.argsHash(150 B args)': () => guard.argsHash('search', small),
      'guard.argsHash(2 KB args)': () => guard.argsHash('search', large),
      'JSON.stringify(2 KB result)': () => JSON.stringify(result),
      'sha256 of the 2 KB result text': () => hashText(resultText),
      'guard.fingerprint(2 KB object result)': () => guard.fingerprint('search', { result }),
      'new AbortController() + .signal (instrumentTool, per call)': () => new AbortController().signal,
    },
    ROUNDS,
    { time: 60, iterations: 50, warmupTime: 20, warmupIterations: 50 },
  );
  parent.end();
  await bare.provider.shutdown();
  const ratios: Record<string, number> = {};
  for (const name of Object.keys(timings)) ratios[name] = ratioOfRounds(perRound, name, 'bare span call (baseline)');
  return { timings, bareNs: timings['bare span call (baseline)']!.medianNs, ratios };
}

/**
 * Where a guarded call's time goes beyond the floor (150 B arguments, 2 KB object result):
 * the bare call; the same span with loopguard's processor registered and the identities
 * already on the span (what the processor and ledger cost alone); the full instrumentTool
 * call. Ratios per round against the bare call, like case 1.
 */
async function decomposition(): Promise<{ timings: Record<string, Timing>; ratios: Record<string, number> }> {
  const argsPool = Array.from({ length: CALLS_PER_RUN }, (_, index) => smallArgs(index));
  const result = resultObject(SIZES['2 KB']);
  const tool = async (_args: Args) => result;
  const bare = bareTracing();
  let bareParent = bareRun(bare.tracer);
  const bareCall = bareTool(bare.tracer, 'search', tool, () => bareParent.context);
  let bareCount = 0;

  const withProcessor = guardedTracing();
  const guard = withProcessor.processor!.guard;
  const argsHashes = argsPool.map((args) => guard.argsHash('search', args));
  const resultHash = guard.fingerprint('search', { result }).resultHash!;
  let processorParent = bareRun(withProcessor.tracer);
  let processorCount = 0;
  const processorCall = (index: number) =>
    withProcessor.tracer.startActiveSpan(
      'execute_tool search',
      { attributes: { 'gen_ai.operation.name': 'execute_tool', 'gen_ai.tool.name': 'search', 'gen_ai.tool.type': 'function', 'loopguard.tool.args_hash': argsHashes[index]! } },
      processorParent.context,
      async (span) => {
        try {
          const value = await tool(argsPool[index]!);
          span.setAttribute('loopguard.tool.outcome', 'success');
          span.setAttribute('loopguard.tool.result_hash', resultHash);
          return value;
        } finally {
          span.end();
        }
      },
    );

  const guarded = guardedTracing();
  let run: AgentRun = startAgentRun({ processor: guarded.processor!, tracer: guarded.tracer });
  let guardedCall = run.tool('search', tool);
  let guardedCount = 0;

  const { timings, perRound } = await measure(
    {
      'bare span call': async () => {
        if (bareCount === CALLS_PER_RUN) {
          bareParent.end();
          bareParent = bareRun(bare.tracer);
          bareCount = 0;
        }
        await bareCall(argsPool[bareCount++]!);
      },
      'span + LoopGuardSpanProcessor, identities precomputed': async () => {
        if (processorCount === CALLS_PER_RUN) {
          processorParent.end();
          processorParent = bareRun(withProcessor.tracer);
          processorCount = 0;
        }
        await processorCall(processorCount++);
      },
      'instrumentTool + processor (case 1)': async () => {
        if (guardedCount === CALLS_PER_RUN) {
          run.end();
          run = startAgentRun({ processor: guarded.processor!, tracer: guarded.tracer });
          guardedCall = run.tool('search', tool);
          guardedCount = 0;
        }
        await guardedCall(argsPool[guardedCount++]!);
      },
    },
    2 * ROUNDS - 1,
    { time: 120, iterations: 50, warmupTime: 40, warmupIterations: 50 },
  );
  bareParent.end();
  processorParent.end();
  run.end();
  await Promise.all([bare.provider.shutdown(), withProcessor.provider.shutdown(), guarded.provider.shutdown()]);
  const ratios: Record<string, number> = {};
  for (const name of Object.keys(timings)) ratios[name] = ratioOfRounds(perRound, name, 'bare span call');
  return { timings, ratios };
}

const parts = only === undefined ? await components() : undefined;
const split = only === undefined || only === 'decomposition' ? await decomposition() : undefined;
if (split !== undefined) {
  process.stderr.write(`decomposition: ${Object.entries(split.ratios).map(([name, ratio]) => `${name} ×${ratio.toFixed(2)}`).join('; ')}\n`);
}
writeResult({ rounds: ROUNDS, callsPerRun: CALLS_PER_RUN, cases, components: parts, decomposition: split });
