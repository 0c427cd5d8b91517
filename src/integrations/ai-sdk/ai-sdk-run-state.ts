import type { RunGuard } from '../../core/run-guard.js';

/**
 * What the AI SDK hooks of one run share. `stopWhen`, `prepareStep` and the wrapped tools are
 * separate callbacks handed to `generateText`; they coordinate through this record, keyed by
 * the run so two concurrent runs never mix.
 */
export interface AiSdkRunState {
  /** Set once loopGuardPrepareStep runs: the stop is delivered as a final tool-less step, not a cut. */
  prepareStepInstalled: boolean;
  /** The tool-less final step has been offered to the model. */
  finalAnswerOffered: boolean;
  /** Steps already scanned for calls to tools that were not offered. */
  unofferedCheckedSteps: number;
  /**
   * loopguard's message for each call to a tool that was not offered, by call id: prepareStep
   * puts it in place of the SDK's "unavailable tool" text in every later step's messages.
   */
  readonly unofferedRefusals: Map<string, string>;
  /** Steps whose token usage was already recorded (by prepareStep or onStepFinish). */
  usageRecordedSteps: number;
  /** Call ids that were refused: their "result" is loopguard's message, not the tool's output. */
  readonly refusedCallIds: Set<string>;
}

const states = new WeakMap<RunGuard, AiSdkRunState>();

/** The shared record of `run`, created on first use. */
export function getAiSdkRunState(run: RunGuard): AiSdkRunState {
  let state = states.get(run);
  if (state === undefined) {
    state = {
      prepareStepInstalled: false,
      finalAnswerOffered: false,
      usageRecordedSteps: 0,
      unofferedCheckedSteps: 0,
      unofferedRefusals: new Map(),
      refusedCallIds: new Set(),
    };
    states.set(run, state);
  }
  return state;
}
