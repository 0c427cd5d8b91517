// The proxy is a faithful pipe (issue 23, "transparency test"): one scripted session of the
// official SDK client against the real @modelcontextprotocol/server-everything, once directly
// and once through `loopguard mcp-proxy` (the real CLI entry), recording the raw stdio lines on
// the client's side. Nothing in the script is refused, so both recordings must hold the same
// lines, byte for byte, in each direction.
import { spawn, type ChildProcessWithoutNullStreams } from 'node:child_process';
import { join } from 'node:path';
import { expect } from 'chai';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import type { Transport } from '@modelcontextprotocol/sdk/shared/transport.js';
import {
  CreateMessageRequestSchema,
  ElicitRequestSchema,
  ListRootsRequestSchema,
  LoggingMessageNotificationSchema,
  type JSONRPCMessage,
} from '@modelcontextprotocol/sdk/types.js';
import { REPO_ROOT, proxyCommand, waitFor } from './mcp-proxy-helpers.js';

const EVERYTHING_SERVER = join(REPO_ROOT, 'node_modules/@modelcontextprotocol/server-everything/dist/index.js');

/** A stdio client transport that keeps every line as it crossed the pipe. */
class RecordingStdioTransport implements Transport {
  onclose?: () => void;
  onerror?: (error: Error) => void;
  onmessage?: (message: JSONRPCMessage) => void;
  readonly sent: string[] = [];
  readonly received: string[] = [];
  private child: ChildProcessWithoutNullStreams | undefined;
  private buffered = Buffer.alloc(0);

  constructor(private readonly command: string, private readonly args: string[]) {}

  async start(): Promise<void> {
    const child = spawn(this.command, this.args, { cwd: REPO_ROOT, stdio: ['pipe', 'pipe', 'pipe'] });
    this.child = child;
    child.stderr.resume();
    child.stdout.on('data', (chunk: Buffer) => {
      this.buffered = Buffer.concat([this.buffered, chunk]);
      for (let newline = this.buffered.indexOf(10); newline >= 0; newline = this.buffered.indexOf(10)) {
        const line = this.buffered.subarray(0, newline).toString('utf8');
        this.buffered = this.buffered.subarray(newline + 1);
        this.received.push(line);
        try {
          this.onmessage?.(JSON.parse(line) as JSONRPCMessage);
        } catch (error) {
          this.onerror?.(error as Error);
        }
      }
    });
    child.on('close', () => this.onclose?.());
  }

  async send(message: JSONRPCMessage): Promise<void> {
    const line = JSON.stringify(message);
    this.sent.push(line);
    this.child!.stdin.write(`${line}\n`);
  }

  async close(): Promise<void> {
    const child = this.child;
    if (child === undefined || child.exitCode !== null) return;
    const closed = new Promise((resolve) => child.once('close', resolve));
    child.stdin.end();
    await closed;
  }
}

/** The script: every capability once, in a fixed order; returns what the client saw. */
async function runSession(command: string, args: string[]): Promise<{ sent: string[]; received: string[] }> {
  const transport = new RecordingStdioTransport(command, args);
  const client = new Client(
    { name: 'loopguard-transparency', version: '1.0.0' },
    { capabilities: { roots: { listChanged: true }, sampling: {}, elicitation: {} } },
  );
  let rootsAsked = 0;
  client.setRequestHandler(ListRootsRequestSchema, async () => {
    rootsAsked += 1;
    return { roots: [{ uri: 'file:///tmp/loopguard-transparency', name: 'work' }] };
  });
  client.setRequestHandler(CreateMessageRequestSchema, async () => ({
    model: 'test-model',
    role: 'assistant',
    content: { type: 'text', text: 'a sampled answer' },
  }));
  client.setRequestHandler(ElicitRequestSchema, async () => ({ action: 'decline' }));
  const logs: unknown[] = [];
  client.setNotificationHandler(LoggingMessageNotificationSchema, async (notification) => void logs.push(notification.params));
  await client.connect(transport);
  // The server asks for roots 350 ms after initialization and logs what it got.
  await waitFor(() => rootsAsked > 0 && logs.length > 0);

  const tools = await client.listTools();
  expect(tools.tools.map((tool) => tool.name)).to.include.members(['echo', 'get-sum', 'trigger-long-running-operation']);
  await client.callTool({ name: 'echo', arguments: { message: 'hello' } });
  await client.callTool({ name: 'get-sum', arguments: { a: 2, b: 3 } });
  await client.callTool({ name: 'get-roots-list', arguments: {} });
  await client.callTool({ name: 'trigger-sampling-request', arguments: { prompt: 'say something' } });
  await client.callTool({ name: 'trigger-elicitation-request', arguments: {} });
  const progress: unknown[] = [];
  await client.callTool({ name: 'trigger-long-running-operation', arguments: { duration: 0.2, steps: 2 } }, undefined, {
    onprogress: (update) => void progress.push(update),
  });
  expect(progress.length).to.be.greaterThan(0);

  const resources = await client.listResources();
  const uri = resources.resources[0]!.uri;
  await client.readResource({ uri });
  await client.subscribeResource({ uri });
  await client.unsubscribeResource({ uri });
  await client.listResourceTemplates();

  await client.listPrompts();
  await client.getPrompt({ name: 'simple-prompt' });
  await client.complete({ ref: { type: 'ref/prompt', name: 'completable-prompt' }, argument: { name: 'department', value: 'S' } });
  await client.setLoggingLevel('debug');
  await client.ping();

  // Cancellation: the client aborts a long operation at its first progress report.
  const abort = new AbortController();
  const cancelled = client
    .callTool({ name: 'trigger-long-running-operation', arguments: { duration: 5, steps: 50 } }, undefined, {
      signal: abort.signal,
      onprogress: () => abort.abort('enough'),
    })
    .then(
      () => 'finished',
      () => 'cancelled',
    );
  expect(await cancelled).to.equal('cancelled');

  // 20 concurrent calls: their requests and answers interleave on the pipe.
  await Promise.all(Array.from({ length: 20 }, (_, index) => client.callTool({ name: 'echo', arguments: { message: `concurrent ${index}` } })));
  await client.ping();
  await client.close();
  return { sent: transport.sent, received: transport.received };
}

/**
 * Lines that depend on timing, not on the pipe: the progress reports a cancelled operation
 * sent before the cancellation reached the server (one run may see one more than the other).
 */
function comparable(lines: string[]): string[] {
  return lines.filter((line) => !/"method":"notifications\/progress".*"total":50/.test(line)).sort();
}

describe('loopguard mcp-proxy transparency (real server-everything, direct and through the proxy)', function () {
  this.timeout(120_000);

  it('gives the client the same messages, byte for byte, in every capability', async () => {
    const direct = await runSession(process.execPath, [EVERYTHING_SERVER, 'stdio']);
    const { command, args } = proxyCommand([], [process.execPath, EVERYTHING_SERVER, 'stdio']);
    const proxied = await runSession(command, args);

    // The script covers what it says: server-to-client requests, notifications, a cancellation.
    for (const method of ['roots/list', 'sampling/createMessage', 'elicitation/create', 'notifications/progress', 'notifications/message']) {
      expect(direct.received.some((line) => line.includes(`"method":"${method}"`)), method).to.equal(true);
    }
    expect(direct.sent.some((line) => line.includes('"method":"notifications/cancelled"'))).to.equal(true);
    expect(direct.sent.filter((line) => line.includes('"method":"tools/call"'))).to.have.length(27);

    expect(comparable(proxied.sent)).to.deep.equal(comparable(direct.sent));
    expect(comparable(proxied.received)).to.deep.equal(comparable(direct.received));
  });
});
