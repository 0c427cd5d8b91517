import { trace, type Span } from '@opentelemetry/api';
import { ATTR_DECISION } from '../../otel/attributes.js';

/**
 * The AI SDK's own `ai.toolCall` span when it is the active span (the SDK runs `execute` inside
 * it when `experimental_telemetry` is on), so guardTools can write loopguard's decision on it
 * for the dashboards. Undefined when telemetry is off, when the active span is someone else's
 * (a user's own tool span must not be stamped), and when LoopGuardSpanProcessor already decided
 * this span (its decision and the adapter's must not both be written).
 */
export function activeAiSdkToolSpan(): Span | undefined {
  const span = trace.getActiveSpan();
  if (span === undefined || !span.isRecording()) return undefined;
  const attributes = (span as { attributes?: Readonly<Record<string, unknown>> }).attributes;
  if (attributes?.['ai.operationId'] !== 'ai.toolCall') return undefined;
  if (attributes[ATTR_DECISION] !== undefined) return undefined;
  return span;
}
