import type { RunContext } from '@openai/agents';
import type { CallTicket, RunGuard } from '../../core/run-guard.js';
import type { RunDecision } from '../../core/types.js';

/**
 * What the OpenAI Agents hooks of one run share: the input guardrail starts calls, the output
 * guardrail finishes them (matched by call id), and the round opens in whichever per-turn hook
 * runs first before the model call (each tool's `isEnabled`, then `callModelInputFilter`).
 */
export interface OpenAIAgentsRunState {
  readonly tickets: Map<string, CallTicket>;
  /** Call ids whose tool the SDK started (`agent_tool_start`), while their ticket is open. */
  readonly startedCalls: Set<string>;
  /** Agents whose tool starts this run hears; none: a call's start cannot be known. */
  readonly watchedAgents: WeakSet<object>;
  watching: boolean;
  /** The SDK's RunContext, captured from the first hook that sees it (usage lives there). */
  runContext: RunContext<unknown> | undefined;
  /** loopguard's decision for the coming model call, taken when its round opened. */
  decision: RunDecision | undefined;
  /** A round was opened for the model call about to happen and the filter has not run yet. */
  roundPendingFilter: boolean;
  /** Usage already recorded, to record only the difference per round. */
  recordedInputTokens: number;
  recordedOutputTokens: number;
}

const states = new WeakMap<RunGuard, OpenAIAgentsRunState>();

export function getOpenAIAgentsRunState(run: RunGuard): OpenAIAgentsRunState {
  let state = states.get(run);
  if (state === undefined) {
    state = {
      tickets: new Map(),
      startedCalls: new Set(),
      watchedAgents: new WeakSet(),
      watching: false,
      runContext: undefined,
      decision: undefined,
      roundPendingFilter: false,
      recordedInputTokens: 0,
      recordedOutputTokens: 0,
    };
    states.set(run, state);
  }
  return state;
}
