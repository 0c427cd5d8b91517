import { Command, CommanderError, InvalidArgumentError, Option } from 'commander';
import type { Profile } from '../core/types.js';
import { escapeControlKeepingLines } from '../replay/escape-terminal.js';
import { EXIT_BAD_INPUT, runReplayCommand, type CliIo, type ReplayFormat } from './replay-command.js';

/**
 * Entry point of the `loopguard` binary (bin/loopguard.js). Returns the exit code instead of
 * calling process.exit, so output streams flush and tests can call it in-process.
 */
export async function main(argv: string[], io: CliIo = processIo()): Promise<number> {
  let exitCode = 0;
  const program = new Command('loopguard')
    .description('Stops AI agents that loop on tool calls. `replay` tunes the guard against your own recorded runs.')
    .exitOverride()
    .configureOutput({
      writeOut: (text) => void io.stdout.write(text),
      // Usage errors echo the argument given (`unknown option '…'`): it may carry escapes.
      writeErr: (text) => void io.stderr.write(escapeControlKeepingLines(text)),
    })
    .showHelpAfterError('(run `loopguard replay --help` for usage)');

  program
    .command('replay')
    .description(
      'Replay recorded agent runs (JSONL transcripts or OTLP JSON traces) through the guard: ' +
        'where would it have refused and stopped, and what would that have saved?',
    )
    .argument('<files...>', 'JSONL transcripts or OTLP JSON files (one request per line); - reads stdin')
    .option('--policy <file>', 'the library options object as JSON (per-tool policies included)')
    .addOption(new Option('--profile <profile>', 'overrides the profile in the policy file').choices(['chat', 'researcher']))
    .addOption(new Option('--format <format>', 'report format').choices(['text', 'json', 'html']).default('text'))
    .option('--out <file>', 'write the report to a file instead of stdout')
    .option('--strict', 'abort at the first bad input line (exit 2)', false)
    .option('--fail-on-stop', 'exit 3 when any run would have been stopped (for CI)', false)
    .exitOverride()
    .action(async (files: string[], options: Record<string, unknown>) => {
      exitCode = await runReplayCommand(
        {
          files,
          policy: options.policy as string | undefined,
          profile: options.profile as Profile | undefined,
          format: options.format as ReplayFormat,
          out: options.out as string | undefined,
          strict: options.strict === true,
          failOnStop: options.failOnStop === true,
        },
        io,
      );
    });

  if (argv.length === 0) {
    // A bare `loopguard` is a usage error, not a silent success.
    io.stderr.write(program.helpInformation());
    return EXIT_BAD_INPUT;
  }
  try {
    await program.parseAsync(argv, { from: 'user' });
  } catch (error) {
    if (error instanceof CommanderError) {
      // --help and --version are not failures; everything else is a usage error.
      if (error.code === 'commander.helpDisplayed' || error.code === 'commander.help' || error.code === 'commander.version') return 0;
      return EXIT_BAD_INPUT;
    }
    if (error instanceof InvalidArgumentError) return EXIT_BAD_INPUT;
    throw error;
  }
  return exitCode;
}

function processIo(): CliIo {
  return { stdin: process.stdin, stdout: process.stdout, stderr: process.stderr, env: process.env };
}
