// The proxy's wire, in process: startMcpStdioProxy between in-memory client streams and a bare
// JSON-RPC server (fixtures/raw-json-rpc-server.mjs) that writes exactly the bytes the tests
// check — batches, ids no JS number holds, 20 MB lines, invalid UTF-8.
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { PassThrough } from 'node:stream';
import { join } from 'node:path';
import { expect } from 'chai';
import { LoopGuardConfigError } from '../../../src/core/errors.js';
import { LoopGuard } from '../../../src/core/loop-guard.js';
import { createMemoryRunStore } from '../../../src/core/shared-ledger/create-memory-run-store.js';
import { startMcpStdioProxy, type McpStdioProxy } from '../../../src/integrations/mcp/start-mcp-stdio-proxy.js';
import { REPO_ROOT, waitFor } from './mcp-proxy-helpers.js';

const RAW_SERVER = join(REPO_ROOT, 'test/integrations/mcp/fixtures/raw-json-rpc-server.mjs');

interface WireSession {
  proxy: McpStdioProxy;
  /** Sends one line (a newline is added). */
  send(line: string | Buffer): void;
  /** The next line the client received, as raw bytes (without its newline). */
  nextLine(): Promise<Buffer>;
  close(): Promise<number>;
}

function startWireSession(roundGapMs = 0, session: { guard?: LoopGuard; runGapMs?: number } = {}): WireSession {
  const input = new PassThrough();
  const output = new PassThrough();
  const proxy = startMcpStdioProxy({
    guard: session.guard ?? new LoopGuard(),
    command: process.execPath,
    args: [RAW_SERVER],
    roundGapMs,
    ...(session.runGapMs !== undefined ? { runGapMs: session.runGapMs } : {}),
    input,
    output,
    serverStderr: new PassThrough(),
  });
  const chunks: Buffer[] = [];
  output.on('data', (chunk: Buffer) => chunks.push(chunk));
  const lines: Buffer[] = [];
  const takeLines = (): void => {
    let all = Buffer.concat(chunks);
    chunks.length = 0;
    for (let newline = all.indexOf(10); newline >= 0; newline = all.indexOf(10)) {
      lines.push(all.subarray(0, newline));
      all = all.subarray(newline + 1);
    }
    if (all.length > 0) chunks.push(all);
  };
  return {
    proxy,
    send: (line) => void input.write(Buffer.concat([Buffer.isBuffer(line) ? line : Buffer.from(line), Buffer.from('\n')])),
    async nextLine() {
      await waitFor(() => (takeLines(), lines.length > 0), 60_000);
      return lines.shift()!;
    },
    close: () => {
      input.end();
      return proxy.exited;
    },
  };
}

const request = (id: string, method: string, params: unknown = {}): string => `{"jsonrpc":"2.0","id":${id},"method":"${method}","params":${JSON.stringify(params)}}`;
const toolCall = (id: string, name: string, args: unknown = {}): string => request(id, 'tools/call', { name, arguments: args });

async function initialized(session: WireSession): Promise<void> {
  session.send(request('0', 'initialize', { protocolVersion: '2025-03-26', capabilities: {}, clientInfo: { name: 'wire', version: '1' } }));
  await session.nextLine();
  session.send(request('1', 'tools/list'));
  await session.nextLine();
}

async function callsRun(session: WireSession, id: string): Promise<number> {
  session.send(toolCall(id, 'calls_run'));
  const answer = JSON.parse((await session.nextLine()).toString('utf8')) as { result: { content: Array<{ text: string }> } };
  return Number(answer.result.content[0]!.text);
}

describe('loopguard mcp-proxy wire (batches, ids, bytes, big lines)', function () {
  this.timeout(120_000);
  let session: WireSession | undefined;
  afterEach(async () => {
    await session?.close();
    session = undefined;
  });

  it('issue 23 #9: decides every tools/call inside a batch: of 10 identical batched reads one runs, the rest are refused in the one batch answer', async () => {
    session = startWireSession();
    await initialized(session);
    const ids = Array.from({ length: 10 }, (_, index) => String(100 + index));
    session.send(`[${ids.map((id) => toolCall(id, 'lookup', { key: 'k' })).join(',')}]`);
    const answer = JSON.parse((await session.nextLine()).toString('utf8')) as Array<{ id: number; result: { isError?: boolean; _meta?: Record<string, { reason?: string }> } }>;
    expect(answer, 'one array answers the batch').to.be.an('array').with.length(10);
    expect(answer.map((element) => String(element.id)).sort()).to.deep.equal(ids);
    const refused = answer.filter((element) => element.result._meta?.['loopguard/refusal'] !== undefined);
    expect(refused).to.have.length(9);
    for (const element of refused) expect(element.result.isError).to.equal(true);
    expect(await callsRun(session, '200'), 'the server ran the lookup once, and calls_run').to.equal(2);
  });

  it('issue 23 #9: a batch whose every call is refused is answered by the proxy alone; notifications in a batch still reach the server', async () => {
    session = startWireSession();
    await initialized(session);
    session.send(toolCall('5', 'lookup', { key: 'k' }));
    await session.nextLine();
    session.send(`[${toolCall('6', 'lookup', { key: 'k' })},${toolCall('"seven"', 'lookup', { key: 'k' })},{"jsonrpc":"2.0","method":"notifications/vendor"}]`);
    const answer = JSON.parse((await session.nextLine()).toString('utf8')) as Array<{ id: unknown; result: { _meta?: Record<string, { reason?: string }> } }>;
    expect(answer.map((element) => element.id)).to.deep.equal([6, 'seven']);
    for (const element of answer) expect(element.result._meta?.['loopguard/refusal']).to.deep.include({ reason: 'repeat.run_wide' });
    expect(await callsRun(session, '8')).to.equal(2);
  });

  it('issue 23 #10: answers refusals with the id exactly as the client wrote it (big integers, 1e400, strings with escapes)', async () => {
    // One round for all (no stop in between): each answer is the repeat's refusal.
    session = startWireSession(60_000);
    await initialized(session);
    session.send(toolCall('2', 'lookup', { key: 'k' }));
    await session.nextLine();
    for (const id of ['12345678901234567891', '1e400', '-0.50', '"a\\u0062c"']) {
      session.send(toolCall(id, 'lookup', { key: 'k' }));
      const line = (await session.nextLine()).toString('utf8');
      expect(line.startsWith(`{"jsonrpc":"2.0","id":${id},`), line.slice(0, 60)).to.equal(true);
      expect(line).to.contain('loopguard/refusal');
    }
  });

  it('issue 23 #10: two ids that are one JS number keep their own calls; a reused id does not leave a tool in flight', async () => {
    session = startWireSession();
    await initialized(session);
    // 12345678901234567891 and ...890 are the same double: once shared, the first result was never recorded.
    session.send(toolCall('12345678901234567891', 'lookup', { key: 'a' }));
    session.send(toolCall('12345678901234567890', 'lookup', { key: 'b' }));
    const first = [(await session.nextLine()).toString('utf8'), (await session.nextLine()).toString('utf8')];
    expect(first.map((line) => /"id":(\d+)/.exec(line)![1]).sort()).to.deep.equal(['12345678901234567890', '12345678901234567891']);
    for (const line of first) expect(line).to.not.contain('loopguard/refusal');
    // Both finished: the repeat of a is a plain repeat, not "still running".
    session.send(toolCall('3', 'lookup', { key: 'a' }));
    expect((await session.nextLine()).toString('utf8')).to.contain('"reason":"repeat.run_wide"');

    // A client reusing an id while its first call runs: both answers finish their own call.
    session.send(toolCall('9', 'lookup', { key: 'c' }));
    session.send(toolCall('9', 'lookup', { key: 'd' }));
    await session.nextLine();
    await session.nextLine();
    session.send(toolCall('10', 'lookup', { key: 'c' }));
    session.send(toolCall('11', 'lookup', { key: 'd' }));
    for (const line of [(await session.nextLine()).toString('utf8'), (await session.nextLine()).toString('utf8')]) {
      expect(line).to.contain('"reason":"repeat.run_wide"');
      expect(line).to.not.contain('in_flight');
    }
  });

  describe('a line that is not JSON reaches the server as it came and claims no call', () => {
    const PARSE_ERROR = '{"jsonrpc":"2.0","id":null,"error":{"code":-32700,"message":"Parse error"}}';
    /** The docs' read-only loop (one identical lookup per turn): the call that gets the stop, if any of 12. */
    const loopStoppedAt = async (wire: WireSession): Promise<number | undefined> => {
      for (let call = 1; call <= 12; call++) {
        wire.send(toolCall(String(100 + call), 'lookup', { key: 'k' }));
        if ((await wire.nextLine()).toString('utf8').includes('"loopguard/stop"')) return call;
      }
      return undefined;
    };

    it('a batch whose first call is valid and whose second has invalid JSON in its params: nothing stays in flight, the loop after it is still stopped', async () => {
      session = startWireSession(0);
      await initialized(session);
      // The bad element used to throw after the first was claimed: that claim was never finished,
      // inFlight stayed 1, no round opened again and the loop below was never stopped.
      session.send(`[${toolCall('2', 'lookup', { key: 'a' })},{"jsonrpc":"2.0","id":3,"method":"tools/call","params":{"name":"lookup","arguments":{"k":01}}}]`);
      expect((await session.nextLine()).toString('utf8'), "the server's parse error: the line reached it").to.equal(PARSE_ERROR);
      expect(session.proxy.run.inFlight).to.equal(0);
      expect(await loopStoppedAt(session), 'as without the bad batch (the docs\' table)').to.equal(5);
      expect(session.proxy.run.inFlight).to.equal(0);
    });

    it('a single call that is not JSON where the proxy does not look (id 01, bytes after the object) claims nothing either', async () => {
      session = startWireSession(0);
      await initialized(session);
      // The proxy reads only some members; the server reads the whole line and answers id null,
      // so a call claimed from such a line would never be finished.
      for (const line of [
        '{"jsonrpc":"2.0","id":01,"method":"tools/call","params":{"name":"lookup","arguments":{"key":"a"}}}',
        `${toolCall('4', 'lookup', { key: 'b' })} x`,
      ]) {
        session.send(line);
        expect((await session.nextLine()).toString('utf8'), line).to.equal(PARSE_ERROR);
        expect(session.proxy.run.inFlight, line).to.equal(0);
      }
      expect(await loopStoppedAt(session)).to.equal(5);
    });
  });

  it('issue 23 #12: forwards bytes unchanged, invalid UTF-8 included, both ways', async () => {
    session = startWireSession();
    await initialized(session);
    // Server -> client, while a call is pending (so the proxy reads the answer).
    session.send(toolCall('4', 'invalid_utf8'));
    const answer = await session.nextLine();
    expect(answer.includes(Buffer.from([0x80, 0xe2, 0x82])), 'the invalid bytes came through').to.equal(true);
    expect(answer.includes(Buffer.from('\uFFFD'))).to.equal(false);
    // Client -> server: an unknown request with invalid UTF-8 in a string; the server echoes nothing
    // of it, so the check is that the proxy neither chokes nor rewrites what follows.
    session.send(Buffer.concat([Buffer.from('{"jsonrpc":"2.0","id":5,"method":"vendor/x","params":{"s":"'), Buffer.from([0xff, 0xc3]), Buffer.from('"}}')]));
    expect((await session.nextLine()).toString('utf8')).to.equal('{"jsonrpc":"2.0","id":5,"result":{}}');
  });

  it('issue 23 #11: carries a 20 MB answer that arrives in many chunks whole, and what follows it', async () => {
    session = startWireSession();
    await initialized(session);
    const bytes = 20 * 1024 * 1024;
    session.send(toolCall('6', 'big', { bytes }));
    const answer = JSON.parse((await session.nextLine()).toString('utf8')) as { id: number; result: { content: Array<{ text: string }> } };
    expect(answer.id).to.equal(6);
    expect(answer.result.content[0]!.text.length).to.equal(bytes);
    expect(await callsRun(session, '7')).to.equal(2);
  });

  it('issue 23 #16: with --round-gap-ms 0 the stop comes at the call the docs say, for each loop in their table', async () => {
    const page = readFileSync(join(REPO_ROOT, 'docs/integrations/mcp-proxy-behaviour.md'), 'utf8');
    const table = page.slice(page.indexOf('<!-- stop-table'));
    const stopAt = (row: string): number => {
      const match = new RegExp(`^\\| ${row}[^\\n]*\\| (\\d+) \\|$`, 'm').exec(table);
      expect(match, `the docs' row "${row}"`).to.not.equal(null);
      return Number(match![1]);
    };
    const loops: Array<[string, string, (call: number) => unknown]> = [
      ['the same call to a read-only tool', 'lookup', () => ({ key: 'k' })],
      ['the same call to a tool without hints', 'same', () => ({ q: 'refund policy' })],
      ['new arguments each time, the same answer', 'same', (call) => ({ q: `refund policy ${call}` })],
    ];
    for (const [row, tool, args] of loops) {
      session = startWireSession(0);
      await initialized(session);
      let stoppedAt: number | undefined;
      for (let call = 1; call <= 12 && stoppedAt === undefined; call++) {
        session.send(toolCall(String(100 + call), tool, args(call)));
        if ((await session.nextLine()).toString('utf8').includes('"loopguard/stop"')) stoppedAt = call;
      }
      expect(stoppedAt, row).to.equal(stopAt(row));
      await session.close();
      session = undefined;
    }
  });

  describe('--run-gap-ms: a new run after a quiet gap (MCP has no conversation boundary)', () => {
    const RUN_GAP_MS = 600_000;
    /** A session on a clock the test moves, and what the engine said about each run it ended. */
    const sessionOnClock = (runGapMs?: number) => {
      const clock = { now: 1_000_000 };
      const ended: Array<{ id: string; stopped: string | undefined }> = [];
      const guard = new LoopGuard({ now: () => clock.now, listeners: [{ runEnded: (run) => ended.push({ id: run.id, stopped: run.stopped?.reason }) }] });
      return { clock, ended, session: startWireSession(0, { guard, ...(runGapMs !== undefined ? { runGapMs } : {}) }) };
    };
    /** Reworded searches answered alike (the docs' table row): true once the proxy answers with the stop. */
    const searchUntilStopped = async (wire: WireSession, from: number): Promise<number | undefined> => {
      for (let call = from; call < from + 12; call++) {
        wire.send(toolCall(String(call), 'same', { q: `refund policy ${call}` }));
        if ((await wire.nextLine()).toString('utf8').includes('"loopguard/stop"')) return call - from + 1;
      }
      return undefined;
    };

    it('by default, a stop reached in one conversation does not refuse the next one: after 10 quiet minutes the calls run in a new run', async () => {
      const { clock, ended, session: wire } = sessionOnClock();
      session = wire;
      await initialized(wire);
      const firstRun = wire.proxy.run.id;
      expect(await searchUntilStopped(wire, 100)).to.equal(7);
      // Within the gap the stop holds: the same conversation's next call is answered with it.
      clock.now += RUN_GAP_MS - 1;
      wire.send(toolCall('151', 'same', { q: 'anything else' }));
      expect((await wire.nextLine()).toString('utf8')).to.include('"loopguard/stop"');
      // A quiet gap of the default 10 minutes: the next call starts run #2, reaches the server, and is answered by it.
      clock.now += RUN_GAP_MS;
      wire.send(toolCall('152', 'same', { q: 'a new question' }));
      const answer = JSON.parse((await wire.nextLine()).toString('utf8')) as { result: { content: Array<{ text: string }>; isError?: boolean } };
      expect(answer.result.content[0]!.text).to.equal('no results');
      expect(answer.result.isError).to.not.equal(true);
      expect(wire.proxy.run.id).to.equal(`${firstRun}#2`);
      expect(ended).to.deep.equal([{ id: firstRun, stopped: 'stale_rounds' }]);
      // The new run guards as the first did: the same loop stops it at the run's 7th call ('a new question' was its first).
      expect(await searchUntilStopped(wire, 200)).to.equal(6);
    });

    it('--run-gap-ms 0 keeps one run for the whole session: the stop holds however long the quiet', async () => {
      const { clock, ended, session: wire } = sessionOnClock(0);
      session = wire;
      await initialized(wire);
      const firstRun = wire.proxy.run.id;
      expect(await searchUntilStopped(wire, 100)).to.equal(7);
      clock.now += 24 * 3_600_000;
      wire.send(toolCall('151', 'same', { q: 'a new question' }));
      expect((await wire.nextLine()).toString('utf8')).to.include('"loopguard/stop"');
      expect(wire.proxy.run.id).to.equal(firstRun);
      expect(ended).to.deep.equal([]);
    });

    it('two quiet half-gaps are no gap: the run goes on; a bad runGapMs is rejected by name', async () => {
      const { clock, session: wire } = sessionOnClock();
      session = wire;
      await initialized(wire);
      const firstRun = wire.proxy.run.id;
      wire.send(toolCall('100', 'same', { q: 'a' }));
      await wire.nextLine();
      clock.now += RUN_GAP_MS / 2;
      wire.send(toolCall('101', 'same', { q: 'b' }));
      await wire.nextLine();
      clock.now += RUN_GAP_MS / 2;
      wire.send(toolCall('102', 'same', { q: 'c' }));
      await wire.nextLine();
      // Two half-gaps are no gap: still the first run.
      expect(wire.proxy.run.id).to.equal(firstRun);
      for (const runGapMs of [-1, Number.NaN, '600000']) {
        let error: unknown;
        try {
          // Started only if the option were taken: then stopped at once, so a wrong answer fails here and leaves no server behind.
          await startMcpStdioProxy({ guard: new LoopGuard(), command: process.execPath, args: [RAW_SERVER], runGapMs: runGapMs as number, input: new PassThrough(), output: new PassThrough() }).kill();
        } catch (thrown) {
          error = thrown;
        }
        expect(error, String(runGapMs)).to.be.instanceOf(LoopGuardConfigError).with.property('field', 'runGapMs');
        expect((error as Error).message).to.match(/runGapMs: must be a number of milliseconds ≥ 0/);
      }
    });
  });

  // A call the server never answered because it exited (crashed, or was stopped with the
  // session) may have been done: recorded as a deterministic error, it freed its business key,
  // and the next session's send_email, on the same store, ran again.
  it('a business-key write whose server exits before answering keeps its key: the next session is refused, the email goes out once', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'loopguard-exit-'));
    try {
      const sentLog = join(dir, 'sent.log');
      // Sends the email, then dies before it answers.
      const server = `process.stdin.on('data', (chunk) => { if (String(chunk).includes('tools/call')) { require('fs').appendFileSync(${JSON.stringify(sentLog)}, 'sent\\n'); process.exit(1); } });`;
      const guard = new LoopGuard({ store: createMemoryRunStore(), idempotentWrites: { send_email: { key: ['to'] } }, logger: { warn: () => undefined } });
      const answers: string[] = [];
      for (let session = 0; session < 2; session++) {
        const input = new PassThrough();
        const output = new PassThrough();
        let answered = '';
        output.on('data', (chunk: Buffer) => (answered += chunk.toString('utf8')));
        const proxy = startMcpStdioProxy({ guard, command: process.execPath, args: ['-e', server], input, output, serverStderr: new PassThrough() });
        input.write(`${toolCall('7', 'send_email', { to: 'ops@example.com' })}\n`);
        let exited = false;
        void proxy.exited.then(() => (exited = true));
        // The second session's call is answered by the proxy (refused), or reaches the server, which exits.
        if (session === 1) await waitFor(() => exited || answered.includes('\n'), 10_000);
        input.end();
        await proxy.exited;
        await guard.flush();
        answers.push(answered);
      }
      expect(answers[1]).to.include('the same send_email (same business key) is being done right now');
      expect(readFileSync(sentLog, 'utf8')).to.equal('sent\n');
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
