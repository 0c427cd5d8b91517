import { CliOptionError } from './cli-option-error.js';

/**
 * What is wrong with `--key-prefix` (the Redis store's own rule: not empty, no braces, since
 * braces would pick the cluster hash slot), as one line starting with the flag, or undefined.
 */
export function keyPrefixProblem(value: unknown): string | undefined {
  if (typeof value === 'string' && value.length > 0 && !/[{}]/.test(value)) return undefined;
  return `--key-prefix must be a non-empty prefix without braces (the keyPrefix the engines were given), got ${JSON.stringify(String(value))}`;
}

/** A commander argument parser for `--key-prefix`: checked before connecting, a typo should not wait on the network. */
export function keyPrefixOption(command: string): (value: string) => string {
  return (value: string): string => {
    const problem = keyPrefixProblem(value);
    if (problem !== undefined) throw new CliOptionError(command, '--key-prefix', problem);
    return value;
  };
}
