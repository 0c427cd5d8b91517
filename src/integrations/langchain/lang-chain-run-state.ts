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
}

const states = new WeakMap<RunGuard, LangChainRunState>();

/** The shared record of `run`, created on first use. */
export function getLangChainRunState(run: RunGuard): LangChainRunState {
  let state = states.get(run);
  if (state === undefined) {
    state = { decision: undefined, finalAnswerOffered: undefined, roundKey: undefined, usageRecorded: new WeakSet() };
    states.set(run, state);
  }
  return state;
}
