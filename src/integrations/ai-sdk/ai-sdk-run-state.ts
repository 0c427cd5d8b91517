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
  /**
   * The refusal messages delivered, by call id: a refused call's "result" is loopguard's message,
   * not the tool's output. Use {@link markRefusedCall} and {@link isRefusalOutput}, not the id
   * alone: some providers reuse ids ("call_0" in every step), so an id once refused may later
   * be a different, allowed call.
   */
  readonly refusalsByCallId: Map<string, Set<string>>;
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
      refusalsByCallId: new Map(),
    };
    states.set(run, state);
  }
  return state;
}

/** Records that the call `callId` was refused and the model is given `message` as its result. */
export function markRefusedCall(state: AiSdkRunState, callId: string, message: string): void {
  const messages = state.refusalsByCallId.get(callId);
  if (messages === undefined) state.refusalsByCallId.set(callId, new Set([message]));
  else messages.add(message);
}

/**
 * Whether `output` of the call `callId` is a refusal loopguard delivered, not the tool's own.
 * Keyed by the id and the exact message, not the id alone (a reused id after a refusal is
 * another call, with its own output) and not cleared when a later call reuses the id: the SDK
 * converts results again later (convertToModelMessages of a stored chat), in any order.
 */
export function isRefusalOutput(state: AiSdkRunState, callId: string, output: unknown): boolean {
  return typeof output === 'string' && state.refusalsByCallId.get(callId)?.has(output) === true;
}
