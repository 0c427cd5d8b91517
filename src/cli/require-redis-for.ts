import { CliOptionError } from './cli-option-error.js';

/**
 * Throws a {@link CliOptionError} when an option that only means something with `--redis`
 * (`--key-prefix`) is given without it. Ignored silently, a `--key-prefix` meant for a shared
 * fleet would leave the server keeping runs in memory under no prefix, with nothing said.
 */
export function requireRedisFor(command: string, redis: string | undefined, redisOnly: Record<string, unknown>): void {
  if (redis !== undefined) return;
  for (const [flag, value] of Object.entries(redisOnly)) {
    if (value !== undefined) throw new CliOptionError(command, flag, `${flag} needs --redis (it only applies to runs kept in Redis); add --redis URL or leave ${flag} out`);
  }
}
