import { LoopGuard, type LoopGuardEngineOptions } from '../core/loop-guard.js';
import type { LoopGuardOptions } from '../core/types.js';
import { escapeControl } from '../replay/escape-terminal.js';
import { loadReplayPolicy, ReplayPolicyError } from '../replay/load-replay-policy.js';
import { startLoopGuardServer, type LoopGuardServer } from '../server/start-loop-guard-server.js';
import { EXIT_BAD_INPUT, type CliIo } from './replay-command.js';
import { redactRedisUrl } from './runs-redact-url.js';

export interface ServeCommandOptions {
  host: string;
  port: number;
  policy?: string;
  redis?: string;
  keyPrefix?: string;
  authToken?: string;
  maxBodyBytes?: number;
  maxSpans?: number;
  maxConcurrent?: number;
  shutdownTimeoutMs?: number;
}

/** How long the exporters get to flush at exit. */
const TELEMETRY_FLUSH_MS = 5000;

/**
 * `loopguard serve`: the decision API and OTLP receiver until SIGTERM / SIGINT, then a
 * draining shutdown. `--redis URL`: runs live in Redis, so replicas share them. With
 * `OTEL_EXPORTER_OTLP_ENDPOINT` set, the engine's metrics and stop/refusal events go out
 * through setupLoopGuardTelemetry, as from the span processor (the dashboards work unchanged).
 * Returns 0 after a clean shutdown, 2 for bad options, 1 if the server could not start.
 */
export async function runServeCommand(options: ServeCommandOptions, io: CliIo, stopSignal?: Promise<void>): Promise<number> {
  const say = (text: string): void => void io.stderr.write(`${escapeControl(text)}\n`);
  let policy: LoopGuardOptions;
  try {
    policy = await loadReplayPolicy(options.policy, undefined);
  } catch (error) {
    if (error instanceof ReplayPolicyError) {
      say(`loopguard serve: ${error.message}`);
      return EXIT_BAD_INPUT;
    }
    throw error;
  }
  const authToken = options.authToken ?? io.env.LOOPGUARD_SERVE_TOKEN;
  const engineOptions: LoopGuardEngineOptions = { ...policy, logger: { warn: (message) => say(`loopguard: ${message}`) } };
  let store: { close(): Promise<void> } | undefined;
  if (options.redis !== undefined) {
    if (!/^rediss?:\/\/./.test(options.redis)) {
      say(`loopguard serve: --redis must be a redis:// or rediss:// URL, got ${JSON.stringify(redactRedisUrl(options.redis))}`);
      return EXIT_BAD_INPUT;
    }
    let createRedisRunStore: typeof import('../redis/index.js').createRedisRunStore;
    try {
      // The entry point loads ioredis (an optional peer) and hands it to the store.
      ({ createRedisRunStore } = await import('../redis/index.js'));
    } catch (error) {
      say(`loopguard serve: --redis needs the ioredis package (npm install ioredis): ${error instanceof Error ? error.message : String(error)}`);
      return EXIT_BAD_INPUT;
    }
    try {
      const redisStore = createRedisRunStore({ url: options.redis, ...(options.keyPrefix !== undefined ? { keyPrefix: options.keyPrefix } : {}) });
      engineOptions.store = redisStore;
      store = redisStore;
    } catch (error) {
      say(`loopguard serve: --redis: ${error instanceof Error ? error.message : String(error)}`);
      return EXIT_BAD_INPUT;
    }
  }

  let telemetry: { shutdown(): Promise<void> } | undefined;
  let guard: LoopGuard;
  if (io.env.OTEL_EXPORTER_OTLP_ENDPOINT) {
    // Imported lazily: without a collector the server never loads the OpenTelemetry SDK.
    const { setupLoopGuardTelemetry } = await import('../telemetry/index.js');
    const namedByEnv = Boolean(io.env.OTEL_SERVICE_NAME) || /(^|,)\s*service\.name=/.test(io.env.OTEL_RESOURCE_ATTRIBUTES ?? '');
    // No spans of its own: the server is not an agent; metrics and events are what dashboards read.
    const setup = setupLoopGuardTelemetry({ ...engineOptions, traceExporter: false, ...(namedByEnv ? {} : { serviceName: 'loopguard-serve' }), shutdownOnExit: false });
    telemetry = setup;
    guard = setup.guard;
  } else {
    guard = new LoopGuard(engineOptions);
  }
  guard.addListener({ runStopped: (run, stop) => say(`loopguard serve: stopped run ${run.id} at round ${stop.round} (${stop.reason}): ${stop.detail}`) });

  let server: LoopGuardServer;
  try {
    server = await startLoopGuardServer({
      guard,
      host: options.host,
      port: options.port,
      ...(authToken !== undefined && authToken !== '' ? { authToken } : {}),
      ...(options.maxBodyBytes !== undefined ? { maxBodyBytes: options.maxBodyBytes } : {}),
      ...(options.maxSpans !== undefined ? { maxSpansPerRequest: options.maxSpans } : {}),
      ...(options.maxConcurrent !== undefined ? { maxConcurrentRequests: options.maxConcurrent } : {}),
      ...(options.shutdownTimeoutMs !== undefined ? { shutdownTimeoutMs: options.shutdownTimeoutMs } : {}),
      logger: { warn: (message) => say(`loopguard serve: ${message}`) },
    });
  } catch (error) {
    say(`loopguard serve: cannot start: ${error instanceof Error ? error.message : String(error)}`);
    await store?.close();
    return error instanceof Error && error.name === 'LoopGuardConfigError' ? EXIT_BAD_INPUT : 1;
  }
  const exposed = server.host !== '127.0.0.1' && server.host !== '::1';
  say(
    `loopguard serve: listening on ${server.url} (decision API /v1/runs, OTLP /v1/traces, /metrics)` +
      (options.redis !== undefined ? `, runs in Redis at ${redactRedisUrl(options.redis)}` : '') +
      (authToken ? ', bearer token required' : exposed ? '; WARNING: reachable from other machines without a token (--auth-token)' : ''),
  );

  await new Promise<void>((resolve) => {
    const signals: NodeJS.Signals[] = ['SIGTERM', 'SIGINT'];
    const onSignal = (): void => {
      for (const signal of signals) process.off(signal, onSignal);
      resolve();
    };
    for (const signal of signals) process.on(signal, onSignal);
    void stopSignal?.then(onSignal);
  });
  say('loopguard serve: shutting down (draining requests in flight)');
  await server.close();
  await store?.close();
  if (telemetry !== undefined) {
    let timer: NodeJS.Timeout | undefined;
    await Promise.race([telemetry.shutdown(), new Promise<void>((resolve) => (timer = setTimeout(resolve, TELEMETRY_FLUSH_MS)))]);
    clearTimeout(timer);
  }
  say('loopguard serve: stopped');
  return 0;
}
