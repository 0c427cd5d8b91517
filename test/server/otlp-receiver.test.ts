import { expect } from 'chai';
import { gzipSync } from 'node:zlib';
import { trace as traceApi, SpanStatusCode, type Tracer } from '@opentelemetry/api';
import { OTLPTraceExporter as OtlpJsonExporter } from '@opentelemetry/exporter-trace-otlp-http';
import { OTLPTraceExporter as OtlpProtoExporter } from '@opentelemetry/exporter-trace-otlp-proto';
import { InMemoryLogRecordExporter, LoggerProvider, SimpleLogRecordProcessor } from '@opentelemetry/sdk-logs';
import { LoopGuard } from '../../src/core/loop-guard.js';
import { startLoopGuardServer, type LoopGuardServer } from '../../src/server/index.js';
import { ExportTraceServiceResponseType, RpcStatusType } from '../helpers/otlp-trace-protobuf-schema.js';
import { createLoopGuardTelemetry } from '../../src/telemetry/index.js';
import { EVENT_RUN_STOP } from '../../src/telemetry/names.js';
import { SimpleSpanProcessor, TracerProvider } from '../helpers/otel-sdk.js';
import { getJson } from './server-test-helpers.js';

/** An agent that searches for the same thing every round, instrumented with GenAI spans. */
async function loopingAgent(tracer: Tracer, provider: TracerProvider, rounds: number, onRound: (round: number) => Promise<void>): Promise<string> {
  const agent = tracer.startSpan('invoke_agent researcher', { attributes: { 'gen_ai.operation.name': 'invoke_agent' } });
  const context = traceApi.setSpan((await import('@opentelemetry/api')).context.active(), agent);
  for (let round = 1; round <= rounds; round++) {
    const chat = tracer.startSpan('chat gpt-4o', { attributes: { 'gen_ai.operation.name': 'chat', 'gen_ai.usage.input_tokens': 1000, 'gen_ai.usage.output_tokens': 50 } }, context);
    chat.end();
    const tool = tracer.startSpan('execute_tool search', {
      attributes: {
        'gen_ai.operation.name': 'execute_tool',
        'gen_ai.tool.name': 'search',
        'gen_ai.tool.call.id': `call-${round}`,
        'gen_ai.tool.call.arguments': JSON.stringify({ q: 'refund policy' }),
        'gen_ai.tool.call.result': JSON.stringify({ hits: ['doc-1', 'doc-2'] }),
      },
    }, context);
    tool.setStatus({ code: SpanStatusCode.OK });
    tool.end();
    // Each round reaches the server before the next starts, as a BatchSpanProcessor's timer would send it.
    await provider.forceFlush();
    await onRound(round);
  }
  agent.end();
  await provider.forceFlush();
  return agent.spanContext().traceId;
}

describe('loopguard serve: OTLP/HTTP traces receiver', function () {
  this.timeout(30_000);
  let server: LoopGuardServer;
  let logs: InMemoryLogRecordExporter;
  let stops: Array<{ run: string; reason: string; round: number }>;

  beforeEach(async () => {
    logs = new InMemoryLogRecordExporter();
    const loggerProvider = new LoggerProvider({ processors: [new SimpleLogRecordProcessor({ exporter: logs })] });
    const guard = new LoopGuard();
    createLoopGuardTelemetry({ guard, loggerProvider });
    stops = [];
    guard.addListener({ runStopped: (run, stop) => stops.push({ run: run.id, reason: stop.reason, round: stop.round }) });
    server = await startLoopGuardServer({ guard, port: 0, maxSpansPerRequest: 50, maxConcurrentRequests: 1 });
  });
  afterEach(async () => {
    await server.close();
  });

  for (const encoding of ['protobuf', 'json'] as const) {
    it(`the OTel JS SDK exporting ${encoding} to a running server: a looping run is stopped live and a stop event comes out`, async () => {
      const exporter = encoding === 'protobuf' ? new OtlpProtoExporter({ url: `${server.url}/v1/traces` }) : new OtlpJsonExporter({ url: `${server.url}/v1/traces` });
      const provider = new TracerProvider({ spanProcessors: [new SimpleSpanProcessor({ exporter })] } as never);
      let stoppedAtRound: number | undefined;
      const traceId = await loopingAgent(provider.getTracer('agent'), provider, 8, async (round) => {
        if (stoppedAtRound === undefined && stops.length > 0) stoppedAtRound = round;
      });
      await provider.shutdown();
      // Seen while the agent was still running, not when its run span arrived.
      expect(stoppedAtRound, 'stop detected before the run ended').to.be.a('number').and.below(8);
      expect(stops).to.have.length(1);
      expect(stops[0]!.run).to.equal(`trace:${traceId}`);
      const events = logs.getFinishedLogRecords().filter((record) => record.eventName === EVENT_RUN_STOP || record.attributes['event.name'] === EVENT_RUN_STOP);
      expect(events, 'loopguard.run.stop event').to.have.length(1);
      const runs = await getJson(`${server.url}/v1/runs/${encodeURIComponent(`trace:${traceId}`)}`);
      expect(runs.body.stopped.reason).to.equal(stops[0]!.reason);
      const metrics = await getJson(`${server.url}/metrics`);
      expect(metrics.body).to.match(/loopguard_serve_otlp_spans_received_total (\d+)/);
      expect(Number(/loopguard_serve_otlp_spans_received_total (\d+)/.exec(metrics.body)![1])).to.equal(8 * 2 + 1);
    });
  }

  it('takes gzip bodies and answers in the request\'s encoding; a tool span without a tool name is a partial success', async () => {
    const request = otlpJson([
      span('a1', { 'gen_ai.operation.name': 'execute_tool', 'gen_ai.tool.name': 'search', 'gen_ai.tool.call.arguments': '{"q":1}' }),
      span('a2', { 'gen_ai.operation.name': 'execute_tool', 'gen_ai.tool.call.arguments': '{"q":2}' }),
    ]);
    const answer = await fetch(`${server.url}/v1/traces`, { method: 'POST', headers: { 'content-type': 'application/json', 'content-encoding': 'gzip' }, body: gzipSync(JSON.stringify(request)) });
    expect(answer.status).to.equal(200);
    const body = (await answer.json()) as { partialSuccess: { rejectedSpans: string; errorMessage: string } };
    expect(Number(body.partialSuccess.rejectedSpans)).to.equal(1);
    expect(body.partialSuccess.errorMessage).to.contain('gen_ai.tool.name');
    const fine = await fetch(`${server.url}/v1/traces`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify(otlpJson([span('b1', { 'gen_ai.operation.name': 'execute_tool', 'gen_ai.tool.name': 'x', 'gen_ai.tool.call.arguments': '{}' })])) });
    expect(fine.headers.get('content-length'), 'a known length, no chunked framing').to.equal('2');
    expect(fine.headers.get('transfer-encoding')).to.equal(null);
    expect(await fine.json()).to.deep.equal({});
  });

  it('an attribute nested 50,000 levels deep (1.3 MB, under the body limit) rejects its span by name, not the request with a 500', async () => {
    // Written as text: JSON.stringify itself overflows the stack on a value this deep.
    const deep = `${'{"arrayValue":{"values":['.repeat(50_000)}{"stringValue":"bottom"}${']}}'.repeat(50_000)}`;
    const hostile = span('d1', { 'gen_ai.operation.name': 'execute_tool', 'gen_ai.tool.name': 'search' });
    (hostile.attributes as unknown[]).push({ key: 'gen_ai.tool.call.arguments', value: 'DEEP' });
    const fine = span('d2', { 'gen_ai.operation.name': 'execute_tool', 'gen_ai.tool.name': 'search', 'gen_ai.tool.call.arguments': '{"q":1}' });
    const body = JSON.stringify(otlpJson([hostile, fine])).replace('"DEEP"', deep);
    const answer = await fetch(`${server.url}/v1/traces`, { method: 'POST', headers: { 'content-type': 'application/json' }, body });
    // Before: 500 "internal" and a RangeError (Maximum call stack size exceeded) in the log.
    expect(answer.status).to.equal(200);
    const answered = (await answer.json()) as { partialSuccess: { rejectedSpans: string; errorMessage: string } };
    expect(Number(answered.partialSuccess.rejectedSpans)).to.equal(1);
    expect(answered.partialSuccess.errorMessage).to.contain('"gen_ai.tool.call.arguments" nests arrays or key-value lists deeper than 128 levels');
    const metrics = await getJson(`${server.url}/metrics`);
    expect(Number(/loopguard_serve_otlp_spans_received_total (\d+)/.exec(metrics.body)![1])).to.equal(2);
  });

  it('bad requests get 4xx with a clear message in the request\'s encoding, and do not affect other runs', async () => {
    const post = (body: BodyInit, headers: Record<string, string>) => fetch(`${server.url}/v1/traces`, { method: 'POST', headers, body });
    const wrongType = await post('x', { 'content-type': 'text/plain' });
    expect(wrongType.status).to.equal(415);
    const badJson = await post('{"resourceSpans": [', { 'content-type': 'application/json' });
    expect(badJson.status).to.equal(400);
    expect(((await badJson.json()) as { message: string }).message).to.contain('not a valid JSON');
    const notRequest = await post('[{"resourceSpans": []}]', { 'content-type': 'application/json' });
    expect(notRequest.status).to.equal(400);
    const badProto = await post(new Uint8Array([0x0a, 0xff, 0xff, 0xff]), { 'content-type': 'application/x-protobuf' });
    expect(badProto.status).to.equal(400);
    expect(badProto.headers.get('content-type')).to.equal('application/x-protobuf');
    const status = RpcStatusType.decode(new Uint8Array(await badProto.arrayBuffer())) as unknown as { code: number; message: string };
    expect(status.code).to.equal(3);
    expect(status.message).to.contain('protobuf');
    const badGzip = await post('not gzip', { 'content-type': 'application/json', 'content-encoding': 'gzip' });
    expect(badGzip.status).to.equal(400);
    const tooMany = await post(JSON.stringify(otlpJson(Array.from({ length: 51 }, (_, index) => span(`s${index}`, {})))), { 'content-type': 'application/json' });
    expect(tooMany.status).to.equal(413);
    expect(((await tooMany.json()) as { message: string }).message).to.contain('--max-spans');
    const wrongMethod = await fetch(`${server.url}/v1/traces`);
    expect(wrongMethod.status).to.equal(405);
    // Another run is unaffected, and a good request still answers 200 with an empty response.
    const good = await post(Buffer.from(ExportTraceServiceResponseType.encode({}).finish()), { 'content-type': 'application/x-protobuf' });
    expect(good.status).to.equal(200);
  });

  it('under load answers 503 with Retry-After (OTLP) and 429 (decision API), as exporters expect', async () => {
    // maxConcurrentRequests is 1: a request whose body is still arriving holds the only slot.
    let release!: () => void;
    const held = new ReadableStream<Uint8Array>({
      start(controller) {
        controller.enqueue(new TextEncoder().encode('{"resourceSpans":[]'));
        release = () => {
          controller.enqueue(new TextEncoder().encode('}'));
          controller.close();
        };
      },
    });
    const slow = fetch(`${server.url}/v1/traces`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: held, duplex: 'half' } as RequestInit);
    await new Promise((resolve) => setTimeout(resolve, 100));
    const busy = await fetch(`${server.url}/v1/traces`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: '{"resourceSpans":[]}' });
    expect(busy.status).to.equal(503);
    expect(busy.headers.get('retry-after')).to.equal('1');
    const busyApi = await fetch(`${server.url}/v1/runs/r/should-stop`, { method: 'POST' });
    expect(busyApi.status).to.equal(429);
    expect(busyApi.headers.get('retry-after')).to.equal('1');
    release();
    expect((await slow).status).to.equal(200);
  });
});

function span(id: string, attributes: Record<string, string | number>): Record<string, unknown> {
  return {
    traceId: '5b8efff798038103d269b633813fc60c',
    spanId: id.padStart(16, '0'),
    name: String(attributes['gen_ai.operation.name'] ?? 'other'),
    startTimeUnixNano: '1700000000000000000',
    endTimeUnixNano: '1700000000100000000',
    attributes: Object.entries(attributes).map(([key, value]) => ({ key, value: typeof value === 'number' ? { intValue: String(value) } : { stringValue: value } })),
  };
}

function otlpJson(spans: Array<Record<string, unknown>>): Record<string, unknown> {
  return { resourceSpans: [{ resource: { attributes: [] }, scopeSpans: [{ scope: { name: 'test' }, spans }] }] };
}
