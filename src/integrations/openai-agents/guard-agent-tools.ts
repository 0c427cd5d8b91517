import type { Agent, RunContext, Tool } from '@openai/agents';
import type { RunGuard } from '../../core/run-guard.js';
import { failOpen } from '../fail-open.js';
import { requireSetupOption } from '../require-setup-option.js';
import { beginAgentRound } from './begin-agent-round.js';
import { loopGuardToolInputGuardrail } from './loop-guard-tool-input-guardrail.js';
import { loopGuardToolOutputGuardrail } from './loop-guard-tool-output-guardrail.js';
import { watchToolStarts } from './settle-unreturned-calls.js';

/** Options of {@link guardAgentTools}. */
export interface GuardAgentToolsOptions {
  /** The run these tool calls belong to (`guard.startRun(...)`). */
  run: RunGuard;
}

/**
 * Returns copies of an agent's function tools that loopguard watches:
 * - the input guardrail refuses repeats before they run (`rejectContent` with the reason);
 * - the output guardrail records what each call returned;
 * - `isEnabled` opens the round for the coming model call and hides the tools loopguard
 *   disabled (escalation ladder), and every tool once the run must stop, so the model's last
 *   turn has no tools and it answers from what it gathered.
 * Your own guardrails and `isEnabled` still run (loopguard's input guardrail goes last, so
 * a call your guardrail rejects is never counted). Hosted and other non-function tools pass
 * through unchanged.
 */
export function guardAgentTools<TContext = unknown>(tools: Tool<TContext>[], options: GuardAgentToolsOptions): Tool<TContext>[] {
  requireSetupOption('tool-list', 'tools', tools, "the agent's tools");
  requireSetupOption('options', 'options', options, 'guardAgentTools(tools, { run })');
  const { run } = options;
  requireSetupOption('run', 'run', run);
  const inputGuardrail = loopGuardToolInputGuardrail(run);
  const outputGuardrail = loopGuardToolOutputGuardrail(run);
  return tools.map((tool) => {
    if (tool.type !== 'function') return tool;
    const isEnabled = tool.isEnabled;
    return {
      // Copied, not mutated: the same tool may serve unguarded agents. The SDK keys its input
      // parser by the `invoke` function, which the copy keeps.
      ...tool,
      inputGuardrails: [...(tool.inputGuardrails ?? []), inputGuardrail],
      outputGuardrails: [outputGuardrail, ...(tool.outputGuardrails ?? [])],
      isEnabled: async (runContext: RunContext<TContext>, agent: Agent<any, any>) => {
        const offered = failOpen(
          'isEnabled',
          () => {
            // Before this turn's tools run: a call allowed and never started did not run.
            watchToolStarts(run, agent);
            const decision = beginAgentRound(run, runContext as RunContext<unknown>);
            // A stop never swallows the answer: answer tools stay offered until one is delivered.
            if (decision.action === 'stop') return run.toolsOfferedAfterStop([tool.name]).length > 0;
            return !decision.disabledTools.includes(tool.name);
          },
          true,
        );
        if (!offered) return false;
        // The SDK also accepts a plain boolean here on hand-built tool objects.
        const own = isEnabled as unknown;
        return typeof own === 'function' ? Boolean(await (own as typeof isEnabled)(runContext, agent)) : own !== false;
      },
    };
  });
}
