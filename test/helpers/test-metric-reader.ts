// A metric reader the tests collect from on demand (the real SDK's MetricReader, nothing exported).
import { MetricReader, type MetricData } from '@opentelemetry/sdk-metrics';

export class TestReader extends MetricReader {
  protected override async onForceFlush(): Promise<void> {}
  protected override async onShutdown(): Promise<void> {}
}

/** Every instrument's data collected now, by instrument name. */
export async function collect(reader: TestReader): Promise<Map<string, MetricData>> {
  const { resourceMetrics } = await reader.collect();
  const out = new Map<string, MetricData>();
  for (const sm of resourceMetrics.scopeMetrics) for (const m of sm.metrics) out.set(m.descriptor.name, m);
  return out;
}
