/**
 * A throwaway redis-server for the Redis bench (bench/redis.ts): a free loopback port, no
 * persistence (no RDB snapshots, no append-only file: the bench measures the store's round
 * trips and memory, not the disk), stopped at the end. Its own small starter rather than
 * test/helpers/redis-servers.ts: bench/tsconfig.json compiles bench and src only, and the
 * bench must not change when the test helpers do.
 */
import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

export interface BenchRedisServer {
  readonly port: number;
  readonly url: string;
  /** `redis-server --version`, for the report. */
  readonly version: string;
  /** SIGTERM, waits for the exit, removes its directory. Idempotent. */
  stop(): Promise<void>;
}

function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const address = server.address();
      server.close(() => resolve(typeof address === 'object' && address !== null ? address.port : 0));
    });
  });
}

/**
 * Starts redis-server and resolves once it answers PING.
 * @throws when redis-server is not installed or does not come up within 10 s.
 */
export async function startBenchRedisServer(): Promise<BenchRedisServer> {
  const probe = spawnSync('redis-server', ['--version'], { encoding: 'utf8' });
  if (probe.status !== 0) {
    throw new Error('redis-server is not installed: the redis bench needs it (apt-get install redis-server redis-tools)');
  }
  const version = /v=(\S+)/.exec(probe.stdout)?.[1] ?? probe.stdout.trim();
  const port = await freePort();
  const dir = mkdtempSync(join(tmpdir(), 'loopguard-bench-redis-'));
  const child: ChildProcess = spawn(
    'redis-server',
    ['--port', String(port), '--bind', '127.0.0.1', '--dir', dir, '--save', '', '--appendonly', 'no', '--daemonize', 'no', '--protected-mode', 'yes', '--loglevel', 'warning'],
    { stdio: ['ignore', 'ignore', 'pipe'] },
  );
  let stderr = '';
  child.stderr?.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
  // A bench that throws must not leave a server behind: killed synchronously on exit too.
  const killOnExit = () => child.kill('SIGKILL');
  process.once('exit', killOnExit);
  const deadline = Date.now() + 10_000;
  for (;;) {
    if (child.exitCode !== null) throw new Error(`redis-server on port ${port} exited: ${stderr}`);
    const ping = spawnSync('redis-cli', ['-p', String(port), 'ping'], { encoding: 'utf8' });
    if (ping.stdout?.trim() === 'PONG') break;
    if (Date.now() > deadline) {
      child.kill('SIGKILL');
      throw new Error(`redis-server on port ${port} did not answer PING within 10 s: ${stderr}`);
    }
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
  let stopped = false;
  return {
    port,
    url: `redis://127.0.0.1:${port}`,
    version,
    async stop() {
      if (stopped) return;
      stopped = true;
      process.removeListener('exit', killOnExit);
      if (child.exitCode === null && child.signalCode === null) {
        const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
        child.kill('SIGTERM');
        await exited;
      }
      rmSync(dir, { recursive: true, force: true });
    },
  };
}
