/**
 * `loopguard serve` (issue 19), measured against what any HTTP service on the same machine pays:
 * - OTLP ingestion: spans/s of 2 KB GenAI tool spans posted as protobuf (what the OTel
 *   exporters send), 4 requests in flight, 100 spans a request, each trace one run (every call is
 *   claimed, allowed and finished: the engine's full per-call work; see otlp-bench-requests.ts), sent by
 *   a client in another process (bench/serve-load-client.ts), against a bare node:http server
 *   that reads and discards the same bodies, in interleaved rounds;
 * - decision API: p50/p99 of a claim on loopback against a bare node:http echo (reads the same
 *   JSON body, answers a small JSON) in the same process, the same client, interleaved;
 * - memory per open run: retained bytes per run opened through the decision API (one round,
 *   one claimed and finished call), after gc.
 * The decision-API client runs in the server's process (one core for both): ratios, not absolute
 * numbers. The OTLP client has a process of its own, so ingestion's spans/s are the server's.
 */
import { createServer, request as httpRequest, Agent } from 'node:http';
import type { AddressInfo } from 'node:net';
import { fork } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { LoopGuard } from '../src/core/loop-guard.js';
import { DecisionApi } from '../src/server/decision-api.js';
import { startLoopGuardServer } from '../src/server/start-loop-guard-server.js';
import { heapAfterGc, writeResult } from './lib/harness.js';
import type { LoadClientAnswer, LoadClientCommand } from './serve-load-client.js';

const agent = new Agent({ keepAlive: true, maxSockets: 8 });

function post(url: string, body: string, contentType: string): Promise<number> {
  return new Promise((resolve, reject) => {
    const req = httpRequest(url, { method: 'POST', agent, headers: { 'content-type': contentType, 'content-length': Buffer.byteLength(body) } }, (res) => {
      res.resume();
      res.on('end', () => resolve(res.statusCode ?? 0));
    });
    req.on('error', reject);
    req.end(body);
  });
}

/** The load client in its own process (bench/serve-load-client.ts, same form as this file: .js or .ts through tsx). */
function startLoadClient(): { command: (message: LoadClientCommand) => Promise<LoadClientAnswer>; close: () => void } {
  const self = fileURLToPath(import.meta.url);
  const clientPath = self.replace(/serve\.(js|ts)$/, 'serve-load-client.$1');
  // Not --cpu-prof / --expose-gc: a profile of this process must not be the client's.
  const execArgv = process.execArgv.filter((flag) => !flag.startsWith('--cpu-prof') && flag !== '--expose-gc');
  const child = fork(clientPath, [], { execArgv, stdio: ['ignore', 'inherit', 'inherit', 'ipc'] });
  return {
    command: (message) =>
      new Promise((resolve, reject) => {
        child.once('message', (reply: LoadClientAnswer) => (reply.kind === 'failed' ? reject(new Error(`load client: ${reply.message}`)) : resolve(reply)));
        child.send(message);
      }),
    close: () => child.send({ kind: 'exit' } satisfies LoadClientCommand),
  };
}

/**
 * What any node:http service pays to take the same requests: reads each body whole and answers
 * an empty ExportTraceServiceResponse (zero bytes of protobuf), as the receiver does on success.
 */
async function startBareOtlpServer(): Promise<{ url: string; close: () => Promise<void> }> {
  const bare = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (chunk: Buffer) => chunks.push(chunk));
    req.on('end', () => {
      Buffer.concat(chunks);
      res.writeHead(200, { 'content-type': 'application/x-protobuf', 'content-length': 0 });
      res.end();
    });
  });
  await new Promise<void>((resolve) => bare.listen(0, '127.0.0.1', resolve));
  return {
    url: `http://127.0.0.1:${(bare.address() as AddressInfo).port}/v1/traces`,
    close: () => new Promise<void>((resolve) => bare.close(() => resolve())),
  };
}

interface IngestionResult {
  spansPerSecond: number;
  bareSpansPerSecond: number;
  ratio: number;
  spanBytes: number;
  requests: number;
  rounds: number;
}

/**
 * Spans/s of the loopguard server and of a bare node:http server taking the same bodies, from a
 * client in another process (so the server's event loop has its core to itself), in interleaved
 * rounds; medians. Each round starts a fresh loopguard server (new runs, no state carried over).
 * One round of each is run first and not counted: the servers run in this process, and a
 * round is under a second, so the first one also measured the JIT compiling the ingestion path
 * (rounds of one run rose 45k → 51k → 54k spans/s, and the median moved 45k–51k between runs
 * of the same commit). A server that has been up for a second is what a deployment runs.
 */
async function ingestion(): Promise<IngestionResult> {
  const spansPerRequest = 100;
  const requests = Number(process.env.BENCH_SERVE_OTLP_REQUESTS ?? 400);
  const rounds = Number(process.env.BENCH_SERVE_OTLP_ROUNDS ?? 5);
  const warmup = Math.min(20, Math.floor(requests / 4));
  const client = startLoadClient();
  const loopguard: number[] = [];
  const bareRates: number[] = [];
  try {
    const prepared = await client.command({ kind: 'prepare', requests, spansPerRequest });
    if (prepared.kind !== 'prepared') throw new Error('load client did not prepare');
    for (let round = -1; round < rounds; round++) {
      const counted = round >= 0; // round -1 warms the JIT up (see above)
      const bare = await startBareOtlpServer();
      try {
        const sent = await client.command({ kind: 'send', url: bare.url, warmup, concurrency: 4 });
        if (sent.kind === 'sent' && counted) bareRates.push(sent.spans / sent.seconds);
      } finally {
        await bare.close();
      }
      const server = await startLoopGuardServer({ port: 0, logger: { warn: () => {} } });
      try {
        const sent = await client.command({ kind: 'send', url: `${server.url}/v1/traces`, warmup, concurrency: 4 });
        if (sent.kind === 'sent' && counted) loopguard.push(sent.spans / sent.seconds);
      } finally {
        await server.close();
      }
    }
    const spansPerSecond = median(loopguard);
    const bareSpansPerSecond = median(bareRates);
    process.stderr.write(`  ingestion rounds (spans/s): loopguard ${loopguard.map((rate) => rate.toFixed(0)).join(', ')}; bare ${bareRates.map((rate) => rate.toFixed(0)).join(', ')}\n`);
    return { spansPerSecond, bareSpansPerSecond, ratio: spansPerSecond / bareSpansPerSecond, spanBytes: Math.round(prepared.bytes / spansPerRequest), requests: requests - warmup, rounds };
  } finally {
    client.close();
  }
}

function median(values: number[]): number {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.floor(sorted.length / 2)]!;
}

function percentile(sorted: number[], p: number): number {
  return sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))]!;
}

async function decisionLatency(): Promise<{ claim: { p50: number; p99: number }; echo: { p50: number; p99: number }; p50Ratio: number; p99Ratio: number }> {
  const server = await startLoopGuardServer({ port: 0, logger: { warn: () => {} } });
  const echo = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (chunk: Buffer) => chunks.push(chunk));
    req.on('end', () => {
      const body = JSON.parse(Buffer.concat(chunks).toString('utf8')) as { tool: string };
      const text = JSON.stringify({ decision: 'allow', tool: body.tool });
      res.writeHead(200, { 'content-type': 'application/json', 'content-length': Buffer.byteLength(text) });
      res.end(text);
    });
  });
  await new Promise<void>((resolve) => echo.listen(0, '127.0.0.1', resolve));
  const echoUrl = `http://127.0.0.1:${(echo.address() as AddressInfo).port}/`;
  const claims: number[] = [];
  const echoes: number[] = [];
  const n = Number(process.env.BENCH_SERVE_CALLS ?? 4000);
  try {
    for (let i = 0; i < n + 200; i++) {
      // A fresh run every 20 calls, so runs stay short as real ones are; interleaved with the echo.
      const body = JSON.stringify({ tool: 'search', arguments: { q: `query ${i}` } });
      let t = process.hrtime.bigint();
      await post(`${server.url}/v1/runs/bench-${Math.floor(i / 20)}/calls`, body, 'application/json');
      const claim = Number(process.hrtime.bigint() - t) / 1e6;
      t = process.hrtime.bigint();
      await post(echoUrl, body, 'application/json');
      const bare = Number(process.hrtime.bigint() - t) / 1e6;
      if (i >= 200) {
        claims.push(claim);
        echoes.push(bare);
      }
    }
  } finally {
    await server.close();
    echo.close();
  }
  claims.sort((a, b) => a - b);
  echoes.sort((a, b) => a - b);
  const claim = { p50: percentile(claims, 50), p99: percentile(claims, 99) };
  const bare = { p50: percentile(echoes, 50), p99: percentile(echoes, 99) };
  return { claim, echo: bare, p50Ratio: claim.p50 / bare.p50, p99Ratio: claim.p99 / bare.p99 };
}

async function memoryPerRun(): Promise<{ runs: number; bytesPerRun: number }> {
  const runs = Number(process.env.BENCH_SERVE_RUNS ?? 10_000);
  const guard = new LoopGuard({ maxOpenRuns: runs + 1 });
  const decisions = new DecisionApi({ guard });
  const before = heapAfterGc();
  for (let i = 0; i < runs; i++) {
    const id = `run-${i}`;
    await decisions.beginRound(id, {});
    const claim = await decisions.claim(id, { tool: 'search', arguments: { q: 'refund policy' } });
    await decisions.outcome(id, claim.ticket as string, { result: { hits: ['doc-1', 'doc-2'] } });
  }
  const after = heapAfterGc();
  if (guard.stats().openRuns !== runs) throw new Error('runs were evicted');
  return { runs, bytesPerRun: (after - before) / runs };
}

// BENCH_SERVE_ONLY=ingestion runs the ingestion case alone (profiling: node --cpu-prof on this file).
const ingestionOnly = process.env.BENCH_SERVE_ONLY === 'ingestion';
const result = ingestionOnly
  ? { ingestion: await ingestion(), decision: undefined as never as Awaited<ReturnType<typeof decisionLatency>>, memory: undefined as never as Awaited<ReturnType<typeof memoryPerRun>> }
  : { ingestion: await ingestion(), decision: await decisionLatency(), memory: await memoryPerRun() };
if (ingestionOnly) {
  process.stderr.write(`serve OTLP ingestion: ${result.ingestion.spansPerSecond.toFixed(0)} spans/s; bare node:http ${result.ingestion.bareSpansPerSecond.toFixed(0)} spans/s; ratio x${result.ingestion.ratio.toFixed(2)}\n`);
  // run.ts reads every suite's result file back (a subset run renders no report from it).
  writeResult({ ingestion: result.ingestion });
  process.exit(0);
}
process.stderr.write(
  `serve OTLP ingestion: ${result.ingestion.spansPerSecond.toFixed(0)} spans/s; bare node:http ${result.ingestion.bareSpansPerSecond.toFixed(0)} spans/s; ratio x${result.ingestion.ratio.toFixed(2)} (${result.ingestion.spanBytes} B per span on the wire, protobuf)\n` +
    `serve decision API: claim p50 ${result.decision.claim.p50.toFixed(3)} ms p99 ${result.decision.claim.p99.toFixed(3)} ms; ` +
    `node:http echo p50 ${result.decision.echo.p50.toFixed(3)} ms p99 ${result.decision.echo.p99.toFixed(3)} ms; ratio p50 x${result.decision.p50Ratio.toFixed(2)} p99 x${result.decision.p99Ratio.toFixed(2)}\n` +
    `serve memory: ${result.memory.bytesPerRun.toFixed(0)} B per open run (${result.memory.runs} runs)\n`,
);
writeResult(result);
