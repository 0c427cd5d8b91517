// The AI SDK's own OpenTelemetry spans (ai.generateText, ai.generateText.doGenerate,
// ai.toolCall) on both supported majors. AI SDK 6 traces through
// `experimental_telemetry: { tracer, metadata }`; AI SDK 7 moved tracing into integrations
// (`@ai-sdk/otel`: LegacyOpenTelemetry keeps the 6 span shape, OpenTelemetry emits GenAI
// spans) and replaced telemetry metadata with runtime context (`runtimeContext`, recorded as
// `ai.settings.context.*` when listed in `includeRuntimeContext`). CI runs the suite on both
// (npm test: 6, .ci/lane-node24.sh: 7, with @ai-sdk/otel installed).
import type { Tracer } from '@opentelemetry/api';
import type { generateText } from 'ai';

import { installedVersion } from '../../helpers/otel-sdk.js';

/** Major version of the installed `ai` package: 6 or 7. */
export const AI_SDK_MAJOR = Number(installedVersion('ai').split('.')[0]);

interface AiSdkOtel {
  LegacyOpenTelemetry: new (options: { tracer: Tracer }) => unknown;
  OpenTelemetry: new (options: { tracer: Tracer }) => unknown;
}

// A variable specifier: @ai-sdk/otel exists for AI SDK 7 only and is not installed with 6.
const AI_SDK_OTEL = '@ai-sdk/otel';
/** AI SDK 7's OpenTelemetry integrations; undefined with AI SDK 6. */
export const aiSdkOtel: AiSdkOtel | undefined = AI_SDK_MAJOR >= 7 ? ((await import(AI_SDK_OTEL)) as AiSdkOtel) : undefined;

type TelemetrySettings = Pick<Parameters<typeof generateText>[0], 'experimental_telemetry'>;

export interface AiSdkTracingOptions {
  /** `experimental_telemetry.functionId` (the agent's name). */
  functionId?: string;
  /** The run id loopguard reads: telemetry metadata (6) or runtime context (7). */
  runId?: string;
  recordOutputs?: boolean;
  /** Default true. */
  isEnabled?: boolean;
}

/**
 * Settings to spread into generateText / streamText so the SDK traces its own spans, in the
 * AI SDK 6 shape, to `tracer`, with `runId` recorded where interpretAiSdkSpan reads it.
 */
export function aiSdkTracing(tracer: Tracer, options: AiSdkTracingOptions = {}): TelemetrySettings {
  const { functionId, runId, recordOutputs, isEnabled = true } = options;
  const common = { isEnabled, ...(functionId !== undefined ? { functionId } : {}), ...(recordOutputs !== undefined ? { recordOutputs } : {}) };
  if (aiSdkOtel === undefined) {
    return { experimental_telemetry: { ...common, tracer, ...(runId !== undefined ? { metadata: { runId } } : {}) } } as TelemetrySettings;
  }
  return {
    experimental_telemetry: {
      ...common,
      integrations: [new aiSdkOtel.LegacyOpenTelemetry({ tracer })],
      ...(runId !== undefined ? { includeRuntimeContext: { runId: true } } : {}),
    },
    ...(runId !== undefined ? { runtimeContext: { runId } } : {}),
  } as TelemetrySettings;
}
