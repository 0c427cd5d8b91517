import type { ToolAnnotations, ToolPolicy } from '../../core/types.js';

/** A tool as `tools/list` describes it (the fields loopguard reads). */
export interface McpToolDescription {
  name: string;
  annotations?: ToolAnnotations;
}

/** A tool of the AI SDK's MCP client (`@ai-sdk/mcp`): its annotations sit on `metadata`. */
export interface AiSdkMcpToolLike {
  metadata?: { annotations?: ToolAnnotations } | Record<string, unknown>;
}

/**
 * Per-tool policies carrying each tool's MCP annotations, for `new LoopGuard({ tools })`.
 * Takes the `tools` of a `tools/list` result (`(await client.listTools()).tools`) or the tool
 * set of the AI SDK's MCP client (`await mcpClient.tools()`, whose tools carry
 * `metadata.annotations`). Tools without annotations get no entry, so the policy's own
 * defaults (the well-known tool table, else `unknown`) still apply to them.
 *
 * Use it where loopguard does not see `tools/list` itself — the AI SDK's `guardTools` over an
 * MCP tool set; `guardMcpClient` and `loopguard mcp-proxy` read the annotations for you.
 */
export function mcpToolPolicies(
  tools: readonly McpToolDescription[] | Readonly<Record<string, AiSdkMcpToolLike>>,
): Record<string, ToolPolicy> {
  const policies: Record<string, ToolPolicy> = {};
  const add = (name: unknown, annotations: unknown): void => {
    if (typeof name !== 'string' || typeof annotations !== 'object' || annotations === null) return;
    const hints: ToolAnnotations = {};
    // Only the hint fields: the engine validates tool policies and rejects unknown keys, and a
    // server may send more (the spec lets annotations grow).
    const record = annotations as Record<string, unknown>;
    for (const key of ['readOnlyHint', 'destructiveHint', 'idempotentHint', 'openWorldHint'] as const) {
      if (typeof record[key] === 'boolean') hints[key] = record[key] as boolean;
    }
    if (Object.keys(hints).length === 0) return;
    Object.defineProperty(policies, name, { value: { annotations: hints }, enumerable: true, writable: true, configurable: true });
  };
  if (Array.isArray(tools)) {
    for (const tool of tools as readonly McpToolDescription[]) add(tool?.name, tool?.annotations);
  } else {
    for (const [name, tool] of Object.entries(tools as Record<string, AiSdkMcpToolLike>)) {
      const metadata = tool?.metadata as { annotations?: unknown } | undefined;
      add(name, metadata?.annotations);
    }
  }
  return policies;
}
