// `npm run demo -- mcp`: the real MCP filesystem server (@modelcontextprotocol/server-filesystem)
// over stdio in a temporary folder, its tools guarded with guardMcpClient. A scripted agent
// lists one folder under ever new spellings and reads a note it already read (a loop), then
// another reads, edits and re-reads notes (honest work). Offline; the server is a local process.
import { mkdtemp, realpath, rm, writeFile } from 'node:fs/promises';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import { LoopGuard } from '../../../src/core/loop-guard.js';
import { guardMcpClient } from '../../../src/integrations/mcp/index.js';

type Step = [tool: string, args: Record<string, unknown>];

export async function runMcpDemo(out: (line: string) => void): Promise<boolean> {
  const dir = await realpath(await mkdtemp(join(tmpdir(), 'loopguard-mcp-demo-')));
  const server = createRequire(import.meta.url).resolve('@modelcontextprotocol/server-filesystem/dist/index.js');
  const client = new Client({ name: 'loopguard-demo', version: '1.0.0' });
  try {
    await writeFile(join(dir, 'refunds.md'), 'Refunds: within 30 days of delivery.\n');
    await writeFile(join(dir, 'shipping.md'), 'Shipping: 5 working days.\n');
    await client.connect(new StdioClientTransport({ command: process.execPath, args: [server, dir], stderr: 'ignore' }));
    const guard = new LoopGuard();

    out('MCP: @modelcontextprotocol/server-filesystem over stdio, tools guarded by guardMcpClient (one round per call)');
    const loop = await play(client, guard, out, dir, 'looping agent', [
      ['list_directory', { path: dir }],
      ['read_text_file', { path: join(dir, 'refunds.md') }],
      ['list_directory', { path: `${dir}/` }],
      ['read_text_file', { path: join(dir, 'refunds.md') }],
      ['list_directory', { path: `${dir}/.` }],
      ['search_files', { path: dir, pattern: '*.md' }],
      ['search_files', { path: dir, pattern: '**/*.md' }],
      ['search_files', { path: `${dir}/`, pattern: '*.md' }],
      ['list_directory', { path: `${dir}//` }],
      ['search_files', { path: `${dir}/.`, pattern: '*.md' }],
      ['list_directory', { path: `${dir}/./.` }],
      ['read_text_file', { path: join(dir, 'shipping.md') }],
    ]);
    const honest = await play(client, guard, out, dir, 'honest agent', [
      ['read_text_file', { path: join(dir, 'refunds.md') }],
      ['edit_file', { path: join(dir, 'refunds.md'), edits: [{ oldText: '30 days', newText: '45 days' }] }],
      ['read_text_file', { path: join(dir, 'refunds.md') }],
      ['write_file', { path: join(dir, 'faq.md'), content: 'FAQ: see refunds.md\n' }],
      ['list_directory', { path: dir }],
      ['read_text_file', { path: join(dir, 'faq.md') }],
    ]);
    const ok = loop.stopReason !== undefined && loop.refused > 0 && honest.stopReason === undefined && honest.refused === 0;
    out(ok ? 'MCP: loop stopped, honest run untouched' : 'MCP: UNEXPECTED — see the lines above');
    return ok;
  } finally {
    await client.close().catch(() => undefined);
    await rm(dir, { recursive: true, force: true });
  }
}

async function play(
  client: Client,
  guard: LoopGuard,
  out: (line: string) => void,
  dir: string,
  name: string,
  steps: Step[],
): Promise<{ stopReason: string | undefined; refused: number }> {
  const guarded = guardMcpClient(client, { guard, roundGapMs: 0 });
  out(`  ${name}:`);
  for (const [index, [tool, args]] of steps.entries()) {
    const result = (await guarded.client.callTool({ name: tool, arguments: args })) as CallToolResult;
    const meta = result._meta ?? {};
    const text = result.content.map((part) => (part.type === 'text' ? part.text : '')).join(' ').replace(/\s+/g, ' ').replaceAll(dir, '<dir>');
    const what = meta['loopguard/stop']
      ? `stopped (${(meta['loopguard/stop'] as { reason: string }).reason}): ${text.slice(0, 70)}…`
      : meta['loopguard/refusal']
        ? `refused (${(meta['loopguard/refusal'] as { reason: string }).reason})`
        : meta['loopguard/nudge']
          ? 'ran, result + nudge: "in the last round … returned only results you have already seen"'
          : `ran: ${text.slice(0, 50)}`;
    out(`    ${String(index + 1).padStart(2)}. ${tool}(${JSON.stringify(args).replaceAll(dir, '<dir>')}) → ${what}`);
  }
  const outcome = guarded.end();
  out(`    ${outcome.stopReason ? `run stopped: ${outcome.stopReason}` : 'run finished, not stopped'}; ${outcome.refusals.length} refused, ${outcome.partial.executed} executed`);
  return { stopReason: outcome.stopReason, refused: outcome.refusals.length };
}
