import type { ReplayCall } from '../replay-call.js';
import { ReplayInputError } from '../replay-input-error.js';
import { describeJsonValue, isPlainObject } from '../parse-transcript-line.js';
import type { TrajectoryCalls, TrajectorySource } from './trajectory-source.js';

/**
 * Reads a SWE-agent `.traj` document (`{"trajectory": [{action, observation, ...}], "info":
 * {...}}`). Each step is one model response that ran one command: one round with one call,
 * tool `bash`, args `{"command": action}` (trailing whitespace trimmed: SWE-agent keeps the
 * newline the model ended its command with), result the observation text as the model saw it.
 * Steps with an empty action are not model calls (SWE-agent's autosubmission after an error
 * records one) and are skipped without taking a round. `execution_time` (seconds) becomes
 * `durationMs`; a .traj has no timestamps, so the run's clock does not move.
 */
export function readSweAgentTrajectory(document: unknown, source: TrajectorySource): TrajectoryCalls {
  const { file, line, run } = source;
  if (!isPlainObject(document) || !Array.isArray(document.trajectory)) {
    throw new ReplayInputError({
      file,
      line,
      field: 'trajectory',
      problem: `"trajectory" must be an array of steps ({"action", "observation"}), got ${describeJsonValue(isPlainObject(document) ? document.trajectory : document)}`,
    });
  }
  const calls: ReplayCall[] = [];
  const problems: ReplayInputError[] = [];
  let round = 0;
  document.trajectory.forEach((step: unknown, index) => {
    const path = `trajectory[${index}]`;
    const problem = (field: string, what: string): void => {
      problems.push(new ReplayInputError({ file, line, field: `${path}${field}`, problem: `${path}${field} ${what}` }));
    };
    if (!isPlainObject(step)) {
      round++;
      problem('', `must be an object with "action" and "observation", got ${describeJsonValue(step)}`);
      return;
    }
    const action = step.action;
    if (action === undefined || action === null || (typeof action === 'string' && action.trim() === '')) return;
    round++;
    if (typeof action !== 'string') {
      problem('.action', `must be a string (the command line), got ${describeJsonValue(action)}`);
      return;
    }
    const observation = step.observation ?? '';
    if (typeof observation !== 'string') {
      problem('.observation', `must be a string (the command's output), got ${describeJsonValue(observation)}`);
      return;
    }
    const call: ReplayCall = {
      source: { file, line },
      run,
      round,
      tool: 'bash',
      args: { command: action.trimEnd() },
      outcome: { result: observation },
    };
    const seconds = step.execution_time;
    if (typeof seconds === 'number' && Number.isFinite(seconds) && seconds >= 0) call.durationMs = Math.round(seconds * 1000);
    calls.push(call);
  });
  return { calls, problems };
}
