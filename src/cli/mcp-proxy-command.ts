import { constants as osConstants } from 'node:os';
import { startMcpStdioProxy } from '../integrations/mcp/start-mcp-stdio-proxy.js';
import { escapeControl } from '../replay/escape-terminal.js';
import type { PolicyEngineKeys } from '../replay/load-replay-policy.js';
import { CliOptionError } from './cli-option-error.js';
import { createCliGuard, type CliGuard } from './create-cli-guard.js';
import { EXIT_BAD_INPUT, type CliIo } from './replay-command.js';
import { reportCliOptionError } from './report-cli-option-error.js';
import { MAX_TIMER_MS, wholeNumberOption } from './whole-number-option.js';

/**
 * Engine options in mcp-proxy's `--policy` file: none is taken, but the proxy does run tools, so
 * replay's reason ("never runs a tool") would mislead; each gets the proxy's own.
 */
const NO_SHARED_STORE = 'mcp-proxy keeps its one run in this process, with no shared store to keep business keys or claims in; use guardMcpClient with createRedisRunStore in code, or loopguard serve --redis';
const MCP_PROXY_ENGINE_KEYS: PolicyEngineKeys = {
  command: 'mcp-proxy',
  accepted: new Set(),
  why: {
    listeners: 'the proxy installs its own listeners (its log)',
    logger: 'the proxy writes its warnings to stderr',
    now: 'the proxy runs on the wall clock',
    maxOpenRuns: 'the proxy holds one run at a time',
    endedRunTtlMs: 'the proxy holds one run at a time',
    maxIdleMs: 'the proxy starts a new run after a quiet gap of --run-gap-ms',
    store: NO_SHARED_STORE,
    idempotentWrites: NO_SHARED_STORE,
    storeFailure: NO_SHARED_STORE,
    claimLeaseMs: NO_SHARED_STORE,
    ownedRuns: NO_SHARED_STORE,
  },
};

export interface McpProxyCommandOptions {
  /** The library's options object as JSON (per-tool policies included), as for `loopguard replay`. */
  policy?: string;
  /** The MCP server to start, and its arguments (everything after `--`). */
  command: string;
  args: string[];
  /** Quiet gap in ms that opens a new round (see startMcpStdioProxy). Default 1000. */
  roundGapMs?: number;
  /** Quiet gap in ms that starts a new run; 0: one run per session (see startMcpStdioProxy). Default 600000. */
  runGapMs?: number;
}

/**
 * `--round-gap-ms`: a timer, so a whole number up to Node's largest (a longer one fires after
 * 1 ms, one round per call: the opposite of a long gap). Exported for main.ts's option.
 */
export const roundGapMsOption = wholeNumberOption('mcp-proxy', '--round-gap-ms', { min: 0, max: MAX_TIMER_MS, unit: 'milliseconds' });

/** `--run-gap-ms`: compared with the clock, never set as a timer; bounded like the round gap all the same. */
export const runGapMsOption = wholeNumberOption('mcp-proxy', '--run-gap-ms', { min: 0, max: MAX_TIMER_MS, unit: 'milliseconds' });

/**
 * `loopguard mcp-proxy [--policy FILE] [--round-gap-ms N] -- <server command> [args…]`: a
 * stdio MCP server that starts the real one as a child and guards its `tools/call`s. Returns
 * the server's exit code (127 if it could not start, 2 for a bad policy). stdout is the MCP
 * channel: everything the proxy says goes to stderr. With `OTEL_EXPORTER_OTLP_ENDPOINT` set,
 * metrics, events and spans go out through `setupLoopGuardTelemetry`, imported only then.
 */
export async function runMcpProxyCommand(options: McpProxyCommandOptions, io: CliIo): Promise<number> {
  const say = (text: string): void => void io.stderr.write(`${escapeControl(text)}\n`);
  if (options.command === '') {
    // As with no command at all (commander's usage error): one line, exit 2, no stack.
    say('loopguard mcp-proxy: the server command after -- is empty; name the MCP server to start (e.g. -- npx -y @modelcontextprotocol/server-filesystem /path)');
    return EXIT_BAD_INPUT;
  }
  let cliGuard: CliGuard;
  try {
    if (options.roundGapMs !== undefined) roundGapMsOption(String(options.roundGapMs));
    if (options.runGapMs !== undefined) runGapMsOption(String(options.runGapMs));
    cliGuard = await createCliGuard({ command: 'mcp-proxy', policy: options.policy, engineKeys: MCP_PROXY_ENGINE_KEYS, serviceName: 'loopguard-mcp-proxy', exportSpans: true, env: io.env, say });
  } catch (error) {
    if (error instanceof CliOptionError) return reportCliOptionError(error, io);
    throw error;
  }
  const { guard } = cliGuard;

  const proxy = startMcpStdioProxy({
    guard,
    command: options.command,
    args: options.args,
    ...(options.roundGapMs !== undefined ? { roundGapMs: options.roundGapMs } : {}),
    ...(options.runGapMs !== undefined ? { runGapMs: options.runGapMs } : {}),
    input: io.stdin,
    output: io.stdout,
    serverStderr: io.stderr === process.stderr ? 'inherit' : io.stderr,
    log: say,
    env: io.env,
  });
  // The first signal stops the server (its group gets the grace); a second one means now.
  let forcedBy: NodeJS.Signals | undefined;
  let signalled = false;
  const onSignal = (signal: NodeJS.Signals): void => {
    if (!signalled) {
      signalled = true;
      void proxy.stop();
      return;
    }
    forcedBy ??= signal;
    void proxy.kill();
  };
  const signals: NodeJS.Signals[] = ['SIGTERM', 'SIGINT', 'SIGHUP'];
  for (const signal of signals) process.on(signal, onSignal);
  let code: number;
  try {
    code = await proxy.exited;
    if (forcedBy !== undefined) code = 128 + (osConstants.signals[forcedBy] ?? 0);
  } finally {
    for (const signal of signals) process.off(signal, onSignal);
  }
  await cliGuard.close();
  // The server is gone; the client may still hold our stdin open, which must not keep us alive.
  if (io.stdin === process.stdin) process.stdin.destroy();
  return code;
}
