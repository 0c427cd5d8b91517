/**
 * `loopguard serve` (issue 19), measured against what any HTTP service on the same machine pays:
 * - OTLP ingestion: spans/s of 2 KB GenAI tool spans posted as protobuf (what the OTel
 *   exporters send), 4 requests in flight, 100 spans a request, each trace a looping run;
 * - decision API: p50/p99 of a claim on loopback against a bare node:http echo (reads the same
 *   JSON body, answers a small JSON) in the same process, the same client, interleaved;
 * - memory per open run: retained bytes per run opened through the decision API (one round,
 *   one claimed and finished call), after gc.
 * The client runs in the server's process (one core for both): ratios, not absolute numbers.
 */
import { createServer, request as httpRequest, Agent } from 'node:http';
import type { AddressInfo } from 'node:net';
import { context, trace } from '@opentelemetry/api';
import { ProtobufTraceSerializer } from '@opentelemetry/otlp-transformer';
import { InMemorySpanExporter, SimpleSpanProcessor, TracerProvider } from '@opentelemetry/sdk-trace';
import { LoopGuard } from '../src/core/loop-guard.js';
import { DecisionApi } from '../src/server/decision-api.js';
import { startLoopGuardServer } from '../src/server/start-loop-guard-server.js';
import { heapAfterGc, writeResult } from './lib/harness.js';

const agent = new Agent({ keepAlive: true, maxSockets: 8 });

function post(url: string, body: Buffer | string, contentType: string): Promise<number> {
  return new Promise((resolve, reject) => {
    const req = httpRequest(url, { method: 'POST', agent, headers: { 'content-type': contentType, 'content-length': Buffer.byteLength(body) } }, (res) => {
      res.resume();
      res.on('end', () => resolve(res.statusCode ?? 0));
    });
    req.on('error', reject);
    req.end(body);
  });
}

/** Protobuf requests of `spansPerRequest` 2 KB tool spans, one trace (one looping run) each. */
function otlpRequests(count: number, spansPerRequest: number): Buffer[] {
  const exporter = new InMemorySpanExporter();
  const provider = new TracerProvider({ spanProcessors: [new SimpleSpanProcessor({ exporter })] } as never);
  const tracer = provider.getTracer('bench');
  const requests: Buffer[] = [];
  const padding = 'x'.repeat(900);
  for (let r = 0; r < count; r++) {
    exporter.reset();
    const root = tracer.startSpan('invoke_agent');
    const parent = trace.setSpan(context.active(), root);
    for (let s = 0; s < spansPerRequest; s++) {
      const span = tracer.startSpan('execute_tool search', {
        attributes: {
          'gen_ai.operation.name': 'execute_tool',
          'gen_ai.tool.name': 'search',
          'gen_ai.tool.call.arguments': JSON.stringify({ q: `query ${s % 7}`, padding }),
          'gen_ai.tool.call.result': JSON.stringify({ hits: [`doc-${s % 5}`], padding }),
        },
      }, parent);
      span.end();
    }
    requests.push(Buffer.from(ProtobufTraceSerializer.serializeRequest(exporter.getFinishedSpans())!));
  }
  return requests;
}

async function ingestion(): Promise<{ spansPerSecond: number; spanBytes: number; requests: number }> {
  const spansPerRequest = 100;
  const requests = otlpRequests(Number(process.env.BENCH_SERVE_OTLP_REQUESTS ?? 400), spansPerRequest);
  const server = await startLoopGuardServer({ port: 0, logger: { warn: () => {} } });
  try {
    const url = `${server.url}/v1/traces`;
    for (const body of requests.slice(0, 20)) await post(url, body, 'application/x-protobuf'); // warm-up
    const started = process.hrtime.bigint();
    let next = 20;
    const worker = async (): Promise<void> => {
      while (next < requests.length) {
        const status = await post(url, requests[next++]!, 'application/x-protobuf');
        if (status !== 200) throw new Error(`OTLP answered ${status}`);
      }
    };
    await Promise.all([worker(), worker(), worker(), worker()]);
    const seconds = Number(process.hrtime.bigint() - started) / 1e9;
    return { spansPerSecond: ((requests.length - 20) * spansPerRequest) / seconds, spanBytes: Math.round(requests[0]!.length / spansPerRequest), requests: requests.length - 20 };
  } finally {
    await server.close();
  }
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

const result = { ingestion: await ingestion(), decision: await decisionLatency(), memory: await memoryPerRun() };
process.stderr.write(
  `serve OTLP ingestion: ${result.ingestion.spansPerSecond.toFixed(0)} spans/s (${result.ingestion.spanBytes} B per span on the wire, protobuf)\n` +
    `serve decision API: claim p50 ${result.decision.claim.p50.toFixed(3)} ms p99 ${result.decision.claim.p99.toFixed(3)} ms; ` +
    `node:http echo p50 ${result.decision.echo.p50.toFixed(3)} ms p99 ${result.decision.echo.p99.toFixed(3)} ms; ratio p50 x${result.decision.p50Ratio.toFixed(2)} p99 x${result.decision.p99Ratio.toFixed(2)}\n` +
    `serve memory: ${result.memory.bytesPerRun.toFixed(0)} B per open run (${result.memory.runs} runs)\n`,
);
writeResult(result);
