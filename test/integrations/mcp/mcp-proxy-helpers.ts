import { spawn, type ChildProcessWithoutNullStreams } from 'node:child_process';
import { mkdtemp, realpath, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';

export const REPO_ROOT = fileURLToPath(new URL('../../../', import.meta.url));
/** The real published filesystem server, as `npx @modelcontextprotocol/server-filesystem` runs it. */
export const FILESYSTEM_SERVER = join(REPO_ROOT, 'node_modules/@modelcontextprotocol/server-filesystem/dist/index.js');
export const ECHO_SERVER = join(REPO_ROOT, 'test/integrations/mcp/fixtures/echo-mcp-server.ts');
// The real CLI entry (src/cli/main.ts through test/cli/run-cli.ts): the subcommand's wiring is tested too.
const PROXY = ['--import', 'tsx', join(REPO_ROOT, 'test/cli/run-cli.ts'), 'mcp-proxy'];

/** `loopguard mcp-proxy [options] -- <server…>` as a process: node, its arguments. */
export function proxyCommand(proxyOptions: string[], server: string[]): { command: string; args: string[] } {
  return { command: process.execPath, args: [...PROXY, ...proxyOptions, '--', ...server] };
}

export const filesystemServer = (dir: string): string[] => [process.execPath, FILESYSTEM_SERVER, dir];
export const echoServer = (): string[] => [process.execPath, '--import', 'tsx', ECHO_SERVER];

export async function temporaryFolder(): Promise<{ dir: string; remove(): Promise<void> }> {
  // realpath: the filesystem server compares resolved paths (macOS /var -> /private/var).
  const dir = await realpath(await mkdtemp(join(tmpdir(), 'loopguard-mcp-')));
  return { dir, remove: () => rm(dir, { recursive: true, force: true }) };
}

export interface ProxiedClient {
  client: Client;
  /** Everything the proxy wrote on stderr (the server's stderr passes through it). */
  stderr(): string;
  close(): Promise<void>;
}

/** The official SDK client, over stdio, in front of the proxy in front of `server`. */
export async function connectThroughProxy(
  server: string[],
  proxyOptions: string[] = [],
  options: { env?: Record<string, string>; client?: Client } = {},
): Promise<ProxiedClient> {
  const { command, args } = proxyCommand(proxyOptions, server);
  const transport = new StdioClientTransport({
    command,
    args,
    cwd: REPO_ROOT,
    env: { ...(process.env as Record<string, string>), ...options.env },
    stderr: 'pipe',
  });
  let stderr = '';
  transport.stderr?.on('data', (chunk: Buffer) => (stderr += chunk.toString('utf8')));
  const client = options.client ?? new Client({ name: 'loopguard-test', version: '1.0.0' });
  await client.connect(transport);
  return { client, stderr: () => stderr, close: () => client.close() };
}

/** The text of a tool result's content parts. */
export function textOf(result: unknown): string {
  const content = (result as CallToolResult).content ?? [];
  return content.map((part) => (part.type === 'text' ? part.text : `[${part.type}]`)).join('\n');
}

export function metaOf(result: unknown, key: string): Record<string, unknown> | undefined {
  return (result as CallToolResult)._meta?.[key] as Record<string, unknown> | undefined;
}

export interface RawProxy {
  child: ChildProcessWithoutNullStreams;
  stdout(): string;
  stderr(): string;
  exited: Promise<{ code: number | null; signal: NodeJS.Signals | null }>;
}

/** The proxy as a bare process, for exit and shutdown tests (no MCP client in the way). */
export function spawnProxy(proxyOptions: string[], server: string[], env: Record<string, string> = {}): RawProxy {
  const { command, args } = proxyCommand(proxyOptions, server);
  const child = spawn(command, args, { cwd: REPO_ROOT, env: { ...process.env, ...env }, stdio: ['pipe', 'pipe', 'pipe'] });
  let stdout = '';
  let stderr = '';
  child.stdout.setEncoding('utf8').on('data', (chunk: string) => (stdout += chunk));
  child.stderr.setEncoding('utf8').on('data', (chunk: string) => (stderr += chunk));
  const exited = new Promise<{ code: number | null; signal: NodeJS.Signals | null }>((resolve) =>
    child.on('close', (code, signal) => resolve({ code, signal })),
  );
  return { child, stdout: () => stdout, stderr: () => stderr, exited };
}

export async function waitFor(condition: () => boolean | Promise<boolean>, timeoutMs = 15_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!(await condition())) {
    if (Date.now() > deadline) throw new Error('timed out waiting for a condition');
    await new Promise((resolve) => setTimeout(resolve, 25));
  }
}

export function isAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
}
