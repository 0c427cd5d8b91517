import type { StopCondition, ToolSet } from 'ai';
import type { RunGuard } from '../../core/run-guard.js';
import type { StopDecision } from '../../core/types.js';
import { failOpen } from '../fail-open.js';
import { requireSetupOption } from '../require-setup-option.js';
import { getAiSdkRunState } from './ai-sdk-run-state.js';
import { recordUnofferedToolCalls } from './record-unoffered-tool-calls.js';

/**
 * A `stopWhen` condition backed by loopguard's verdict on the run.
 *
 * With {@link loopGuardPrepareStep} installed, the condition does not cut the loop the moment
 * the run must stop: prepareStep first gives the model one step without tools and with the
 * stop message, so it writes its answer from what it gathered (a run cut mid-thought returns
 * no answer at all). The condition fires after that step, in case the model ignored
 * `toolChoice: 'none'`. Without prepareStep it fires as soon as the run must stop.
 *
 * Used alone (no prepareStep), each evaluation also opens the next step's round, so the
 * stale-round and refused-round counts work; the nudge and the ladder need prepareStep.
 * Note the SDK evaluates `stopWhen` only after steps that called tools.
 *
 * Combine with a step ceiling as usual: `stopWhen: [loopGuardStopCondition(run), stepCountIs(50)]`.
 */
export function loopGuardStopCondition<TOOLS extends ToolSet = ToolSet>(run: RunGuard): StopCondition<TOOLS> {
  requireSetupOption('run', 'run', run);
  const state = getAiSdkRunState(run);
  return ({ steps }) => {
    const stop = failOpen<StopDecision | undefined>(
      'shouldStop',
      () => {
        recordUnofferedToolCalls(run, steps);
        const decision = currentStop(run);
        // Used alone, this condition is the only hook between steps: it opens the round of
        // the next model call (prepareStep does that when installed). The first step's round
        // opens with its first call.
        if (decision === undefined && !state.prepareStepInstalled) run.beginRound();
        return decision;
      },
      undefined,
    );
    if (stop === undefined) return false;
    return !state.prepareStepInstalled || state.finalAnswerOffered;
  };
}

function currentStop(run: RunGuard): StopDecision | undefined {
  if (run.stopped !== undefined) return run.stopped;
  const decision = run.shouldStop();
  return decision.action === 'stop' ? decision : undefined;
}
