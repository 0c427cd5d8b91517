import { readAiSdkSpan } from './read-ai-sdk-span.js';
import { readGenAiSpan } from './read-gen-ai-span.js';
import { readLogfireSpan } from './read-logfire-span.js';
import { readOpenInferenceSpan } from './read-open-inference-span.js';
import { readTraceloopSpan } from './read-traceloop-span.js';
import type { SpanConventionReader, SpanReading } from './span-reading.js';

/**
 * Readers in order: the ones keyed by a convention's own marker attribute first (Logfire's
 * attribute names, OpenInference's and Traceloop's span kinds), so a span carrying both
 * its own names and a bare GenAI operation is read with its richer attributes; then GenAI
 * (loopguard's own spans included); the AI SDK last (its `ai.*` names are its own).
 */
const READERS: readonly SpanConventionReader[] = [readLogfireSpan, readOpenInferenceSpan, readTraceloopSpan, readGenAiSpan, readAiSdkSpan];

const OTHER: SpanReading = { role: 'other', flavor: 'genai', convention: 'none' };

/** What a span is, by the first convention that recognises it; `attributes` are normalised in place. */
export function readSpanConvention(name: string, attributes: Record<string, unknown>): SpanReading {
  for (const read of READERS) {
    const reading = read(name, attributes);
    if (reading !== undefined) return reading;
  }
  return OTHER;
}
