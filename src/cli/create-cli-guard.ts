import { LoopGuardConfigError } from '../core/errors.js';
import { LoopGuard, type LoopGuardEngineOptions } from '../core/loop-guard.js';
import type { Profile } from '../core/types.js';
import { CliOptionError } from './cli-option-error.js';
import { keyPrefixProblem } from './key-prefix-option.js';
import type { PolicyEngineKeys } from '../replay/load-replay-policy.js';
import { loadCliPolicy } from './load-cli-policy.js';
import { requireRedisFor } from './require-redis-for.js';
import { redisUrlProblem } from './runs-redis-url-problem.js';

/** How long the exporters get to flush at exit: an unreachable collector must not hold the command up. */
const TELEMETRY_FLUSH_MS = 5000;

export interface CreateCliGuardOptions {
  /** The subcommand (`serve`, `mcp-proxy`): names it in every line printed and in every error. */
  command: string;
  /** `--policy FILE`: the library options object as JSON. */
  policy?: string;
  /** Engine options the policy file may hold besides the policy (serve's run limits and shared-store options). Default: none, as for replay. */
  engineKeys?: PolicyEngineKeys;
  profile?: Profile;
  /** `--redis URL`: runs kept in Redis, shared by every process given the same URL and prefix. */
  redis?: string;
  /** `--key-prefix`: only with `redis`. */
  keyPrefix?: string;
  /** `service.name` when the environment names none (OTEL_SERVICE_NAME, OTEL_RESOURCE_ATTRIBUTES). */
  serviceName: string;
  /** Export the guard's own spans: an agent's process (mcp-proxy) has runs to trace; a server answering for others does not. */
  exportSpans: boolean;
  env: NodeJS.ProcessEnv;
  /** Prints one line on stderr (escaped by the caller). */
  say: (text: string) => void;
}

export interface CliGuard {
  readonly guard: LoopGuard;
  /** Lets go of the Redis store and flushes telemetry (at most TELEMETRY_FLUSH_MS); call once, at exit. */
  close(): Promise<void>;
}

/**
 * The one place a CLI command turns its options into a LoopGuard: the policy file read through
 * the library's validator, `--redis` checked before anything connects, the engine's warnings
 * and every stopped run said on stderr, and, when `OTEL_EXPORTER_OTLP_ENDPOINT` is set,
 * metrics and events (and spans, if `exportSpans`) through setupLoopGuardTelemetry, imported
 * only then so a command without a collector never loads the OpenTelemetry SDK.
 * @throws CliOptionError naming the option at fault (`--policy`, `--redis`, `--key-prefix`).
 */
export async function createCliGuard(options: CreateCliGuardOptions): Promise<CliGuard> {
  const { command, say } = options;
  requireRedisFor(command, options.redis, { '--key-prefix': options.keyPrefix });
  const policy = await loadCliPolicy(command, options.policy, options.profile, options.engineKeys);
  if (options.redis === undefined) {
    // Taken from the file only to act on a store; without one they would be silently ignored,
    // and a business key would quietly not be claimed at all.
    for (const key of ['idempotentWrites', 'storeFailure'] as const) {
      if (policy[key as keyof typeof policy] !== undefined) {
        throw new CliOptionError(command, '--policy', `${options.policy}: "${key}" needs --redis: business keys and claims are kept in Redis, where every replica and every restart finds them`);
      }
    }
  }
  const engineOptions: LoopGuardEngineOptions = { ...policy, logger: { warn: (message) => say(`loopguard: ${message}`) } };

  let store: { close(): Promise<void> } | undefined;
  if (options.redis !== undefined) {
    const urlProblem = redisUrlProblem(options.redis);
    if (urlProblem !== undefined) throw new CliOptionError(command, '--redis', urlProblem);
    const prefixProblem = options.keyPrefix === undefined ? undefined : keyPrefixProblem(options.keyPrefix);
    if (prefixProblem !== undefined) throw new CliOptionError(command, '--key-prefix', prefixProblem);
    let createRedisRunStore: typeof import('../redis/index.js').createRedisRunStore;
    try {
      // The entry point loads ioredis (an optional peer) and hands it to the store.
      ({ createRedisRunStore } = await import('../redis/index.js'));
    } catch (error) {
      throw new CliOptionError(command, '--redis', `--redis needs the ioredis package (npm install ioredis): ${error instanceof Error ? error.message : String(error)}`);
    }
    try {
      const redisStore = createRedisRunStore({ url: options.redis, ...(options.keyPrefix !== undefined ? { keyPrefix: options.keyPrefix } : {}) });
      engineOptions.store = redisStore;
      store = redisStore;
    } catch (error) {
      throw new CliOptionError(command, '--redis', `--redis: ${error instanceof Error ? error.message : String(error)}`);
    }
  }

  let telemetry: { shutdown(): Promise<void> } | undefined;
  let guard: LoopGuard;
  const env = options.env;
  try {
    if (env.OTEL_EXPORTER_OTLP_ENDPOINT) {
      const { setupLoopGuardTelemetry } = await import('../telemetry/index.js');
      const namedByEnv = Boolean(env.OTEL_SERVICE_NAME) || /(^|,)\s*service\.name=/.test(env.OTEL_RESOURCE_ATTRIBUTES ?? '');
      const setup = setupLoopGuardTelemetry({
        ...engineOptions,
        ...(options.exportSpans ? {} : { traceExporter: false }),
        ...(namedByEnv ? {} : { serviceName: options.serviceName }),
        shutdownOnExit: false,
      });
      telemetry = setup;
      guard = setup.guard;
    } else {
      guard = new LoopGuard(engineOptions);
    }
  } catch (error) {
    await store?.close();
    // The store options are checked when the engine meets its store (a business key's parts,
    // a lease): the policy file is where they came from.
    if (error instanceof LoopGuardConfigError && options.policy !== undefined) throw new CliOptionError(command, '--policy', `${options.policy}: ${error.message}`);
    throw error;
  }
  // The user's log (the MCP client's, the server's) is where someone looks for why tools stopped working.
  guard.addListener({ runStopped: (run, stop) => say(`loopguard ${command}: stopped run ${run.id} at round ${stop.round} (${stop.reason}): ${stop.detail}`) });

  return {
    guard,
    async close(): Promise<void> {
      await store?.close();
      if (telemetry !== undefined) {
        let timer: NodeJS.Timeout | undefined;
        await Promise.race([telemetry.shutdown(), new Promise<void>((resolve) => (timer = setTimeout(resolve, TELEMETRY_FLUSH_MS)))]);
        clearTimeout(timer);
      }
    },
  };
}
