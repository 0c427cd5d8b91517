// End to end: the official MCP SDK Client drives `loopguard mcp-proxy` (a real process) in
// front of the real published @modelcontextprotocol/server-filesystem over a temporary folder,
// and in front of a small echo server for what the filesystem server does not do.
import { execFileSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { readFile, writeFile, mkdir } from 'node:fs/promises';
import { join } from 'node:path';
import { expect } from 'chai';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { ListRootsRequestSchema, type CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import { z } from 'zod';
import {
  connectThroughProxy,
  echoServer,
  filesystemServer,
  isAlive,
  metaOf,
  spawnProxy,
  temporaryFolder,
  textOf,
  waitFor,
  type ProxiedClient,
} from './mcp-proxy-helpers.js';

describe('loopguard mcp-proxy (end to end, real server-filesystem)', function () {
  this.timeout(60_000);
  let folder: { dir: string; remove(): Promise<void> };
  let proxied: ProxiedClient | undefined;

  beforeEach(async () => {
    folder = await temporaryFolder();
    await mkdir(join(folder.dir, 'notes'));
    await writeFile(join(folder.dir, 'notes', 'a.md'), '# A\nrefund window is 30 days\n');
    await writeFile(join(folder.dir, 'notes', 'b.md'), '# B\nshipping takes 5 days\n');
  });
  afterEach(async () => {
    await proxied?.close();
    proxied = undefined;
    await folder.remove();
  });

  const call = (name: string, args: Record<string, unknown>) => proxied!.client.callTool({ name, arguments: args }) as Promise<CallToolResult>;

  it('refuses a repeated read as isError content, never forwarded, then stops the run; every later call gets the stop message', async () => {
    proxied = await connectThroughProxy(filesystemServer(folder.dir), ['--round-gap-ms', '0']);
    await proxied.client.listTools();
    const file = join(folder.dir, 'notes', 'a.md');

    const first = await call('read_text_file', { path: file });
    expect(first.isError).to.not.equal(true);
    expect(textOf(first)).to.contain('refund window is 30 days');

    // Changed behind the agent's back: had the proxy forwarded the repeat, the new text would show.
    await writeFile(file, '# A\nrefund window is 60 days\n');
    const refused: CallToolResult[] = [];
    for (let round = 2; round <= 4; round++) refused.push(await call('read_text_file', { path: file }));
    for (const result of refused) {
      expect(result.isError).to.equal(true);
      expect(textOf(result)).to.match(/^Not run: read_text_file was already called with these same arguments/);
      expect(textOf(result)).to.not.contain('60 days');
      expect(metaOf(result, 'loopguard/refusal')).to.deep.include({ reason: 'repeat.run_wide' });
    }

    // Three rounds in which nothing could run: the next call finds the run stopped.
    const stopped = await call('read_text_file', { path: file });
    expect(stopped.isError).to.equal(true);
    expect(metaOf(stopped, 'loopguard/stop')).to.deep.equal({ reason: 'refused_rounds' });
    expect(textOf(stopped)).to.match(/^Tool use has ended for this run/);
    // A different tool, new arguments: the stop holds for every call.
    const other = await call('list_directory', { path: folder.dir });
    expect(other.isError).to.equal(true);
    expect(textOf(other)).to.equal(textOf(stopped));
    expect(proxied.stderr()).to.match(/loopguard mcp-proxy: stopped run .* \(refused_rounds\)/);
  });

  it('stops a reworded listing loop: new arguments, the same listing, round after round (stale rounds, nudged first)', async () => {
    proxied = await connectThroughProxy(filesystemServer(folder.dir), ['--round-gap-ms', '0']);
    await proxied.client.listTools();
    const notes = join(folder.dir, 'notes');
    // Spellings of one folder and of one search: every answer after the first of each is already known.
    const calls: Array<[string, Record<string, unknown>]> = [
      ['list_directory', { path: notes }],
      ['list_directory', { path: `${notes}/` }],
      ['list_directory', { path: `${notes}/.` }],
      ['search_files', { path: notes, pattern: '*.md' }],
      ['search_files', { path: notes, pattern: '**/*.md' }],
      ['search_files', { path: `${notes}/`, pattern: '*.md' }],
      ['search_files', { path: `${notes}/.`, pattern: '*.md' }],
      ['search_files', { path: `${notes}/../notes`, pattern: '*.md' }],
      ['search_files', { path: notes, pattern: '*.md', excludePatterns: ['*.txt'] }],
      ['search_files', { path: notes, pattern: '?.md' }],
      ['list_directory', { path: `${notes}/../notes` }],
      ['list_directory', { path: `${notes}//` }],
    ];
    const results: CallToolResult[] = [];
    for (const [name, args] of calls) results.push(await call(name, args));

    expect(results[0]!.isError).to.not.equal(true);
    expect(textOf(results[0])).to.contain('[FILE] a.md');
    // Stale from round 2: the nudge rides on the next result, after the tool's own text.
    const nudged = results.find((result) => metaOf(result, 'loopguard/nudge') !== undefined);
    expect(nudged, 'a nudge was delivered').to.not.equal(undefined);
    expect(nudged!.isError).to.not.equal(true);
    expect(nudged!.content.length).to.be.greaterThan(1);
    const stopIndex = results.findIndex((result) => metaOf(result, 'loopguard/stop') !== undefined);
    expect(stopIndex, 'the run was stopped').to.be.greaterThan(0);
    expect(metaOf(results[stopIndex], 'loopguard/stop')).to.deep.equal({ reason: 'stale_rounds' });
    for (const result of results.slice(stopIndex)) expect(result.isError).to.equal(true);
  });

  it('leaves honest work alone: read, write, read again after the write, other files', async () => {
    proxied = await connectThroughProxy(filesystemServer(folder.dir), ['--round-gap-ms', '0']);
    await proxied.client.listTools();
    const a = join(folder.dir, 'notes', 'a.md');
    const b = join(folder.dir, 'notes', 'b.md');
    const c = join(folder.dir, 'notes', 'c.md');
    const results = [
      await call('read_text_file', { path: a }),
      await call('write_file', { path: a, content: '# A\nrefund window is 45 days\n' }),
      await call('read_text_file', { path: a }), // the same read: allowed, the write may have changed it
      await call('read_text_file', { path: b }),
      await call('write_file', { path: c, content: 'new notes\n' }),
      await call('list_directory', { path: join(folder.dir, 'notes') }),
      await call('read_text_file', { path: c }),
      await call('edit_file', { path: a, edits: [{ oldText: '45 days', newText: '50 days' }] }),
      await call('read_text_file', { path: a }),
    ];
    for (const result of results) {
      expect(result.isError, textOf(result)).to.not.equal(true);
      expect(result._meta?.['loopguard/refusal']).to.equal(undefined);
      expect(result._meta?.['loopguard/stop']).to.equal(undefined);
      expect(result._meta?.['loopguard/nudge']).to.equal(undefined);
    }
    expect(textOf(results[2])).to.contain('45 days');
    expect(textOf(results[8])).to.contain('50 days');
    expect(await readFile(c, 'utf8')).to.equal('new notes\n');
    expect(proxied.stderr()).to.not.contain('stopped run');
  });

  it('counts rounds by quiet gaps: calls closer than --round-gap-ms are one round, so the same loop is refused but never stopped', async () => {
    proxied = await connectThroughProxy(filesystemServer(folder.dir), ['--round-gap-ms', '60000']);
    await proxied.client.listTools();
    const file = join(folder.dir, 'notes', 'a.md');
    const results: CallToolResult[] = [];
    for (let index = 0; index < 8; index++) results.push(await call('read_text_file', { path: file }));
    expect(results[0]!.isError).to.not.equal(true);
    for (const result of results.slice(1)) expect(metaOf(result, 'loopguard/refusal')).to.deep.include({ reason: 'repeat.run_wide' });
    // All eight arrived within one gap: one round, which the stale and refused streaks count once.
    expect(results.some((result) => metaOf(result, 'loopguard/stop') !== undefined)).to.equal(false);
  });

  it('forwards server-to-client requests: roots/list from the server reaches the client and its answer goes back', async () => {
    const other = await temporaryFolder();
    try {
      const client = new Client({ name: 'loopguard-test', version: '1.0.0' }, { capabilities: { roots: { listChanged: true } } });
      let rootsAsked = 0;
      client.setRequestHandler(ListRootsRequestSchema, async () => {
        rootsAsked += 1;
        return { roots: [{ uri: `file://${other.dir}`, name: 'other' }] };
      });
      // The test polls list_allowed_directories until the server has taken the new roots: for
      // loopguard that is polling (identical calls, same answer), declared as such. Undeclared,
      // the second identical read is refused as a repeat, and when the first poll came before
      // the server applied the roots (seen on Node 24), the new answer was never fetched.
      const policy = join(other.dir, 'policy.json');
      await writeFile(policy, JSON.stringify({ tools: { list_allowed_directories: { poll: { deadlineMs: 60_000 } } } }));
      proxied = await connectThroughProxy(filesystemServer(folder.dir), ['--policy', policy], { client });
      await waitFor(async () => rootsAsked > 0 && textOf(await call('list_allowed_directories', {})).includes(other.dir));
      expect(textOf(await call('list_allowed_directories', {}))).to.not.contain(folder.dir);
    } finally {
      await other.remove();
    }
  });

  it('passes an error answer of the server through unchanged (resources/list on a server without resources)', async () => {
    proxied = await connectThroughProxy(filesystemServer(folder.dir));
    const error = await proxied.client.listResources().then(() => undefined, (caught: unknown) => caught as { code: number; message: string });
    expect(error).to.include({ code: -32601 });
    expect(await proxied.client.ping()).to.deep.equal({});
  });
});

describe('loopguard mcp-proxy (end to end, echo server)', function () {
  this.timeout(60_000);
  let proxied: ProxiedClient | undefined;
  afterEach(async () => {
    await proxied?.close();
    proxied = undefined;
  });

  it('passes resources, prompts, ping, unknown requests and unknown notifications both ways; the server stderr comes through', async () => {
    proxied = await connectThroughProxy(echoServer());
    const { client } = proxied;
    expect((await client.listResources()).resources.map((resource) => resource.uri)).to.deep.equal(['echo://readme']);
    expect((await client.readResource({ uri: 'echo://readme' })).contents[0]).to.include({ text: 'the readme resource' });
    expect((await client.listPrompts()).prompts.map((prompt) => prompt.name)).to.deep.equal(['greet']);
    expect((await client.getPrompt({ name: 'greet', arguments: { name: 'Ada' } })).messages[0]!.content).to.deep.include({ text: 'Hello Ada' });
    expect(await client.ping()).to.deep.equal({});

    const custom = await client.request(
      { method: 'vendor/custom', params: { anything: [1, 2, 3], nested: { kept: true } } },
      z.object({ echoedMethod: z.string(), echoedParams: z.unknown() }),
    );
    expect(custom).to.deep.equal({ echoedMethod: 'vendor/custom', echoedParams: { anything: [1, 2, 3], nested: { kept: true } } });

    const echoes: unknown[] = [];
    client.fallbackNotificationHandler = async (notification) => void echoes.push(notification);
    await client.notification({ method: 'notifications/vendor_ping', params: { n: 7 } });
    await waitFor(() => echoes.length > 0);
    expect(echoes[0]).to.deep.include({ method: 'notifications/echo', params: { method: 'notifications/vendor_ping', params: { n: 7 } } });
    await waitFor(() => proxied!.stderr().includes("echo-server: started (this line is the server's stderr)"));
  });

  it('refuses a repeated read-only lookup (readOnlyHint from tools/list) without the server seeing it', async () => {
    proxied = await connectThroughProxy(echoServer(), ['--round-gap-ms', '0']);
    const { client } = proxied;
    await client.listTools();
    const first = (await client.callTool({ name: 'lookup', arguments: { key: 'k' } })) as CallToolResult;
    expect(textOf(first)).to.equal('value of k');
    const second = (await client.callTool({ name: 'lookup', arguments: { key: 'k' } })) as CallToolResult;
    expect(metaOf(second, 'loopguard/refusal')).to.deep.include({ reason: 'repeat.run_wide' });
    expect(textOf(await client.callTool({ name: 'lookup', arguments: { key: 'other' } }))).to.equal('value of other');
    // lookups_served is the server's own count: the refused call never reached it.
    expect(textOf(await client.callTool({ name: 'lookups_served', arguments: {} }))).to.equal('2');
  });
});

describe('loopguard mcp-proxy (process lifetime)', function () {
  this.timeout(60_000);

  const initialize = JSON.stringify({
    jsonrpc: '2.0',
    id: 1,
    method: 'initialize',
    params: { protocolVersion: '2025-06-18', capabilities: {}, clientInfo: { name: 'raw', version: '1' } },
  });

  it('exits with the server\'s exit code when the server exits, though the client still holds stdin open', async () => {
    const proxy = spawnProxy([], echoServer(), { ECHO_SERVER_EXIT_AFTER_MS: '300', ECHO_SERVER_EXIT_CODE: '3' });
    proxy.child.stdin.write(`${initialize}\n`);
    const { code } = await proxy.exited;
    expect(code).to.equal(3);
    expect(proxy.stdout()).to.contain('"serverInfo"');
  });

  it('stops the server when the client closes stdin, and when the proxy gets SIGTERM', async () => {
    const folder = await temporaryFolder();
    try {
      for (const how of ['stdin', 'SIGTERM'] as const) {
        const pidFile = join(folder.dir, `${how}.pid`);
        const proxy = spawnProxy([], echoServer(), { ECHO_SERVER_PID_FILE: pidFile });
        proxy.child.stdin.write(`${initialize}\n`);
        await waitFor(() => proxy.stdout().includes('"serverInfo"'));
        const serverPid = Number(await readFile(pidFile, 'utf8'));
        expect(isAlive(serverPid)).to.equal(true);
        if (how === 'stdin') proxy.child.stdin.end();
        else proxy.child.kill('SIGTERM');
        const { code } = await proxy.exited;
        expect(code, how).to.be.a('number');
        expect(isAlive(serverPid), `server still running after ${how}`).to.equal(false);
      }
    } finally {
      await folder.remove();
    }
  });

  it('answers 127 when the server cannot be started and 2 for a bad policy file, naming the problem on stderr', async () => {
    const missing = spawnProxy([], ['loopguard-no-such-server-binary']);
    missing.child.stdin.end();
    expect((await missing.exited).code).to.equal(127);
    expect(missing.stderr()).to.contain('cannot start "loopguard-no-such-server-binary": ENOENT');
    expect(missing.stdout()).to.equal('');

    const folder = await temporaryFolder();
    try {
      const policy = join(folder.dir, 'policy.json');
      await writeFile(policy, JSON.stringify({ staleRounds: 0 }));
      const bad = spawnProxy(['--policy', policy], echoServer());
      bad.child.stdin.end();
      expect((await bad.exited).code).to.equal(2);
      expect(bad.stderr()).to.contain('staleRounds');
    } finally {
      await folder.remove();
    }
  });

  /** Child pids of a process (pgrep -P), none if it has none. */
  const childrenOf = (pid: number): number[] => {
    try {
      return execFileSync('pgrep', ['-P', String(pid)], { encoding: 'utf8' }).split('\n').filter(Boolean).map(Number);
    } catch {
      return [];
    }
  };
  /** The proxy in front of a shell whose grandchild holds the server's stdout; the pids of both. */
  async function proxyBeforeShell(script: string): Promise<{ proxy: ReturnType<typeof spawnProxy>; shell: number; sleep: number }> {
    const proxy = spawnProxy([], ['sh', '-c', script]);
    let shell = 0;
    let sleep = 0;
    await waitFor(() => {
      shell = childrenOf(proxy.child.pid!)[0] ?? 0;
      sleep = shell === 0 ? 0 : (childrenOf(shell)[0] ?? 0);
      return sleep !== 0;
    });
    return { proxy, shell, sleep };
  }
  /** Running: not gone and not a zombie waiting for a parent that does not reap (as in some containers). */
  const isRunning = (pid: number): boolean => {
    if (!isAlive(pid)) return false;
    try {
      return !/^\d+ \(.*\) Z/.test(readFileSync(`/proc/${pid}/stat`, 'utf8'));
    } catch {
      return process.platform !== 'linux';
    }
  };
  const exitedWithin = (proxy: ReturnType<typeof spawnProxy>, ms: number) =>
    Promise.race([proxy.exited, new Promise<undefined>((resolve) => setTimeout(() => resolve(undefined), ms).unref())]);

  it('issue 23 #13: exits on SIGTERM, SIGINT and stdin close though the server\'s grandchild holds its stdout, and ends that grandchild', async () => {
    for (const how of ['SIGTERM', 'SIGINT', 'stdin'] as const) {
      const { proxy, sleep } = await proxyBeforeShell('sleep 25; :');
      if (how === 'stdin') proxy.child.stdin.end();
      else proxy.child.kill(how);
      // Two grace periods (2 s each) and room to spare; the sleep alone lasts 25 s.
      const exit = await exitedWithin(proxy, 12_000);
      if (exit === undefined) proxy.child.kill('SIGKILL');
      expect(exit, `the proxy exited after ${how}`).to.not.equal(undefined);
      await waitFor(() => !isRunning(sleep), 5_000).catch(() => undefined);
      expect(isRunning(sleep), `the server's grandchild ended after ${how}`).to.equal(false);
    }
  });

  it('issue 23 #13: a second signal ends the proxy and the server\'s process group at once (exit 128 + signal)', async () => {
    // The server ignores SIGTERM (sleep inherits that), so the first signal would wait for the grace.
    const { proxy, sleep } = await proxyBeforeShell('trap "" TERM; sleep 25; :');
    proxy.child.kill('SIGTERM');
    await new Promise((resolve) => setTimeout(resolve, 300));
    proxy.child.kill('SIGINT');
    const exit = await exitedWithin(proxy, 12_000);
    if (exit === undefined) proxy.child.kill('SIGKILL');
    expect(exit?.code).to.equal(130);
    await waitFor(() => !isRunning(sleep), 5_000).catch(() => undefined);
    expect(isRunning(sleep)).to.equal(false);
  });

  it('issue 23 #14: an empty server command is one line on stderr and exit 2, as no command', async () => {
    const empty = spawnProxy([], ['']);
    empty.child.stdin.end();
    expect((await empty.exited).code).to.equal(2);
    expect(empty.stderr().trim().split('\n')).to.have.length(1);
    expect(empty.stderr()).to.match(/^loopguard mcp-proxy: .*command/);
    expect(empty.stderr()).to.not.contain('    at ');
    expect(empty.stdout()).to.equal('');
  });
});
