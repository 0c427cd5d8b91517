import { join } from 'node:path';
import { writeFile } from 'node:fs/promises';
import { expect } from 'chai';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { InMemoryTransport } from '@modelcontextprotocol/sdk/inMemory.js';
import { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import { z } from 'zod';
import { LoopGuard } from '../../../src/core/loop-guard.js';
import { createMemoryRunStore } from '../../../src/core/shared-ledger/create-memory-run-store.js';
import { guardMcpClient, startMcpStdioProxy } from '../../../src/integrations/mcp/index.js';
import { expectSetupErrors, type SetupCase } from '../../helpers/expect-setup-errors.js';
import { connectInMemoryServer, startInMemoryServer, type InMemoryServer } from './in-memory-mcp-server.js';
import { FILESYSTEM_SERVER, metaOf, temporaryFolder, textOf } from './mcp-proxy-helpers.js';

describe('guardMcpClient over the real server-filesystem (stdio)', function () {
  this.timeout(30_000);
  let folder: { dir: string; remove(): Promise<void> };
  let client: Client;

  beforeEach(async () => {
    folder = await temporaryFolder();
    await writeFile(join(folder.dir, 'a.md'), 'refund window is 30 days\n');
    client = new Client({ name: 'loopguard-test', version: '1.0.0' });
    await client.connect(new StdioClientTransport({ command: process.execPath, args: [FILESYSTEM_SERVER, folder.dir], stderr: 'ignore' }));
  });
  afterEach(async () => {
    await client.close();
    await folder.remove();
  });

  it('a looping agent: the repeated listing is refused as isError content, the loop\'s shouldStop stops it, later calls get the stop message', async () => {
    const guarded = guardMcpClient(client, { guard: new LoopGuard() });
    const { run } = guarded;
    const results: CallToolResult[] = [];
    let stop = run.shouldStop();
    for (let turn = 0; turn < 10 && stop.action === 'continue'; turn++, stop = run.shouldStop()) {
      run.beginRound(); // the agent's model call
      results.push((await guarded.client.callTool({ name: 'list_directory', arguments: { path: folder.dir } })) as CallToolResult);
    }
    expect(textOf(results[0])).to.contain('[FILE] a.md');
    for (const result of results.slice(1)) {
      expect(result.isError).to.equal(true);
      expect(metaOf(result, 'loopguard/refusal')).to.deep.include({ reason: 'repeat.run_wide' });
    }
    expect(stop).to.include({ action: 'stop', reason: 'refused_rounds' });
    expect(results).to.have.length(4);
    const after = (await guarded.client.callTool({ name: 'read_text_file', arguments: { path: join(folder.dir, 'a.md') } })) as CallToolResult;
    expect(after.isError).to.equal(true);
    expect(metaOf(after, 'loopguard/stop')).to.deep.equal({ reason: 'refused_rounds' });
    const outcome = guarded.end();
    expect(outcome.stopReason).to.equal('refused_rounds');
    expect(outcome.refusals.map((refusal) => refusal.reason)).to.deep.equal(['repeat.run_wide', 'repeat.run_wide', 'repeat.run_wide', 'run.stopped']);
  });

  it('an honest agent: read, write, read again, another file — nothing refused, no stop', async () => {
    const guarded = guardMcpClient(client, { guard: new LoopGuard() });
    const a = join(folder.dir, 'a.md');
    const b = join(folder.dir, 'b.md');
    const script: Array<[string, Record<string, unknown>]> = [
      ['read_text_file', { path: a }],
      ['write_file', { path: a, content: 'refund window is 45 days\n' }],
      ['read_text_file', { path: a }],
      ['write_file', { path: b, content: 'b\n' }],
      ['list_directory', { path: folder.dir }],
      ['read_text_file', { path: b }],
    ];
    const texts: string[] = [];
    for (const [name, args] of script) {
      guarded.run.beginRound();
      const result = (await guarded.client.callTool({ name, arguments: args })) as CallToolResult;
      expect(result.isError, textOf(result)).to.not.equal(true);
      texts.push(textOf(result));
      expect(guarded.run.shouldStop().action).to.equal('continue');
    }
    expect(texts[2]).to.contain('45 days');
    expect(guarded.end()).to.include({ stopReason: undefined }).and.to.have.property('refusals').that.is.empty;
  });
});

describe('guardMcpClient over an in-memory McpServer', () => {
  let server: InMemoryServer;
  beforeEach(async () => (server = await connectInMemoryServer()));
  afterEach(() => server.close());

  const callTool = (client: Client, name: string, args: Record<string, unknown>) => client.callTool({ name, arguments: args }) as Promise<CallToolResult>;

  it('readOnlyHint makes a tool a read: its identical repeat is refused and never reaches the server (tools listed once by the guard)', async () => {
    const guarded = guardMcpClient(server.client, { guard: new LoopGuard() });
    expect(textOf(await callTool(guarded.client, 'lookup', { key: 'k' }))).to.equal('value of k');
    const repeat = await callTool(guarded.client, 'lookup', { key: 'k' });
    expect(metaOf(repeat, 'loopguard/refusal')).to.deep.include({ reason: 'repeat.run_wide' });
    expect(server.served.lookup).to.equal(1);
    expect(server.toolLists()).to.equal(1);
  });

  it('without annotations a tool is unknown: repeats run until the same outcome came back twice (server _meta ignored)', async () => {
    const guarded = guardMcpClient(server.client, { guard: new LoopGuard() });
    await guarded.client.listTools();
    const results = [];
    for (let index = 0; index < 4; index++) results.push(await callTool(guarded.client, 'probe', { key: 'k' }));
    // Each answer carries a different _meta.servedAt; by meaning they are the same.
    expect(results.slice(0, 2).map((result) => result.isError)).to.deep.equal([undefined, undefined]);
    expect(metaOf(results[2], 'loopguard/refusal')).to.deep.include({ reason: 'repeat.unchanged' });
    expect(server.served.probe).to.equal(2);
    expect(server.toolLists()).to.equal(1);
  });

  it('the app\'s declared policy wins over the server\'s hints', async () => {
    const guarded = guardMcpClient(server.client, { guard: new LoopGuard({ tools: { lookup: { writes: true } } }) });
    await callTool(guarded.client, 'lookup', { key: 'k' });
    const second = await callTool(guarded.client, 'lookup', { key: 'k' });
    expect(second.isError).to.not.equal(true);
    expect(server.served.lookup).to.equal(2);
  });

  it('a write annotation (readOnlyHint false) lets earlier reads run again', async () => {
    const guarded = guardMcpClient(server.client, { guard: new LoopGuard() });
    await callTool(guarded.client, 'lookup', { key: 'k' });
    await callTool(guarded.client, 'record_note', { text: 'x' });
    const again = await callTool(guarded.client, 'lookup', { key: 'k' });
    expect(again.isError).to.not.equal(true);
    expect(server.served.lookup).to.equal(2);
  });

  it('an isError result is a failure: the same deterministic error a third time is refused', async () => {
    const guarded = guardMcpClient(server.client, { guard: new LoopGuard() });
    const results = [];
    for (let index = 0; index < 3; index++) results.push(await callTool(guarded.client, 'broken', { key: 'k' }));
    expect(textOf(results[1])).to.equal('configuration missing: set BROKEN_URL');
    expect(metaOf(results[2], 'loopguard/refusal')).to.deep.include({ reason: 'repeat.same_error' });
    expect(server.served.broken).to.equal(2);
  });

  it('issue 23 #15: with roundGapMs, three turns of three parallel calls are three rounds', async () => {
    const guarded = guardMcpClient(server.client, { guard: new LoopGuard(), roundGapMs: 0 });
    for (let turn = 0; turn < 3; turn++) {
      const results = await Promise.all([0, 1, 2].map((index) => callTool(guarded.client, 'lookup', { key: `${turn}-${index}` })));
      for (const result of results) expect(result.isError, textOf(result)).to.not.equal(true);
    }
    expect(guarded.run.round).to.equal(3);
    // Every call knew the tool's annotations, the parallel ones too: one listing, no unknown effect.
    expect(server.toolLists()).to.equal(1);
    guarded.end();
  });

  it('with roundGapMs the guard counts rounds itself: the stop comes without a loop of yours', async () => {
    const guarded = guardMcpClient(server.client, { guard: new LoopGuard(), roundGapMs: 0 });
    const results = [];
    for (let index = 0; index < 8; index++) results.push(await callTool(guarded.client, 'lookup', { key: index % 2 === 0 ? 'k' : 'k ' }));
    // 'k' and 'k ' are two calls with different answers; after them everything is a refused repeat.
    const stopIndex = results.findIndex((result) => metaOf(result, 'loopguard/stop') !== undefined);
    expect(stopIndex).to.equal(5);
    expect(server.served.lookup).to.equal(2);
  });

  it('is the same client for everything else (ping, instanceof), and refuses after end()', async () => {
    const guarded = guardMcpClient(server.client, { guard: new LoopGuard() });
    expect(guarded.client).to.be.instanceOf(Client);
    expect(await guarded.client.ping()).to.deep.equal({});
    expect(guarded.client.getServerVersion()).to.include({ name: 'in-memory' });
    guarded.end();
    const after = await callTool(guarded.client, 'lookup', { key: 'k' });
    expect(after.isError).to.equal(true);
    expect(server.served.lookup).to.equal(0);
  });

  it('setup without a guard, a valid run or options is a LoopGuardConfigError naming the field, not a raw TypeError', () => {
    const guard = new LoopGuard();
    const setups: SetupCase[] = [
      ['guardMcpClient(client, undefined)', () => guardMcpClient(server.client, undefined as never), 'options', /^options: must be an options object .*got undefined$/],
      ['guardMcpClient(client, {})', () => guardMcpClient(server.client, {} as never), 'guard', /^guard: must be a LoopGuard .*got undefined$/],
      ['guardMcpClient(client, { guard, run: {} })', () => guardMcpClient(server.client, { guard, run: {} as never }), 'run', /^run: must be the run to guard \(guard\.startRun\(id\)\), got \{\}$/],
      ['startMcpStdioProxy(undefined)', () => startMcpStdioProxy(undefined as never), 'options', /^options: must be an options object/],
      ['startMcpStdioProxy({ command })', () => startMcpStdioProxy({ command: 'npx' } as never), 'guard', /^guard: must be a LoopGuard/],
    ];
    expectSetupErrors(setups);
  });

  it('rejects a bad roundGapMs naming the field', () => {
    expect(() => guardMcpClient(server.client, { guard: new LoopGuard(), roundGapMs: -1 })).to.throw(/roundGapMs: must be a number of milliseconds/);
  });
});

/** A lazily decoded field that throws when read (a client wrapper's `structuredContent` parser, say). */
function withLazyField<T extends object>(result: T): T {
  return Object.defineProperty(result, 'structuredContent', { enumerable: true, get() { throw new Error('lazy field failed to decode'); } });
}

/** A real SDK Client whose results (or errors) are decorated by the app before the guard sees them. */
class DecoratingClient extends Client {
  constructor(private readonly decorate: (params: { name: string; arguments?: Record<string, unknown> }, result: CallToolResult) => CallToolResult) {
    super({ name: 'loopguard-test', version: '1.0.0' });
  }

  override async callTool(...args: Parameters<Client['callTool']>): ReturnType<Client['callTool']> {
    const result = (await super.callTool(...args)) as CallToolResult;
    return this.decorate(args[0], result);
  }
}

describe('guardMcpClient: results and errors that throw when read reach the caller as they are', () => {
  it('a result with a field that throws when read is returned as it is, recorded as a new fact, and the call is not left in flight', async () => {
    const started = await startInMemoryServer();
    const client = new DecoratingClient((_params, result) => withLazyField(result));
    await client.connect(started.clientTransport);
    try {
      const guarded = guardMcpClient(client, { guard: new LoopGuard() });
      for (const key of ['a', 'b']) {
        const result = await guarded.client.callTool({ name: 'lookup', arguments: { key } }).catch((error: unknown) => error);
        expect(result instanceof Error ? result.message : textOf(result), key).to.equal(`value of ${key}`);
        expect(guarded.run.inFlight, key).to.equal(0);
      }
      expect(guarded.run.partial()).to.include({ executed: 2, newFacts: 2 });
    } finally {
      await client.close();
      await started.close();
    }
  });

  it('an error whose fields throw when read is rethrown as it is, recorded as a failure', async () => {
    const started = await startInMemoryServer();
    const thrown = { get code(): number { throw new Error('code getter'); }, get message(): string { throw new Error('message getter'); } };
    const client = new DecoratingClient(() => {
      throw thrown;
    });
    await client.connect(started.clientTransport);
    try {
      const guarded = guardMcpClient(client, { guard: new LoopGuard() });
      const caught = await guarded.client.callTool({ name: 'lookup', arguments: { key: 'k' } }).then(() => 'nothing thrown', (error: unknown) => error);
      expect(caught === thrown, `the thrown value itself, got ${caught instanceof Error ? caught.message : String(caught)}`).to.equal(true);
      expect(guarded.run.inFlight).to.equal(0);
      expect(guarded.run.partial().tools.lookup?.failures).to.equal(1);
    } finally {
      await client.close();
      await started.close();
    }
  });

  it('with roundGapMs, a nudge due on a result with a field that throws when read: the result is returned as it is, without the nudge', async () => {
    // The same status for every key: a loop of new arguments learning nothing, nudged before it is stopped.
    const statusServer = async (lazyAt: number | undefined) => {
      const server = new McpServer({ name: 'status', version: '1.0.0' });
      server.registerTool('status', { inputSchema: { key: z.string() } }, async () => ({ content: [{ type: 'text', text: 'pending' }] }));
      const [clientTransport, serverTransport] = InMemoryTransport.createLinkedPair();
      await server.connect(serverTransport);
      let calls = 0;
      const client = new DecoratingClient((_params, result) => (++calls === lazyAt ? withLazyField(result) : result));
      await client.connect(clientTransport);
      const guarded = guardMcpClient(client, { guard: new LoopGuard(), roundGapMs: 0 });
      const results: unknown[] = [];
      for (let index = 0; index < 12; index++) results.push(await guarded.client.callTool({ name: 'status', arguments: { key: `k${index}` } }).catch((error: unknown) => error));
      await client.close();
      await server.close();
      return { results, guarded };
    };
    const plain = await statusServer(undefined);
    const nudgedAt = plain.results.findIndex((result) => metaOf(result, 'loopguard/nudge') !== undefined);
    expect(nudgedAt, 'a nudge was delivered').to.be.greaterThan(0);
    const lazy = await statusServer(nudgedAt + 1);
    const result = lazy.results[nudgedAt];
    expect(result instanceof Error ? result.message : textOf(result)).to.equal('pending');
    expect(metaOf(result, 'loopguard/nudge')).to.equal(undefined);
    expect(lazy.guarded.run.inFlight).to.equal(0);
  });
});

// The claim of a business-key write is a store round trip: a caller that aborts meanwhile gets
// the SDK's throwIfAborted (the request is never sent), and the claim stayed open, so the note
// that was never recorded was refused in flight, then of unknown outcome, for its key's ttl.
describe('guardMcpClient: a call aborted while its business key was being claimed', () => {
  it('never reaches the server, throws what the SDK throws, and releases its key: the retry records the note once', async () => {
    const server = await connectInMemoryServer();
    try {
      const memory = createMemoryRunStore();
      const claimBusinessKey: typeof memory.claimBusinessKey = async (...args) => {
        await new Promise((resolve) => setTimeout(resolve, 30));
        return memory.claimBusinessKey(...args);
      };
      const store = Object.assign(Object.create(memory) as typeof memory, { claimBusinessKey });
      const guard = new LoopGuard({ store, idempotentWrites: { record_note: { key: ['text'] } }, logger: { warn: () => undefined } });
      const params = { name: 'record_note', arguments: { text: 'refund approved' } };
      const controller = new AbortController();
      setTimeout(() => controller.abort(), 10);
      const first = guardMcpClient(server.client, { guard });
      const thrown = await first.client.callTool(params, undefined, { signal: controller.signal }).then(() => 'nothing thrown', (error: Error) => error.name);
      expect(thrown).to.equal('AbortError');
      expect(server.served.record_note).to.equal(0);
      first.end();
      await guard.flush();
      const retry = guardMcpClient(server.client, { guard });
      const result = (await retry.client.callTool(params)) as CallToolResult;
      expect(textOf(result)).to.equal('noted: refund approved');
      expect(server.served.record_note).to.equal(1);
      retry.end();
    } finally {
      await server.close();
    }
  });
});
