import { CliOptionError } from './cli-option-error.js';

/**
 * A commander argument parser for an option whose value is a word that cannot be empty or
 * padded with spaces (`--host`, `--auth-token`). An empty value is what an unset shell
 * variable gives (`--auth-token "$TOKEN"`): taken silently it meant no token at all, a server
 * open to anyone; a padded host failed later as ENOTFOUND with exit 1.
 */
export function nonBlankOption(command: string, flag: string, expected: string, options: { secret?: boolean } = {}): (value: string) => string {
  return (value: string): string => {
    if (value.trim() === '' || value.trim() !== value) {
      // A token is never echoed (a log or a CI transcript keeps stderr); an empty one says so.
      const shown = options.secret === true && value.trim() !== '' ? '"<hidden>"' : JSON.stringify(value);
      throw new CliOptionError(command, flag, `${flag} must be ${expected}, without spaces around it, got ${shown}`);
    }
    return value;
  };
}
