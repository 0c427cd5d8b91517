// Issue 23 #3–#5: the shared ledger under a stalled Redis (DEBUG SLEEP on a real
// redis-server) and with runs that already left the engine's lists.
import { spawn } from 'node:child_process';
import { createServer, type AddressInfo, type Server, type Socket } from 'node:net';
import { fileURLToPath } from 'node:url';
import { expect } from 'chai';
import type { Redis } from 'ioredis';
import { LoopGuardConfigError } from '../../src/core/errors.js';
import type { RunStore } from '../../src/core/shared-ledger/run-store.js';
import { RedisStoreTimeoutError } from '../../src/redis/redis-store-timeout-error.js';
import { LoopGuard, type LoopGuardEngineOptions } from '../../src/core/loop-guard.js';
import { createRedisRunStore, type RedisRunStore } from '../../src/redis/index.js';
import { freePort, startRedisServer, type RedisServer } from '../helpers/redis-servers.js';

describe('issue 23: the shared ledger under a stalled Redis (real redis-server)', function () {
  this.timeout(30_000);
  let server: RedisServer;
  let client: Redis;
  let prefix = '';
  let trial = 0;
  before(async () => {
    server = await startRedisServer();
    client = await server.client();
  });
  after(async () => {
    await server.stop();
  });
  beforeEach(() => {
    trial += 1;
    prefix = `ledger-faults-${trial}`;
  });

  async function engine(options: Omit<LoopGuardEngineOptions, 'store'> = {}, timeoutMs = 2000): Promise<{ guard: LoopGuard; store: RedisRunStore; warnings: string[] }> {
    const warnings: string[] = [];
    const store = createRedisRunStore({ client: await server.client(), keyPrefix: prefix, timeoutMs });
    return { guard: new LoopGuard({ ...options, store, logger: { warn: (message) => warnings.push(message) } }), store, warnings };
  }

  it('issue 23 #3: a business-key write refused store.unavailable while Redis stalls can be retried once it is back', async () => {
    const { guard } = await engine({ idempotentWrites: { send_email: { key: ['to'] } } }, 200);
    const run = guard.startRun('stalled-write');
    const args = { to: 'ops@example.com' };
    // A first write loads the scripts: a script the server has never seen fails NOSCRIPT and
    // never lands, which would hide the late claim this test is about.
    const warm = await run.claimCall({ tool: 'send_email', args: { to: 'warm@example.com' } });
    run.finishCall(warm, { result: 'sent' });
    await guard.flush();
    const { over } = await server.stall(600);
    const refused = await run.claimCall({ tool: 'send_email', args });
    expect(refused.decision.action).to.equal('refuse');
    expect(refused.decision.action === 'refuse' && refused.decision.reason).to.equal('store.unavailable');
    await over;
    await guard.flush();
    // The caller was told it did not run: its retry must run, not wait out a lease and a day.
    const retried = await run.claimCall({ tool: 'send_email', args });
    expect(retried.decision.action === 'refuse' ? retried.decision.reason : 'allow').to.equal('allow');
    run.finishCall(retried, { result: 'sent' });
    await guard.flush();
    const again = await run.claimCall({ tool: 'send_email', args });
    expect(again.decision.action === 'refuse' && again.decision.reason).to.equal('write.already_done');
  });

  /**
   * The real store with two faults on demand: an append Redis runs whose reply comes too late
   * (the caller sees a timeout), and reads that time out.
   */
  function withLateReplies(store: RunStore): RunStore & { lateAppends: number; failedReads: number } {
    const faulty = {
      ...store,
      lateAppends: 0,
      failedReads: 0,
      async appendRunEvents(...args: Parameters<RunStore['appendRunEvents']>) {
        const result = await store.appendRunEvents(...args);
        if (faulty.lateAppends > 0) {
          faulty.lateAppends -= 1;
          throw new RedisStoreTimeoutError('append', 200);
        }
        return result;
      },
      async readRunEvents(...args: Parameters<RunStore['readRunEvents']>) {
        if (faulty.failedReads > 0) {
          faulty.failedReads -= 1;
          throw new RedisStoreTimeoutError('read', 200);
        }
        return store.readRunEvents(...args);
      },
    };
    return faulty;
  }

  it('issue 23 #4: an append whose reply came late is applied once when resumeRun rebuilds before it is confirmed', async () => {
    const redisStore = createRedisRunStore({ client: await server.client(), keyPrefix: prefix, timeoutMs: 2000 });
    const store = withLateReplies(redisStore);
    const guard = new LoopGuard({ profile: 'researcher', store, logger: { warn: () => undefined } });
    const run = guard.startRun('late-append');
    run.beginRound();
    const first = await run.claimCall({ tool: 'search', args: { q: 'refund policy' } });
    // Redis runs the outcome's append; its reply is lost (a timeout).
    store.lateAppends = 1;
    run.finishCall(first, { result: ['doc-1'] });
    // Appended in the background (not flushed: a flush would settle it at once).
    await new Promise((resolve) => setTimeout(resolve, 100));
    expect(store.lateAppends).to.equal(0);
    // The rebuild's first read (settling the late append) times out too; the next one works.
    store.failedReads = 1;
    await guard.resumeRun('late-append');
    await guard.flush();
    const log = await client.lrange(redisStore.keysOf('late-append').log, 0, -1);
    expect(new Set(log).size, `the log holds an entry twice:\n${log.join('\n')}`).to.equal(log.length);
    expect(log).to.have.length(3); // round, call, finish
    expect(run.partial()).to.include({ toolCalls: 1, executed: 1, newFacts: 1, seenResults: 0 });
    // Another process sees one call with one outcome, as this one does.
    const other = await new LoopGuard({ profile: 'researcher', store: redisStore, logger: { warn: () => undefined } }).resumeRun('late-append');
    expect(other.partial()).to.include({ toolCalls: 1, executed: 1, newFacts: 1, seenResults: 0 });
  });

  /** The real store, each append held back `ms` first (a slow network): flush() has to wait for it. */
  function withSlowAppends(store: RunStore, ms: number): RunStore {
    return {
      ...store,
      async appendRunEvents(...args: Parameters<RunStore['appendRunEvents']>) {
        await new Promise((resolve) => setTimeout(resolve, ms));
        return store.appendRunEvents(...args);
      },
    };
  }

  for (const { label, options, churn } of [
    { label: 'endedRunTtlMs: 0', options: { endedRunTtlMs: 0 }, churn: () => undefined },
    // Runs evicted past the cap, with nothing of their own to write, push it out of the ended list.
    { label: 'more than maxOpenRuns ended runs', options: { maxOpenRuns: 1 }, churn: (guard: LoopGuard) => ['x', 'y', 'z'].forEach((id) => guard.startRun(id)) },
    { label: 'its id reused by a new run', options: {}, churn: (guard: LoopGuard) => void guard.startRun('ended-run') },
  ]) {
    it(`issue 23 #5: flush() covers a run that already left the engine's lists (${label})`, async () => {
      const redisStore = createRedisRunStore({ client: await server.client(), keyPrefix: prefix, timeoutMs: 2000 });
      const guard = new LoopGuard({ ...options, store: withSlowAppends(redisStore, 150), logger: { warn: () => undefined } });
      const run = guard.startRun('ended-run');
      run.beginRound();
      const ticket = run.startCall({ tool: 'search', args: { q: 'x' } });
      run.finishCall(ticket, { result: ['a'] });
      run.end();
      churn(guard);
      expect(guard.getRun('ended-run') === run, 'the run has left the engine').to.equal(false);
      await guard.flush();
      const log = (await client.lrange(redisStore.keysOf('ended-run').log, 0, -1)).map((entry) => (JSON.parse(entry) as unknown[])[0]);
      expect(log, 'round, call, finish and end are all in the store').to.deep.equal(['r', 'c', 'f', 'e']);
      expect((await redisStore.describeRun('ended-run'))?.ended).to.equal(true);
    });
  }
});

describe('issue 23 #6: a Redis that cannot be reached never crashes the host (child processes)', function () {
  this.timeout(30_000);
  const servers: Server[] = [];
  after(() => {
    for (const server of servers) server.close();
  });

  /** A local TCP server: `mute` accepts and never answers, `garbage` answers every byte with noise. */
  async function fakeRedis(kind: 'mute' | 'garbage'): Promise<string> {
    const sockets: Socket[] = [];
    const server = createServer((socket) => {
      sockets.push(socket);
      socket.on('error', () => undefined);
      if (kind === 'garbage') socket.on('data', () => socket.write('%%garbage\x00\xff\r\n:not-a-number\r\n'));
    });
    server.on('close', () => sockets.forEach((socket) => socket.destroy()));
    servers.push(server);
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    return `redis://127.0.0.1:${(server.address() as AddressInfo).port}`;
  }

  const HOST = fileURLToPath(new URL('./fixtures/unreachable-store-host.ts', import.meta.url));
  /** Runs the host against `url`: its exit code, what it printed, and its stderr. */
  async function host(url: string): Promise<{ code: number | null; stdout: string; stderr: string }> {
    const child = spawn(process.execPath, ['--import', 'tsx', HOST, url], { stdio: ['ignore', 'pipe', 'pipe'] });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (chunk: Buffer) => (stdout += chunk.toString()));
    child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
    const code = await new Promise<number | null>((resolve) => child.on('exit', resolve));
    return { code, stdout, stderr };
  }
  const cases = [
    { label: 'connection refused', url: async () => `redis://127.0.0.1:${await freePort()}` },
    { label: 'a host that accepts and never answers', url: () => fakeRedis('mute') },
    { label: 'a host that answers garbage', url: () => fakeRedis('garbage') },
  ];
  // The three hosts run at once (each mostly waits on timers): the suite's wall time is one host's.
  let results: Array<Promise<{ code: number | null; stdout: string; stderr: string }>> = [];
  before(async () => {
    const urls = await Promise.all(cases.map(({ url }) => url()));
    results = urls.map((url) => host(url));
    // Settled here too: a failed case must not leave an unhandled rejection behind.
    for (const result of results) result.catch(() => undefined);
  });

  cases.forEach(({ label }, index) => {
    it(`issue 23 #6: ${label}: the host survives, follows storeFailure, warns once, and exits 0`, async () => {
      const { code, stdout, stderr } = await results[index]!;
      expect(code, `the host died:\n${stderr}`).to.equal(0);
      const seen = JSON.parse(stdout) as { decisions: string[]; warnings: string[]; slowest: number };
      // storeFailure defaults: ordinary calls fail open, business-key writes fail closed.
      expect(seen.decisions).to.deep.equal(['allow', 'store.unavailable', 'allow', 'store.unavailable', 'allow', 'store.unavailable']);
      expect(seen.warnings.filter((warning) => warning.includes('the shared store failed')), seen.warnings.join('\n')).to.have.length(1);
      // Every answer bounded: a few store operations of timeoutMs (200 ms) at most.
      expect(seen.slowest).to.be.below(1500);
    });
  });
});

describe('issue 23 #7: timer options of the store', () => {
  const client = { evalsha: () => undefined } as unknown as Redis;
  it('issue 23 #7: timeoutMs of 2^31 ms or more (which setTimeout turns into 1 ms) is rejected at construction, naming the field', () => {
    for (const timeoutMs of [2 ** 31, 2 ** 32, 1e15]) {
      expect(() => createRedisRunStore({ client, timeoutMs }), String(timeoutMs))
        .to.throw(LoopGuardConfigError)
        .with.property('field', 'timeoutMs');
    }
    expect(() => createRedisRunStore({ client, timeoutMs: 2 ** 31 })).to.throw(/at most 2147483647 ms/);
    expect(() => createRedisRunStore({ client, timeoutMs: 2 ** 31 - 1 })).not.to.throw();
    // Durations that are not timers (Redis expiry) may be longer.
    expect(() => createRedisRunStore({ client, runTtlMs: 2 ** 32 })).not.to.throw();
  });
});
