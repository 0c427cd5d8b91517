import { constants as osConstants } from 'node:os';
import { LoopGuard } from '../core/loop-guard.js';
import type { LoopGuardOptions } from '../core/types.js';
import { startMcpStdioProxy } from '../integrations/mcp/start-mcp-stdio-proxy.js';
import { escapeControl } from '../replay/escape-terminal.js';
import { loadReplayPolicy, ReplayPolicyError } from '../replay/load-replay-policy.js';
import { EXIT_BAD_INPUT, type CliIo } from './replay-command.js';

export interface McpProxyCommandOptions {
  /** The library's options object as JSON (per-tool policies included), as for `loopguard replay`. */
  policy?: string;
  /** The MCP server to start, and its arguments (everything after `--`). */
  command: string;
  args: string[];
  /** Quiet gap in ms that opens a new round (see startMcpStdioProxy). Default 1000. */
  roundGapMs?: number;
}

/** How long the exporters get to flush at exit: an unreachable collector must not hold the client up. */
const TELEMETRY_FLUSH_MS = 5000;

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
  let policy: LoopGuardOptions;
  try {
    policy = await loadReplayPolicy(options.policy, undefined);
  } catch (error) {
    if (error instanceof ReplayPolicyError) {
      say(`loopguard mcp-proxy: ${error.message}`);
      return EXIT_BAD_INPUT;
    }
    throw error;
  }
  if (options.roundGapMs !== undefined && !(Number.isFinite(options.roundGapMs) && options.roundGapMs >= 0)) {
    say(`loopguard mcp-proxy: --round-gap-ms must be a number of milliseconds ≥ 0 (0: one round per call), got ${String(options.roundGapMs)}`);
    return EXIT_BAD_INPUT;
  }

  let telemetry: { shutdown(): Promise<void> } | undefined;
  let guard: LoopGuard;
  if (io.env.OTEL_EXPORTER_OTLP_ENDPOINT) {
    // Imported lazily: without a collector the proxy never loads the OpenTelemetry SDK.
    const { setupLoopGuardTelemetry } = await import('../telemetry/index.js');
    const namedByEnv = Boolean(io.env.OTEL_SERVICE_NAME) || /(^|,)\s*service\.name=/.test(io.env.OTEL_RESOURCE_ATTRIBUTES ?? '');
    const setup = setupLoopGuardTelemetry({ ...policy, ...(namedByEnv ? {} : { serviceName: 'loopguard-mcp-proxy' }), shutdownOnExit: false });
    telemetry = setup;
    guard = setup.guard;
  } else {
    guard = new LoopGuard({ ...policy, logger: { warn: (message) => say(`loopguard: ${message}`) } });
  }

  // The client's log is where a user looks for why tools stopped working.
  const removeListener = guard.addListener({
    runStopped: (run, stop) => say(`loopguard mcp-proxy: stopped run ${run.id} at round ${stop.round} (${stop.reason}): ${stop.detail}`),
  });

  const proxy = startMcpStdioProxy({
    guard,
    command: options.command,
    args: options.args,
    ...(options.roundGapMs !== undefined ? { roundGapMs: options.roundGapMs } : {}),
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
    removeListener();
  }
  if (telemetry !== undefined) {
    let timer: NodeJS.Timeout | undefined;
    await Promise.race([telemetry.shutdown(), new Promise<void>((resolve) => (timer = setTimeout(resolve, TELEMETRY_FLUSH_MS)))]);
    clearTimeout(timer);
  }
  // The server is gone; the client may still hold our stdin open, which must not keep us alive.
  if (io.stdin === process.stdin) process.stdin.destroy();
  return code;
}
