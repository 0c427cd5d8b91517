import { ATTR_GEN_AI_TOOL_CALL_ARGUMENTS, ATTR_GEN_AI_TOOL_CALL_RESULT, ATTR_GEN_AI_TOOL_NAME } from '../../otel/attributes.js';
import { copyAttribute, type SpanConventionReader } from './span-reading.js';

/**
 * Pydantic Logfire, as Pydantic AI instruments agents: tool calls are `running tool` spans
 * (instrumentation version 1) or `execute_tool <name>` (version 2+) with `gen_ai.tool.name`
 * and the call in `tool_arguments` / the result in `tool_response` (later versions also write
 * `gen_ai.tool.call.arguments` / `.result`, which win); runs are `agent run` (version 1) or
 * `invoke_agent <name>`; model calls are GenAI `chat <model>` spans. Only the names the GenAI
 * reader does not already know are handled here; the rest falls through to it.
 * With `include_content=False` neither arguments nor results are recorded: such calls have
 * no identity (see the Traceloop reader).
 */
export const readLogfireSpan: SpanConventionReader = (name, attributes) => {
  if (attributes['tool_arguments'] !== undefined || attributes['tool_response'] !== undefined) {
    copyAttribute(attributes, 'tool_arguments', ATTR_GEN_AI_TOOL_CALL_ARGUMENTS);
    copyAttribute(attributes, 'tool_response', ATTR_GEN_AI_TOOL_CALL_RESULT);
  }
  if (name === 'running tool' && typeof attributes[ATTR_GEN_AI_TOOL_NAME] === 'string') return { role: 'tool', flavor: 'genai', convention: 'logfire' };
  if (name === 'agent run') return { role: 'run', flavor: 'genai', convention: 'logfire' };
  return undefined;
};
