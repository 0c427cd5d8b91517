import { spawn, type ChildProcess } from 'node:child_process';
import { constants as osConstants } from 'node:os';
import type { Readable, Writable } from 'node:stream';
import { diag } from '@opentelemetry/api';
import { LoopGuardConfigError } from '../../core/errors.js';
import { describeConfigValue } from '../../core/describe-config-value.js';
import type { LoopGuard } from '../../core/loop-guard.js';
import type { CallTicket, RunGuard } from '../../core/run-guard.js';
import { getLoopGuardOutcome, type LoopGuardOutcome } from '../get-loop-guard-outcome.js';
import { requireSetupOption } from '../require-setup-option.js';
import { jsonRpcIdKey } from './json-rpc-id-key.js';
import { JsonRpcLineReader } from './json-rpc-line-reader.js';
import { withNudge } from './mcp-call-tool-result.js';
import { McpToolCallGuard } from './mcp-tool-call-guard.js';
import { readRawJson, type RawJsonSpan } from './read-raw-json.js';

/** Options of {@link startMcpStdioProxy}. */
export interface McpStdioProxyOptions {
  /** The engine; its policy decides every call (a run per stretch of calls, see runGapMs). */
  guard: LoopGuard;
  /** The MCP server to start: an executable, run without a shell. */
  command: string;
  /** Its arguments. Default none. */
  args?: readonly string[];
  /** Id of the session's first run; the next are `<id>#2`, `#3`, … (see runGapMs). Default: a random UUID. */
  runId?: string;
  /**
   * Rounds, since MCP has no model-call boundary: a call that arrives when no call is running
   * and at least this many ms after the last one finished opens a new round (a model turn
   * takes longer than a client's calls within one turn). 0: every call that finds none running
   * is its own round. Longer gaps merge fast turns into one round, so the stale-round count
   * grows more slowly (a later stop, never an earlier one). Default 1000.
   */
  roundGapMs?: number;
  /**
   * Runs, since MCP has no conversation boundary either: a call that arrives when no call is
   * running and at least this many ms after the last one finished ends the run and starts the
   * next (`<runId>#2`, `#3`, …). A desktop client (Claude Desktop, Cursor) keeps one server
   * process for every conversation of the day: as one run, the same file read in five chats
   * was five stale rounds, and the stop then refused every call until the client restarted.
   * An agent's own loop calls again within seconds to a few minutes. 0: one run for the whole
   * session. Default 600000 (10 minutes).
   */
  runGapMs?: number;
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
  /**
   * After the client closes its side: how long the server gets to exit before SIGTERM, then
   * before SIGKILL, both to its process group (a server started through a shell or `npx` has
   * children that hold its stdout). Default 2000 ms.
   */
  shutdownGraceMs?: number;
}

/** A duration option in ms (≥ 0), or a LoopGuardConfigError naming it; `hint` says what 0 means. */
function millisecondsOption(field: string, value: unknown, hint: string): number {
  if (typeof value !== 'number' || !Number.isFinite(value) || value < 0) {
    throw new LoopGuardConfigError({ field, message: `must be a number of milliseconds ≥ 0${hint}, got ${describeConfigValue(value)}` });
  }
  return value;
}

/** A running proxy: one MCP session, a run per stretch of calls with no quiet gap of `runGapMs`. */
export interface McpStdioProxy {
  /** The run deciding calls now. */
  readonly run: RunGuard;
  /** Settles once the server exited: its exit code, 128 + signal number if killed, 127 if it could not start. */
  readonly exited: Promise<number>;
  /**
   * Stops the server: SIGTERM to its process group, SIGKILL after the grace; settles like
   * `exited`, and settles after a second grace even if something outside the group still holds
   * the server's stdout.
   */
  stop(): Promise<number>;
  /** Ends the server's process group with SIGKILL and the session at once (137). For a second signal. */
  kill(): Promise<number>;
  /** Why and where the current run ended, as loopguard saw it. */
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
/** Exit code of a session ended by SIGKILL (128 + 9), as a shell reports it. */
const EXIT_KILLED = 137;

/**
 * Starts an MCP server as a child (in its own process group) and stands between it and the
 * client on stdio. Every message is forwarded as the bytes that came, both ways — requests,
 * responses and notifications the proxy does not know, and invalid UTF-8, included — except
 * `tools/call`: loopguard decides each one first, inside batch arrays too. Request ids are
 * kept as their raw JSON text (docs/integrations/mcp-proxy-behaviour.md). A refused
 * call is answered by the proxy with an error result (`isError: true`) holding loopguard's
 * message and never reaches the server; after a stop, every call gets the stop message.
 * Annotations of `tools/list` results feed each call's effect; results are fingerprinted by
 * what they mean (`structuredContent`, else the text content), not their envelope.
 *
 * Messages are forwarded as raw JSON-RPC lines, not through the MCP SDK's Client and Server:
 * those validate and re-encode every message, dropping what their schema does not know, and
 * the proxy must run with no MCP SDK installed (`npx loopguard mcp-proxy`).
 *
 * @throws LoopGuardConfigError for missing options or `guard`, or a bad `roundGapMs`, `runGapMs`, `shutdownGraceMs` or `command`.
 */
export function startMcpStdioProxy(options: McpStdioProxyOptions): McpStdioProxy {
  requireSetupOption('options', 'options', options, 'startMcpStdioProxy({ guard, command, input, output })');
  requireSetupOption('guard', 'guard', options.guard);
  const roundGapMs = millisecondsOption('roundGapMs', options.roundGapMs ?? 1000, ' (0: one round per call)');
  const runGapMs = millisecondsOption('runGapMs', options.runGapMs ?? 600_000, ' (0: one run for the whole session)');
  const graceMs = millisecondsOption('shutdownGraceMs', options.shutdownGraceMs ?? 2000, '');
  if (typeof options.command !== 'string' || options.command === '') {
    throw new LoopGuardConfigError({ field: 'command', message: `must name the MCP server to start (e.g. "npx"), got ${describeConfigValue(options.command)}` });
  }
  const log = options.log ?? ((line: string) => void process.stderr.write(`${line}\n`));
  const attributes = { 'loopguard.integration': 'mcp-proxy' };
  const run = options.guard.startRun(options.runId, attributes);
  let runs = 1;
  const nextRun = (previous: RunGuard): RunGuard => {
    options.guard.endRun(previous.id);
    runs += 1;
    return options.guard.startRun(`${run.id}#${runs}`, attributes);
  };
  const callGuard = new McpToolCallGuard({ guard: options.guard, run, roundGapMs, ...(runGapMs > 0 ? { runGap: { ms: runGapMs, nextRun } } : {}) });
  const { input, output } = options;

  /** Forwarded tools/call requests by id key, oldest first (a client may reuse an id), until answered or cancelled. */
  const pendingCalls = new Map<string, PendingCall[]>();
  /** Forwarded tools/list requests by id key (how many): their results carry the annotations. */
  const pendingToolLists = new Map<string, number>();
  /** Batches with refused calls, by the id keys of their forwarded requests: the refusals join the server's answer. */
  const pendingBatches = new Map<string, PendingBatch>();

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
    // The server exited (crashed, or was stopped with the session) before answering: the call
    // may have been done. Cut short, as a cancelled call is, so a write keeps its business key.
    for (const calls of pendingCalls.values()) {
      for (const { ticket } of calls) callGuard.finish(ticket, { error: { name: 'AbortError', message: 'the MCP server exited before answering' } });
    }
    pendingCalls.clear();
    // Refusals of a batch the server never answered still belong to the client.
    for (const batch of new Set(pendingBatches.values())) toClient(batchAnswer(batch.refusals));
    pendingBatches.clear();
    options.guard.endRun(callGuard.run.id);
    settle(code);
  };

  try {
    child = spawn(options.command, [...(options.args ?? [])], {
      stdio: ['pipe', 'pipe', serverStderr === 'inherit' ? 'inherit' : 'pipe'],
      env: options.env ?? process.env,
      cwd: options.cwd,
      windowsHide: true,
      // Its own process group, so stopping the server stops what it started (a shell's or npx's
      // children hold its stdout: signalling the shell alone left the proxy waiting for them).
      // The client's SIGINT to the proxy's group no longer reaches the server directly: the
      // proxy forwards it as a stop.
      detached: process.platform !== 'win32',
    });
  } catch (error) {
    // spawn throws synchronously for some bad arguments (a NUL byte in the command).
    log(`loopguard mcp-proxy: cannot start ${JSON.stringify(options.command)}: ${(error as Error).message}`);
    const failed: McpStdioProxy = { run, exited, stop: () => exited, kill: () => exited, outcome: () => getLoopGuardOutcome(run) };
    queueMicrotask(() => finishSession(EXIT_CANNOT_START));
    return failed;
  }
  if (serverStderr !== 'inherit') child.stderr?.pipe(serverStderr, { end: false });

  const toClient = (line: Buffer | string): void => {
    if (done && !output.writable) return;
    try {
      output.write(line);
      output.write('\n');
    } catch (error) {
      diag.warn('loopguard: mcp-proxy could not write to the client', error);
    }
  };
  const toServer = (line: Buffer | string): void => {
    const stdin = child.stdin;
    if (stdin === null || stdin.destroyed || stdin.writableEnded) return;
    stdin.write(line);
    stdin.write('\n');
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
  /** A server answer to one request: finishes its call or reads its tool list; a replacement if a nudge joins the result. */
  const readServerAnswer = (bytes: Buffer, span: RawJsonSpan): { replacement?: Buffer; batch?: PendingBatch; key?: string } => {
    const members = readRawJson(bytes, span.start, span.end);
    if (members?.kind !== 'object' || members.members.has('method')) return {};
    const idSpan = members.members.get('id');
    const key = idSpan === undefined ? undefined : jsonRpcIdKey(bytes.toString('utf8', idSpan.start, idSpan.end));
    if (key === undefined) return {};
    const member = (name: string): unknown => {
      const at = members.members.get(name);
      return at === undefined ? undefined : JSON.parse(bytes.toString('utf8', at.start, at.end));
    };
    const batch = pendingBatches.get(key);
    const calls = pendingCalls.get(key);
    const pending = calls?.shift();
    if (calls !== undefined && calls.length === 0) pendingCalls.delete(key);
    if (pending !== undefined) {
      const error = member('error') as JsonRpcMessage['error'];
      if (error !== undefined) callGuard.finish(pending.ticket, { error: jsonRpcError(error) });
      else {
        const result = member('result');
        callGuard.finish(pending.ticket, { result });
        const resultSpan = members.members.get('result');
        if (pending.nudge !== undefined && resultSpan !== undefined) {
          // Only the result changes; every other byte of the answer stays the server's.
          const replacement = Buffer.concat([
            bytes.subarray(span.start, resultSpan.start),
            Buffer.from(JSON.stringify(withNudge(result, pending.nudge))),
            bytes.subarray(resultSpan.end, span.end),
          ]);
          return { replacement, key, ...(batch !== undefined ? { batch } : {}) };
        }
      }
    } else {
      const lists = pendingToolLists.get(key);
      if (lists !== undefined) {
        if (lists <= 1) pendingToolLists.delete(key);
        else pendingToolLists.set(key, lists - 1);
        if (!members.members.has('error')) callGuard.recordToolList(member('result'));
      }
    }
    return batch !== undefined ? { batch, key } : { key };
  };
  const settleBatch = (batch: PendingBatch): void => {
    for (const key of batch.waiting) if (pendingBatches.get(key) === batch) pendingBatches.delete(key);
  };
  const fromServer = (line: Buffer): void => {
    const top = readRawJson(line);
    if (top?.kind === 'array') {
      // A batch answer: each element as one answer; refusals of the batch it answers join it.
      const elements: Array<Buffer> = [];
      let changed = false;
      const batches = new Set<PendingBatch>();
      for (const element of top.elements) {
        const { replacement, batch } = readServerAnswer(line, element);
        if (batch !== undefined) batches.add(batch);
        if (replacement !== undefined) changed = true;
        elements.push(replacement ?? line.subarray(element.start, element.end));
      }
      if (!changed && batches.size === 0) return toClient(line);
      const refusals: string[] = [];
      for (const batch of batches) {
        settleBatch(batch);
        refusals.push(...batch.refusals);
      }
      return toClient(Buffer.concat([Buffer.from('['), ...joinWithCommas([...elements, ...refusals.map((text) => Buffer.from(text))]), Buffer.from(']')]));
    }
    const { replacement, batch, key } = readServerAnswer(line, { start: 0, end: line.length });
    toClient(replacement ?? line);
    if (batch !== undefined && key !== undefined) {
      // The server answered the batch's requests one by one: the refusals go once all came.
      batch.waiting.delete(key);
      pendingBatches.delete(key);
      if (batch.waiting.size === 0) toClient(batchAnswer(batch.refusals));
    }
  };
  const serverReader = new JsonRpcLineReader((line) => {
    if (pendingCalls.size === 0 && pendingToolLists.size === 0 && pendingBatches.size === 0) return toClient(line);
    try {
      fromServer(line);
    } catch (error) {
      diag.warn('loopguard: mcp-proxy could not read a server message; forwarded as is', error);
      toClient(line);
    }
  });
  child.stdout?.on('data', (chunk: Buffer) => serverReader.push(chunk));
  child.stdout?.on('end', () => serverReader.end());

  // ---- client -> server -------------------------------------------------------------------
  // One at a time, in order: a tools/call waits for loopguard's decision, and whatever the
  // client sends next (a cancellation of that call, say) must not overtake it.
  let clientQueue: Promise<void> = Promise.resolve();
  /**
   * One client message, read without changing anything: its id, its method, where its params
   * are. Reads only the members it needs, from the bytes: the message itself is never
   * re-encoded. Throws for a `method` that is not JSON (nothing was changed yet).
   */
  const readClientMessage = (bytes: Buffer, span: RawJsonSpan): ClientMessage | undefined => {
    const top = readRawJson(bytes, span.start, span.end);
    if (top?.kind !== 'object') return undefined;
    const idSpan = top.members.get('id');
    const rawId = idSpan === undefined ? undefined : bytes.toString('utf8', idSpan.start, idSpan.end);
    const key = rawId === undefined ? undefined : jsonRpcIdKey(rawId);
    const methodSpan = top.members.get('method');
    const method: unknown = methodSpan === undefined ? undefined : JSON.parse(bytes.toString('utf8', methodSpan.start, methodSpan.end));
    return { rawId, key, method, paramsSpan: top.members.get('params') };
  };
  /** Whether the proxy keeps anything of it: a call it decides, a tool list it reads, a cancellation. */
  const actsOn = (message: ClientMessage | undefined): boolean =>
    message !== undefined && (message.key !== undefined ? message.method === 'tools/call' || message.method === 'tools/list' : message.method === 'notifications/cancelled');
  /**
   * Decides one message read by {@link readClientMessage}: `undefined` answer to forward it, or
   * the proxy's answer (a refused call). `value`: the message as JSON.parse read it.
   */
  const decideClientMessage = async (bytes: Buffer, message: ClientMessage | undefined, value: unknown): Promise<{ answer?: string; forwardedKey?: string }> => {
    if (message === undefined) return {};
    const { rawId, key, method } = message;
    if (key === undefined) {
      if (method === 'notifications/cancelled') cancel(bytes, message.paramsSpan);
      return {};
    }
    if (method === 'tools/list') pendingToolLists.set(key, (pendingToolLists.get(key) ?? 0) + 1);
    if (method !== 'tools/call') return { forwardedKey: key };
    const params = (value as JsonRpcMessage | null | undefined)?.params;
    const name = params?.name;
    // Malformed: the server's own error is the right answer.
    if (typeof name !== 'string') return { forwardedKey: key };
    const callId = key.startsWith('s:') ? key.slice(2) : rawId!;
    const start = await callGuard.start(name, params?.arguments, callId);
    if (start.action === 'answer') return { answer: `{"jsonrpc":"2.0","id":${rawId!},"result":${JSON.stringify(start.result)}}` };
    const calls = pendingCalls.get(key);
    const pending: PendingCall = { ticket: start.ticket, nudge: start.nudge };
    if (calls === undefined) pendingCalls.set(key, [pending]);
    else calls.push(pending);
    return { forwardedKey: key };
  };
  const cancel = (bytes: Buffer, paramsSpan: RawJsonSpan | undefined): void => {
    const params = paramsSpan === undefined ? undefined : readRawJson(bytes, paramsSpan.start, paramsSpan.end);
    const requestIdSpan = params?.kind === 'object' ? params.members.get('requestId') : undefined;
    const key = requestIdSpan === undefined ? undefined : jsonRpcIdKey(bytes.toString('utf8', requestIdSpan.start, requestIdSpan.end));
    const calls = key === undefined ? undefined : pendingCalls.get(key);
    const pending = calls?.shift();
    if (pending === undefined) return;
    if (calls!.length === 0) pendingCalls.delete(key!);
    // The server should not answer a cancelled call; it is not in flight any more. As a
    // timeout: a cancelled write may have gone through (write.outcome_unknown).
    callGuard.finish(pending.ticket, { error: { name: 'AbortError', message: 'the client cancelled the call' } });
  };
  /**
   * One line: a message or a batch. Every element is read first, and the line is checked to be
   * JSON, before any of it is decided. The reader is lenient (it follows only the structure it
   * needs), but the server parses the whole line: a line that is not JSON (a bad number inside
   * one element's params, `"id":01`, bytes after the object) gets one parse error with id
   * `null`, which answers none of its calls. A call claimed from such a line was never
   * finished, so the proxy counted it running for the rest of the session: no round opened
   * again and the loop was never stopped. Claiming nothing until the whole line parses leaves
   * nothing to release.
   */
  const fromClient = async (line: Buffer): Promise<void> => {
    const top = readRawJson(line);
    const batch = top?.kind === 'array';
    const spans = batch ? top.elements : [{ start: 0, end: line.length }];
    const messages = spans.map((span) => readClientMessage(line, span));
    // Nothing to decide or keep: forwarded as it came, unparsed (a 20 MB answer to a server request, say).
    if (!messages.some(actsOn)) return toServer(line);
    let value: unknown;
    try {
      value = JSON.parse(line.toString('utf8'));
    } catch (error) {
      // Not JSON: the server's parse error is the answer, and nothing of it is kept.
      diag.warn('loopguard: mcp-proxy got a client line that is not JSON; forwarded unguarded', error);
      return toServer(line);
    }
    if (!batch) {
      const { answer } = await decideClientMessage(line, messages[0], value);
      if (answer !== undefined) toClient(answer);
      else toServer(line);
      return;
    }
    await fromClientBatch(line, spans, messages, value as unknown[]);
  };
  /** A batch: every element decided, in order; refused calls answered in the batch's one answer array. */
  const fromClientBatch = async (line: Buffer, spans: RawJsonSpan[], messages: Array<ClientMessage | undefined>, values: unknown[]): Promise<void> => {
    const refusals: string[] = [];
    const forwarded: Buffer[] = [];
    const waiting = new Set<string>();
    for (const [index, span] of spans.entries()) {
      const { answer, forwardedKey } = await decideClientMessage(line, messages[index], values[index]);
      if (answer !== undefined) refusals.push(answer);
      else {
        forwarded.push(line.subarray(span.start, span.end));
        if (forwardedKey !== undefined) waiting.add(forwardedKey);
      }
    }
    if (refusals.length === 0) return toServer(line);
    if (forwarded.length > 0) toServer(Buffer.concat([Buffer.from('['), ...joinWithCommas(forwarded), Buffer.from(']')]));
    if (waiting.size === 0) return toClient(batchAnswer(refusals));
    const pending: PendingBatch = { waiting, refusals };
    for (const key of waiting) pendingBatches.set(key, pending);
  };
  const clientReader = new JsonRpcLineReader((line) => {
    // A throw comes from reading (a `method` that is not JSON), before anything was claimed.
    clientQueue = clientQueue.then(() => fromClient(line)).catch((error: unknown) => {
      diag.warn('loopguard: mcp-proxy failed on a client message; forwarding it unguarded', error);
      toServer(line);
    });
  });

  /** Signals the server's process group (the server alone where there is none). */
  const signalServer = (signal: NodeJS.Signals): void => {
    if (done || child.pid === undefined) return;
    try {
      if (process.platform === 'win32') throw new Error('no process groups');
      process.kill(-child.pid, signal);
    } catch {
      try {
        child.kill(signal);
      } catch (error) {
        diag.debug('loopguard: mcp-proxy could not signal the server', error);
      }
    }
  };
  const later = (ms: number, action: () => void): void => {
    if (killTimer !== undefined) clearTimeout(killTimer);
    killTimer = setTimeout(action, ms);
    killTimer.unref?.();
  };
  /** SIGTERM, SIGKILL a grace later, and a grace after that the session ends whatever holds the pipes. */
  const shutDown = (): void => {
    signalServer('SIGTERM');
    later(graceMs, () => {
      signalServer('SIGKILL');
      later(graceMs, () => abandon(EXIT_KILLED));
    });
  };
  /** Ends the session without waiting for the server's stdio to close (something outside its group holds it). */
  const abandon = (code: number): void => {
    if (done) return;
    serverReader.end();
    child.stdout?.destroy();
    child.stderr?.destroy();
    child.stdin?.destroy();
    child.unref();
    finishSession(exitCode ?? code);
  };
  let exitCode: number | undefined;
  child.on('exit', (code, signal) => {
    exitCode = code ?? (signal !== null ? 128 + (osConstants.signals[signal] ?? 0) : 1);
    // Gone, but its stdout may be held by a child it left: give it a grace to drain, then end
    // the rest of its group and the session.
    later(graceMs, () => {
      signalServer('SIGKILL');
      abandon(exitCode!);
    });
  });
  const terminate = (afterMs: number): void => {
    if (done || killTimer !== undefined) return;
    later(afterMs, shutDown);
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
    get run() {
      return callGuard.run;
    },
    exited,
    stop: () => {
      if (!done) shutDown();
      return exited;
    },
    kill: () => {
      signalServer('SIGKILL');
      abandon(EXIT_KILLED);
      return exited;
    },
    outcome: () => getLoopGuardOutcome(callGuard.run),
  };
}

interface PendingCall {
  ticket: CallTicket | undefined;
  nudge: string | undefined;
}

/** What the proxy reads of one client message before deciding anything (see `readClientMessage`). */
interface ClientMessage {
  /** The id's raw JSON text, as the client wrote it. */
  rawId: string | undefined;
  /** The id's key (`jsonRpcIdKey`); `undefined` for a notification. */
  key: string | undefined;
  method: unknown;
  paramsSpan: RawJsonSpan | undefined;
}

/** A client batch with refused calls, waiting for the server's answer to the rest. */
interface PendingBatch {
  /** Id keys of its forwarded requests not answered yet. */
  waiting: Set<string>;
  /** The proxy's answers to its refused calls (JSON text). */
  refusals: string[];
}

function batchAnswer(answers: string[]): string {
  return `[${answers.join(',')}]`;
}

function joinWithCommas(parts: Buffer[]): Buffer[] {
  const joined: Buffer[] = [];
  for (const part of parts) {
    if (joined.length > 0) joined.push(Buffer.from(','));
    joined.push(part);
  }
  return joined;
}

/** A JSON-RPC error answer as a failure loopguard can classify (-32001: the SDK's request timeout). */
function jsonRpcError(error: JsonRpcMessage['error']): { name: string; code?: unknown; message: string; data?: unknown } {
  const message = typeof error?.message === 'string' ? error.message : 'JSON-RPC error';
  return { name: error?.code === -32001 ? 'TimeoutError' : 'McpError', code: error?.code, message, ...(error?.data !== undefined ? { data: error.data } : {}) };
}
