// An MCP server defined in the tests, connected to a real SDK Client over the SDK's in-memory
// transport: tools whose names are in no well-known table, so only their annotations (or
// their absence) decide their effect, and counters that show which calls reached the server.
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { InMemoryTransport } from '@modelcontextprotocol/sdk/inMemory.js';
import { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import { z } from 'zod';

export interface InMemoryServer {
  client: Client;
  /** Calls that reached each tool. */
  served: Record<string, number>;
  /** tools/list requests the server answered. */
  toolLists(): number;
  close(): Promise<void>;
}

/** The server alone, with the client end of its in-memory transport (for another MCP client, such as @ai-sdk/mcp's). */
export async function startInMemoryServer(): Promise<{ clientTransport: InMemoryTransport; served: Record<string, number>; toolLists(): number; close(): Promise<void> }> {
  const served: Record<string, number> = { lookup: 0, probe: 0, broken: 0, record_note: 0 };
  let servedAt = 0;
  const server = new McpServer({ name: 'in-memory', version: '1.0.0' });
  server.registerTool('lookup', { inputSchema: { key: z.string() }, annotations: { readOnlyHint: true } }, async ({ key }) => {
    served.lookup! += 1;
    return { content: [{ type: 'text', text: `value of ${key}` }], _meta: { servedAt: (servedAt += 1) } };
  });
  // No annotations: nothing says whether it writes.
  server.registerTool('probe', { inputSchema: { key: z.string() } }, async ({ key }) => {
    served.probe! += 1;
    return { content: [{ type: 'text', text: JSON.stringify({ key, status: 'unchanged' }) }], _meta: { servedAt: (servedAt += 1) } };
  });
  server.registerTool('broken', { inputSchema: { key: z.string() } }, async () => {
    served.broken! += 1;
    return { content: [{ type: 'text', text: 'configuration missing: set BROKEN_URL' }], isError: true };
  });
  server.registerTool(
    'record_note',
    { inputSchema: { text: z.string() }, annotations: { readOnlyHint: false, destructiveHint: false } },
    async ({ text }) => {
      served.record_note! += 1;
      return { content: [{ type: 'text', text: `noted: ${text}` }] };
    },
  );
  let toolLists = 0;
  const [clientTransport, serverTransport] = InMemoryTransport.createLinkedPair();
  await server.connect(serverTransport);
  const deliver = serverTransport.onmessage;
  serverTransport.onmessage = (message, extra) => {
    if ('method' in message && message.method === 'tools/list') toolLists += 1;
    deliver?.(message, extra);
  };
  return { clientTransport, served, toolLists: () => toolLists, close: () => server.close() };
}

export async function connectInMemoryServer(): Promise<InMemoryServer> {
  const started = await startInMemoryServer();
  const client = new Client({ name: 'loopguard-test', version: '1.0.0' });
  await client.connect(started.clientTransport);
  return {
    client,
    served: started.served,
    toolLists: started.toolLists,
    close: async () => {
      await client.close();
      await started.close();
    },
  };
}
