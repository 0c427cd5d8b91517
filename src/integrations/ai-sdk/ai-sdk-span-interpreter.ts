import type { SpanInterpreter } from '../../otel/span-roles.js';
import { interpretAiSdkSpan } from './interpret-ai-sdk-span.js';

/**
 * {@link interpretAiSdkSpan} in the shape the span processor takes (`interpreters` option of
 * LoopGuardSpanProcessor): `new LoopGuardSpanProcessor({ interpreters: [aiSdkSpanInterpreter] })`
 * guards an app that only turned on the AI SDK's `experimental_telemetry`.
 *
 * The processor reads a call's result from `gen_ai.tool.call.result`; the AI SDK writes it to
 * `ai.toolCall.result`, so results are only fingerprinted once the processor reads the
 * `resultAttribute` this interpreter names (see `AiSdkCallSpan.outcome` for the parsed value).
 * Until then the processor sees AI SDK calls as "succeeded, content unknown": repeats are
 * refused on the span, but rounds are never stale. AI SDK 7's `@ai-sdk/otel` spans follow the
 * GenAI conventions and need no interpreter.
 */
export const aiSdkSpanInterpreter: SpanInterpreter = (name, attributes) => {
  const role = interpretAiSdkSpan({ name, attributes });
  if (role === undefined) return undefined;
  if (role.role === 'run') return { kind: 'run', runId: role.runId };
  if (role.role === 'round') return { kind: 'round' };
  const rawArguments = attributes['ai.toolCall.args'];
  const call = {
    kind: 'call' as const,
    tool: role.tool,
    callId: role.callId,
    argsHash: undefined,
    rawArguments: typeof rawArguments === 'string' ? rawArguments : undefined,
    // Where this convention keeps the result. Not part of SpanRole yet: the processor reads
    // `gen_ai.tool.call.result`; once it honours this field, AI SDK results are fingerprinted.
    resultAttribute: 'ai.toolCall.result',
  };
  return call;
};
