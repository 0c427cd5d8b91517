// A connection that drops after Redis ran a script and before its reply reached the client
// (a reset, a proxy or a load balancer cutting idle connections). ioredis resends a command
// whose reply it never got once it reconnects (autoResendUnfulfilledCommands, on by default,
// and maxRetriesPerRequest 1 as the README's client has it): Redis runs the script twice.
import { createServer, Socket, type Server } from 'node:net';
import { expect } from 'chai';
import { Redis } from 'ioredis';
import { LoopGuard } from '../../src/core/loop-guard.js';
import { createRedisRunStore } from '../../src/redis/index.js';
import { startRedisServer, type RedisServer } from '../helpers/redis-servers.js';

/** A TCP proxy to `port` that, when armed, cuts the connection instead of passing the next reply on. */
async function replyCuttingProxy(port: number): Promise<{ port: number; cutNextReply(matching?: RegExp): void; close(): Promise<void> }> {
  let armed: RegExp | undefined;
  const sockets = new Set<Socket>();
  const server: Server = createServer((client) => {
    const upstream = new Socket();
    sockets.add(client);
    sockets.add(upstream);
    upstream.connect(port, '127.0.0.1');
    client.on('data', (chunk) => upstream.write(chunk));
    upstream.on('data', (chunk: Buffer) => {
      if (armed !== undefined && armed.test(chunk.toString('latin1'))) {
        armed = undefined;
        client.destroy();
        upstream.destroy();
        return;
      }
      client.write(chunk);
    });
    const end = () => {
      client.destroy();
      upstream.destroy();
      sockets.delete(client);
      sockets.delete(upstream);
    };
    client.on('close', end);
    upstream.on('close', end);
    client.on('error', () => undefined);
    upstream.on('error', () => undefined);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const address = server.address();
  return {
    port: typeof address === 'object' && address !== null ? address.port : 0,
    cutNextReply(matching = /[\s\S]/) {
      armed = matching;
    },
    close: () =>
      new Promise<void>((resolve) => {
        for (const socket of sockets) socket.destroy();
        server.close(() => resolve());
      }),
  };
}

describe('a reply lost after Redis ran the script (ioredis resends it on reconnect)', function () {
  this.timeout(30_000);
  let server: RedisServer;
  let proxy: Awaited<ReturnType<typeof replyCuttingProxy>>;
  let direct: Redis;
  let trial = 0;
  before(async () => {
    server = await startRedisServer({ port: 6711 });
    direct = await server.client();
  });
  after(async () => {
    await server.stop();
  });
  beforeEach(async () => {
    trial += 1;
    proxy = await replyCuttingProxy(server.port);
  });
  afterEach(async () => {
    await proxy.close();
  });

  async function engine(options: ConstructorParameters<typeof LoopGuard>[0] = {}) {
    // The client the README recommends, through the proxy.
    const client = new Redis({ port: proxy.port, host: '127.0.0.1', enableOfflineQueue: false, maxRetriesPerRequest: 1, lazyConnect: true });
    client.on('error', () => undefined);
    await client.connect();
    const warnings: string[] = [];
    const store = createRedisRunStore({ client, keyPrefix: `lost-replies-${trial}`, timeoutMs: 2000 });
    const guard = new LoopGuard({ ...options, store, logger: { warn: (message) => warnings.push(message) } });
    return { guard, store, client, warnings };
  }

  it('a business-key claim whose reply was lost is still this call\'s claim: the write runs, once', async () => {
    const { guard, client } = await engine({ idempotentWrites: { send_email: { key: ['to'] } } });
    const run = guard.startRun('lost-claim');
    // Loads the scripts (a NOSCRIPT reply is not the reply this test cuts).
    const warm = await run.claimCall({ tool: 'send_email', args: { to: 'warm@example.com' } });
    run.finishCall(warm, { result: 'sent' });
    await guard.flush();
    const args = { to: 'ops@example.com' };
    proxy.cutNextReply(/claimed/);
    const first = await run.claimCall({ tool: 'send_email', args });
    expect(first.decision.action === 'refuse' ? `${first.decision.reason}: ${first.decision.message}` : 'allow').to.equal('allow');
    run.finishCall(first, { result: 'sent' });
    await guard.flush();
    const again = await run.claimCall({ tool: 'send_email', args });
    expect(again.decision.action === 'refuse' && again.decision.reason).to.equal('write.already_done');
    client.disconnect();
  });

  it('a take-over whose reply was lost is still this call\'s: after verify says "not done", the write runs, once', async () => {
    const crashed = await engine({ idempotentWrites: { send_email: { key: ['to'], leaseMs: 100 } } });
    const args = { to: 'ops@example.com' };
    // A worker claims the key and dies before its write (never finished).
    const lost = await crashed.guard.startRun('crashed-worker').claimCall({ tool: 'send_email', args });
    expect(lost.decision.action).to.equal('allow');
    crashed.client.disconnect();
    await new Promise((resolve) => setTimeout(resolve, 150));
    let verified = 0;
    const { guard, client } = await engine({ idempotentWrites: { send_email: { key: ['to'], leaseMs: 100, verify: () => ((verified += 1), { done: false }) } } });
    proxy.cutNextReply(/^:1\r\n$/);
    const run = guard.startRun('next-worker');
    const ticket = await run.claimCall({ tool: 'send_email', args });
    expect(verified).to.equal(1);
    expect(ticket.decision.action === 'refuse' ? `${ticket.decision.reason}: ${ticket.decision.message}` : 'allow').to.equal('allow');
    run.finishCall(ticket, { result: 'sent' });
    await guard.flush();
    const again = await run.claimCall({ tool: 'send_email', args });
    expect(again.decision.action === 'refuse' && again.decision.reason).to.equal('write.already_done');
    client.disconnect();
  });

  /** A run with one call and its outcome in the store, and the run index written (its first append's own commands answered). */
  async function warmRun(guard: LoopGuard, id: string) {
    const run = guard.startRun(id);
    run.beginRound();
    const warm = await run.claimCall({ tool: 'search', args: { q: 'warm' } });
    run.finishCall(warm, { result: ['w'] });
    await guard.flush();
    await new Promise((resolve) => setTimeout(resolve, 50));
    return run;
  }

  it('a claim whose append reply was lost is not taken for another process\'s: the call runs, logged once', async () => {
    const { guard, store, client } = await engine();
    const run = await warmRun(guard, 'lost-claim-append');
    proxy.cutNextReply(/^:4\r\n$/);
    const ticket = await run.claimCall({ tool: 'search', args: { q: 'refund policy' } });
    expect(ticket.decision.action === 'refuse' ? `${ticket.decision.reason}: ${ticket.decision.message}` : 'allow').to.equal('allow');
    run.finishCall(ticket, { result: ['doc-1'] });
    await guard.flush();
    const log = await direct.lrange(store.keysOf('lost-claim-append').log, 0, -1);
    expect(log.map((entry) => (JSON.parse(entry) as unknown[])[0])).to.deep.equal(['r', 'c', 'f', 'c', 'f']);
    // Another process finds no call of this run left in flight.
    const other = await new LoopGuard({ store, logger: { warn: () => undefined } }).resumeRun('lost-claim-append');
    expect(other.partial()).to.include({ toolCalls: 2, executed: 2 });
    client.disconnect();
  });

  it('a background append whose reply was lost lands once, not twice', async () => {
    const { guard, store, client } = await engine();
    const run = await warmRun(guard, 'lost-background-append');
    const ticket = await run.claimCall({ tool: 'search', args: { q: 'refund policy' } });
    proxy.cutNextReply(/^:5\r\n$/);
    run.finishCall(ticket, { result: ['doc-1'] });
    await guard.flush();
    const log = await direct.lrange(store.keysOf('lost-background-append').log, 0, -1);
    expect(new Set(log).size, `the log holds an entry twice:\n${log.join('\n')}`).to.equal(log.length);
    expect(log.map((entry) => (JSON.parse(entry) as unknown[])[0])).to.deep.equal(['r', 'c', 'f', 'c', 'f']);
    client.disconnect();
  });

  // A batch of entries with no call key (a round, usage) could be another process's, byte for
  // byte: refused on its resend, it was rebased and appended again. A round counted twice is a
  // stale round the run never had, on every replica.
  it('a round whose append reply was lost lands once, not twice', async () => {
    const { guard, store, client } = await engine();
    const run = await warmRun(guard, 'lost-round-append');
    proxy.cutNextReply(/^:4\r\n$/);
    run.beginRound();
    await guard.flush();
    const log = await direct.lrange(store.keysOf('lost-round-append').log, 0, -1);
    expect(log.map((entry) => (JSON.parse(entry) as unknown[])[0]), `the log:\n${log.join('\n')}`).to.deep.equal(['r', 'c', 'f', 'r']);
    expect(run.partial().rounds, 'this process').to.equal(2);
    const other = await new LoopGuard({ store, logger: { warn: () => undefined } }).resumeRun('lost-round-append');
    expect(other.partial().rounds, 'another process').to.equal(2);
    client.disconnect();
  });
});
