import type {
  HookCallback,
  HookCallbackMatcher,
  HookEvent,
  HookJSONOutput,
  PostToolBatchHookInput,
  PostToolUseFailureHookInput,
  PostToolUseHookInput,
  PreToolUseHookInput,
} from '@anthropic-ai/claude-agent-sdk';
import { describeConfigValue } from '../../core/describe-config-value.js';
import { LoopGuardConfigError } from '../../core/errors.js';
import type { LoopGuard } from '../../core/loop-guard.js';
import type { CallTicket, RunGuard } from '../../core/run-guard.js';
import type { CallOutcome, RunDecision } from '../../core/types.js';
import { reportToDiag } from '../../otel/report-to-diag.js';
import { recordDeliveredRefusal } from '../delivered-refusals.js';
import { failOpen, failOpenAsync } from '../fail-open.js';
import { getLoopGuardOutcome, type LoopGuardOutcome } from '../get-loop-guard-outcome.js';
import { warnOnReuseAfterEnd } from '../warn-on-reuse-after-end.js';
import { newClaudeCodeAgentState, type ClaudeCodeAgentState } from './claude-code-agent-state.js';
import { toolFailureOutcome, toolResponseOutcome } from './tool-response-outcome.js';

/** Options of {@link createLoopGuardHooks}: the engine, and how the run is named and ended. */
export interface CreateLoopGuardHooksOptions {
  guard: LoopGuard;
  /**
   * The loopguard run id. Default: a random UUID. Claude Code's `session_id` is known only
   * once the first hook fires; to key runs by session, pass the id you resume
   * (`options.resume`) or the one you assign (`options.sessionId`).
   */
  runId?: string;
  /** Attributes of the run (telemetry). Default none. */
  attributes?: Record<string, string | number | boolean>;
  /**
   * After loopguard stopped the run, every tool call is denied with the stop message. A model
   * that calls a tool again in a later model response, after one such denial, has not taken
   * the hint: the PreToolUse hook then also answers `continue: false` with the stop's detail as
   * `stopReason`, and Claude Code ends the query. `false`: only deny, never end the query.
   * Applies to the main thread; a subagent is only ever denied (ending the query would end
   * the parent's work too). Default true.
   */
  endQueryWhenStopIgnored?: boolean;
}

/** loopguard's view of a guarded query: the main thread's outcome plus each subagent's. */
export interface ClaudeAgentLoopGuardOutcome extends LoopGuardOutcome {
  /** Outcomes of the subagents (Task / Agent tool) by `agent_id`, each a run of its own. */
  subagents: Record<string, LoopGuardOutcome>;
}

/**
 * **Per query**: one loopguard run, which `end()` closes. Create one for each `query()` and
 * pass `hooks` in that query's options. Hooks used after `end()` belong to a run that is over
 * (every tool call is denied); loopguard warns once through OpenTelemetry's `diag`.
 */
export interface LoopGuardHooks {
  /**
   * For `query({ prompt, options: { hooks: guarded.hooks } })`. With hooks of your own, put
   * both matcher lists under each event (Claude Code runs every matching hook; a deny wins).
   */
  hooks: Partial<Record<HookEvent, HookCallbackMatcher[]>>;
  /** The main thread's run. */
  run: RunGuard;
  /** Why and where the run ended, as loopguard saw it. */
  outcome(): ClaudeAgentLoopGuardOutcome;
  /** Closes the run and its subagents' runs. Call after the query's messages are consumed. */
  end(): ClaudeAgentLoopGuardOutcome;
}

/**
 * Claude Agent SDK hooks that guard one query against tool-call loops:
 *
 * ```ts
 * const guarded = createLoopGuardHooks({ guard });
 * for await (const message of query({ prompt, options: { hooks: guarded.hooks } })) { ... }
 * const { stopReason, refusals } = guarded.end();
 * ```
 *
 * - PreToolUse claims each call; a refused call is denied (`permissionDecision: 'deny'`) and
 *   the model reads loopguard's reason as the tool's result. An allowed call gets no opinion
 *   (`{}`), so Claude Code's permission rules and `canUseTool` still decide whether it runs.
 * - PostToolUse / PostToolUseFailure record what the call returned, matched by `tool_use_id`.
 * - PostToolBatch, which Claude Code fires once the calls of one model response have all
 *   resolved and before the next model request, closes loopguard's round, judges the run, and
 *   adds the nudge or the stop message to the model's context (`additionalContext`).
 * - A subagent's calls (`agent_id`) are a run of their own, ended at SubagentStop.
 * - PreCompact tells the run the model's context is being compacted (RunGuard.contextCompacted):
 *   files read before may be read again.
 */
export function createLoopGuardHooks(options: CreateLoopGuardHooksOptions): LoopGuardHooks {
  validateOptions(options);
  const { guard } = options;
  const endQueryWhenStopIgnored = options.endQueryWhenStopIgnored ?? true;
  const main = newClaudeCodeAgentState(guard.startRun(options.runId, options.attributes));
  const subagents = new Map<string, ClaudeCodeAgentState>();
  const subagentOutcomes: Record<string, LoopGuardOutcome> = {};
  const warnIfReused = warnOnReuseAfterEnd(
    main.run,
    'hooks',
    'every tool call is denied and the model is told tool use has ended',
    'The hooks of createLoopGuardHooks() are per query: call it for each query() and pass that call\'s hooks in the query\'s options.',
  );

  const stateFor = (agentId: string | undefined): ClaudeCodeAgentState => {
    // Once the query's run is over, its subagents' calls are denied with it, not guarded anew.
    if (agentId === undefined || main.run.isEnded) return main;
    let state = subagents.get(agentId);
    if (state === undefined) {
      state = newClaudeCodeAgentState(guard.startRun(`${main.run.id}/sidechain/${agentId}`, { ...options.attributes, 'claude.agent_id': agentId }));
      subagents.set(agentId, state);
    }
    return state;
  };

  const endSubagent = (agentId: string): void => {
    const state = subagents.get(agentId);
    if (state === undefined) return;
    subagents.delete(agentId);
    finishOpenTickets(state, undefined);
    subagentOutcomes[agentId] = getLoopGuardOutcome(state.run);
    guard.endRun(state.run.id);
  };

  const preToolUse = async (input: PreToolUseHookInput): Promise<HookJSONOutput> => {
    warnIfReused();
    const state = stateFor(input.agent_id);
    const run = state.run;
    failOpen('PreToolUse (round)', () => openRound(state), undefined);
    const ticket = await failOpenAsync<CallTicket | undefined>(
      `claimCall(${input.tool_name})`,
      () => run.claimCall({ tool: input.tool_name, args: input.tool_input, callId: input.tool_use_id }),
      undefined,
    );
    if (ticket === undefined) return {};
    const decision = ticket.decision;
    if (decision.action === 'allow') {
      state.tickets.set(input.tool_use_id, ticket);
      return {};
    }
    recordDeliveredRefusal(run, ticket);
    const deny: HookJSONOutput = {
      hookSpecificOutput: { hookEventName: 'PreToolUse', permissionDecision: 'deny', permissionDecisionReason: decision.message },
    };
    const stop = run.stopped;
    if (decision.reason !== 'run.stopped' || stop === undefined || run.isEnded) return deny;
    const ignored = state.stopDeniedInRound !== undefined && state.stopDeniedInRound < ticket.round;
    state.stopDeniedInRound ??= ticket.round;
    if (!ignored || !endQueryWhenStopIgnored || state !== main) return deny;
    return { ...deny, continue: false, stopReason: `loopguard stopped the run (${stop.reason}): ${stop.detail}` };
  };

  const postToolUse = async (input: PostToolUseHookInput | PostToolUseFailureHookInput): Promise<HookJSONOutput> => {
    const state = stateFor(input.agent_id);
    const ticket = state.tickets.get(input.tool_use_id);
    if (ticket === undefined) return {};
    state.tickets.delete(input.tool_use_id);
    const outcome = input.hook_event_name === 'PostToolUse' ? toolResponseOutcome(input.tool_name, input.tool_response) : toolFailureOutcome(input);
    failOpen(`finishCall(${input.tool_name})`, () => state.run.finishCall(ticket, outcome), undefined);
    return {};
  };

  const postToolBatch = async (input: PostToolBatchHookInput): Promise<HookJSONOutput> => {
    const state = stateFor(input.agent_id);
    const decision = failOpen<RunDecision | undefined>('PostToolBatch', () => closeRound(state, input), undefined);
    const note = decision?.action === 'stop' ? decision.message : decision?.nudge;
    if (note === undefined) return {};
    return { hookSpecificOutput: { hookEventName: 'PostToolBatch', additionalContext: note } };
  };

  const hook =
    (where: string, handle: HookCallback): HookCallback =>
    async (input, toolUseId, context) => {
      // The last net: whatever throws in a hook, the agent goes on as if loopguard were absent.
      try {
        return await handle(input, toolUseId, context);
      } catch (error) {
        reportToDiag('warn', `loopguard: ${where} failed; continuing without the guard for this step`, error);
        return {};
      }
    };
  const matcher = (where: string, handle: HookCallback): HookCallbackMatcher[] => [{ hooks: [hook(where, handle)] }];

  const outcomeOf = (): ClaudeAgentLoopGuardOutcome => {
    const live: Record<string, LoopGuardOutcome> = {};
    for (const [agentId, state] of subagents) live[agentId] = getLoopGuardOutcome(state.run);
    return { ...getLoopGuardOutcome(main.run), subagents: { ...subagentOutcomes, ...live } };
  };

  return {
    hooks: {
      PreToolUse: matcher('PreToolUse', async (input) => (input.hook_event_name === 'PreToolUse' ? preToolUse(input) : {})),
      PostToolUse: matcher('PostToolUse', async (input) => (input.hook_event_name === 'PostToolUse' ? postToolUse(input) : {})),
      PostToolUseFailure: matcher('PostToolUseFailure', async (input) =>
        input.hook_event_name === 'PostToolUseFailure' ? postToolUse(input) : {},
      ),
      PostToolBatch: matcher('PostToolBatch', async (input) => (input.hook_event_name === 'PostToolBatch' ? postToolBatch(input) : {})),
      // A new prompt, or the end of the main thread's turn: the next tool call belongs to a new
      // model response even on a Claude Code that fires no PostToolBatch.
      UserPromptSubmit: matcher('UserPromptSubmit', async () => {
        main.roundOpen = false;
        return {};
      }),
      Stop: matcher('Stop', async () => {
        main.roundOpen = false;
        return {};
      }),
      // Claude Code is about to compact the conversation (auto-compact, or `/compact`): what
      // the model read is about to leave its context, so reading it again must not be refused
      // as "in the conversation above" (RunGuard.contextCompacted). PreCompact, not PostCompact:
      // every Claude Code that has hooks fires it, and a compaction that then fails only makes
      // the next re-read allowed once.
      PreCompact: matcher('PreCompact', async (input) => {
        if (input.hook_event_name === 'PreCompact') failOpen('PreCompact', () => stateFor(input.agent_id).run.contextCompacted(), undefined);
        return {};
      }),
      SubagentStop: matcher('SubagentStop', async (input) => {
        if (input.hook_event_name === 'SubagentStop') failOpen('SubagentStop', () => endSubagent(input.agent_id), undefined);
        return {};
      }),
    },
    run: main.run,
    outcome: outcomeOf,
    end: () => {
      for (const agentId of [...subagents.keys()]) failOpen('end (subagent)', () => endSubagent(agentId), undefined);
      const outcome = outcomeOf();
      guard.endRun(main.run.id);
      return outcome;
    },
  };
}

/**
 * The first tool call of a model response opens its round. A round nobody judged (a Claude
 * Code without PostToolBatch, or a turn that ended in a prompt or Stop) is judged first, as
 * the other adapters do before each model call, so a stop still comes before the next call.
 */
function openRound(state: ClaudeCodeAgentState): void {
  if (state.roundOpen) return;
  if (!state.judged) state.run.shouldStop();
  state.run.beginRound();
  state.roundOpen = true;
  state.judged = false;
}

/**
 * PostToolBatch: every call of the response has resolved. A call still waiting for its
 * outcome never reached PostToolUse (another hook or the permission system denied it, or it
 * was cancelled); it is recorded from the batch's `tool_response` when there is one, else as
 * a failure, so the round can be judged now instead of waiting forever.
 */
function closeRound(state: ClaudeCodeAgentState, input: PostToolBatchHookInput): RunDecision {
  finishOpenTickets(state, input);
  const decision = state.run.shouldStop();
  state.roundOpen = false;
  state.judged = true;
  return decision;
}

function finishOpenTickets(state: ClaudeCodeAgentState, batch: PostToolBatchHookInput | undefined): void {
  for (const [toolUseId, ticket] of state.tickets) {
    const call = batch?.tool_calls.find((entry) => entry.tool_use_id === toolUseId);
    const outcome: CallOutcome =
      call !== undefined && call.tool_response !== undefined
        ? toolResponseOutcome(call.tool_name, call.tool_response)
        : { error: { type: 'not_run', message: 'Claude Code reported no result for this call' } };
    state.run.finishCall(ticket, outcome);
  }
  state.tickets.clear();
}

function validateOptions(options: CreateLoopGuardHooksOptions): void {
  const fail = (field: string, message: string, value: unknown): never => {
    throw new LoopGuardConfigError({ field, message: `${message}, got ${describeConfigValue(value)}` });
  };
  if (typeof options !== 'object' || options === null) fail('options', 'must be an object { guard, runId? }', options);
  const guard = options.guard as unknown;
  if (typeof guard !== 'object' || guard === null || typeof (guard as LoopGuard).startRun !== 'function') {
    fail('guard', 'must be a LoopGuard (new LoopGuard(options) from \'loopguard\')', guard);
  }
  if (options.runId !== undefined && (typeof options.runId !== 'string' || options.runId === '')) {
    fail('runId', 'must be a non-empty string (or left out for a random id)', options.runId);
  }
  if (options.endQueryWhenStopIgnored !== undefined && typeof options.endQueryWhenStopIgnored !== 'boolean') {
    fail('endQueryWhenStopIgnored', 'must be true or false', options.endQueryWhenStopIgnored);
  }
}
