import {
  ATTR_GEN_AI_OPERATION_NAME,
  ATTR_GEN_AI_TOOL_NAME,
  MODEL_CALL_OPERATIONS,
  OPERATION_EXECUTE_TOOL,
  OPERATION_INVOKE_AGENT,
} from '../../otel/attributes.js';
import type { SpanConventionReader } from './span-reading.js';

/**
 * OpenTelemetry GenAI semantic conventions (and loopguard's own spans, which follow them):
 * `invoke_agent` runs, `chat` / `generate_content` / `text_completion` model calls,
 * `execute_tool` tool calls with `gen_ai.tool.name`, `gen_ai.tool.call.arguments` / `.result`.
 * Like the span processor, a span that follows only the naming half of the convention
 * ("execute_tool search") is recognised by its name's first word.
 */
export const readGenAiSpan: SpanConventionReader = (name, attributes) => {
  const recorded = attributes[ATTR_GEN_AI_OPERATION_NAME];
  const operation = typeof recorded === 'string' ? recorded : name.split(' ', 1)[0];
  if (operation === OPERATION_INVOKE_AGENT) return { role: 'run', flavor: 'genai', convention: 'gen_ai' };
  if (operation === OPERATION_EXECUTE_TOOL) {
    if (typeof attributes[ATTR_GEN_AI_TOOL_NAME] !== 'string' && name.startsWith(`${OPERATION_EXECUTE_TOOL} `)) {
      attributes[ATTR_GEN_AI_TOOL_NAME] = name.slice(OPERATION_EXECUTE_TOOL.length + 1);
    }
    return { role: 'tool', flavor: 'genai', convention: 'gen_ai' };
  }
  if (operation !== undefined && MODEL_CALL_OPERATIONS.has(operation)) return { role: 'round', flavor: 'genai', convention: 'gen_ai' };
  return undefined;
};
