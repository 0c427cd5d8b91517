import type { CallTicket, RunGuard } from '../../core/run-guard.js';

/**
 * What the hooks keep for one agent of a Claude Code session: the main thread, or one
 * subagent (its tool calls carry `agent_id`, and it sees none of the main thread's results,
 * so it is a loopguard run of its own).
 */
export interface ClaudeCodeAgentState {
  readonly run: RunGuard;
  /** Allowed calls waiting for their PostToolUse / PostToolUseFailure, by `tool_use_id`. */
  readonly tickets: Map<string, CallTicket>;
  /**
   * A round is open: the tool calls of one model response, from its first PreToolUse to the
   * PostToolBatch Claude Code fires once they have all resolved.
   */
  roundOpen: boolean;
  /** The open round's calls have been judged (`shouldStop`) since the last call started. */
  judged: boolean;
  /**
   * The round in which a call was denied because tool use had ended (`run.stopped`): the model
   * has read the stop message as a tool result from then on.
   */
  stopDeniedInRound: number | undefined;
}

export function newClaudeCodeAgentState(run: RunGuard): ClaudeCodeAgentState {
  return { run, tickets: new Map(), roundOpen: false, judged: true, stopDeniedInRound: undefined };
}
