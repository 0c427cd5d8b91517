import { ATTR_GEN_AI_CONVERSATION_ID, ATTR_GEN_AI_TOOL_CALL_ARGUMENTS, ATTR_GEN_AI_TOOL_CALL_ID, ATTR_GEN_AI_TOOL_CALL_RESULT, ATTR_GEN_AI_TOOL_NAME } from '../../otel/attributes.js';
import { copyAttribute, type SpanConventionReader } from './span-reading.js';

/**
 * OpenInference (Arize Phoenix; its instrumentations of LangChain, LlamaIndex, CrewAI,
 * smolagents, the OpenAI Agents SDK, …): `openinference.span.kind` says what the span is.
 * `TOOL`: a tool call, `tool.name`, arguments in `input.value`, result in `output.value`,
 * id in `tool_call.id` when the instrumentation knows it. `AGENT`: a run. `LLM`: a model call.
 * `session.id` names the run, as `gen_ai.conversation.id` does. An instrumentation that
 * records no `output.value` (output capture switched off) gives a call with no result: it
 * counts as new, so repeats are still refused but a run is never found stale by its results.
 */
export const readOpenInferenceSpan: SpanConventionReader = (_name, attributes) => {
  const kind = attributes['openinference.span.kind'];
  if (typeof kind !== 'string') return undefined;
  copyAttribute(attributes, 'session.id', ATTR_GEN_AI_CONVERSATION_ID);
  switch (kind.toUpperCase()) {
    case 'TOOL':
      copyAttribute(attributes, 'tool.name', ATTR_GEN_AI_TOOL_NAME);
      copyAttribute(attributes, 'input.value', ATTR_GEN_AI_TOOL_CALL_ARGUMENTS);
      copyAttribute(attributes, 'output.value', ATTR_GEN_AI_TOOL_CALL_RESULT);
      copyAttribute(attributes, 'tool_call.id', ATTR_GEN_AI_TOOL_CALL_ID);
      return { role: 'tool', flavor: 'genai', convention: 'openinference' };
    case 'AGENT':
      return { role: 'run', flavor: 'genai', convention: 'openinference' };
    case 'LLM':
      copyAttribute(attributes, 'llm.token_count.prompt', 'gen_ai.usage.input_tokens');
      copyAttribute(attributes, 'llm.token_count.completion', 'gen_ai.usage.output_tokens');
      return { role: 'round', flavor: 'genai', convention: 'openinference' };
    default:
      return undefined;
  }
};
