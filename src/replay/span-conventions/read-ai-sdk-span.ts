import type { SpanConventionReader } from './span-reading.js';

const RUN_SPANS = new Set(['ai.generateText', 'ai.streamText']);
const ROUND_SPANS = new Set(['ai.generateText.doGenerate', 'ai.streamText.doStream']);
const TOOL_SPAN = 'ai.toolCall';

/**
 * The Vercel AI SDK's own spans (`experimental_telemetry`): `ai.generateText` /
 * `ai.streamText` runs, their `.doGenerate` / `.doStream` model calls, and `ai.toolCall`
 * tool calls with `ai.toolCall.name`, `.args`, `.result`, `.id`. Keyed by `ai.operationId`,
 * else the span name.
 */
export const readAiSdkSpan: SpanConventionReader = (name, attributes) => {
  const operation = typeof attributes['ai.operationId'] === 'string' ? (attributes['ai.operationId'] as string) : name;
  if (RUN_SPANS.has(operation)) return { role: 'run', flavor: 'vercel', convention: 'ai_sdk' };
  if (ROUND_SPANS.has(operation)) return { role: 'round', flavor: 'vercel', convention: 'ai_sdk' };
  if (operation === TOOL_SPAN) return { role: 'tool', flavor: 'vercel', convention: 'ai_sdk' };
  return undefined;
};
