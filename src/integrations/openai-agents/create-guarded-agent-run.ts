import type { Agent, CallModelInputFilter, RunContext, Tool, ToolErrorFormatter } from '@openai/agents';
import type { LoopGuard } from '../../core/loop-guard.js';
import type { RunGuard } from '../../core/run-guard.js';
import { failOpen } from '../fail-open.js';
import { requireSetupOption } from '../require-setup-option.js';
import { getLoopGuardOutcome, type LoopGuardOutcome } from '../get-loop-guard-outcome.js';
import { warnOnReuseAfterEnd } from '../warn-on-reuse-after-end.js';
import { guardAgentTools } from './guard-agent-tools.js';
import { loopGuardCallModelInputFilter } from './loop-guard-call-model-input-filter.js';
import { loopGuardToolErrorFormatter } from './loop-guard-tool-error-formatter.js';
import { recordAgentUsage } from './record-agent-usage.js';
import { settleUnreturnedCalls } from './settle-unreturned-calls.js';

/** Options of {@link createGuardedAgentRun}: the engine, the tools, and the run. */
export interface CreateGuardedAgentRunOptions<TContext> {
  guard: LoopGuard;
  /** The agent's tools; pass the returned `tools` to `new Agent({ tools })`. */
  tools: Tool<TContext>[];
  runId?: string;
  attributes?: Record<string, string | number | boolean>;
  /** Your own callModelInputFilter; loopguard's runs after it. */
  callModelInputFilter?: CallModelInputFilter<any>;
  /** Your own toolErrorFormatter; it gets every error loopguard does not answer. */
  toolErrorFormatter?: ToolErrorFormatter<any>;
  /**
   * Append `guard.describePolicy()` (which calls are refused, the budgets) to the instructions
   * of every model call, so the model can avoid refusals. Default false.
   */
  describePolicy?: boolean;
}

/**
 * **Per run**: one loopguard run, which `end()` closes. Create one for each `run(agent, ...)`
 * and give the agent its tools (a new agent, or `agent.clone({ tools: guarded.tools })`).
 * Tools and run options used after `end()` belong to a run that is over (no tools offered, the
 * stop message in the instructions); loopguard warns once through OpenTelemetry's `diag`.
 */
export interface GuardedAgentRun<TContext> {
  /** Guarded copies of the tools, for the agent. */
  tools: Tool<TContext>[];
  /**
   * Spread into `run(agent, input, { ...guarded.runOptions })`. `toolNotFoundBehavior` is
   * `return_error_to_model`: a model calling a tool loopguard took away is told why, instead
   * of the run failing with ModelBehaviorError.
   */
  runOptions: {
    callModelInputFilter: CallModelInputFilter<any>;
    toolErrorFormatter: ToolErrorFormatter<any>;
    toolNotFoundBehavior: 'return_error_to_model';
  };
  run: RunGuard;
  /** Why and where the run ended, as loopguard saw it. */
  outcome(): LoopGuardOutcome;
  /**
   * Records the last model call's usage and closes the run. Call after `run()` returns; the
   * next run needs a new `createGuardedAgentRun()`.
   */
  end(): LoopGuardOutcome;
}

/**
 * Everything one guarded OpenAI Agents run needs (call it once per run):
 *
 * ```ts
 * const guarded = createGuardedAgentRun({ guard, tools: [search, fetchPage] });
 * const agent = new Agent({ name: 'researcher', tools: guarded.tools, model });
 * const result = await run(agent, question, { ...guarded.runOptions });
 * const { stopReason, refusals } = guarded.end();
 * ```
 *
 * A new agent per run is cheap and keeps runs apart; for a long-lived agent, use
 * `agent.clone({ tools: guarded.tools })`.
 */
export function createGuardedAgentRun<TContext = unknown>(options: CreateGuardedAgentRunOptions<TContext>): GuardedAgentRun<TContext> {
  requireSetupOption('options', 'options', options, 'createGuardedAgentRun({ guard, tools })');
  requireSetupOption('guard', 'guard', options.guard);
  requireSetupOption('tool-list', 'tools', options.tools, "the agent's tools");
  const run = options.guard.startRun(options.runId, options.attributes);
  const warnIfReused = warnOnReuseAfterEnd(
    run,
    'tools or run options',
    'no tool is offered and the model is told tool use has ended',
    'A GuardedAgentRun is per run: call createGuardedAgentRun() for each run(agent, ...) and give the agent its tools (a new Agent, or agent.clone({ tools: guarded.tools })).',
  );
  const callModelInputFilter = loopGuardCallModelInputFilter(run, options.callModelInputFilter, {
    policy: options.describePolicy ? options.guard.describePolicy() : undefined,
  });
  return {
    tools: guardAgentTools(options.tools, { run }).map((tool) => {
      if (tool.type !== 'function') return tool;
      const isEnabled = tool.isEnabled;
      // A copy again (guardAgentTools' copy keeps `invoke`, which the SDK keys its parser by).
      return {
        ...tool,
        isEnabled: (runContext: RunContext<TContext>, agent: Agent<any, any>) => {
          warnIfReused();
          return isEnabled(runContext, agent);
        },
      };
    }),
    runOptions: {
      callModelInputFilter: (args) => {
        warnIfReused();
        return callModelInputFilter(args);
      },
      toolErrorFormatter: loopGuardToolErrorFormatter(run, options.toolErrorFormatter),
      toolNotFoundBehavior: 'return_error_to_model',
    },
    run,
    outcome: () => getLoopGuardOutcome(run),
    end: () => {
      // A run that threw (a tool with no errorFunction, an abort) leaves the calls of its last turn open.
      failOpen('end', () => settleUnreturnedCalls(run, 'end'), undefined);
      failOpen('end', () => recordAgentUsage(run), undefined);
      const outcome = getLoopGuardOutcome(run);
      options.guard.endRun(run.id);
      return outcome;
    },
  };
}
