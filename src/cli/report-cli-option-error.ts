import { escapeControl } from '../replay/escape-terminal.js';
import type { CliOptionError } from './cli-option-error.js';
import { EXIT_BAD_INPUT, type CliIo } from './replay-command.js';

/**
 * Prints a bad option as the one line every command uses (`loopguard serve: --port must be …`)
 * and returns the exit code for bad input. The value echoed back came from the user's shell
 * and may hold escapes: control characters are shown, not sent to the terminal.
 */
export function reportCliOptionError(error: CliOptionError, io: Pick<CliIo, 'stderr'>): number {
  io.stderr.write(`${escapeControl(`loopguard ${error.command}: ${error.message}`)}\n`);
  return EXIT_BAD_INPUT;
}
