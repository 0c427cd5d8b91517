import { context, trace } from '@opentelemetry/api';
import { ProtobufTraceSerializer } from '@opentelemetry/otlp-transformer';
import { InMemorySpanExporter, SimpleSpanProcessor, TracerProvider } from '@opentelemetry/sdk-trace';

/**
 * Protobuf requests of `perRequest` 2 KB tool spans, one trace (one run) each, serialized by the
 * OTel JS SDK's protobuf serializer. Arguments cycle through 7 queries and results through 5
 * documents. The SDK stamps span starts in whole milliseconds, so the calls fall in rounds of
 * ~10 parallel calls; none is refused and the run never stops, so every span costs the engine a
 * full claim and finish (call identity and result fingerprint): the most work a span can cost.
 */
export function buildOtlpBenchRequests(count: number, perRequest: number): Buffer[] {
  const exporter = new InMemorySpanExporter();
  const provider = new TracerProvider({ spanProcessors: [new SimpleSpanProcessor({ exporter })] } as never);
  const tracer = provider.getTracer('bench');
  const requests: Buffer[] = [];
  const padding = 'x'.repeat(900);
  for (let r = 0; r < count; r++) {
    exporter.reset();
    const root = tracer.startSpan('invoke_agent');
    const parent = trace.setSpan(context.active(), root);
    for (let s = 0; s < perRequest; s++) {
      const span = tracer.startSpan(
        'execute_tool search',
        {
          attributes: {
            'gen_ai.operation.name': 'execute_tool',
            'gen_ai.tool.name': 'search',
            'gen_ai.tool.call.arguments': JSON.stringify({ q: `query ${s % 7}`, padding }),
            'gen_ai.tool.call.result': JSON.stringify({ hits: [`doc-${s % 5}`], padding }),
          },
        },
        parent,
      );
      span.end();
    }
    requests.push(Buffer.from(ProtobufTraceSerializer.serializeRequest(exporter.getFinishedSpans())!));
  }
  return requests;
}

