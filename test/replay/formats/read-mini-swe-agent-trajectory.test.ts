import { expect } from 'chai';
import { readMiniSweAgentTrajectory } from '../../../src/replay/formats/read-mini-swe-agent-trajectory.js';
import { ReplayInputError } from '../../../src/replay/replay-input-error.js';
import { readFixtureJson, shape } from './formats-test-helpers.js';

const source = { file: 'm.traj.json', line: 1, run: 'm' };
const bash = (command: string): { command: string } => ({ command });

describe('readMiniSweAgentTrajectory', () => {
  it('v1 (text): one ```bash/```sh block per response is a call; a format error is a round without calls', () => {
    const { calls, problems } = readMiniSweAgentTrajectory(readFixtureJson('mini-swe-agent-v1.traj.json'), source);
    expect(problems).to.deep.equal([]);
    expect(calls.map(shape)).to.deep.equal([
      { run: 'm', round: 1, tool: 'bash', args: bash('ls'), outcome: { result: { returncode: 0, output: 'a.py\n' } }, startTime: 1752700001000, durationMs: 500 },
      { run: 'm', round: 3, tool: 'bash', args: bash("sed -i 's/x/y/' a.py"), outcome: { result: { returncode: 0, output: '' } }, startTime: 1752700003000, durationMs: 250 },
      {
        run: 'm',
        round: 4,
        tool: 'bash',
        args: bash('cat build.log'),
        outcome: { result: { returncode: 0, output: 'head line\n[12000 characters elided]\ntail line' } },
        startTime: 1752700004000,
        durationMs: 1000,
      },
      {
        run: 'm',
        round: 5,
        tool: 'bash',
        args: bash('echo COMPLETE_TASK_AND_SUBMIT_FINAL_OUTPUT && git diff'),
        outcome: { result: 'diff --git a/a.py b/a.py\n' },
        startTime: 1752700006000,
        durationMs: 500,
      },
    ]);
  });

  it('v2 (tool calls): extra.actions, results paired by tool call id, raw output, FormatError rounds, timeout, submission', () => {
    const { calls, problems } = readMiniSweAgentTrajectory(readFixtureJson('mini-swe-agent-v2.traj.json'), source);
    expect(problems).to.deep.equal([]);
    expect(calls.map(shape)).to.deep.equal([
      { run: 'm', round: 1, tool: 'bash', args: bash('ls'), callId: 'call_1', outcome: { result: { returncode: 0, output: 'a.py\nb.py\n' } }, startTime: 1752700001000, durationMs: 200, usage: { inputTokens: 100, outputTokens: 10 } },
      { run: 'm', round: 3, tool: 'bash', args: bash('cat a.py'), callId: 'call_2', outcome: { result: { returncode: 0, output: "print('a')\n" } }, startTime: 1752700003000, durationMs: 400, usage: { inputTokens: 200, outputTokens: 20 } },
      { run: 'm', round: 3, tool: 'bash', args: bash('cat b.py'), callId: 'call_3', outcome: { result: { returncode: 0, output: "print('b')\n" } }, startTime: 1752700003000, durationMs: 300, usage: { inputTokens: 200, outputTokens: 20 } },
      {
        run: 'm',
        round: 4,
        tool: 'bash',
        args: bash('sleep 100'),
        callId: 'call_4',
        outcome: { error: { type: 'timeout', message: "An error occurred while executing the command: Command 'sleep 100' timed out after 60 seconds" } },
        startTime: 1752700004000,
        durationMs: 60000,
        usage: { inputTokens: 300, outputTokens: 30 },
      },
      {
        run: 'm',
        round: 5,
        tool: 'bash',
        args: bash('echo COMPLETE_TASK_AND_SUBMIT_FINAL_OUTPUT && git diff'),
        callId: 'call_5',
        outcome: { result: { returncode: 0, output: 'diff --git a/a.py b/a.py\n' } },
        startTime: 1752700065000,
        usage: { inputTokens: 400, outputTokens: 40 },
      },
    ]);
  });

  it('reads tool_calls without extra.actions, and Responses-API function_call items', () => {
    const chat = readMiniSweAgentTrajectory(
      {
        info: {},
        messages: [
          { role: 'assistant', content: null, tool_calls: [{ id: 't1', type: 'function', function: { name: 'bash', arguments: '{"command": "ls -la\\n"}' } }] },
          { role: 'tool', tool_call_id: 't1', content: '<returncode>0</returncode>\n<output>\nx\n</output>' },
        ],
      },
      source,
    );
    expect(chat.calls.map(shape)).to.deep.equal([{ run: 'm', round: 1, tool: 'bash', args: bash('ls -la'), callId: 't1', outcome: { result: { returncode: 0, output: 'x\n' } } }]);

    const responses = readMiniSweAgentTrajectory(
      {
        info: {},
        messages: [
          { object: 'response', output: [{ type: 'reasoning' }, { type: 'function_call', call_id: 'fc1', name: 'bash', arguments: '{"command":"pwd"}' }], usage: { input_tokens: 7, output_tokens: 3 } },
          { type: 'function_call_output', call_id: 'fc1', output: '<returncode>0</returncode>\n<output>\n/repo\n</output>' },
        ],
      },
      source,
    );
    expect(responses.calls.map(shape)).to.deep.equal([
      { run: 'm', round: 1, tool: 'bash', args: bash('pwd'), callId: 'fc1', outcome: { result: { returncode: 0, output: '/repo\n' } }, usage: { inputTokens: 7, outputTokens: 3 } },
    ]);
  });

  it('leaves out a call that never got an observation, but keeps its round', () => {
    const { calls } = readMiniSweAgentTrajectory(
      {
        info: {},
        messages: [
          { role: 'assistant', content: '```bash\nls\n```' },
          { role: 'exit', content: 'LimitsExceeded', extra: { exit_status: 'LimitsExceeded' } },
          { role: 'assistant', content: '```bash\npwd\n```' },
          { role: 'user', content: '<returncode>0</returncode>\n<output>\n/\n</output>' },
        ],
      },
      source,
    );
    expect(calls.map((c) => [c.round, c.args])).to.deep.equal([[2, bash('pwd')]]);
  });

  it('reports bad messages and actions as file:line naming the field, and throws without a messages array', () => {
    const { calls, problems } = readMiniSweAgentTrajectory(
      {
        info: {},
        messages: ['junk', { role: 'assistant', content: '', extra: { actions: [{ command: 5 }] } }, { role: 'assistant', content: null, tool_calls: [{ id: 't', function: { name: 'bash', arguments: '{oops' } }] }],
      },
      source,
    );
    expect(calls).to.deep.equal([]);
    expect(problems.map((p) => [p.message, p.field])).to.deep.equal([
      ['m.traj.json:1: messages[0] must be an object with "role" and "content", got "junk"', 'messages[0]'],
      ['m.traj.json:1: messages[1].extra.actions[0].command must be a string (the bash command), got 5', 'messages[1].extra.actions[0].command'],
      ['m.traj.json:1: messages[2].tool_calls[0].function.arguments is not a readable tool call', 'messages[2].tool_calls[0].function.arguments'],
    ]);
    expect(() => readMiniSweAgentTrajectory({ info: {}, messages: {} }, source)).to.throw(ReplayInputError, /m\.traj\.json:1: "messages" must be an array/);
  });
});
