// Answer tools through the MCP stdio proxy (issue 18 item 1), end to end: a real MCP server
// behind the real proxy process. Once the run stopped every call gets the stop message, but
// the agent's answer (`respond`) is forwarded to the server once.
import { expect } from 'chai';
import { join } from 'node:path';
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';

import { REPO_ROOT, connectThroughProxy, metaOf, textOf, type ProxiedClient } from './mcp-proxy-helpers.js';

const supportDesk = (): string[] => [process.execPath, '--import', 'tsx', join(REPO_ROOT, 'test/integrations/mcp/fixtures/support-desk-mcp-server.ts')];

describe('loopguard mcp-proxy: answer tools are sacred', function () {
  this.timeout(60_000);
  let proxied: ProxiedClient | undefined;
  afterEach(async () => {
    await proxied?.close();
    proxied = undefined;
  });

  it('forwards the answer after the stop, once; every other call gets the stop message', async () => {
    proxied = await connectThroughProxy(supportDesk(), ['--round-gap-ms', '0']);
    const { client } = proxied;
    await client.listTools();
    const call = (name: string, args: Record<string, unknown>) => client.callTool({ name, arguments: args }) as Promise<CallToolResult>;

    await call('get_order', { id: 'W1' });
    for (let round = 0; round < 3; round++) await call('get_order', { id: 'W1' });
    const stopped = await call('get_order', { id: 'W2' });
    expect(metaOf(stopped, 'loopguard/stop')).to.deep.equal({ reason: 'refused_rounds' });

    const answer = await call('respond', { content: 'Your order W1 has shipped.' });
    expect(answer.isError).to.not.equal(true);
    // Only the server says `delivered`: the answer reached it.
    expect(textOf(answer)).to.equal('delivered');
    const again = await call('respond', { content: 'Anything else?' });
    expect(again.isError).to.equal(true);
    expect(metaOf(again, 'loopguard/stop')).to.deep.equal({ reason: 'refused_rounds' });
  });
});
