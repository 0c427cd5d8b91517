import type { RunGuard } from '../../core/run-guard.js';
import type { RunDecision, StopDecision } from '../../core/types.js';

/**
 * What the LangChain hooks of one run share: the round opened for the current model call and
 * its decision, and whether the stop's final, tool-less model call was offered (a hand-built
 * graph's model node and conditional edge coordinate through it). Keyed by the run so two
 * concurrent runs never mix.
 */
export interface LangChainRunState {
  /** loopguard's decision for the model call of the current round, taken when the round opened. */
  decision: RunDecision | undefined;
  /** The stop that was delivered as a final model call without tools, once it was. */
  finalAnswerOffered: StopDecision | undefined;
  /** What identifies the model call whose round is open (the agent state's messages array). */
  roundKey: unknown;
  /** AI messages whose token usage is already recorded (a message is recorded once, however it is seen). */
  readonly usageRecorded: WeakSet<object>;
  /** The tool results the last model call was sent, by tool call id (see forgotToolResults). */
  toolResults: Map<string, unknown> | undefined;
}

const states = new WeakMap<RunGuard, LangChainRunState>();

/** The shared record of `run`, created on first use. */
export function getLangChainRunState(run: RunGuard): LangChainRunState {
  let state = states.get(run);
  if (state === undefined) {
    state = { decision: undefined, finalAnswerOffered: undefined, roundKey: undefined, usageRecorded: new WeakSet(), toolResults: undefined };
    states.set(run, state);
  }
  return state;
}

/**
 * Were tool results the model was sent at its last call dropped or rewritten for this one
 * (summarizationMiddleware, contextEditingMiddleware's ClearToolUsesEdit, a trimmed history)?
 * Then the model no longer has them: RunGuard.contextCompacted. Compared by reference: the
 * graph keeps its messages, so an untouched result is the same content object or string.
 */
export function forgotToolResults(state: LangChainRunState, messages: readonly unknown[]): boolean {
  const current = new Map<string, unknown>();
  for (const message of messages) {
    const candidate = message as { type?: unknown; _getType?: () => string; tool_call_id?: unknown; content?: unknown } | null;
    if (candidate === null || typeof candidate !== 'object' || typeof candidate.tool_call_id !== 'string') continue;
    const type = typeof candidate._getType === 'function' ? candidate._getType() : candidate.type;
    if (type === 'tool') current.set(candidate.tool_call_id, candidate.content);
  }
  const previous = state.toolResults;
  state.toolResults = current;
  if (previous === undefined) return false;
  for (const [id, content] of previous) if (!current.has(id) || current.get(id) !== content) return true;
  return false;
}
