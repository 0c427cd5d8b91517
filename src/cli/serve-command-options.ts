import type { Command } from 'commander';
import { keyPrefixOption } from './key-prefix-option.js';
import { nonBlankOption } from './non-blank-option.js';
import type { CliIo } from './replay-command.js';
import { runServeCommand } from './serve-command.js';
import { MAX_TIMER_MS, wholeNumberOption } from './whole-number-option.js';

/** Adds `loopguard serve` and its options to the program (docs/serve.md lists each flag; a test compares them with --help). */
export function registerServeCommand(program: Command, io: CliIo, setExitCode: (code: number) => void): void {
  program
    .command('serve')
    .summary('a decision API and an OTLP/HTTP receiver, so agents in any language are guarded')
    .description(
      'Guard agents in any language: a decision API (claim a call, record its outcome, ask shouldStop) ' +
        'and an OTLP/HTTP traces receiver that evaluates agent spans live. See docs/serve.md.',
    )
    .option('--host <host>', 'interface to listen on; 0.0.0.0 for every interface (then set --auth-token)', nonBlankOption('serve', '--host', 'a host name or address (127.0.0.1, 0.0.0.0, ::)'), '127.0.0.1')
    .option('--port <port>', 'port to listen on; 0 picks a free one', wholeNumberOption('serve', '--port', { min: 0, max: 65535 }), 4319)
    .option('--policy <file>', 'the library options object as JSON (per-tool policies included), as for replay')
    .option('--redis <url>', 'keep runs in Redis (redis://host:6379) so several replicas serve one fleet; the server then holds no state of its own')
    .option('--key-prefix <prefix>', 'with --redis: the prefix of every key (default loopguard)', keyPrefixOption('serve'))
    .option('--auth-token <token>', 'require Authorization: Bearer <token> on every request but /healthz and /readyz (or set LOOPGUARD_SERVE_TOKEN)', nonBlankOption('serve', '--auth-token', 'a token (at least 16 characters)', { secret: true }))
    .option('--max-body-bytes <n>', 'largest request body, on the wire and after gzip (default 4194304)', wholeNumberOption('serve', '--max-body-bytes', { min: 1 }))
    .option('--max-spans <n>', 'most spans in one OTLP request (default 10000)', wholeNumberOption('serve', '--max-spans', { min: 1 }))
    .option('--max-concurrent <n>', 'requests answered at once; past it 503/429 with Retry-After (default 256)', wholeNumberOption('serve', '--max-concurrent', { min: 1 }))
    .option('--shutdown-timeout-ms <ms>', 'on SIGTERM, how long requests in flight may finish (default 10000)', wholeNumberOption('serve', '--shutdown-timeout-ms', { min: 0, max: MAX_TIMER_MS, unit: 'milliseconds' }))
    .addHelpText(
      'after',
      [
        '',
        'Examples:',
        '  # on 127.0.0.1:4319, runs kept in memory; point an OTLP exporter at http://127.0.0.1:4319/v1/traces',
        '  $ loopguard serve --port 4319',
        '  # a replica of a fleet: runs in Redis, every request but the health checks needs the token',
        '  $ loopguard serve --host 0.0.0.0 --port 4319 --redis redis://127.0.0.1:6379 --auth-token "$TOKEN"',
        '',
        'Exit codes: 0 after SIGTERM/SIGINT drained the requests in flight; 2 a bad flag or --policy; 1 the port could not be bound.',
      ].join('\n'),
    )
    .exitOverride()
    .action(async (options: { host: string; port: number; policy?: string; redis?: string; keyPrefix?: string; authToken?: string; maxBodyBytes?: number; maxSpans?: number; maxConcurrent?: number; shutdownTimeoutMs?: number }) => {
      setExitCode(await runServeCommand(options, io));
    });
}
