import type { Cluster, Redis } from 'ioredis';
import { redactRedisUrl } from './runs-redact-url.js';
import { RunsRedisError } from './runs-redis-error.js';
import { rejectAfter } from '../core/reject-after.js';

/** A connected client for `loopguard runs`, and how to let go of it. */
export interface RunsRedisConnection {
  readonly client: Redis | Cluster;
  /** `cluster` when the URL named a node of a Redis Cluster (the client then follows slots). */
  readonly topology: 'server' | 'cluster';
  /** When the command's --timeout-ms budget, started before connecting, runs out (epoch ms). */
  readonly deadline: number;
  /** Drops the connection at once: the command only read, so there is nothing to flush. */
  close(): void;
}

/**
 * Connects to the Redis (or to the Redis Cluster one of whose nodes) `url` names, and resolves
 * once commands can be sent: a client with no offline queue rejects every command sent while
 * it is still connecting, so the first one must wait for `ready`. Fails with a
 * {@link RunsRedisError} saying why (refused, timed out, authentication, a URL ioredis
 * cannot parse) within `timeoutMs` of loading ioredis, the whole connection included (the
 * returned `deadline` is when that budget ends, for the reads that follow): no reconnect
 * attempts, no offline queue, no stack trace, and no socket left to keep the process alive.
 */
export async function connectRunsRedis(url: string, timeoutMs: number): Promise<RunsRedisConnection> {
  const shown = redactRedisUrl(url);
  let ioredis: Pick<typeof import('ioredis'), 'Redis' | 'Cluster'>;
  try {
    // Loaded only here: ioredis is an optional peer dependency, and `loopguard replay` must
    // work without it.
    ioredis = await import('ioredis');
  } catch (error) {
    throw new RunsRedisError(`loopguard runs needs the ioredis package (npm install ioredis): ${messageOf(error)}`);
  }
  // The budget starts once ioredis is loaded: it is for Redis, not for reading modules from disk.
  const deadline = Date.now() + timeoutMs;

  // ioredis waits up to 2 s (its default) for a server to close a socket it ended, and a
  // refused connection's or a mute server's never closes: the process used to outlive its
  // answer by 2 s. The command only read, so there is nothing to wait for.
  const disconnectTimeout = 0;
  let server: InstanceType<typeof ioredis.Redis>;
  try {
    server = new ioredis.Redis(url, {
      lazyConnect: true,
      enableOfflineQueue: false,
      maxRetriesPerRequest: 1,
      connectTimeout: remaining(deadline),
      disconnectTimeout,
      // One attempt: an SRE tool should say "unreachable" now, not retry in the background.
      retryStrategy: () => null,
    });
  } catch (error) {
    // redisUrlProblem() catches the URLs known to make the constructor throw; this is the rest.
    throw new RunsRedisError(`cannot use the Redis URL ${shown}: ${messageOf(error)}`);
  }
  let lastError: unknown;
  // Without a listener ioredis prints "[ioredis] Unhandled error event" with a stack.
  server.on('error', (error: unknown) => (lastError = error));
  try {
    await within(server.connect(), deadline, `connecting took longer than ${timeoutMs} ms`);
    const info = await within(server.info('cluster'), deadline, `connecting took longer than ${timeoutMs} ms (INFO got no answer)`);
    // ioredis selects the URL's database after `ready` and only emits a failure (a database
    // out of range): its reply precedes INFO's, so it is known here. Listing database 0
    // instead would be a wrong answer, not an error.
    if (lastError !== undefined) throw lastError;
    if (!/^cluster_enabled:1/m.test(info)) return { client: server, topology: 'server', deadline, close: () => server.disconnect() };
  } catch (error) {
    server.disconnect();
    // connect() itself rejects with "Connection is closed."; the error event says why.
    throw new RunsRedisError(`cannot reach Redis at ${shown}: ${messageOf(lastError ?? error)}`);
  }

  // A cluster node: a plain client would get MOVED for every run not in this node's slots.
  const { host, port, username, password, tls } = server.options;
  server.disconnect();
  const cluster = new ioredis.Cluster([{ host, port }], {
    enableOfflineQueue: false,
    clusterRetryStrategy: () => null,
    slotsRefreshTimeout: remaining(deadline),
    redisOptions: { username, password, tls, connectTimeout: remaining(deadline), disconnectTimeout, maxRetriesPerRequest: 1 },
  });
  let clusterError: unknown;
  cluster.on('error', (error: unknown) => (clusterError = error));
  try {
    const ready = new Promise<void>((resolve, reject) => {
      cluster.once('ready', () => resolve());
      cluster.once('end', () => reject(clusterError ?? new Error('the cluster closed the connection')));
    });
    await within(ready, deadline, `the cluster was not ready within ${timeoutMs} ms`);
  } catch (error) {
    cluster.disconnect();
    throw new RunsRedisError(`cannot reach the Redis Cluster at ${shown}: ${messageOf(clusterError ?? error)}`);
  }
  return { client: cluster, topology: 'cluster', deadline, close: () => cluster.disconnect() };
}

function within<T>(promise: Promise<T>, deadline: number, message: string): Promise<T> {
  return rejectAfter(promise, remaining(deadline), () => new Error(message));
}

/** ms left until `deadline`; at least 1, as ioredis reads a connectTimeout of 0 as "none". */
function remaining(deadline: number): number {
  return Math.max(1, deadline - Date.now());
}

function messageOf(error: unknown): string {
  if (error instanceof Error) {
    // An AggregateError (every address of a host refused) says nothing in its own message.
    if (error.message === '' && error instanceof AggregateError) return error.errors.map(messageOf).join('; ');
    return error.message;
  }
  return String(error);
}
