// `loopguard/mcp`: needs `@modelcontextprotocol/sdk` only for the types of `guardMcpClient`;
// nothing here loads the SDK at run time (the stdio proxy forwards raw JSON-RPC). Every
// symbol by name.
export { guardMcpClient, type GuardMcpClientOptions, type GuardedMcpClient } from './guard-mcp-client.js';
export { startMcpStdioProxy, type McpStdioProxyOptions, type McpStdioProxy } from './start-mcp-stdio-proxy.js';
export { effectFromMcpAnnotations } from './effect-from-mcp-annotations.js';
export { mcpToolPolicies, type McpToolDescription, type AiSdkMcpToolLike } from './mcp-tool-policies.js';
export {
  MCP_META_NUDGE,
  MCP_META_REFUSAL,
  MCP_META_STOP,
  type McpCallToolResult,
} from './mcp-call-tool-result.js';
export { getLoopGuardOutcome, type LoopGuardOutcome } from '../get-loop-guard-outcome.js';
export type { DeliveredRefusal } from '../delivered-refusals.js';
