import type { RefuseDecision, StopDecision } from '../../core/types.js';

/**
 * The part of an MCP `CallToolResult` loopguard writes and reads, declared here so the proxy
 * needs no MCP SDK at run time (`npx loopguard mcp-proxy` installs none).
 */
export interface McpCallToolResult {
  content: Array<{ type: string; text?: string; [key: string]: unknown }>;
  structuredContent?: Record<string, unknown>;
  isError?: boolean;
  _meta?: Record<string, unknown>;
  [key: string]: unknown;
}

/** `_meta` key of a refused call's result: `{ reason, previousCallId? }`. */
export const MCP_META_REFUSAL = 'loopguard/refusal';
/** `_meta` key of a result answered after the run stopped: `{ reason }`. */
export const MCP_META_STOP = 'loopguard/stop';
/** `_meta` key set when loopguard appended a nudge to a tool's own result. */
export const MCP_META_NUDGE = 'loopguard/nudge';

/**
 * A refused call's answer: an error result (`isError: true`) whose text is loopguard's
 * message. MCP puts tool failures the model should read in the result, not in a JSON-RPC
 * error (which clients show to the user, not the model); `isError` also exempts the result
 * from the tool's output schema, so clients validating `structuredContent` accept it.
 */
export function refusalToolResult(decision: RefuseDecision): McpCallToolResult {
  return {
    content: [{ type: 'text', text: decision.message }],
    isError: true,
    _meta: {
      [MCP_META_REFUSAL]: {
        reason: decision.reason,
        ...(decision.previousCallId !== undefined ? { previousCallId: decision.previousCallId } : {}),
      },
    },
  };
}

/** Every call after a stop gets the stop message: tools are over, answer from what you have. */
export function stopToolResult(stop: StopDecision): McpCallToolResult {
  return {
    content: [{ type: 'text', text: stop.message }],
    isError: true,
    _meta: { [MCP_META_STOP]: { reason: stop.reason } },
  };
}

/**
 * The tool's own result with the nudge added as a last text part: MCP has no channel to the
 * model besides tool results, and the parts the tool wrote stay where clients look for them.
 */
export function withNudge<R>(result: R, nudge: string): R {
  if (typeof result !== 'object' || result === null) return result;
  const record = result as Record<string, unknown>;
  try {
    const content = Array.isArray(record.content) ? record.content : [];
    const meta = typeof record._meta === 'object' && record._meta !== null ? (record._meta as Record<string, unknown>) : {};
    return { ...record, content: [...content, { type: 'text', text: nudge }], _meta: { ...meta, [MCP_META_NUDGE]: true } } as R;
  } catch {
    // A result that cannot be read (a getter or Proxy that throws, guardMcpClient's caller
    // may decorate results) goes back as it is: the nudge is lost, the tool's result is not.
    return result;
  }
}

/**
 * What is fingerprinted of a result: what it means (content, structuredContent, isError),
 * never `_meta`, which servers fill with request ids and timings.
 */
export function meaningOfToolResult(result: unknown): unknown {
  if (typeof result !== 'object' || result === null || Array.isArray(result)) return result;
  try {
    const { _meta: _ignored, ...meaning } = result as Record<string, unknown>;
    return meaning;
  } catch {
    // Read before the engine sees the result: a getter or Proxy that throws must not lose the
    // result or leave the call in flight. The engine records what it cannot read as
    // unfingerprintable (a new fact).
    return result;
  }
}
