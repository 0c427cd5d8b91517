/**
 * The Redis figures of issue 12, against a redis-server this suite starts itself on a free
 * loopback port (no persistence) and stops at the end:
 *
 * 1. a guarded call through the Redis store (`await run.claimCall()` + `run.finishCall()`)
 *    against one bare `SET` round trip on the same ioredis connection (target: within 1.5×;
 *    the outcome rides on the next claim, so a call should cost one round trip), beside the
 *    same call through `createMemoryRunStore` and with no store, in interleaved rounds;
 * 2. throughput of worker processes sharing one Redis: 1 and 4 workers each on their own
 *    runs (scaling), and 4 workers on one shared run (compare-and-append contention);
 * 3. Redis memory (`MEMORY USAGE`) of a run's keys per run and per recorded call, and of a
 *    business key per idempotent write.
 *
 * The same file is the worker of case 2 (`node redis.js worker <url> <index>`): forked with
 * this process's execArgv, so it runs compiled or through tsx as the parent does.
 */
import { fork, type ChildProcess } from 'node:child_process';
import { availableParallelism } from 'node:os';
import { fileURLToPath } from 'node:url';
import { Redis } from 'ioredis';
import { LoopGuard } from '../src/core/loop-guard.js';
import type { RunGuard } from '../src/core/run-guard.js';
import { createMemoryRunStore } from '../src/core/shared-ledger/create-memory-run-store.js';
import { encodeRunEvent } from '../src/core/shared-ledger/run-event.js';
import type { RunStore } from '../src/core/shared-ledger/run-store.js';
import { createRedisRunStore } from '../src/redis/index.js';
import { byteLength, smallArgs } from './lib/fixtures.js';
import { measure, writeResult, type Timing } from './lib/harness.js';
import { startBenchRedisServer } from './lib/redis-server.js';
import type { RedisCpuCase, RedisMemoryCase, RedisSuiteResult, RedisThroughputCase } from './lib/report.js';

const ROUNDS = Number(process.env.BENCH_ROUNDS ?? 5);
/** Case 2: runs per worker (each its own chain of awaited calls) and calls per run. */
const RUNS_PER_WORKER = 4;
const CALLS_PER_RUN = Number(process.env.BENCH_REDIS_CALLS ?? 400);
const WORKERS = 4;
/** Case 3: run lengths whose keys are measured. */
const MEMORY_RUN_LENGTHS = [10, 100, 1000];
const MEMORY_CALLS_PER_ROUND = 4;
const IDEMPOTENT_WRITES = 200;
/** No budget or round limit: every call of the bench is a distinct, allowed call. */
const POLICY = { maxToolCalls: Infinity, maxRounds: Infinity } as const;

/**
 * A short list of documents, as a search tool returns it (~1 KB): distinct documents per
 * call, so every result and every item is new and the log holds the most it can per call.
 */
function documents(call: number, count = 5): Record<string, unknown> {
  const hits = [];
  for (let index = 0; index < count; index++) {
    const id = call * count + index;
    hits.push({
      id: `doc-${id}`,
      title: `Configuring retries for index ${id}`,
      url: `https://docs.example.com/search/retries/${id}`,
      score: 1 / (index + 1),
      snippet: 'Retries are attempted with exponential backoff; set maxAttempts to bound them.',
    });
  }
  return { total: count, hits };
}

/** Store operations seen through a run store, to check "one round trip per call" and count lost appends. */
interface StoreCounts {
  appends: number;
  rejected: number;
  reads: number;
  keyOperations: number;
}

/** The same store, counting what the engine asks of it (a forwarding object: no measurable cost). */
function counting<S extends RunStore>(store: S): { store: RunStore; counts: StoreCounts } {
  const counts: StoreCounts = { appends: 0, rejected: 0, reads: 0, keyOperations: 0 };
  return {
    counts,
    store: {
      async appendRunEvents(runId, expectedLength, entries, summary, expectedLast) {
        counts.appends += 1;
        const result = await store.appendRunEvents(runId, expectedLength, entries, summary, expectedLast);
        if (!result.accepted) counts.rejected += 1;
        return result;
      },
      readRunEvents(runId, from) {
        counts.reads += 1;
        return store.readRunEvents(runId, from);
      },
      claimBusinessKey(key, owner, leaseMs, ttlMs) {
        counts.keyOperations += 1;
        return store.claimBusinessKey(key, owner, leaseMs, ttlMs);
      },
      takeOverBusinessKey(key, previousOwner, owner, leaseMs) {
        counts.keyOperations += 1;
        return store.takeOverBusinessKey(key, previousOwner, owner, leaseMs);
      },
      completeBusinessKey(key, owner, resultHash, ttlMs) {
        counts.keyOperations += 1;
        return store.completeBusinessKey(key, owner, resultHash, ttlMs);
      },
      releaseBusinessKey(key, owner) {
        counts.keyOperations += 1;
        return store.releaseBusinessKey(key, owner);
      },
    },
  };
}

async function connect(url: string): Promise<Redis> {
  // As the README asks of a client given to the store: no offline queue.
  const client = new Redis(url, { enableOfflineQueue: false, maxRetriesPerRequest: 1, lazyConnect: true });
  await client.connect();
  return client;
}

function median(values: number[]): number {
  const sorted = [...values].sort((a, b) => a - b);
  const middle = sorted.length >> 1;
  return sorted.length % 2 === 1 ? sorted[middle]! : (sorted[middle - 1]! + sorted[middle]!) / 2;
}

// ---- Case 1: per-call cost against a SET round trip ------------------------------------

/** `INFO commandstats` as calls and µs per command name (`evalsha`, `set`, …). */
async function commandStats(monitor: Redis): Promise<Map<string, { calls: number; usec: number }>> {
  const stats = new Map<string, { calls: number; usec: number }>();
  for (const match of (await monitor.info('commandstats')).matchAll(/^cmdstat_([^:]+):calls=(\d+),usec=(\d+)/gm)) {
    stats.set(match[1]!, { calls: Number(match[2]), usec: Number(match[3]) });
  }
  return stats;
}

/** The commands the measured tasks send themselves; every other one in commandstats ran inside a script. */
const TOP_LEVEL_COMMANDS = new Set(['set', 'evalsha', 'eval', 'fcall', 'zadd']);

/** Calls made per task in one CPU pass, and passes per task (interleaved; the median is kept). */
const CPU_CALLS = Number(process.env.BENCH_REDIS_CPU_CALLS ?? 2000);
const CPU_PASSES = 5;

/**
 * Where a call's time goes, in CPU: each task run `CPU_CALLS` times back to back, awaited, in
 * interleaved passes. Client: this process's `process.cpuUsage()` (ioredis, the engine, the
 * kernel's send and receive on this side). Server: the microseconds `INFO commandstats` gives
 * the task's commands (the command's own execution, the Lua script included) and redis-server's
 * whole CPU (`used_cpu_user + used_cpu_sys`: parsing, the event loop and its syscalls too), per
 * call. The monitor's own INFO calls are two per pass, against thousands of measured calls.
 */
async function cpuPerCall(tasks: Record<string, () => Promise<unknown>>, monitor: Redis): Promise<Record<string, RedisCpuCase>> {
  const samples: Record<string, RedisCpuCase[]> = {};
  for (let pass = 0; pass < CPU_PASSES; pass++) {
    const names = Object.keys(tasks);
    if (pass % 2 === 1) names.reverse();
    for (const name of names) {
      const task = tasks[name]!;
      const statsBefore = await commandStats(monitor);
      const serverBefore = await redisCpuSeconds(monitor);
      const clientBefore = process.cpuUsage();
      const started = performance.now();
      for (let call = 0; call < CPU_CALLS; call++) await task();
      const wallMicros = (performance.now() - started) * 1000;
      const client = process.cpuUsage(clientBefore);
      const serverMicros = ((await redisCpuSeconds(monitor)) - serverBefore) * 1e6;
      const statsAfter = await commandStats(monitor);
      const commands: Record<string, { callsPerCall: number; usecPerCall: number }> = {};
      for (const [command, after] of statsAfter) {
        if (command === 'info') continue;
        const before = statsBefore.get(command) ?? { calls: 0, usec: 0 };
        if (after.calls === before.calls) continue;
        commands[command] = { callsPerCall: (after.calls - before.calls) / CPU_CALLS, usecPerCall: (after.usec - before.usec) / CPU_CALLS };
      }
      (samples[name] ??= []).push({
        wallMicros: wallMicros / CPU_CALLS,
        clientCpuMicros: (client.user + client.system) / CPU_CALLS,
        // Commands a script calls are counted in commandstats too, and inside the script's own time.
        serverCommandMicros: Object.entries(commands).reduce((sum, [command, stat]) => sum + (TOP_LEVEL_COMMANDS.has(command) ? stat.usecPerCall : 0), 0),
        serverCpuMicros: serverMicros / CPU_CALLS,
        commands,
      });
    }
  }
  const result: Record<string, RedisCpuCase> = {};
  for (const [name, list] of Object.entries(samples)) {
    // Per field, the median pass (the commands of the pass whose command time is the median).
    const byCommand = [...list].sort((a, b) => a.serverCommandMicros - b.serverCommandMicros)[list.length >> 1]!;
    result[name] = {
      wallMicros: median(list.map((sample) => sample.wallMicros)),
      clientCpuMicros: median(list.map((sample) => sample.clientCpuMicros)),
      serverCommandMicros: byCommand.serverCommandMicros,
      serverCpuMicros: median(list.map((sample) => sample.serverCpuMicros)),
      commands: byCommand.commands,
    };
  }
  return result;
}

const SET_TASK = 'bare SET round trip (baseline)';
const APPEND_TASK = 'store.appendRunEvents, one entry (EVALSHA of the append script)';
const REDIS_TASK = 'guarded call, Redis store';
const MEMORY_TASK = 'guarded call, createMemoryRunStore';
const NONE_TASK = 'guarded call, no store';
/** Issue 20 #4: the owned-run fast path (`ownedRuns: true`), a read and, for honesty, a call that may write. */
const OWNED_READ_TASK = 'guarded read, Redis store, owned run (ownedRuns; one event-loop turn per call)';
const OWNED_UNKNOWN_TASK = 'guarded call of unknown effect, Redis store, owned run (ownedRuns)';

/**
 * One turn of the event loop. An owned run's read returns without I/O, and its claim is
 * appended by a flush queued with setImmediate: a loop of such calls that never yields would
 * never append (the entries would pile up to the link's cap). A real tool call yields (its own
 * I/O); the bench's read yields once, and pays for it, so the row counts the flush's CPU too.
 */
const turnOfTheEventLoop = () => new Promise<void>((resolve) => setImmediate(resolve));

async function perCall(url: string): Promise<RedisSuiteResult['perCall']> {
  const client = await connect(url);
  const redis = counting(createRedisRunStore({ client, keyPrefix: 'bench-call' }));
  const memory = counting(createMemoryRunStore());
  // Store failures (timeouts) would make the figure meaningless: counted, and shown.
  const storeWarnings: string[] = [];
  const redisGuard = new LoopGuard({ ...POLICY, store: redis.store, logger: { warn: (text) => storeWarnings.push(text) } });
  const redisRun = redisGuard.startRun('per-call');
  const memoryRun = new LoopGuard({ ...POLICY, store: memory.store }).startRun('per-call');
  const plainRun = new LoopGuard(POLICY).startRun('per-call');
  // Owned runs, on their own store handle so their appends are counted apart. `search` is of
  // unknown effect under POLICY (a general profile's undeclared tool), a read once declared.
  const ownedReadStore = counting(createRedisRunStore({ client, keyPrefix: 'bench-owned-read' }));
  const ownedUnknownStore = counting(createRedisRunStore({ client, keyPrefix: 'bench-owned-unknown' }));
  const ownedReadGuard = new LoopGuard({ ...POLICY, tools: { search: { readOnly: true } }, store: ownedReadStore.store, ownedRuns: true, logger: { warn: (text) => storeWarnings.push(text) } });
  const ownedReadRun = ownedReadGuard.startRun('owned-read');
  const ownedUnknownGuard = new LoopGuard({ ...POLICY, store: ownedUnknownStore.store, ownedRuns: true, logger: { warn: (text) => storeWarnings.push(text) } });
  const ownedUnknownRun = ownedUnknownGuard.startRun('owned-unknown');
  // A pool of results: fingerprinting is the same work on every side and not what this case
  // compares; 64 distinct lists keep the results from all being one.
  const results = Array.from({ length: 64 }, (_, index) => documents(index));
  const issued = { redis: 0, memory: 0, none: 0, ownedRead: 0, ownedUnknown: 0 };
  const guardedCall = (run: RunGuard, side: keyof typeof issued) => async () => {
    const serial = issued[side]++;
    // Distinct arguments every call: each is a new call, allowed, run and recorded.
    const ticket = await run.claimCall({ tool: 'search', args: smallArgs(serial) });
    if (ticket.decision.action !== 'allow') throw new Error(`the bench expects every call to be allowed, got ${ticket.decision.reason}`);
    run.finishCall(ticket, { result: results[serial & 63] });
  };
  const ownedRead = async () => {
    await guardedCall(ownedReadRun, 'ownedRead')();
    await turnOfTheEventLoop();
  };
  // The store alone, without the engine: the Lua script's round trip with one real entry.
  const store = createRedisRunStore({ client, keyPrefix: 'bench-append' });
  const entry = encodeRunEvent({
    type: 'call',
    key: 'bench.1',
    time: Date.now(),
    call: { tool: 'search', argsHash: redisRun.argsHash('search', smallArgs(0)) },
    decision: { action: 'allow', kind: 'new', tool: 'search', argsHash: redisRun.argsHash('search', smallArgs(0)) },
  });
  let appended = 0;
  let setSerial = 0;
  // A value of a typical call's size (the 150 B arguments), a new one each time.
  const setTask = () => client.set('bench-set', JSON.stringify(smallArgs(setSerial++)));
  const settings = { time: 200, iterations: 200, warmupTime: 50, warmupIterations: 200 };
  // Two sets of interleaved rounds, each with the SET baseline. The in-process calls are
  // timed apart from the Redis ones: they never wait for I/O, so while they run the reply to
  // the Redis run's last background flush would sit unread until the store's timeoutMs
  // passed — a store failure the bench made, not the store.
  const network = await measure(
    {
      [SET_TASK]: setTask,
      [APPEND_TASK]: async () => {
        // The entry before, as the engine sends it (the script compares it with the log's).
        const result = await store.appendRunEvents('append-only', appended, [entry], undefined, appended > 0 ? entry : undefined);
        if (!result.accepted) throw new Error('the append-only run has one writer: its append cannot be refused');
        appended = result.length;
      },
      [REDIS_TASK]: guardedCall(redisRun, 'redis'),
      [OWNED_READ_TASK]: ownedRead,
      [OWNED_UNKNOWN_TASK]: guardedCall(ownedUnknownRun, 'ownedUnknown'),
    },
    2 * ROUNDS - 1,
    settings,
  );
  // What the engine asked of the store: with the outcome pipelined into the next claim, one
  // append per call (a background flush between calls makes it more).
  const appendsPerCall = redis.counts.appends / issued.redis;
  // Counted before the CPU passes (which make more calls), as for the guarded call above.
  const ownedRuns = {
    readTask: OWNED_READ_TASK,
    mayWriteTask: OWNED_UNKNOWN_TASK,
    readCalls: issued.ownedRead,
    readAppendsPerCall: ownedReadStore.counts.appends / issued.ownedRead,
    mayWriteCalls: issued.ownedUnknown,
    mayWriteAppendsPerCall: ownedUnknownStore.counts.appends / issued.ownedUnknown,
    rejectedAppends: ownedReadStore.counts.rejected + ownedUnknownStore.counts.rejected,
  };
  const appendTask = async () => {
    const result = await store.appendRunEvents('append-only', appended, [entry], undefined, appended > 0 ? entry : undefined);
    appended = result.length;
  };
  const monitor = await connect(url);
  const cpu = await cpuPerCall({ [SET_TASK]: setTask, [APPEND_TASK]: appendTask, [REDIS_TASK]: guardedCall(redisRun, 'redis'), [OWNED_READ_TASK]: ownedRead }, monitor);
  await redisGuard.flush();
  await ownedUnknownGuard.flush();
  await ownedReadGuard.flush();
  const inProcess = await measure({ [SET_TASK]: setTask, [MEMORY_TASK]: guardedCall(memoryRun, 'memory'), [NONE_TASK]: guardedCall(plainRun, 'none') }, 2 * ROUNDS - 1, settings);
  Object.assign(cpu, await cpuPerCall({ [NONE_TASK]: guardedCall(plainRun, 'none') }, monitor));
  await monitor.quit();
  await client.quit();
  for (const warning of storeWarnings.slice(0, 3)) process.stderr.write(`redis bench, per-call case: ${warning}\n`);
  const timings: Record<string, Timing> = {};
  const ratios: Record<string, number> = {};
  const spread: Record<string, { min: number; max: number }> = {};
  for (const { timings: part, perRound } of [network, inProcess]) {
    for (const name of Object.keys(part)) {
      // The baseline row is the first set's; each other row's ratio is against its own set's SET.
      if (name === SET_TASK && timings[SET_TASK] !== undefined) continue;
      const perRoundRatios = perRound.map((round) => round[name]!.medianNs / round[SET_TASK]!.medianNs);
      timings[name] = part[name]!;
      ratios[name] = median(perRoundRatios);
      spread[name] = { min: Math.min(...perRoundRatios), max: Math.max(...perRoundRatios) };
    }
  }
  return {
    rounds: 2 * ROUNDS - 1,
    baseline: SET_TASK,
    guarded: REDIS_TASK,
    timings,
    ratios,
    spread,
    appendsPerCall,
    ownedRuns,
    rejectedAppends: redis.counts.rejected,
    storeWarnings: storeWarnings.length,
    calls: issued.redis,
    cpu,
    cpuCalls: CPU_CALLS,
    cpuPasses: CPU_PASSES,
    argsBytes: byteLength(smallArgs(0)),
    resultBytes: byteLength(results[0]),
  };
}

// ---- Case 2: worker processes ------------------------------------------------------------

interface GoMessage {
  type: 'go';
  /** `own`: each worker its own runs; `shared`: every worker on the run `tag`. */
  mode: 'own' | 'shared';
  tag: string;
  runs: number;
  calls: number;
}
interface DoneMessage {
  type: 'done';
  calls: number;
  refused: number;
  /** Claims that lost MAX_CLAIM_ATTEMPTS compare-and-appends in a row and were decided on the local replica. */
  localFallbacks: number;
  /** Other warnings of the engine (none expected). */
  warnings: string[];
  ms: number;
  /** CPU time of the worker process (user + system) during the case, µs. */
  cpuMicros: number;
  counts: StoreCounts;
}

/** A worker: its own engine and client on the shared Redis, driven by `go` messages. */
async function workerMain(url: string, index: number): Promise<void> {
  const client = await connect(url);
  const results = Array.from({ length: 64 }, (_, serial) => documents(serial));
  process.on('message', async (message: GoMessage | { type: 'exit' }) => {
    if (message.type === 'exit') {
      await client.quit();
      process.exit(0);
    }
    const { store, counts } = counting(createRedisRunStore({ client, keyPrefix: 'bench-workers' }));
    let localFallbacks = 0;
    const warnings: string[] = [];
    const logger = {
      warn(text: string) {
        if (text.includes('claims in a row lost')) localFallbacks += 1;
        else if (warnings.length < 5) warnings.push(text);
      },
    };
    const guard = new LoopGuard({ ...POLICY, store, logger });
    const cpuBefore = process.cpuUsage();
    const started = performance.now();
    let refused = 0;
    // `own`: `runs` runs, each its own chain of awaited calls. `shared`: one chain in the
    // shared run with as many calls (a worker's claims on one run queue one behind the other
    // in its link anyway), so every case makes the same number of calls per worker.
    const runs: RunGuard[] =
      message.mode === 'shared'
        ? [await guard.resumeRun(message.tag)]
        : Array.from({ length: message.runs }, (_, run) => guard.startRun(`${message.tag}-w${index}-r${run}`));
    const callsPerChain = message.mode === 'shared' ? message.runs * message.calls : message.calls;
    const chain = async (run: RunGuard, chainIndex: number) => {
      for (let call = 0; call < callsPerChain; call++) {
        const ticket = await run.claimCall({ tool: 'search', args: { ...smallArgs(call), worker: index, chain: chainIndex } });
        if (ticket.decision.action !== 'allow') {
          refused += 1;
          continue;
        }
        run.finishCall(ticket, { result: results[call & 63] });
      }
    };
    // `shared`: the worker's chains all go to the one run (its claims queue one behind the other in this process).
    await Promise.all(runs.map((run, chainIndex) => chain(run, chainIndex)));
    // A shared run is not ended by one worker while others still call in it.
    if (message.mode === 'own') for (const run of runs) run.end();
    await guard.flush();
    const cpu = process.cpuUsage(cpuBefore);
    const done: DoneMessage = {
      type: 'done',
      calls: message.runs * message.calls,
      refused,
      localFallbacks,
      warnings,
      ms: performance.now() - started,
      cpuMicros: cpu.user + cpu.system,
      counts,
    };
    process.send!(done);
  });
  process.send!({ type: 'ready' });
}

interface WorkerHandle {
  readonly child: ChildProcess;
  go(message: GoMessage): Promise<DoneMessage>;
}

async function startWorker(url: string, index: number): Promise<WorkerHandle> {
  // This very file, with this process's execArgv (compiled JS, or --import tsx under BENCH_TSX).
  const child = fork(fileURLToPath(import.meta.url), ['worker', url, String(index)], { stdio: ['ignore', 'inherit', 'inherit', 'ipc'] });
  let pending: ((message: DoneMessage) => void) | undefined;
  await new Promise<void>((resolve, reject) => {
    child.once('exit', (code) => reject(new Error(`redis bench worker ${index} exited with ${code} before it was ready`)));
    child.on('message', (message: DoneMessage | { type: 'ready' }) => {
      if (message.type === 'ready') resolve();
      else pending?.(message);
    });
  });
  return {
    child,
    go(message) {
      return new Promise((resolve) => {
        pending = resolve;
        child.send(message);
      });
    },
  };
}

/** CPU seconds redis-server has used (user + system), from INFO. */
async function redisCpuSeconds(client: Redis): Promise<number> {
  const info = await client.info('cpu');
  return Number(/used_cpu_user:([\d.]+)/.exec(info)?.[1] ?? 0) + Number(/used_cpu_sys:([\d.]+)/.exec(info)?.[1] ?? 0);
}

interface ThroughputSample {
  callsPerSecond: number;
  done: DoneMessage[];
  redisCpuMicros: number;
}

/** All `workers` start on the same message; the case takes as long as the slowest. */
async function throughputOnce(pool: WorkerHandle[], monitor: Redis, workers: number, mode: 'own' | 'shared', tag: string): Promise<ThroughputSample> {
  const cpuBefore = await redisCpuSeconds(monitor);
  const started = performance.now();
  const done = await Promise.all(pool.slice(0, workers).map((worker) => worker.go({ type: 'go', mode, tag, runs: RUNS_PER_WORKER, calls: CALLS_PER_RUN })));
  const seconds = (performance.now() - started) / 1000;
  const redisCpuMicros = ((await redisCpuSeconds(monitor)) - cpuBefore) * 1e6;
  const calls = done.reduce((sum, message) => sum + message.calls, 0);
  for (const message of done) for (const warning of message.warnings) process.stderr.write(`redis bench worker warning: ${warning}\n`);
  return { callsPerSecond: calls / seconds, done, redisCpuMicros };
}

async function throughput(url: string): Promise<RedisSuiteResult['throughput']> {
  const pool = await Promise.all(Array.from({ length: WORKERS }, (_, index) => startWorker(url, index)));
  const monitor = await connect(url);
  const cases = [
    { name: '1 worker, own runs', workers: 1, mode: 'own' as const },
    { name: `${WORKERS} workers, own runs`, workers: WORKERS, mode: 'own' as const },
    { name: `${WORKERS} workers, one shared run`, workers: WORKERS, mode: 'shared' as const },
  ];
  // Warm-up: JIT and connections in every worker, untimed.
  for (const spec of cases) await throughputOnce(pool, monitor, spec.workers, spec.mode, `warm-${spec.mode}-${spec.workers}`);
  const samples = new Map<string, ThroughputSample[]>();
  for (let round = 0; round < ROUNDS; round++) {
    // Alternate the order so no case always runs first, like the timing cases.
    const order = round % 2 === 0 ? cases : [...cases].reverse();
    for (const spec of order) {
      const sample = await throughputOnce(pool, monitor, spec.workers, spec.mode, `round${round}-${spec.mode}-${spec.workers}`);
      (samples.get(spec.name) ?? samples.set(spec.name, []).get(spec.name)!).push(sample);
    }
  }
  await Promise.all(
    pool.map(
      (worker) =>
        new Promise<void>((resolve) => {
          worker.child.once('exit', () => resolve());
          worker.child.send({ type: 'exit' });
        }),
    ),
  );
  const result: RedisThroughputCase[] = cases.map((spec) => {
    const list = samples.get(spec.name)!;
    const rates = list.map((sample) => sample.callsPerSecond);
    const all = list.flatMap((sample) => sample.done);
    const calls = all.reduce((sum, message) => sum + message.calls, 0);
    return {
      name: spec.name,
      workers: spec.workers,
      mode: spec.mode,
      callsPerCase: spec.workers * RUNS_PER_WORKER * CALLS_PER_RUN,
      callsPerSecond: median(rates),
      min: Math.min(...rates),
      max: Math.max(...rates),
      appendsPerCall: all.reduce((sum, message) => sum + message.counts.appends, 0) / calls,
      rejectedPerCall: all.reduce((sum, message) => sum + message.counts.rejected, 0) / calls,
      readsPerCall: all.reduce((sum, message) => sum + message.counts.reads, 0) / calls,
      refused: all.reduce((sum, message) => sum + message.refused, 0),
      localFallbacksPerCall: all.reduce((sum, message) => sum + message.localFallbacks, 0) / calls,
      workerCpuMicrosPerCall: all.reduce((sum, message) => sum + message.cpuMicros, 0) / calls,
      redisCpuMicrosPerCall: list.reduce((sum, sample) => sum + sample.redisCpuMicros, 0) / calls,
    };
  });
  await monitor.quit();
  const one = result[0]!.callsPerSecond;
  return { runsPerWorker: RUNS_PER_WORKER, callsPerRun: CALLS_PER_RUN, rounds: ROUNDS, cores: availableParallelism(), cases: result, scaling: result[1]!.callsPerSecond / one, sharedVsOwn: result[2]!.callsPerSecond / result[1]!.callsPerSecond };
}

// ---- Case 3: Redis memory ----------------------------------------------------------------

async function memoryUsage(client: Redis, key: string): Promise<number> {
  // SAMPLES 0: every element of a list or hash, not an estimate from five.
  const bytes = (await client.call('MEMORY', 'USAGE', key, 'SAMPLES', '0')) as number | null;
  if (bytes === null) throw new Error(`key ${key} does not exist`);
  return bytes;
}

async function memory(url: string): Promise<RedisSuiteResult['memory']> {
  const client = await connect(url);
  const prefix = 'bench-memory';
  const store = createRedisRunStore({ client, keyPrefix: prefix });
  const guard = new LoopGuard({
    ...POLICY,
    store,
    idempotentWrites: { send_email: { key: ['to', 'subject'] } },
  });
  const runs: RedisMemoryCase[] = [];
  let serial = 0;
  for (const calls of MEMORY_RUN_LENGTHS) {
    const run = guard.startRun(`memory-${calls}`);
    for (let call = 0; call < calls; call++) {
      if (call % MEMORY_CALLS_PER_ROUND === 0) run.beginRound({ inputTokens: 1200 + call, outputTokens: 80 });
      const ticket = await run.claimCall({ tool: call % 2 === 0 ? 'search' : 'fetch', args: smallArgs(serial), callId: `call_${serial.toString(36).padStart(24, '0')}` });
      if (ticket.decision.action !== 'allow') throw new Error(`memory case: call refused (${ticket.decision.reason})`);
      run.finishCall(ticket, { result: documents(serial) });
      serial += 1;
    }
    run.end();
    await guard.flush();
    const keys = store.keysOf(run.id);
    const logBytes = await memoryUsage(client, keys.log);
    const runBytes = await memoryUsage(client, keys.run);
    const entries = await client.llen(keys.log);
    runs.push({ calls, entries, logBytes, runBytes, bytesPerCall: (logBytes + runBytes) / calls });
  }
  const first = runs[0]!;
  const last = runs[runs.length - 1]!;
  // The marginal cost of one more call, without the run's fixed part.
  const marginalBytesPerCall = (last.logBytes + last.runBytes - first.logBytes - first.runBytes) / (last.calls - first.calls);
  const entrySample = (await client.lrange(store.keysOf(`memory-${last.calls}`).log, 1, 2)).map((text) => ({ bytes: Buffer.byteLength(text), text }));

  // Business keys: one idempotent write each, distinct recipients, recorded done.
  const writes = guard.startRun('memory-writes');
  for (let write = 0; write < IDEMPOTENT_WRITES; write++) {
    const ticket = await writes.claimCall({ tool: 'send_email', args: { to: `customer-${write}@example.com`, subject: 'Your order has shipped', body: 'Tracking number 1Z999AA10123456784.' } });
    if (ticket.decision.action !== 'allow') throw new Error(`memory case: write refused (${ticket.decision.reason})`);
    writes.finishCall(ticket, { result: { id: `msg-${write}`, status: 'sent' } });
  }
  writes.end();
  await guard.flush();
  const businessKeys: string[] = [];
  let cursor = '0';
  do {
    const [next, found] = await client.scan(cursor, 'MATCH', `${prefix}:key:*`, 'COUNT', 1000);
    cursor = next;
    businessKeys.push(...found);
  } while (cursor !== '0');
  if (businessKeys.length !== IDEMPOTENT_WRITES) throw new Error(`expected ${IDEMPOTENT_WRITES} business keys, found ${businessKeys.length}`);
  let businessBytes = 0;
  for (const key of businessKeys) businessBytes += await memoryUsage(client, key);
  const businessKeyFields = await client.hgetall(businessKeys[0]!);
  const indexBytes = await memoryUsage(client, `${prefix}:runs`);
  const indexedRuns = await client.zcard(`${prefix}:runs`);
  const info = await client.info('memory');
  const serverInfo = await client.info('server');
  await client.quit();
  return {
    callsPerRound: MEMORY_CALLS_PER_ROUND,
    runs,
    marginalBytesPerCall,
    entrySample,
    businessKey: {
      writes: IDEMPOTENT_WRITES,
      bytesPerKey: businessBytes / IDEMPOTENT_WRITES,
      keyName: businessKeys[0]!,
      fields: Object.keys(businessKeyFields),
    },
    index: { runs: indexedRuns, bytes: indexBytes },
    redisVersion: /redis_version:(\S+)/.exec(serverInfo)?.[1] ?? 'unknown',
    allocator: /mem_allocator:(\S+)/.exec(info)?.[1] ?? 'unknown',
  };
}

// ---- Main ------------------------------------------------------------------------------

async function main(): Promise<void> {
  const server = await startBenchRedisServer();
  try {
    const only = process.env.BENCH_ONLY;
    const perCallResult = only === undefined || only === 'call' ? await perCall(server.url) : undefined;
    if (perCallResult !== undefined) {
      process.stderr.write(
        `redis per call: ${Object.entries(perCallResult.ratios)
          .map(([name, ratio]) => `${name} ${(perCallResult.timings[name]!.medianNs / 1000).toFixed(1)} µs ×${ratio.toFixed(2)}`)
          .join('; ')}; ${perCallResult.appendsPerCall.toFixed(3)} appends per call\n`,
      );
      for (const [name, entry] of Object.entries(perCallResult.cpu)) {
        process.stderr.write(
          `redis CPU per call, ${name}: wall ${entry.wallMicros.toFixed(1)} µs, client ${entry.clientCpuMicros.toFixed(1)} µs, server commands ${entry.serverCommandMicros.toFixed(2)} µs (${Object.entries(entry.commands)
            .map(([command, stat]) => `${command} ×${stat.callsPerCall.toFixed(2)} ${stat.usecPerCall.toFixed(2)} µs`)
            .join(', ')}), server process ${entry.serverCpuMicros.toFixed(1)} µs\n`,
        );
      }
    }
    const throughputResult = only === undefined || only === 'throughput' ? await throughput(server.url) : undefined;
    if (throughputResult !== undefined) {
      for (const entry of throughputResult.cases) {
        process.stderr.write(
          `redis throughput ${entry.name}: ${entry.callsPerSecond.toFixed(0)} calls/s (${entry.min.toFixed(0)}–${entry.max.toFixed(0)}), ${entry.appendsPerCall.toFixed(2)} appends, ${entry.rejectedPerCall.toFixed(2)} rejected, ${entry.readsPerCall.toFixed(3)} reads, ${entry.localFallbacksPerCall.toFixed(3)} local fallbacks per call; CPU per call: workers ${entry.workerCpuMicrosPerCall.toFixed(0)} µs, redis ${entry.redisCpuMicrosPerCall.toFixed(0)} µs\n`,
        );
      }
    }
    const memoryResult = only === undefined || only === 'memory' ? await memory(server.url) : undefined;
    if (memoryResult !== undefined) {
      for (const entry of memoryResult.runs) {
        process.stderr.write(`redis memory run of ${entry.calls} calls: log ${entry.logBytes} B, run hash ${entry.runBytes} B, ${entry.bytesPerCall.toFixed(0)} B per call\n`);
      }
      process.stderr.write(`redis memory: ${memoryResult.marginalBytesPerCall.toFixed(0)} B per added call, ${memoryResult.businessKey.bytesPerKey.toFixed(0)} B per business key\n`);
    }
    const result: RedisSuiteResult = {
      redisVersion: server.version,
      perCall: perCallResult,
      throughput: throughputResult,
      memory: memoryResult,
    } as RedisSuiteResult;
    writeResult(result);
  } finally {
    await server.stop();
  }
}

if (process.argv[2] === 'worker') await workerMain(process.argv[3]!, Number(process.argv[4]));
else await main();

