import { ATTR_GEN_AI_CONVERSATION_ID, ATTR_GEN_AI_TOOL_CALL_ARGUMENTS, ATTR_GEN_AI_TOOL_CALL_RESULT, ATTR_GEN_AI_TOOL_NAME } from '../../otel/attributes.js';
import { copyAttribute, type SpanConventionReader } from './span-reading.js';

/**
 * OpenLLMetry / Traceloop SDK: `traceloop.span.kind` is `tool`, `agent`, `workflow` or
 * `task`; `@tool` functions record `traceloop.entity.name`, `traceloop.entity.input` (JSON of
 * the call: `{"args": [...], "kwargs": {...}}` in Python) and `traceloop.entity.output`. The
 * model calls are OpenLLMetry's provider instrumentations, which follow the GenAI names
 * (`gen_ai.operation.name`, or `llm.request.type` = `chat` / `completion` on older ones).
 * `traceloop.association.properties.session_id` names the run. With `TRACELOOP_TRACE_CONTENT=false`
 * no input or output is recorded: calls cannot be told apart, so only the run-level checks
 * (budgets, failures) see them — said by the replay/serve problem for a call without identity.
 */
export const readTraceloopSpan: SpanConventionReader = (name, attributes) => {
  const kind = attributes['traceloop.span.kind'];
  copyAttribute(attributes, 'traceloop.association.properties.session_id', ATTR_GEN_AI_CONVERSATION_ID);
  if (kind === 'tool') {
    const entity = attributes['traceloop.entity.name'];
    if (typeof attributes[ATTR_GEN_AI_TOOL_NAME] !== 'string') {
      attributes[ATTR_GEN_AI_TOOL_NAME] = typeof entity === 'string' && entity.length > 0 ? entity : name.replace(/\.tool$/, '');
    }
    copyAttribute(attributes, 'traceloop.entity.input', ATTR_GEN_AI_TOOL_CALL_ARGUMENTS);
    copyAttribute(attributes, 'traceloop.entity.output', ATTR_GEN_AI_TOOL_CALL_RESULT);
    return { role: 'tool', flavor: 'genai', convention: 'traceloop' };
  }
  if (kind === 'agent' || kind === 'workflow') return { role: 'run', flavor: 'genai', convention: 'traceloop' };
  const requestType = attributes['llm.request.type'];
  if (kind === undefined && (requestType === 'chat' || requestType === 'completion')) {
    copyAttribute(attributes, 'gen_ai.usage.prompt_tokens', 'gen_ai.usage.input_tokens');
    copyAttribute(attributes, 'gen_ai.usage.completion_tokens', 'gen_ai.usage.output_tokens');
    return { role: 'round', flavor: 'genai', convention: 'traceloop' };
  }
  return undefined;
};
