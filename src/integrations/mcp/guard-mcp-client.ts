import type { Client } from '@modelcontextprotocol/sdk/client/index.js';
import type { LoopGuard } from '../../core/loop-guard.js';
import type { RunGuard } from '../../core/run-guard.js';
import { LoopGuardConfigError } from '../../core/errors.js';
import { describeConfigValue } from '../../core/describe-config-value.js';
import { failOpen } from '../fail-open.js';
import { requireSetupOption } from '../require-setup-option.js';
import { abortSignalAt } from '../abort-signal-at.js';
import { getLoopGuardOutcome, type LoopGuardOutcome } from '../get-loop-guard-outcome.js';
import { warnOnReuseAfterEnd } from '../warn-on-reuse-after-end.js';
import { withNudge } from './mcp-call-tool-result.js';
import { McpToolCallGuard } from './mcp-tool-call-guard.js';

/** The two methods loopguard wraps; any object with the SDK Client's signatures works. */
type McpClientLike = Pick<Client, 'callTool' | 'listTools'>;

/** Options of {@link guardMcpClient}. */
export interface GuardMcpClientOptions {
  /** The engine; its policy decides the calls. */
  guard: LoopGuard;
  /** Share a run with other tools of the same agent (`guard.startRun(...)`). Default: a new run. */
  run?: RunGuard;
  /** Id of the new run (when `run` is not given). Default: a random UUID. */
  runId?: string;
  attributes?: Record<string, string | number | boolean>;
  /**
   * How rounds are counted. Default undefined: by your agent loop, which calls
   * `guarded.run.beginRound()` before each model call and `guarded.run.shouldStop()` after
   * its tool calls (the ten-line loop). Set a number of ms when no code of yours sees the
   * model calls: a call arriving when none is running and this long after the last one
   * finished opens a new round, the stop is checked there, and a nudge is added to the next
   * result (as `loopguard mcp-proxy` does; 0: one round per call).
   */
  roundGapMs?: number;
}

/**
 * **Per run**: the client with `callTool` and `listTools` guarded, the run, and its outcome.
 * `client` is the same client (every other method is the client's own), so it goes wherever
 * an SDK `Client` is expected.
 */
export interface GuardedMcpClient<C extends McpClientLike> {
  client: C;
  run: RunGuard;
  /** Why and where the run ended, as loopguard saw it. */
  outcome(): LoopGuardOutcome;
  /** Closes the run (not the client) and returns its outcome. */
  end(): LoopGuardOutcome;
}

/** Pages of `tools/list` read for annotations when the app never listed the tools itself. */
const MAX_TOOL_LIST_PAGES = 20;

/**
 * Guards the tools of an `@modelcontextprotocol/sdk` `Client`:
 *
 * ```ts
 * const guarded = guardMcpClient(client, { guard });
 * const result = await guarded.client.callTool({ name: 'read_text_file', arguments: { path } });
 * // refused: { isError: true, content: [{ type: 'text', text: "Not run: ..." }] } — the server never saw it
 * guarded.end();
 * ```
 *
 * A refused call, and every call after a stop, resolves to an error result (`isError: true`)
 * with loopguard's message as its text — what MCP clients hand the model for a failed tool —
 * and never reaches the server. The annotations of `listTools()` (`readOnlyHint`,
 * `destructiveHint`) give each call its effect; if the app never lists the tools through the
 * guarded client, the first call lists them once. Results are fingerprinted by what they mean
 * (`structuredContent`, else the text content), never `_meta`. Errors are recorded and
 * rethrown unchanged. Fails open: a bug in the guard lets the call run.
 */
export function guardMcpClient<C extends McpClientLike>(client: C, options: GuardMcpClientOptions): GuardedMcpClient<C> {
  requireSetupOption('options', 'options', options, 'guardMcpClient(client, { guard })');
  const { guard } = options;
  requireSetupOption('guard', 'guard', guard);
  if (options.run !== undefined) requireSetupOption('run', 'run', options.run);
  if (options.roundGapMs !== undefined && !(typeof options.roundGapMs === 'number' && Number.isFinite(options.roundGapMs) && options.roundGapMs >= 0)) {
    throw new LoopGuardConfigError({ field: 'roundGapMs', message: `must be a number of milliseconds ≥ 0, or left out to count rounds in your loop; got ${describeConfigValue(options.roundGapMs)}` });
  }
  const run = options.run ?? guard.startRun(options.runId, options.attributes);
  const callGuard = new McpToolCallGuard({ guard, run, ...(options.roundGapMs !== undefined ? { roundGapMs: options.roundGapMs } : {}) });
  const warnIfReused = warnOnReuseAfterEnd(
    run,
    'guarded MCP client',
    'every tool call is answered with the stop message and never reaches the server',
    'guardMcpClient() is per run: call it again for the next run (the MCP client itself can stay connected).',
  );
  /** The one listing for annotations; every call waits for it, parallel ones too. */
  let toolListing: Promise<void> | undefined;

  const listTools: Client['listTools'] = async (params, requestOptions) => {
    const result = await client.listTools(params, requestOptions);
    callGuard.recordToolList(result);
    return result;
  };

  const listAllTools = async (): Promise<void> => {
    try {
      let cursor: string | undefined;
      for (let page = 0; page < MAX_TOOL_LIST_PAGES; page++) {
        const result = await client.listTools(cursor === undefined ? undefined : { cursor });
        callGuard.recordToolList(result);
        cursor = result.nextCursor;
        if (cursor === undefined) break;
      }
    } catch {
      // A server without tools/list: calls go on, with effects from the policy alone.
    }
  };
  const readAnnotations = (): Promise<void> | undefined => {
    if (toolListing === undefined && callGuard.hasToolList) return undefined;
    toolListing ??= listAllTools();
    return toolListing;
  };

  const callTool: Client['callTool'] = async (params, resultSchema, requestOptions) => {
    failOpen('reuse check', warnIfReused, undefined);
    const listing = readAnnotations();
    if (listing !== undefined) await listing;
    const start = await callGuard.start(params.name, params.arguments, undefined);
    // Structurally a CallToolResult (text content, isError, _meta); declared without the SDK.
    if (start.action === 'answer') return start.result as Awaited<ReturnType<Client['callTool']>>;
    // Aborted while the call was being claimed: the SDK would throw this before sending the
    // request, so it certainly did not run, and a business key it holds is released.
    const signal = abortSignalAt(requestOptions, ['signal']);
    if (signal?.aborted === true) {
      callGuard.cancelled(start.ticket);
      signal.throwIfAborted();
    }
    let result: Awaited<ReturnType<Client['callTool']>>;
    try {
      result = await client.callTool(params, resultSchema, requestOptions);
    } catch (error) {
      callGuard.finish(start.ticket, { error: recordedError(error) });
      throw error;
    }
    callGuard.finish(start.ticket, { result });
    return start.nudge === undefined ? result : withNudge(result, start.nudge);
  };

  const guardedClient = new Proxy(client, {
    get(target, property) {
      if (property === 'callTool') return callTool;
      if (property === 'listTools') return listTools;
      // The client itself as `this`: SDK methods read their own (private) state.
      const value = Reflect.get(target, property, target) as unknown;
      return typeof value === 'function' ? (value as (...a: unknown[]) => unknown).bind(target) : value;
    },
  });

  return {
    client: guardedClient,
    run,
    outcome: () => getLoopGuardOutcome(run),
    end: () => {
      const outcome = getLoopGuardOutcome(run);
      guard.endRun(run.id);
      return outcome;
    },
  };
}

/** The SDK's request timeout (McpError -32001) is recorded as a timeout, not a deterministic error. */
function recordedError(error: unknown): unknown {
  // Read in the catch that rethrows the client's error: an error whose getters throw is
  // recorded as it is (the engine copes with it), never replaced by the getter's error.
  try {
    const code = typeof error === 'object' && error !== null ? (error as { code?: unknown }).code : undefined;
    if (code === -32001) return { name: 'TimeoutError', message: (error as Error).message };
  } catch {
    // Recorded as it is.
  }
  return error;
}
