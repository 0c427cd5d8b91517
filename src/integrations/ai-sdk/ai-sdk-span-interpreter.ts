import type { SpanInterpreter } from '../../otel/span-roles.js';
import { interpretAiSdkSpan } from './interpret-ai-sdk-span.js';

/**
 * {@link interpretAiSdkSpan} in the shape the span processor takes (`interpreters` option of
 * LoopGuardSpanProcessor): `new LoopGuardSpanProcessor({ interpreters: [aiSdkSpanInterpreter] })`
 * guards an app that only turned on the AI SDK's `experimental_telemetry`.
 *
 * The processor reads a call's result from `gen_ai.tool.call.result`; the AI SDK writes it to
 * `ai.toolCall.result`, so results are only fingerprinted once the processor reads that
 * attribute for these spans (see `AiSdkCallSpan.outcome`, which has it parsed).
 */
export const aiSdkSpanInterpreter: SpanInterpreter = (name, attributes) => {
  const role = interpretAiSdkSpan({ name, attributes });
  if (role === undefined) return undefined;
  if (role.role === 'run') return { kind: 'run', runId: role.runId };
  if (role.role === 'round') return { kind: 'round' };
  const rawArguments = attributes['ai.toolCall.args'];
  return {
    kind: 'call',
    tool: role.tool,
    callId: role.callId,
    argsHash: undefined,
    rawArguments: typeof rawArguments === 'string' ? rawArguments : undefined,
  };
};
