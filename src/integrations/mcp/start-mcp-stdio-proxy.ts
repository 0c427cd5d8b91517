import { spawn, type ChildProcess } from 'node:child_process';
import { constants as osConstants } from 'node:os';
import type { Readable, Writable } from 'node:stream';
import { diag } from '@opentelemetry/api';
import { LoopGuardConfigError } from '../../core/errors.js';
import { describeConfigValue } from '../../core/describe-config-value.js';
import type { LoopGuard } from '../../core/loop-guard.js';
import type { CallTicket, RunGuard } from '../../core/run-guard.js';
import { getLoopGuardOutcome, type LoopGuardOutcome } from '../get-loop-guard-outcome.js';
import { JsonRpcLineReader } from './json-rpc-line-reader.js';
import { withNudge } from './mcp-call-tool-result.js';
import { McpToolCallGuard } from './mcp-tool-call-guard.js';

/** Options of {@link startMcpStdioProxy}. */
export interface McpStdioProxyOptions {
  /** The engine; its policy decides every call (one run per MCP session). */
  guard: LoopGuard;
  /** The MCP server to start: an executable, run without a shell. */
  command: string;
  /** Its arguments. Default none. */
  args?: readonly string[];
  /** Id of the session's run. Default: a random UUID. */
  runId?: string;
  /**
   * Rounds, since MCP has no model-call boundary: a call that arrives when no call is running
   * and at least this many ms after the last one finished opens a new round (a model turn
   * takes longer than a client's calls within one turn). 0: every call that finds none running
   * is its own round. Longer gaps merge fast turns into one round, so the stale-round count
   * grows more slowly (a later stop, never an earlier one). Default 1000.
   */
  roundGapMs?: number;
  /** The MCP client's side: messages from it (the proxy's stdin). */
  input: Readable;
  /** The MCP client's side: messages to it (the proxy's stdout). */
  output: Writable;
  /** Where the server's stderr goes: `'inherit'` (this process's stderr) or a stream. Default `'inherit'`. */
  serverStderr?: Writable | 'inherit';
  /** The proxy's own messages (the server could not start). Default: this process's stderr. */
  log?: (line: string) => void;
  /** The server's environment. Default `process.env` (the client configured it for the server). */
  env?: NodeJS.ProcessEnv;
  /** The server's working directory. Default this process's. */
  cwd?: string;
  /** After the client closes its side: how long the server gets to exit before SIGTERM, then SIGKILL. Default 2000 ms. */
  shutdownGraceMs?: number;
}

/** A running proxy: one MCP session, one run. */
export interface McpStdioProxy {
  readonly run: RunGuard;
  /** Settles once the server exited: its exit code, 128 + signal number if killed, 127 if it could not start. */
  readonly exited: Promise<number>;
  /** Stops the server (SIGTERM, then SIGKILL after the grace) and settles like `exited`. */
  stop(): Promise<number>;
  /** Why and where the session's run ended, as loopguard saw it. */
  outcome(): LoopGuardOutcome;
}

/** What the proxy reads of a JSON-RPC message; everything else is forwarded as it came. */
interface JsonRpcMessage {
  id?: string | number | null;
  method?: string;
  params?: Record<string, unknown>;
  result?: unknown;
  error?: { code?: unknown; message?: unknown; data?: unknown };
}

/** Exit code when the server could not be started (the shell's "command not found"). */
const EXIT_CANNOT_START = 127;

/**
 * Starts an MCP server as a child and stands between it and the client on stdio. Every
 * message is forwarded unchanged both ways — requests, responses and notifications the proxy
 * does not know included — except `tools/call`: loopguard decides each one first. A refused
 * call is answered by the proxy with an error result (`isError: true`) holding loopguard's
 * message and never reaches the server; after a stop, every call gets the stop message.
 * Annotations of `tools/list` results feed each call's effect; results are fingerprinted by
 * what they mean (`structuredContent`, else the text content), not their envelope.
 *
 * Messages are forwarded as raw JSON-RPC lines, not through the MCP SDK's Client and Server:
 * those validate and re-encode every message, dropping what their schema does not know, and
 * the proxy must run with no MCP SDK installed (`npx loopguard mcp-proxy`).
 *
 * @throws LoopGuardConfigError for a bad `roundGapMs`, `shutdownGraceMs` or `command`.
 */
export function startMcpStdioProxy(options: McpStdioProxyOptions): McpStdioProxy {
  const roundGapMs = options.roundGapMs ?? 1000;
  if (typeof roundGapMs !== 'number' || !Number.isFinite(roundGapMs) || roundGapMs < 0) {
    throw new LoopGuardConfigError({ field: 'roundGapMs', message: `must be a number of milliseconds ≥ 0 (0: one round per call), got ${describeConfigValue(roundGapMs)}` });
  }
  const graceMs = options.shutdownGraceMs ?? 2000;
  if (typeof graceMs !== 'number' || !Number.isFinite(graceMs) || graceMs < 0) {
    throw new LoopGuardConfigError({ field: 'shutdownGraceMs', message: `must be a number of milliseconds ≥ 0, got ${describeConfigValue(graceMs)}` });
  }
  if (typeof options.command !== 'string' || options.command === '') {
    throw new LoopGuardConfigError({ field: 'command', message: `must name the MCP server to start (e.g. "npx"), got ${describeConfigValue(options.command)}` });
  }
  const log = options.log ?? ((line: string) => void process.stderr.write(`${line}\n`));
  const run = options.guard.startRun(options.runId, { 'loopguard.integration': 'mcp-proxy' });
  const callGuard = new McpToolCallGuard({ guard: options.guard, run, roundGapMs });
  const { input, output } = options;

  /** Forwarded tools/call requests by id key, until the server answers or the client cancels. */
  const pendingCalls = new Map<string, { ticket: CallTicket | undefined; nudge: string | undefined }>();
  /** Forwarded tools/list requests by id key: their results carry the annotations. */
  const pendingToolLists = new Set<string>();

  const serverStderr = options.serverStderr ?? 'inherit';
  let child: ChildProcess;
  let settle!: (code: number) => void;
  const exited = new Promise<number>((resolve) => (settle = resolve));
  let done = false;
  let killTimer: NodeJS.Timeout | undefined;

  const finishSession = (code: number): void => {
    if (done) return;
    done = true;
    if (killTimer !== undefined) clearTimeout(killTimer);
    input.off('data', onInputData);
    input.off('end', onInputEnd);
    input.off('error', onInputEnd);
    output.off('error', onOutputError);
    input.pause();
    for (const { ticket } of pendingCalls.values()) callGuard.finish(ticket, { error: { name: 'ServerExited', message: 'the MCP server exited before answering' } });
    pendingCalls.clear();
    options.guard.endRun(run.id);
    settle(code);
  };

  try {
    child = spawn(options.command, [...(options.args ?? [])], {
      stdio: ['pipe', 'pipe', serverStderr === 'inherit' ? 'inherit' : 'pipe'],
      env: options.env ?? process.env,
      cwd: options.cwd,
      windowsHide: true,
    });
  } catch (error) {
    // spawn throws synchronously for some bad arguments (a NUL byte in the command).
    log(`loopguard mcp-proxy: cannot start ${JSON.stringify(options.command)}: ${(error as Error).message}`);
    const failed: McpStdioProxy = { run, exited, stop: () => exited, outcome: () => getLoopGuardOutcome(run) };
    queueMicrotask(() => finishSession(EXIT_CANNOT_START));
    return failed;
  }
  if (serverStderr !== 'inherit') child.stderr?.pipe(serverStderr, { end: false });

  const toClient = (line: string): void => {
    if (done && !output.writable) return;
    try {
      output.write(`${line}\n`);
    } catch (error) {
      diag.warn('loopguard: mcp-proxy could not write to the client', error);
    }
  };
  const toServer = (line: string): void => {
    const stdin = child.stdin;
    if (stdin === null || stdin.destroyed || stdin.writableEnded) return;
    stdin.write(`${line}\n`);
  };
  // A server that exits closes its stdin: a late write must not crash the proxy.
  child.stdin?.on('error', (error) => diag.debug('loopguard: mcp-proxy server stdin', error));

  child.on('error', (error: NodeJS.ErrnoException) => {
    // Not started (ENOENT, EACCES): 'close' follows on some platforms, not on all.
    if (child.pid === undefined) {
      log(`loopguard mcp-proxy: cannot start ${JSON.stringify(options.command)}: ${error.code ?? error.message}`);
      finishSession(EXIT_CANNOT_START);
    } else diag.warn('loopguard: mcp-proxy server process error', error);
  });
  // 'close', not 'exit': every line the server wrote has been read and forwarded by then.
  child.on('close', (code, signal) => {
    finishSession(code ?? (signal !== null ? 128 + (osConstants.signals[signal] ?? 0) : 1));
  });

  // ---- server -> client -------------------------------------------------------------------
  const serverReader = new JsonRpcLineReader((line) => {
    if (pendingCalls.size === 0 && pendingToolLists.size === 0) return toClient(line);
    let rewritten: string | undefined;
    try {
      const message = parseMessage(line);
      if (message !== undefined && message.method === undefined && message.id !== undefined && message.id !== null) {
        const key = idKey(message.id);
        const pending = pendingCalls.get(key);
        if (pending !== undefined) {
          pendingCalls.delete(key);
          if (message.error !== undefined) callGuard.finish(pending.ticket, { error: jsonRpcError(message.error) });
          else {
            callGuard.finish(pending.ticket, { result: message.result });
            if (pending.nudge !== undefined) rewritten = JSON.stringify({ ...message, result: withNudge(message.result, pending.nudge) });
          }
        } else if (pendingToolLists.delete(key) && message.error === undefined) {
          callGuard.recordToolList(message.result);
        }
      }
    } catch (error) {
      diag.warn('loopguard: mcp-proxy could not read a server message; forwarded as is', error);
    }
    toClient(rewritten ?? line);
  });
  child.stdout?.on('data', (chunk: Buffer) => serverReader.push(chunk));
  child.stdout?.on('end', () => serverReader.end());

  // ---- client -> server -------------------------------------------------------------------
  // One at a time, in order: a tools/call waits for loopguard's decision, and whatever the
  // client sends next (a cancellation of that call, say) must not overtake it.
  let clientQueue: Promise<void> = Promise.resolve();
  const fromClient = async (line: string): Promise<void> => {
    const message = parseMessage(line);
    if (message === undefined || message.method === undefined) return toServer(line);
    const hasId = message.id !== undefined && message.id !== null;
    if (message.method === 'tools/call' && hasId) return handleToolCall(message, line);
    if (message.method === 'tools/list' && hasId) pendingToolLists.add(idKey(message.id!));
    if (message.method === 'notifications/cancelled') {
      const requestId = message.params?.requestId;
      const key = typeof requestId === 'string' || typeof requestId === 'number' ? idKey(requestId) : undefined;
      const pending = key === undefined ? undefined : pendingCalls.get(key);
      if (pending !== undefined) {
        // The server should not answer a cancelled call; it is not in flight any more. As a
        // timeout: a cancelled write may have gone through (write.outcome_unknown).
        pendingCalls.delete(key!);
        callGuard.finish(pending.ticket, { error: { name: 'AbortError', message: 'the client cancelled the call' } });
      }
    }
    toServer(line);
  };
  const handleToolCall = async (message: JsonRpcMessage, line: string): Promise<void> => {
    const name = message.params?.name;
    // Malformed: the server's own error is the right answer.
    if (typeof name !== 'string') return toServer(line);
    const id = message.id as string | number;
    const start = await callGuard.start(name, message.params?.arguments, String(id));
    if (start.action === 'answer') {
      toClient(JSON.stringify({ jsonrpc: '2.0', id, result: start.result }));
      return;
    }
    pendingCalls.set(idKey(id), { ticket: start.ticket, nudge: start.nudge });
    toServer(line);
  };
  const clientReader = new JsonRpcLineReader((line) => {
    clientQueue = clientQueue.then(() => fromClient(line)).catch((error: unknown) => {
      diag.warn('loopguard: mcp-proxy failed on a client message; forwarding it unguarded', error);
      toServer(line);
    });
  });

  const terminate = (afterMs: number): void => {
    if (done || killTimer !== undefined) return;
    killTimer = setTimeout(() => {
      if (done) return;
      child.kill('SIGTERM');
      killTimer = setTimeout(() => void (done || child.kill('SIGKILL')), graceMs);
      killTimer.unref?.();
    }, afterMs);
    killTimer.unref?.();
  };
  function onInputData(chunk: Buffer | string): void {
    clientReader.push(chunk);
  }
  function onInputEnd(): void {
    // The client closed its side (MCP stdio shutdown): the same for the server, after every
    // queued message went through; then it gets the grace period to exit by itself.
    clientReader.end();
    void clientQueue.then(() => {
      child.stdin?.end();
      terminate(graceMs);
    });
  }
  function onOutputError(error: Error): void {
    diag.debug('loopguard: mcp-proxy client output closed', error);
    onInputEnd();
  }
  input.on('data', onInputData);
  input.on('end', onInputEnd);
  input.on('error', onInputEnd);
  output.on('error', onOutputError);

  return {
    run,
    exited,
    stop: () => {
      if (!done) {
        child.kill('SIGTERM');
        if (killTimer !== undefined) clearTimeout(killTimer);
        killTimer = setTimeout(() => void (done || child.kill('SIGKILL')), graceMs);
        killTimer.unref?.();
      }
      return exited;
    },
    outcome: () => getLoopGuardOutcome(run),
  };
}

function parseMessage(line: string): JsonRpcMessage | undefined {
  // Only objects are inspected; a batch (an array, allowed before MCP 2025-06-18) or a line
  // that is not JSON goes through as it is, and the other side answers it.
  if (!line.trimStart().startsWith('{')) return undefined;
  try {
    const value = JSON.parse(line) as unknown;
    return typeof value === 'object' && value !== null && !Array.isArray(value) ? (value as JsonRpcMessage) : undefined;
  } catch {
    return undefined;
  }
}

/** Request ids are strings or numbers and `1` is not `"1"`. */
function idKey(id: string | number): string {
  return `${typeof id}:${id}`;
}

/** A JSON-RPC error answer as a failure loopguard can classify (-32001: the SDK's request timeout). */
function jsonRpcError(error: JsonRpcMessage['error']): { name: string; code?: unknown; message: string; data?: unknown } {
  const message = typeof error?.message === 'string' ? error.message : 'JSON-RPC error';
  return { name: error?.code === -32001 ? 'TimeoutError' : 'McpError', code: error?.code, message, ...(error?.data !== undefined ? { data: error.data } : {}) };
}
