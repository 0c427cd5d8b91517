import type { Context } from '@opentelemetry/api';
import {
  ATTR_ERROR_TYPE,
  ATTR_GEN_AI_AGENT_NAME,
  ATTR_GEN_AI_OPERATION_NAME,
  ATTR_GEN_AI_TOOL_CALL_ARGUMENTS,
  ATTR_GEN_AI_TOOL_CALL_ID,
  ATTR_GEN_AI_TOOL_CALL_RESULT,
  ATTR_GEN_AI_TOOL_NAME,
  ATTR_GEN_AI_TOOL_TYPE,
  ATTR_RUN_ID,
  OPERATION_EXECUTE_TOOL,
  OPERATION_INVOKE_AGENT,
} from '../../otel/attributes.js';
import type { ProcessedReadableSpan, ProcessedSpan, SdkSpanProcessor } from '../../otel/sdk-span-types.js';
import { failOpen } from '../fail-open.js';
import { interpretAiSdkSpan } from './interpret-ai-sdk-span.js';

/**
 * Adds the OpenTelemetry GenAI attributes to the Vercel AI SDK's own spans (AI SDK 5/6
 * `experimental_telemetry`, or AI SDK 7's LegacyOpenTelemetry): `ai.generateText` becomes an
 * `invoke_agent` span (with `loopguard.run.id` from `metadata.runId`), each
 * `ai.generateText.doGenerate` a `chat` span, each `ai.toolCall` an `execute_tool` span with the
 * tool name, call id, arguments and, when it ends, its result.
 *
 * Register it before LoopGuardSpanProcessor and the processor guards an app that only turned on
 * the SDK's telemetry, results included (repeats, stale rounds, failures), without wrapping a
 * tool; traces also show in GenAI-aware backends. Observe only: the SDK still runs every call.
 *
 * ```ts
 * new TracerProvider({ spanProcessors: [new AiSdkGenAiSpanProcessor(), new LoopGuardSpanProcessor(), exporter] });
 * ```
 *
 * Attributes already present are never overwritten; a failure here is logged and ignored.
 */
export class AiSdkGenAiSpanProcessor implements SdkSpanProcessor {
  /**
   * SDK hook: gives the AI SDK's span its GenAI name and attributes (`invoke_agent`, `chat`,
   * `execute_tool`, arguments).
   */
  onStart(span: ProcessedSpan, _parentContext: Context): void {
    failOpen('AiSdkGenAiSpanProcessor.onStart', () => annotateStart(span), undefined);
  }

  /** Runs while the span is still writable, before processors registered after it see the end. */
  onEnding(span: ProcessedSpan): void {
    failOpen('AiSdkGenAiSpanProcessor.onEnding', () => annotateEnd(span), undefined);
  }

  /** SDK hook: nothing to do once the span is read-only. */
  onEnd(_span: ProcessedReadableSpan): void {}

  /** Nothing is buffered: resolves at once. */
  forceFlush(): Promise<void> {
    return Promise.resolve();
  }

  /** Nothing to release: resolves at once. */
  shutdown(): Promise<void> {
    return Promise.resolve();
  }
}

function annotateStart(span: ProcessedSpan): void {
  const role = interpretAiSdkSpan({ name: span.name, attributes: span.attributes });
  if (role === undefined || span.attributes[ATTR_GEN_AI_OPERATION_NAME] !== undefined) return;
  if (role.role === 'run') {
    span.setAttribute(ATTR_GEN_AI_OPERATION_NAME, OPERATION_INVOKE_AGENT);
    if (role.runId !== undefined && span.attributes[ATTR_RUN_ID] === undefined) span.setAttribute(ATTR_RUN_ID, role.runId);
    if (role.agentName !== undefined) span.setAttribute(ATTR_GEN_AI_AGENT_NAME, role.agentName);
    return;
  }
  if (role.role === 'round') {
    span.setAttribute(ATTR_GEN_AI_OPERATION_NAME, 'chat');
    return;
  }
  span.setAttribute(ATTR_GEN_AI_OPERATION_NAME, OPERATION_EXECUTE_TOOL);
  span.setAttribute(ATTR_GEN_AI_TOOL_NAME, role.tool);
  span.setAttribute(ATTR_GEN_AI_TOOL_TYPE, 'function');
  if (role.callId !== undefined) span.setAttribute(ATTR_GEN_AI_TOOL_CALL_ID, role.callId);
  const args = span.attributes['ai.toolCall.args'];
  if (typeof args === 'string') span.setAttribute(ATTR_GEN_AI_TOOL_CALL_ARGUMENTS, args);
}

function annotateEnd(span: ProcessedSpan): void {
  if (span.attributes['ai.operationId'] !== 'ai.toolCall') return;
  const role = interpretAiSdkSpan({ name: span.name, attributes: span.attributes, status: span.status, events: span.events });
  if (role?.role !== 'call' || role.outcome === undefined) return;
  if ('error' in role.outcome) {
    if (span.attributes[ATTR_ERROR_TYPE] === undefined) span.setAttribute(ATTR_ERROR_TYPE, role.outcome.error.type ?? 'error');
    return;
  }
  const result = span.attributes['ai.toolCall.result'];
  if (typeof result === 'string' && span.attributes[ATTR_GEN_AI_TOOL_CALL_RESULT] === undefined) {
    span.setAttribute(ATTR_GEN_AI_TOOL_CALL_RESULT, result);
  }
}
