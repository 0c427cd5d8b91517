// Real Redis servers for the shared-ledger tests: Debian's redis-server on free loopback
// ports, one server or a three-master cluster (`redis-cli --cluster create`). `.ci/run`
// installs redis-server; a missing binary fails the tests with that instruction, never skips.
import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import { mkdirSync, mkdtempSync, rmSync } from 'node:fs';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Cluster, Redis } from 'ioredis';

function requireBinary(name: string): void {
  if (spawnSync(name, ['--version']).status !== 0) {
    throw new Error(`${name} is not installed: the Redis tests need Debian's redis-server and redis-tools (apt-get install redis-server; .ci/run does this)`);
  }
}

export async function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const address = server.address();
      server.close(() => resolve(typeof address === 'object' && address !== null ? address.port : 0));
    });
  });
}

export interface RedisServer {
  readonly port: number;
  readonly url: string;
  readonly dir: string;
  /** A client of this server (enableOfflineQueue off, as the README asks). */
  client(): Promise<Redis>;
  /** Kills the server (SIGKILL: a crash, nothing flushed beyond what fsync already wrote). */
  crash(): Promise<void>;
  /** Starts it again on the same port and directory (its append-only file is replayed). */
  restart(): Promise<void>;
  /** A mute server (SIGSTOP): connections stay open and nothing answers until `resume()`. */
  pause(): void;
  resume(): void;
  /**
   * A stalled server: DEBUG SLEEP for `ms` on its own connection. Resolves once the sleep has
   * begun, with `over`, which resolves when the server answers again.
   */
  stall(ms: number): Promise<{ over: Promise<unknown> }>;
  stop(): Promise<void>;
}

interface ServerOptions {
  appendOnly?: boolean;
  cluster?: boolean;
  port?: number;
  dir?: string;
}

async function launch(port: number, dir: string, options: ServerOptions): Promise<ChildProcess> {
  // DEBUG SLEEP (a stalled server, issue 23) is off by default since Redis 7; loopback only.
  const args = ['--port', String(port), '--bind', '127.0.0.1', '--dir', dir, '--save', '', '--daemonize', 'no', '--protected-mode', 'yes', '--loglevel', 'warning', '--enable-debug-command', 'local'];
  if (options.appendOnly) args.push('--appendonly', 'yes', '--appendfsync', 'always');
  else args.push('--appendonly', 'no');
  if (options.cluster) args.push('--cluster-enabled', 'yes', '--cluster-config-file', `nodes-${port}.conf`, '--cluster-node-timeout', '2000');
  const child = spawn('redis-server', args, { stdio: ['ignore', 'ignore', 'pipe'] });
  let stderr = '';
  child.stderr?.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
  // Ready when it answers PING.
  const deadline = Date.now() + 10_000;
  for (;;) {
    if (child.exitCode !== null) throw new Error(`redis-server on port ${port} exited: ${stderr}`);
    const ping = spawnSync('redis-cli', ['-p', String(port), 'ping'], { encoding: 'utf8' });
    if (ping.stdout.trim() === 'PONG') return child;
    if (Date.now() > deadline) throw new Error(`redis-server on port ${port} did not answer PING within 10 s: ${stderr}`);
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
}

async function kill(child: ChildProcess, signal: NodeJS.Signals): Promise<void> {
  if (child.exitCode !== null || child.signalCode !== null) return;
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
  child.kill(signal);
  await exited;
}

export async function startRedisServer(options: ServerOptions = {}): Promise<RedisServer> {
  requireBinary('redis-server');
  const port = options.port ?? (await freePort());
  const dir = options.dir ?? mkdtempSync(join(tmpdir(), 'loopguard-redis-'));
  let child = await launch(port, dir, options);
  const clients: Redis[] = [];
  return {
    port,
    url: `redis://127.0.0.1:${port}`,
    dir,
    async client() {
      const client = new Redis({ port, host: '127.0.0.1', enableOfflineQueue: false, maxRetriesPerRequest: 1, lazyConnect: true });
      client.on('error', () => undefined); // reconnects are expected in the restart tests
      await client.connect();
      clients.push(client);
      return client;
    },
    crash: () => kill(child, 'SIGKILL'),
    async restart() {
      child = await launch(port, dir, options);
    },
    pause: () => void child.kill('SIGSTOP'),
    resume: () => void child.kill('SIGCONT'),
    async stall(ms) {
      const sleeper = new Redis({ port, host: '127.0.0.1', lazyConnect: true, enableOfflineQueue: false });
      sleeper.on('error', () => undefined);
      await sleeper.connect();
      const over = sleeper.call('DEBUG', 'SLEEP', String(ms / 1000)).finally(() => sleeper.disconnect());
      over.catch(() => undefined);
      // Sent; the server is asleep once it has read it (well within this).
      await new Promise((resolve) => setTimeout(resolve, 20));
      return { over };
    },
    async stop() {
      for (const client of clients) client.disconnect();
      child.kill('SIGCONT'); // a paused server could not stop
      await kill(child, 'SIGTERM');
      if (options.dir === undefined) rmSync(dir, { recursive: true, force: true });
    },
  };
}

export interface RedisClusterHandle {
  readonly ports: readonly number[];
  client(): Promise<Cluster>;
  /** Index (into `ports`) of the master serving a slot. */
  nodeForSlot(slot: number): number;
  crash(node: number): Promise<void>;
  /** Starts a crashed node again (same port, directory and cluster config) and waits for cluster_state:ok. */
  restart(node: number): Promise<void>;
  /** The node's server (to pause or stall it). */
  server(node: number): RedisServer;
  /**
   * Waits until every node says cluster_state:ok. A node muted past the node timeout is
   * flagged FAIL, and each node clears the flag on its own clock: measured, the last node
   * reported ok about 3 s after SIGCONT and 0.3 s after the first one did.
   */
  settle(): Promise<void>;
  stop(): Promise<void>;
}

async function waitForClusterOk(ports: readonly number[]): Promise<void> {
  const deadline = Date.now() + 20_000;
  for (const port of ports) {
    for (;;) {
      const info = spawnSync('redis-cli', ['-p', String(port), 'cluster', 'info'], { encoding: 'utf8' }).stdout;
      if (info.includes('cluster_state:ok')) break;
      if (Date.now() > deadline) throw new Error(`the cluster did not reach cluster_state:ok: ${info}`);
      await new Promise((resolve) => setTimeout(resolve, 100));
    }
  }
}

/** Three masters, no replicas: the smallest real cluster (slots spread over three nodes). */
export async function startRedisCluster(options: { appendOnly?: boolean } = {}): Promise<RedisClusterHandle> {
  requireBinary('redis-server');
  requireBinary('redis-cli');
  const dir = mkdtempSync(join(tmpdir(), 'loopguard-redis-cluster-'));
  const servers: RedisServer[] = [];
  for (let index = 0; index < 3; index++) {
    // One directory per node: each has its own append-only file and cluster config.
    const nodeDir = join(dir, String(index));
    mkdirSync(nodeDir);
    servers.push(await startRedisServer({ cluster: true, dir: nodeDir, appendOnly: options.appendOnly }));
  }
  const ports = servers.map((server) => server.port);
  const create = spawnSync('redis-cli', ['--cluster', 'create', ...ports.map((port) => `127.0.0.1:${port}`), '--cluster-replicas', '0', '--cluster-yes'], { encoding: 'utf8' });
  if (create.status !== 0) throw new Error(`redis-cli --cluster create failed: ${create.stdout}${create.stderr}`);
  await waitForClusterOk(ports);
  // Slot ranges per node, read once: no failover happens without replicas.
  const ranges: Array<{ from: number; to: number; port: number }> = [];
  for (const port of ports) {
    const myself = spawnSync('redis-cli', ['-p', String(port), 'cluster', 'nodes'], { encoding: 'utf8' }).stdout.split('\n').find((line) => line.includes('myself'));
    for (const part of (myself ?? '').trim().split(' ').slice(8)) {
      const [from, to] = part.split('-').map(Number);
      if (from !== undefined && !Number.isNaN(from)) ranges.push({ from, to: to ?? from, port });
    }
  }
  const clients: Cluster[] = [];
  return {
    ports,
    nodeForSlot(slot) {
      const range = ranges.find((entry) => slot >= entry.from && slot <= entry.to);
      if (range === undefined) throw new Error(`no node serves slot ${slot}`);
      return ports.indexOf(range.port);
    },
    async client() {
      const client = new Cluster(ports.map((port) => ({ host: '127.0.0.1', port })), { enableOfflineQueue: false, redisOptions: { maxRetriesPerRequest: 1 } });
      client.on('error', () => undefined);
      await new Promise<void>((resolve, reject) => {
        client.once('ready', () => resolve());
        client.once('error', reject);
      });
      clients.push(client);
      return client;
    },
    crash: (node) => servers[node]!.crash(),
    server: (node) => servers[node]!,
    async restart(node) {
      await servers[node]!.restart();
      await waitForClusterOk(ports);
    },
    settle: () => waitForClusterOk(ports),
    async stop() {
      for (const client of clients) client.disconnect();
      for (const server of servers) await server.stop();
      rmSync(dir, { recursive: true, force: true });
    },
  };
}

/**
 * One real redis-server for a mocha suite and a fresh key prefix for each of its tests, so
 * tests of one suite never see each other's runs. Call it inside `describe`.
 */
export function redisServerPerSuite(name: string): { readonly server: RedisServer; readonly prefix: string } {
  let server: RedisServer | undefined;
  let trial = 0;
  before(async () => {
    server = await startRedisServer();
  });
  after(async () => {
    await server?.stop();
  });
  beforeEach(() => {
    trial += 1;
  });
  return {
    get server(): RedisServer {
      if (server === undefined) throw new Error(`the ${name} suite's redis-server is not started yet (use it inside a test)`);
      return server;
    },
    get prefix(): string {
      return `${name}-${trial}`;
    },
  };
}
