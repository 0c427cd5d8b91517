/**
 * Did the agent's harness reject the step before running anything? BrowserGym parses the
 * model's action text first and raises, with nothing executed and the page unchanged, when it
 * finds no action ("Received an empty action."), more than one ("Received a multi-action, only
 * single-actions are allowed.") or a function it does not have ("Invalid action type 'x'.")
 * (browsergym/core/action/highlevel.py, `to_python_code`). The WorkArena runs in
 * eval/corpus/browsergym-workarena record it as the step's error, followed by the same page.
 *
 * Such a result is not the world's answer to the call: no tool ran, so it is neither a failure
 * of the tool nor a result seen again (the page shown is the page the agent was already on).
 * run-guard.ts finishCall counts it neutral, up to a bound (a model stuck writing invalid steps
 * is a loop too).
 *
 * Only the head of the message is read: the texts are BrowserGym's own, at the start of the
 * error (`Error: ValueError: Received …`), so the same words quoted further down a page or a
 * log do not make a rejection.
 */
export function isStepRejection(type: string, message: string): boolean {
  return STEP_REJECTION_PATTERN.test(`${type} ${message.slice(0, HEAD_LENGTH)}`);
}

/** Room for a type, an `Error: ValueError: ` prefix and the sentence itself. */
const HEAD_LENGTH = 160;

const STEP_REJECTION_PATTERN = /^\S*\s+(?:Error:\s*)?(?:ValueError:\s*)?(?:NameError:\s*)?(?:Received an empty action\.|Received a multi-action, only single-actions are allowed\.|Invalid action type '[^']*'\.)/;
