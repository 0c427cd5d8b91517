import { LoopGuardConfigError } from '../core/errors.js';
import { escapeControl } from '../replay/escape-terminal.js';
import { startLoopGuardServer, type LoopGuardServer } from '../server/start-loop-guard-server.js';
import type { PolicyEngineKeys } from '../replay/load-replay-policy.js';
import { CliOptionError } from './cli-option-error.js';
import { createCliGuard, type CliGuard } from './create-cli-guard.js';
import { nonBlankOption } from './non-blank-option.js';
import { EXIT_BAD_INPUT, type CliIo } from './replay-command.js';
import { reportCliOptionError } from './report-cli-option-error.js';
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

/** startLoopGuardServer's option names, as the flags that set them. */
const SERVER_OPTION_FLAGS: Readonly<Record<string, string>> = {
  host: '--host',
  port: '--port',
  authToken: '--auth-token',
  maxBodyBytes: '--max-body-bytes',
  maxSpansPerRequest: '--max-spans',
  maxConcurrentRequests: '--max-concurrent',
  shutdownTimeoutMs: '--shutdown-timeout-ms',
};

/**
 * What serve's `--policy` file may hold besides the policy: it decides live calls for a fleet,
 * so its operator sets the run limits (memory, idle runs) and, with `--redis`, the business
 * keys of writes that must run once across every run and replica (a Python agent has no other
 * way to declare them), what to do when Redis fails, and the claim lease. Replay refuses them
 * all: it never runs a tool.
 */
const SERVE_ENGINE_KEYS: PolicyEngineKeys = {
  command: 'serve',
  accepted: new Set(['maxOpenRuns', 'endedRunTtlMs', 'maxIdleMs', 'idempotentWrites', 'storeFailure', 'claimLeaseMs']),
  why: {
    listeners: 'the server installs its own listeners (its log, its metrics)',
    logger: 'the server writes its warnings to stderr',
    now: 'the server runs on the wall clock',
    store: 'give --redis URL instead',
    ownedRuns: 'replicas answer for the same runs, and an owned run\'s read reaches the shared log only after it ran, so another replica could run it again',
  },
};

/**
 * `loopguard serve`: the decision API and OTLP receiver until SIGTERM / SIGINT, then a
 * draining shutdown. `--redis URL`: runs live in Redis, so replicas share them. With
 * `OTEL_EXPORTER_OTLP_ENDPOINT` set, the engine's metrics and stop/refusal events go out
 * through setupLoopGuardTelemetry, as from the span processor (the dashboards work unchanged).
 * Returns 0 after a clean shutdown, 2 for bad options, 1 if the server could not start.
 */
export async function runServeCommand(options: ServeCommandOptions, io: CliIo, stopSignal?: Promise<void>): Promise<number> {
  const say = (text: string): void => void io.stderr.write(`${escapeControl(text)}\n`);
  let cliGuard: CliGuard;
  try {
    if (options.authToken !== undefined) nonBlankOption('serve', '--auth-token', 'a token (at least 16 characters)', { secret: true })(options.authToken);
    cliGuard = await createCliGuard({
      command: 'serve',
      policy: options.policy,
      engineKeys: SERVE_ENGINE_KEYS,
      redis: options.redis,
      keyPrefix: options.keyPrefix,
      serviceName: 'loopguard-serve',
      // No spans of its own: the server is not an agent; metrics and events are what dashboards read.
      exportSpans: false,
      env: io.env,
      say,
    });
  } catch (error) {
    if (error instanceof CliOptionError) return reportCliOptionError(error, io);
    throw error;
  }
  const { guard } = cliGuard;
  const authToken = options.authToken ?? io.env.LOOPGUARD_SERVE_TOKEN;

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
    await cliGuard.close();
    if (error instanceof LoopGuardConfigError) {
      // The server's own rules (a token of 16 characters or more…) name its option; the user typed the flag.
      const flag = error.field === 'authToken' && options.authToken === undefined ? 'LOOPGUARD_SERVE_TOKEN' : SERVER_OPTION_FLAGS[error.field];
      if (flag !== undefined) return reportCliOptionError(new CliOptionError('serve', flag, `${flag} ${error.message.slice(error.field.length + 2)}`), io);
      say(`loopguard serve: cannot start: ${error.message}`);
      return EXIT_BAD_INPUT;
    }
    say(`loopguard serve: cannot start: ${error instanceof Error ? error.message : String(error)}`);
    return 1;
  }
  // Listening for the signals before saying where it listens: a supervisor that sends SIGTERM
  // as soon as it reads the line must get a drain, not the default death by signal.
  const stopRequested = new Promise<void>((resolve) => {
    const signals: NodeJS.Signals[] = ['SIGTERM', 'SIGINT'];
    const onSignal = (): void => {
      for (const signal of signals) process.off(signal, onSignal);
      resolve();
    };
    for (const signal of signals) process.on(signal, onSignal);
    void stopSignal?.then(onSignal);
  });
  const exposed = server.host !== '127.0.0.1' && server.host !== '::1';
  say(
    `loopguard serve: listening on ${server.url} (decision API /v1/runs, OTLP /v1/traces, /metrics)` +
      (options.redis !== undefined ? `, runs in Redis at ${redactRedisUrl(options.redis)}` : '') +
      (authToken ? ', bearer token required' : exposed ? '; WARNING: reachable from other machines without a token (--auth-token)' : ''),
  );

  await stopRequested;
  say('loopguard serve: shutting down (draining requests in flight)');
  await server.close();
  await cliGuard.close();
  say('loopguard serve: stopped');
  return 0;
}
