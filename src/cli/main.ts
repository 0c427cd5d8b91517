import { Command, CommanderError, InvalidArgumentError, Option } from 'commander';
import type { Profile } from '../core/types.js';
import { escapeControlKeepingLines } from '../replay/escape-terminal.js';
import { CliOptionError } from './cli-option-error.js';
import { keyPrefixOption } from './key-prefix-option.js';
import { roundGapMsOption, runGapMsOption, runMcpProxyCommand } from './mcp-proxy-command.js';
import { reportCliOptionError } from './report-cli-option-error.js';
import { EXIT_BAD_INPUT, runReplayCommand, type CliIo, type ReplayFormat } from './replay-command.js';
import { limitOption, runRunsCommand, timeoutMsOption } from './runs-command.js';
import { registerServeCommand } from './serve-command-options.js';

/**
 * Entry point of the `loopguard` binary (bin/loopguard.js). Returns the exit code instead of
 * calling process.exit, so output streams flush and tests can call it in-process.
 */
export async function main(argv: string[], io: CliIo = processIo()): Promise<number> {
  let exitCode = 0;
  const program = new Command('loopguard')
    .description(
      'Stops AI agents that loop on tool calls. `replay` tunes the guard against your own recorded runs; ' +
        '`mcp-proxy` guards any stdio MCP server; `runs` shows runs kept in Redis.',
    )
    .exitOverride()
    .configureOutput({
      writeOut: (text) => void io.stdout.write(text),
      // Usage errors echo the argument given (`unknown option '…'`): it may carry escapes.
      writeErr: (text) => void io.stderr.write(escapeControlKeepingLines(text)),
      // Commander's usage errors start "error:"; every other error line starts with who says it.
      outputError: (text, write) => write(text.replace(/^error: /, 'loopguard: ')),
    })
    .showHelpAfterError('(run `loopguard <command> --help` for usage)')
    .addHelpText(
      'after',
      [
        '',
        'Examples:',
        '  $ loopguard replay --policy examples/transcripts/policy.json examples/transcripts/*.jsonl',
        '  $ loopguard mcp-proxy -- npx -y @modelcontextprotocol/server-filesystem ./notes',
        '  $ loopguard runs --redis redis://localhost:6379',
        '',
        'Each command has its own examples: loopguard <command> --help. Docs: docs/README.md',
      ].join('\n'),
    );

  program
    .command('replay')
    .summary('tune the guard on recorded runs: where would it refuse and stop, and what would that save')
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
    .addHelpText(
      'after',
      [
        '',
        'Examples:',
        '  # the example transcripts, with their policy: a text report on the terminal',
        '  $ loopguard replay --policy examples/transcripts/policy.json examples/transcripts/*.jsonl',
        '  # the OTLP JSON your Collector wrote, as one HTML page',
        '  $ loopguard replay --format html --out replay.html --policy policy.json traces.otlp.json',
        '  # in CI: fail the build when a recorded regression run would loop',
        '  $ loopguard replay --fail-on-stop --policy policy.json test/fixtures/agent-runs/*.jsonl',
        '',
        'Exit codes: 0 done; 1 the report could not be written; 2 bad input (each bad line printed as file:line); 3 with --fail-on-stop.',
      ].join('\n'),
    )
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

  program.enablePositionalOptions(); // lets `mcp-proxy` pass the server's own options through
  program
    .command('mcp-proxy')
    .summary('guard any stdio MCP server: put it in front of the server command in your MCP client')
    .description(
      'Run an MCP server behind loopguard: a stdio MCP server that starts the real one as a child, ' +
        'forwards every message, and guards its tool calls',
    )
    .usage('[options] -- <server command> [args...]')
    .argument('<command>', 'the MCP server to start (after --)')
    .argument('[args...]', 'its arguments')
    .option('--policy <file>', 'the library options object as JSON (per-tool policies included)')
    .option('--round-gap-ms <ms>', 'a quiet gap this long between tool calls starts a new round; 0: one round per call (default 1000)', roundGapMsOption)
    .option('--run-gap-ms <ms>', 'a quiet gap this long between tool calls starts a new run (a new conversation); 0: one run per session (default 600000)', runGapMsOption)
    .passThroughOptions()
    .addHelpText(
      'after',
      [
        '',
        'Examples:',
        '  # the reference filesystem server, guarded (in an MCP client config: command npx, these args)',
        '  $ loopguard mcp-proxy -- npx -y @modelcontextprotocol/server-filesystem /path/to/folder',
        '  # your own policy, one round per tool call (for clients that call one tool per turn)',
        '  $ loopguard mcp-proxy --policy policy.json --round-gap-ms 0 -- node build/server.js',
        '',
        "Exit codes: the server's own; 127 it could not start; 2 a bad --policy.",
      ].join('\n'),
    )
    .exitOverride()
    .action(async (command: string, args: string[], options: { policy?: string; roundGapMs?: number; runGapMs?: number }) => {
      exitCode = await runMcpProxyCommand({ command, args, policy: options.policy, roundGapMs: options.roundGapMs, runGapMs: options.runGapMs }, io);
    });

  program
    .command('runs')
    .summary('list the runs kept in Redis, or print one run\'s ledger and timeline (read-only)')
    .description(
      'List the runs stored in Redis by loopguard/redis engines, or print one run\'s ledger for an SRE: ' +
        'rounds, calls, refusals, stop, and a per-round timeline of decisions and outcomes. Only reads.',
    )
    .argument('[run]', 'a run id: print that run instead of the list')
    .requiredOption('--redis <url>', 'the Redis URL: redis://[user:password@]host:6379[/db], rediss:// for TLS; any node of a cluster')
    .addOption(new Option('--format <format>', 'output format').choices(['text', 'json']).default('text'))
    .option('--key-prefix <prefix>', 'the keyPrefix the engines\' store was given (default loopguard)', keyPrefixOption('runs'))
    .option('--limit <n>', 'runs listed, newest first (default 100); with a run, only its last n rounds', limitOption)
    .option('--policy <file>', 'with a run: the library options as JSON (as for replay), so novelty is judged as the run judged it')
    .option('--timeout-ms <ms>', 'the whole command (connecting and every read) must finish within this, 1 to 2147483647 (default 2000)', timeoutMsOption)
    .addHelpText(
      'after',
      [
        '',
        'Examples:',
        '  # the runs under the default key prefix, newest first',
        '  $ loopguard runs --redis redis://localhost:6379',
        '  # one run: its stop, ledger and the last 5 rounds of its timeline, as JSON',
        '  $ loopguard runs --redis rediss://user:secret@redis.internal:6380 --limit 5 --format json looping',
        '',
        'Exit codes: 0 done; 1 Redis unreachable or failing, or the output cannot be written; 2 bad input or no such run.',
      ].join('\n'),
    )
    .exitOverride()
    .action(async (run: string | undefined, options: { redis: string; format: 'text' | 'json'; keyPrefix?: string; limit?: number; policy?: string; timeoutMs?: number }) => {
      exitCode = await runRunsCommand(
        { redis: options.redis, run, format: options.format, keyPrefix: options.keyPrefix, limit: options.limit, policy: options.policy, timeoutMs: options.timeoutMs },
        io,
      );
    });

  registerServeCommand(program, io, (code) => (exitCode = code));

  for (const command of program.commands) {
    // A command's usage errors (an unknown option, a missing argument, a value not among the
    // choices) start with its name, as its other errors do.
    command.configureOutput({ outputError: (text, write) => write(text.replace(/^error: /, `loopguard ${command.name()}: `)) });
  }

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
    // Thrown by an option's parser (whole-number-option.ts…): one line naming the flag.
    if (error instanceof CliOptionError) return reportCliOptionError(error, io);
    throw error;
  }
  return exitCode;
}

function processIo(): CliIo {
  return { stdin: process.stdin, stdout: process.stdout, stderr: process.stderr, env: process.env };
}
