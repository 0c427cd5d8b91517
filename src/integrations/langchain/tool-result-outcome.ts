import { readableText } from '../../core/readable-text.js';
import type { CallOutcome } from '../../core/types.js';

/** Recorded as the error of a call whose ToolMessage came back with `status: 'error'`. */
export class LangChainToolError extends Error {
  override readonly name = 'LangChainToolError';
}

interface ToolMessageLike {
  content: unknown;
  status?: string;
  tool_call_id?: string;
}

/**
 * What an executed call returned, as loopguard records it: the content the model reads.
 * A ToolMessage with `status: 'error'` (LangChain's own way of handing a tool failure to the
 * model: an unknown tool, arguments that do not match the schema) is a failure, so an
 * identical failing call counts toward the same-error and retry checks. A LangGraph `Command`
 * is judged by the ToolMessage for this call inside its update, if it carries one. Content
 * that is JSON text is compared as the value it holds (the fingerprint parses it).
 */
export function toolResultOutcome(output: unknown, toolCallId: string | undefined): CallOutcome {
  try {
    const message = isToolMessage(output) ? output : isCommand(output) ? toolMessageInCommand(output, toolCallId) : undefined;
    if (message === undefined) return { result: isCommand(output) ? (output as { update?: unknown }).update : output };
    if (message.status === 'error') return { error: new LangChainToolError(readableText(message.content, 'a tool error that cannot be read')) };
    return { result: message.content };
  } catch {
    // Read before the engine sees it (every LangChain front: the guarded tools, the middleware,
    // the callback handler): a getter or Proxy that throws must not replace the tool's result
    // nor leave the call unfinished. The engine records what it cannot read as unfingerprintable.
    return { result: output };
  }
}

function isToolMessage(value: unknown): value is ToolMessageLike {
  if (typeof value !== 'object' || value === null) return false;
  const candidate = value as { type?: unknown; tool_call_id?: unknown };
  // Duck-typed (LangChain's own ToolMessage.isInstance checks the same fields), so a message
  // built by another copy of @langchain/core is recognised too.
  return candidate.type === 'tool' && typeof candidate.tool_call_id === 'string';
}

function isCommand(value: unknown): boolean {
  // LangGraph marks its Command objects with `lg_name`; read structurally so loopguard never
  // loads @langchain/langgraph (a user of plain LangChain tools need not install it).
  return typeof value === 'object' && value !== null && (value as { lg_name?: unknown }).lg_name === 'Command';
}

function toolMessageInCommand(command: unknown, toolCallId: string | undefined): ToolMessageLike | undefined {
  const update = (command as { update?: unknown }).update;
  const messages = typeof update === 'object' && update !== null ? (update as { messages?: unknown }).messages : undefined;
  if (!Array.isArray(messages)) return undefined;
  return messages.find((message): message is ToolMessageLike => isToolMessage(message) && (toolCallId === undefined || message.tool_call_id === toolCallId));
}
