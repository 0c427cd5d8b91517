import { expect } from 'chai';
import { readSweAgentTrajectory } from '../../../src/replay/formats/read-swe-agent-trajectory.js';
import { ReplayInputError } from '../../../src/replay/replay-input-error.js';
import { readFixtureJson, shape } from './formats-test-helpers.js';

const source = { file: 'x.traj', line: 1, run: 'x' };

describe('readSweAgentTrajectory', () => {
  it('maps each step to one round with one bash call; the empty autosubmission step takes no round', () => {
    const { calls, problems } = readSweAgentTrajectory(readFixtureJson('swe-agent-test-repo.traj'), source);
    expect(problems).to.deep.equal([]);
    expect(calls.map(shape)).to.deep.equal([
      { run: 'x', round: 1, tool: 'bash', args: { command: 'find_file missing_colon.py' }, outcome: { result: 'Found 1 matches for "missing_colon.py" in /repo:\n/repo/tests/missing_colon.py' }, durationMs: 250 },
      {
        run: 'x',
        round: 2,
        tool: 'bash',
        args: { command: 'python tests/missing_colon.py' },
        outcome: { result: '  File "tests/missing_colon.py", line 4\n    def division(a: float, b: float) -> float\n                                             ^\nSyntaxError: invalid syntax' },
        durationMs: 1500,
      },
      {
        run: 'x',
        round: 3,
        tool: 'bash',
        args: { command: 'python tests/missing_colon.py' },
        outcome: { result: '  File "tests/missing_colon.py", line 4\n    def division(a: float, b: float) -> float\n                                             ^\nSyntaxError: invalid syntax' },
        durationMs: 1500,
      },
      { run: 'x', round: 4, tool: 'bash', args: { command: 'submit' }, outcome: { result: '' }, durationMs: 100 },
    ]);
    expect(calls.every((call) => call.source.file === 'x.traj' && call.source.line === 1)).to.equal(true);
  });

  it('keeps inner whitespace of a multi-line command and trims only the end', () => {
    const { calls } = readSweAgentTrajectory({ trajectory: [{ action: 'edit 1:2\n  x = 1\nend_of_edit\n\n', observation: 'ok' }] }, source);
    expect(calls[0].args).to.deep.equal({ command: 'edit 1:2\n  x = 1\nend_of_edit' });
  });

  it('reports a bad step as file:line naming the field, skips it, and keeps the rest in their rounds', () => {
    const { calls, problems } = readSweAgentTrajectory(
      { trajectory: [{ action: 'ls', observation: 'a' }, { action: 42, observation: 'b' }, { action: 'pwd', observation: { text: 'c' } }, 'junk', { action: 'cat a', observation: 'd' }] },
      source,
    );
    expect(calls.map((c) => [c.round, (c.args as { command: string }).command])).to.deep.equal([[1, 'ls'], [5, 'cat a']]);
    expect(problems.map((p) => [p.message, p.field])).to.deep.equal([
      ['x.traj:1: trajectory[1].action must be a string (the command line), got 42', 'trajectory[1].action'],
      ['x.traj:1: trajectory[2].observation must be a string (the command\'s output), got {"text":"c"}', 'trajectory[2].observation'],
      ['x.traj:1: trajectory[3] must be an object with "action" and "observation", got "junk"', 'trajectory[3]'],
    ]);
  });

  it('throws for a document without a trajectory array', () => {
    expect(() => readSweAgentTrajectory({ history: [] }, source)).to.throw(ReplayInputError, /x\.traj:1: "trajectory" must be an array/);
  });
});
