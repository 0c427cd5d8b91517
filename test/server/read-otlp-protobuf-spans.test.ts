import { expect } from 'chai';
import fc from 'fast-check';
import { context, SpanStatusCode, trace } from '@opentelemetry/api';
import { ProtobufTraceSerializer } from '@opentelemetry/otlp-transformer';
import { InMemorySpanExporter, SimpleSpanProcessor, TracerProvider } from '@opentelemetry/sdk-trace';
import { OtlpSpanCollector } from '../../src/replay/collect-otlp-spans.js';
import { isSpanReaderAttribute } from '../../src/replay/span-conventions/span-reader-attributes.js';
import { OtlpProtobufReadError } from '../../src/server/otlp-protobuf-read-error.js';
import { readOtlpProtobufSpans } from '../../src/server/read-otlp-protobuf-spans.js';
import { decodeOtlpProtobufTraces } from '../helpers/decode-otlp-protobuf-traces-with-protobufjs.js';
import { ExportTraceServiceRequestType } from '../helpers/otlp-trace-protobuf-schema.js';

/** What the replay reader makes of a request: collected spans and problems, as plain data. */
function collected(request: unknown): { spans: unknown[]; problems: string[] } {
  const collector = new OtlpSpanCollector();
  const problems = collector.addRequest(request, 'request', 1).map((problem) => problem.message);
  return { spans: collector.spans.map((span) => ({ ...span })), problems };
}

function encode(request: unknown): Uint8Array {
  return ExportTraceServiceRequestType.encode(ExportTraceServiceRequestType.fromObject(request as Record<string, unknown>)).finish();
}

const TRACE = '4bf92f3577b34da6a3ce929d0e0e4736';
const id = (n: number) => n.toString(16).padStart(16, '0');
const kv = (key: string, value: unknown) => ({ key, value });

/** A request with every field the schema knows, and values of every AnyValue kind. */
const EVERYTHING = {
  resourceSpans: [
    {
      resource: { attributes: [kv('service.name', { stringValue: 'agent' })] },
      schemaUrl: 'https://opentelemetry.io/schemas/1.26.0',
      scopeSpans: [
        {
          scope: { name: 'lib', version: '1.0' },
          spans: [
            {
              traceId: Buffer.from(TRACE, 'hex'), spanId: Buffer.from(id(1), 'hex'), name: 'invoke_agent', kind: 1,
              startTimeUnixNano: '1700000000000000000', endTimeUnixNano: '1700000009000000000',
              attributes: [kv('gen_ai.operation.name', { stringValue: 'invoke_agent' }), kv('gen_ai.conversation.id', { stringValue: 'conv-1' }), kv('gen_ai.input.messages', { stringValue: 'x'.repeat(5000) })],
            },
            {
              traceId: Buffer.from(TRACE, 'hex'), spanId: Buffer.from(id(2), 'hex'), parentSpanId: Buffer.from(id(1), 'hex'), name: 'chat gpt-4o', kind: 3,
              startTimeUnixNano: '1700000000100000000', endTimeUnixNano: '1700000000200000000',
              attributes: [kv('gen_ai.operation.name', { stringValue: 'chat' }), kv('gen_ai.usage.input_tokens', { intValue: '1200' }), kv('gen_ai.usage.output_tokens', { intValue: '-7' }), kv('gen_ai.usage.cost', { doubleValue: 0.25 })],
            },
            {
              traceId: Buffer.from(TRACE, 'hex'), spanId: Buffer.from(id(3), 'hex'), parentSpanId: Buffer.from(id(1), 'hex'), name: 'execute_tool search',
              startTimeUnixNano: '1700000000300000000', endTimeUnixNano: '1700000000400000000',
              attributes: [
                kv('gen_ai.operation.name', { stringValue: 'execute_tool' }),
                kv('gen_ai.tool.name', { stringValue: 'search' }),
                kv('gen_ai.tool.call.arguments', { stringValue: '{"q":"refund — policy ✓"}' }),
                kv('loopguard.round', { intValue: '9007199254740993' }),
                kv('loopguard.tool.flag', { boolValue: true }),
                kv('loopguard.tool.list', { arrayValue: { values: [{ stringValue: 'a' }, { intValue: '2' }, { arrayValue: { values: [{ boolValue: false }] } }] } }),
                kv('loopguard.tool.map', { kvlistValue: { values: [kv('inner', { doubleValue: -1.5 }), kv('raw', { bytesValue: Buffer.from([1, 2, 3]) })] } }),
                kv('loopguard.tool.empty', {}),
                kv('error.type', { stringValue: 'TimeoutError' }),
              ],
              events: [
                { timeUnixNano: '1700000000350000000', name: 'retry', attributes: [kv('attempt', { intValue: '2' })] },
                { timeUnixNano: '1700000000390000000', name: 'exception', attributes: [kv('exception.type', { stringValue: 'TimeoutError' }), kv('exception.message', { stringValue: 'took too long' }), kv('exception.stacktrace', { stringValue: 'at …' })] },
              ],
              status: { code: 2, message: 'tool failed' },
            },
            // An `other` span (kept for its ids), and spans the collector reports.
            { traceId: Buffer.from(TRACE, 'hex'), spanId: Buffer.from(id(4), 'hex'), parentSpanId: Buffer.from(id(3), 'hex'), name: 'HTTP GET', attributes: [kv('http.method', { stringValue: 'GET' })] },
            { spanId: Buffer.from(id(5), 'hex'), name: 'execute_tool lost' },
            { traceId: Buffer.from(TRACE, 'hex'), spanId: Buffer.from(id(6), 'hex'), name: 'execute_tool timeless', attributes: [kv('gen_ai.tool.name', { stringValue: 'x' })] },
          ],
        },
        { scope: { name: 'empty' } },
      ],
    },
    {},
  ],
};

describe('readOtlpProtobufSpans: the hand-written OTLP protobuf reader of loopguard serve', () => {
  it('reads to the same collected spans and problems as protobufjs, for every field and AnyValue kind', () => {
    const bytes = encode(EVERYTHING);
    expect(collected(readOtlpProtobufSpans(bytes))).to.deep.equal(collected(decodeOtlpProtobufTraces(bytes)));
    const { spans, problems } = collected(readOtlpProtobufSpans(bytes));
    expect(spans).to.have.length(4);
    expect(problems).to.have.length(2);
    expect(problems.join('\n')).to.contain('traceId').and.contain('startTimeUnixNano');
    const tool = spans[2] as { attributes: Record<string, unknown>; exceptionType: string; statusMessage: string; startNanos: bigint };
    expect(tool.attributes['loopguard.round']).to.equal(9007199254740992);
    expect(tool.attributes['loopguard.tool.map']).to.deep.equal({ inner: -1.5, raw: 'AQID' });
    expect(tool.exceptionType).to.equal('TimeoutError');
    expect(tool.statusMessage).to.equal('tool failed');
    expect(tool.startNanos).to.equal(1700000000300000000n);
  });

  it('decodes only the attributes a span reader reads; the rest are skipped unread', () => {
    const request = readOtlpProtobufSpans(encode(EVERYTHING));
    const keys = request.resourceSpans.flatMap((resource) => resource.scopeSpans.flatMap((scope) => scope.spans.flatMap((span) => Object.keys(span.attributes.values))));
    expect(keys).to.include('gen_ai.tool.call.arguments');
    expect(keys.filter((key) => !isSpanReaderAttribute(key))).to.deep.equal([]);
    expect(keys).not.to.include('gen_ai.input.messages');
    const tool = request.resourceSpans[0]!.scopeSpans[0]!.spans[2]!;
    expect(tool.events?.map((event) => ({ name: event.name, attributes: event.attributes.values })), 'only the exception event, with the two attributes replay reads').to.deep.equal([
      { name: 'exception', attributes: { 'exception.type': 'TimeoutError', 'exception.message': 'took too long' } },
    ]);
    // Decoded as the JSON reader decodes AnyValues: no {key, value} objects in between.
    expect(tool.attributes.values['loopguard.tool.list']).to.deep.equal(['a', 2, [false]]);
    expect(tool.attributes.values['loopguard.tool.empty']).to.equal(undefined);
    expect(tool.attributes.values).to.have.property('loopguard.tool.empty');
  });

  it('reads what the OTel JS SDK\'s OTLP protobuf serializer (the proto exporter\'s) writes, as protobufjs does', () => {
    const exporter = new InMemorySpanExporter();
    const provider = new TracerProvider({ spanProcessors: [new SimpleSpanProcessor({ exporter })] } as never);
    const tracer = provider.getTracer('agent', '2.0.0');
    const root = tracer.startSpan('invoke_agent researcher', { attributes: { 'gen_ai.operation.name': 'invoke_agent', 'gen_ai.conversation.id': 'c-7' } });
    const parent = trace.setSpan(context.active(), root);
    for (let round = 1; round <= 3; round++) {
      tracer.startSpan('chat gpt-4o', { attributes: { 'gen_ai.operation.name': 'chat', 'gen_ai.usage.input_tokens': 1000 + round, 'gen_ai.prompt': 'p'.repeat(3000) } }, parent).end();
      const tool = tracer.startSpan('execute_tool search', { attributes: { 'gen_ai.operation.name': 'execute_tool', 'gen_ai.tool.name': 'search', 'gen_ai.tool.call.arguments': JSON.stringify({ q: 'refund' }), 'gen_ai.tool.call.result': JSON.stringify({ hits: [round] }), 'loopguard.tool.tags': ['a', 'b'] } }, parent);
      if (round === 3) {
        tool.recordException(new TypeError('bad input'));
        tool.setStatus({ code: SpanStatusCode.ERROR, message: 'bad input' });
      }
      tool.end();
    }
    root.end();
    const bytes = ProtobufTraceSerializer.serializeRequest(exporter.getFinishedSpans())!;
    const ours = collected(readOtlpProtobufSpans(bytes));
    expect(ours).to.deep.equal(collected(decodeOtlpProtobufTraces(bytes)));
    expect(ours.spans).to.have.length(7);
    expect(ours.problems).to.deep.equal([]);
    expect((ours.spans.at(-2) as { exceptionType: string }).exceptionType).to.equal('TypeError');
  });

  it('random requests: the same collected spans as protobufjs (fast-check)', () => {
    const anyValue: fc.Arbitrary<unknown> = fc.letrec<{ value: unknown }>((tie) => ({
      value: fc.oneof(
        { depthSize: 'small', withCrossShrink: true },
        fc.record({ stringValue: fc.string({ unit: 'grapheme', maxLength: 40 }) }),
        fc.record({ boolValue: fc.boolean() }),
        fc.record({ intValue: fc.bigInt({ min: -(2n ** 63n), max: 2n ** 63n - 1n }).map(String) }),
        fc.record({ doubleValue: fc.double({ noNaN: true }) }),
        fc.record({ bytesValue: fc.uint8Array({ maxLength: 8 }).map((bytes) => Buffer.from(bytes)) }),
        fc.record({ arrayValue: fc.record({ values: fc.array(tie('value'), { maxLength: 3 }) }) }),
        fc.record({ kvlistValue: fc.record({ values: fc.array(fc.record({ key: fc.string({ maxLength: 5 }), value: tie('value') }), { maxLength: 3 }) }) }),
      ),
    })).value;
    const key = fc.oneof(
      fc.constantFrom('gen_ai.operation.name', 'gen_ai.tool.name', 'gen_ai.tool.call.arguments', 'gen_ai.tool.call.result', 'loopguard.round', 'openinference.span.kind', 'tool.name', 'input.value', 'ai.operationId', 'ai.toolCall.args', 'traceloop.span.kind', 'error.type', 'gen_ai.prompt', 'http.url'),
      fc.string({ maxLength: 12 }),
    );
    const roleValue = fc.constantFrom('execute_tool', 'invoke_agent', 'chat', 'TOOL', 'AGENT', 'tool', 'ai.toolCall', 'other');
    const attribute = fc.oneof(fc.record({ key, value: anyValue }), fc.record({ key, value: roleValue.map((stringValue) => ({ stringValue })) }));
    const span = fc.record(
      {
        traceId: fc.uint8Array({ minLength: 16, maxLength: 16 }).map((bytes) => Buffer.from(bytes)),
        spanId: fc.uint8Array({ minLength: 8, maxLength: 8 }).map((bytes) => Buffer.from(bytes)),
        parentSpanId: fc.uint8Array({ minLength: 8, maxLength: 8 }).map((bytes) => Buffer.from(bytes)),
        name: fc.constantFrom('execute_tool search', 'invoke_agent', 'chat', 'running tool', 'agent run', 'x'),
        startTimeUnixNano: fc.bigInt({ min: 0n, max: 2n ** 64n - 1n }).map(String),
        endTimeUnixNano: fc.bigInt({ min: 0n, max: 2n ** 64n - 1n }).map(String),
        attributes: fc.array(attribute, { maxLength: 6 }),
        events: fc.array(fc.record({ name: fc.constantFrom('exception', 'log'), attributes: fc.array(fc.record({ key: fc.constantFrom('exception.type', 'exception.message', 'other'), value: anyValue }), { maxLength: 3 }) }), { maxLength: 2 }),
        status: fc.record({ code: fc.integer({ min: 0, max: 2 }), message: fc.string({ maxLength: 10 }) }, { requiredKeys: [] }),
      },
      { requiredKeys: ['spanId'] },
    );
    const request = fc.record({ resourceSpans: fc.array(fc.record({ scopeSpans: fc.array(fc.record({ spans: fc.array(span, { maxLength: 4 }) }), { maxLength: 2 }) }), { maxLength: 2 }) });
    fc.assert(
      fc.property(request, (value) => {
        const bytes = encode(value);
        expect(collected(readOtlpProtobufSpans(bytes))).to.deep.equal(collected(decodeOtlpProtobufTraces(bytes)));
      }),
      { numRuns: 300 },
    );
  });

  describe('malformed input: an OtlpProtobufReadError naming what was wrong and where', () => {
    const valid = encode(EVERYTHING);
    const readError = (bytes: Uint8Array): OtlpProtobufReadError => {
      try {
        readOtlpProtobufSpans(bytes);
      } catch (error) {
        expect(error).to.be.instanceOf(OtlpProtobufReadError);
        return error as OtlpProtobufReadError;
      }
      throw new Error('read without an error');
    };

    it('a truncated varint', () => {
      const error = readError(new Uint8Array([0x0a, 0xff, 0xff]));
      expect(error.problem).to.contain('truncated varint');
      expect(error.offset).to.equal(1);
    });

    it('a length past the end of its message, named by its path', () => {
      // resourceSpans[0] says 200 bytes, 1 follows.
      const error = readError(new Uint8Array([0x0a, 0xc8, 0x01, 0x00]));
      expect(error.message).to.contain('length 200 runs past the end');
      // A span whose name is longer than the span: the path names the field.
      const span = Buffer.from([0x12, 0x03, 0x2a, 0x7f, 0x61]);
      const scope = Buffer.concat([Buffer.from([0x12, span.length]), span]);
      const resource = Buffer.concat([Buffer.from([0x0a, scope.length]), scope]);
      const inner = readError(resource);
      expect(inner.field).to.equal('resourceSpans[0].scopeSpans[0].spans[0].name');
      expect(inner.problem).to.match(/length 127 runs past the end of its message \(1 bytes left\)/);
    });

    it('a bad wire type, and a known field of the wrong wire type', () => {
      const bad = readError(new Uint8Array([0x0f, 0x00]));
      expect(bad.problem).to.contain('bad wire type 7');
      // traceId (field 1 of a Span) sent as a varint.
      const span = Buffer.from([0x12, 0x02, 0x08, 0x01]);
      const scope = Buffer.concat([Buffer.from([0x12, span.length]), span]);
      const resource = Buffer.concat([Buffer.from([0x0a, scope.length]), scope]);
      const wrong = readError(resource);
      expect(wrong.field).to.equal('resourceSpans[0].scopeSpans[0].spans[0].traceId');
      expect(wrong.problem).to.equal('has wire type 0 (varint), expected 2 (len)');
    });

    it('values nested deeper than 128 levels, and groups 100,000 deep, are refused by name, never a stack overflow', () => {
      // Written by hand: protobufjs refuses to encode a value this deep.
      const varint = (n: number): number[] => (n < 0x80 ? [n] : [(n & 0x7f) | 0x80, ...varint(n >>> 7)]);
      const field = (number: number, bytes: Uint8Array): Buffer => Buffer.concat([Buffer.from([(number << 3) | 2, ...varint(bytes.length)]), bytes]);
      let value = field(1, Buffer.from('bottom'));
      for (let level = 0; level < 130; level++) value = field(5, field(1, value));
      const span = Buffer.concat([field(1, Buffer.from(TRACE, 'hex')), field(2, Buffer.from(id(1), 'hex')), field(9, Buffer.concat([field(1, Buffer.from('gen_ai.tool.call.arguments')), field(2, value)]))]);
      const deep = readError(field(1, field(2, field(2, span))));
      expect(deep.problem).to.equal('nests arrays or key-value lists deeper than 128 levels');
      // The path keeps its ends and says how much it left out.
      expect(deep.field).to.match(/^resourceSpans\[0\]\.scopeSpans\[0\]\.spans\[0\]\.attributes\[0\]\.value\..*…\d+ levels….*arrayValue$/);
      expect(deep.message.length).to.be.below(400);
      // An unknown field 9 of the request as 100,000 nested groups (200 KB). Before: a RangeError.
      const groups = Buffer.concat([Buffer.alloc(100_000, (9 << 3) | 3), Buffer.alloc(100_000, (9 << 3) | 4)]);
      expect(readError(groups).problem).to.equal('groups nested deeper than 128 levels');
    });

    it('every truncation of a valid request is read or refused with that error, never anything else', () => {
      for (let length = 0; length < valid.length; length += 1) {
        try {
          readOtlpProtobufSpans(valid.subarray(0, length));
        } catch (error) {
          expect(error, `cut at ${length}`).to.be.instanceOf(OtlpProtobufReadError);
        }
      }
    });

    it('random bytes: read or refused with that error (fast-check)', () => {
      fc.assert(
        fc.property(fc.uint8Array({ maxLength: 64 }), (bytes) => {
          try {
            readOtlpProtobufSpans(bytes);
          } catch (error) {
            expect(error).to.be.instanceOf(OtlpProtobufReadError);
          }
        }),
        { numRuns: 2000 },
      );
    });
  });
});
