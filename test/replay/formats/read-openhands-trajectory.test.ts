import { expect } from 'chai';
import { readFileSync } from 'node:fs';
import { evaluateFile } from '../../../eval/eval-run.js';
import { detectDocumentFormat } from '../../../src/replay/formats/detect-document-format.js';
import { detectInputFormat } from '../../../src/replay/formats/detect-input-format.js';
import { readOpenHandsTrajectory } from '../../../src/replay/formats/read-openhands-trajectory.js';
import { ReplayInputError } from '../../../src/replay/replay-input-error.js';
import { fixture, shape } from './formats-test-helpers.js';

/**
 * fixtures/openhands-output.jsonl: the first 15 events of the first line of OpenHands'
 * evaluation/benchmarks/multi_swe_bench/examples/output.jsonl (All-Hands-AI/OpenHands @
 * 156d0686, MIT): a real CodeActAgent run (llama-4-maverick) on ponylang/ponyc, with the system
 * prompt, long contents and the model responses trimmed to what the reader uses.
 */
const source = { file: 'output.jsonl', line: 1, run: 'r' };
const outputLine = readFileSync(fixture('openhands-output.jsonl'), 'utf8').trim();

describe('readOpenHandsTrajectory', () => {
  it('reads an output.jsonl line: each agent tool action with its observation, args as the model wrote them', () => {
    const { calls, problems } = readOpenHandsTrajectory(JSON.parse(outputLine), source);
    expect(problems).to.deep.equal([]);
    const ls = (dir: string) => ({ command: `ls -l /workspace/ponylang__ponyc__0.1${dir}` });
    expect(calls.map((call) => [call.round, call.tool, call.args, call.callId])).to.deep.equal([
      [1, 'execute_bash', ls(''), 'toolu_01'],
      [2, 'execute_bash', ls('/src'), 'toolu_02'],
      [3, 'execute_bash', ls('/src/libponyc'), 'toolu_03'],
      [4, 'execute_bash', ls('/src/libponyc/ast'), 'toolu_04'],
      [5, 'str_replace_editor', { command: 'view', path: '/workspace/ponylang__ponyc__0.1/src/libponyc/ast/parser.c' }, 'toolu_05'],
    ]);
    // The system prompt, the user's message, OpenHands' recall and its observation are not calls;
    // the last action (id 15) has no observation in the file and is left out.
    const first = calls[0]!;
    expect((first.outcome as { result: string }).result).to.match(/^total 300\n-rw-r--r-- {2}1 root root {3}9336 Apr 30 08:32 BUILD\.md/);
    expect(first.startTime).to.equal(Date.parse('2025-04-30T16:32:57.821Z'));
    expect(first.durationMs).to.equal(620);
    expect(calls.every((call) => call.run === 'r' && call.source.file === 'output.jsonl' && call.source.line === 1)).to.equal(true);
  });

  it('reads the same events given as an array (a trajectory export)', () => {
    const history = (JSON.parse(outputLine) as { history: unknown[] }).history;
    const fromArray = readOpenHandsTrajectory(history, source);
    const fromLine = readOpenHandsTrajectory(JSON.parse(outputLine), source);
    expect(fromArray.calls.map(shape)).to.deep.equal(fromLine.calls.map(shape));
  });

  it('reads the 2024 flat form (resolver output): an action, then its observation; args are the action fields without bookkeeping', () => {
    const { calls } = readOpenHandsTrajectory(
      {
        history: [
          { content: 'Please fix the issue', action: 'message' },
          { command: 'touch LICENSE', thought: 'Start with the file.', keep_prompt: true, action: 'run', is_confirmed: 'confirmed', action_risk: null },
          { content: '\r\nroot@bcd3959393a1:/workspace # ', command_id: -1, command: 'touch LICENSE', exit_code: 0, observation: 'run' },
          { code: "open_file('/workspace/a.tsx')", thought: '', action: 'run_ipython', kernel_init_code: 'from agentskills import *' },
          { content: '[File: /workspace/a.tsx (14 lines total)]', code: "open_file('/workspace/a.tsx')", observation: 'run_ipython' },
          { outputs: {}, thought: '', action: 'finish' },
        ],
      },
      source,
    );
    expect(calls.map(shape)).to.deep.equal([
      { run: 'r', round: 1, tool: 'run', args: { command: 'touch LICENSE' }, outcome: { result: '\r\nroot@bcd3959393a1:/workspace # ' } },
      { run: 'r', round: 2, tool: 'run_ipython', args: { code: "open_file('/workspace/a.tsx')" }, outcome: { result: '[File: /workspace/a.tsx (14 lines total)]' } },
    ]);
  });

  it('puts parallel calls of one model response in one round, keeps the order they were asked in, and reads an error observation as an error', () => {
    const response = (id: string, calls: Array<[string, string, object]>) => ({
      id,
      choices: [{ message: { tool_calls: calls.map(([callId, name, args]) => ({ id: callId, function: { name, arguments: JSON.stringify(args) } })) } }],
    });
    const both = response('resp-1', [['c1', 'execute_bash', { command: 'ls' }], ['c2', 'execute_bash', { command: 'pwd' }]]);
    const meta = (callId: string, model_response: object) => ({ function_name: 'execute_bash', tool_call_id: callId, model_response });
    const { calls } = readOpenHandsTrajectory(
      [
        { id: 1, source: 'agent', action: 'run', args: { command: 'ls', thought: 'look' }, tool_call_metadata: meta('c1', both) },
        { id: 2, source: 'agent', action: 'run', args: { command: 'pwd' }, tool_call_metadata: meta('c2', both) },
        { id: 3, source: 'agent', observation: 'run', cause: 2, content: '/workspace' },
        { id: 4, source: 'agent', observation: 'error', cause: 1, content: 'ls: cannot access' },
        { id: 5, source: 'agent', action: 'think', args: { thought: 'hmm' }, tool_call_metadata: { function_name: 'think', tool_call_id: 'c3', model_response: response('resp-2', [['c3', 'think', { thought: 'hmm' }]]) } },
        { id: 6, source: 'agent', observation: 'think', cause: 5, content: 'Your thought has been logged.' },
      ],
      source,
    );
    expect(calls.map((call) => [call.round, call.callId, call.args, call.outcome])).to.deep.equal([
      [1, 'c1', { command: 'ls' }, { error: { type: 'error', message: 'ls: cannot access' } }],
      [1, 'c2', { command: 'pwd' }, { result: '/workspace' }],
      [2, 'c3', { thought: 'hmm' }, { result: 'Your thought has been logged.' }],
    ]);
  });

  it('reports a bad event as file:line naming the field and keeps the rest; throws for a document with no events', () => {
    const { calls, problems } = readOpenHandsTrajectory(
      { history: [{ id: 1, source: 'agent', action: 'run', args: { command: 'ls' } }, 'junk', { id: 2, observation: 'run', cause: 1, content: { text: 'x' } }, { id: 3, source: 'agent', action: 'run', args: { command: 'pwd' } }, { id: 4, observation: 'run', cause: 3, content: 'ok' }] },
      source,
    );
    expect(calls.map((call) => call.args)).to.deep.equal([{ command: 'pwd' }]);
    expect(problems.map((problem) => [problem.message, problem.field])).to.deep.equal([
      ['output.jsonl:1: history[1] must be an event object ("action" or "observation"), got "junk"', 'history[1]'],
      ['output.jsonl:1: history[2].content must be a string (what the tool returned), got {"text":"x"}', 'history[2].content'],
    ]);
    expect(() => readOpenHandsTrajectory({ history: 'x' }, source)).to.throw(ReplayInputError, /output\.jsonl:1: an OpenHands trajectory is an array of events or a document with a "history" array/);
  });

  it('is detected as a whole document, as an event array and as a one-line output.jsonl, but a SWE-agent demonstration is not', () => {
    const document = JSON.parse(outputLine) as { history: unknown[] };
    expect(detectDocumentFormat(document)).to.equal('openhands');
    expect(detectDocumentFormat(document.history)).to.equal('openhands');
    expect(detectInputFormat(outputLine)).to.equal('openhands');
    expect(detectDocumentFormat({ history: [{ role: 'system', content: 'You are SWE-agent' }] })).to.equal(undefined);
    // A bare message list is a conversation of chat messages, not OpenHands events.
    expect(detectDocumentFormat([{ role: 'user', content: 'x' }])).to.equal('chat-messages');
  });

  it('replays natively: the output.jsonl fixture is one run of five calls through the replay reader', async () => {
    const runs = await evaluateFile(fixture('openhands-output.jsonl'), {});
    expect(runs).to.have.length(1);
    expect(runs[0]!.calls.map((call) => call.tool)).to.deep.equal(['execute_bash', 'execute_bash', 'execute_bash', 'execute_bash', 'str_replace_editor']);
    expect(runs[0]!.report.stop).to.equal(null);
  });

  // OpenHands keeps what the harness added to a command's output in the observation's
  // `extras.metadata` (CmdOutputObservation.to_agent_observation: prefix, content, suffix, the
  // working directory, the exit code). The model read all of it: "[The command has no new output
  // after 30 seconds. You may wait longer … by sending empty command '' …]" is what tells it to wait.
  it('reads a command\'s output as the model saw it: prefix, content, suffix, working directory and exit code', () => {
    const quiet =
      "\n[The command has no new output after 30 seconds. You may wait longer to see additional output by sending empty command '', send other commands to interact with the current process, or send keys to interrupt/kill the command.]";
    const run = (id: number, command: string, content: string, metadata: Record<string, unknown>, time: number) => [
      { id, timestamp: new Date(time).toISOString(), source: 'agent', action: 'run', args: { command, is_input: false, thought: '' } },
      { id: id + 1, timestamp: new Date(time + 30_500).toISOString(), source: 'agent', cause: id, observation: 'run', content, extras: { command, metadata, hidden: false } },
    ];
    const running = { exit_code: -1, pid: -1, working_dir: '/workspace/repo', py_interpreter_path: '', prefix: '', suffix: quiet };
    const history = [...run(1, 'python -m pytest tests/ -x', 'collecting ...', running, 0)];
    for (let i = 0; i < 6; i++) history.push(...run(3 + 2 * i, '', '', { ...running, prefix: '[Below is the output of the previous command.]\n' }, 31_000 * (i + 1)));
    history.push(...run(20, '', '120 passed in 95.2s', { exit_code: 0, pid: -1, working_dir: '/workspace/repo', py_interpreter_path: '', prefix: '[Below is the output of the previous command.]\n', suffix: '\n[The command completed with exit code 0.]' }, 250_000));
    const { calls, problems } = readOpenHandsTrajectory({ history }, source);
    expect(problems).to.deep.equal([]);
    expect((calls[0]!.outcome as { result: string }).result).to.equal(`collecting ...${quiet}\n[Current working directory: /workspace/repo]`);
    expect((calls.at(-1)!.outcome as { result: string }).result).to.equal(
      '[Below is the output of the previous command.]\n120 passed in 95.2s\n[The command completed with exit code 0.]\n[Current working directory: /workspace/repo]\n[Command finished with exit code 0]',
    );
  });

  it('replays the six waits on a quiet test run without a refusal or a stop', async () => {
    const { writeFileSync, mkdtempSync } = await import('node:fs');
    const { join } = await import('node:path');
    const { tmpdir } = await import('node:os');
    const quiet = "\n[The command has no new output after 30 seconds. You may wait longer to see additional output by sending empty command '', or send keys to interrupt/kill the command.]";
    const history: unknown[] = [];
    const metadata = (suffix: string, exit = -1) => ({ exit_code: exit, pid: -1, working_dir: '/workspace/repo', py_interpreter_path: '', prefix: '', suffix });
    const add = (id: number, command: string, content: string, meta: unknown, time: number) =>
      history.push(
        { id, timestamp: new Date(time).toISOString(), source: 'agent', action: 'run', args: { command, is_input: false }, tool_call_metadata: { function_name: 'execute_bash', tool_call_id: `call_${id}` } },
        { id: id + 1, timestamp: new Date(time + 30_500).toISOString(), source: 'agent', cause: id, observation: 'run', content, extras: { command, metadata: meta } },
      );
    add(1, 'python -m pytest tests/ -x', 'collecting ...', metadata(quiet), 0);
    for (let i = 0; i < 6; i++) add(3 + 2 * i, '', '', metadata(quiet), 31_000 * (i + 1));
    add(20, '', '120 passed in 95.2s', metadata('\n[The command completed with exit code 0.]', 0), 250_000);
    const file = join(mkdtempSync(join(tmpdir(), 'loopguard-openhands-')), 'waits.json');
    writeFileSync(file, JSON.stringify({ instance_id: 'waits', history }));
    const runs = await evaluateFile(file, {});
    expect(runs).to.have.length(1);
    expect(runs[0]!.report.stop).to.equal(null);
    expect(runs[0]!.calls).to.have.length(8);
    expect(runs[0]!.report.refused).to.equal(0);
  });

  // OpenHands' condensers (LLMSummarizingCondenser and the like) replace earlier events with a
  // summary, written as a `condensation` action: the model no longer has what those events
  // showed, so it reads its files again (RunGuard.contextCompacted).
  it('a condensation before a call marks it compactedBefore, and the re-reads after it replay without a refusal', async () => {
    const { writeFileSync, mkdtempSync } = await import('node:fs');
    const { join } = await import('node:path');
    const { tmpdir } = await import('node:os');
    const history: unknown[] = [];
    let id = 0;
    const view = (path: string, content: string) => {
      id += 2;
      history.push(
        { id, source: 'agent', action: 'read', args: { path }, tool_call_metadata: { function_name: 'str_replace_editor', tool_call_id: `call_${id}`, model_response: { id: `resp_${id}`, choices: [{ message: { tool_calls: [{ id: `call_${id}`, function: { arguments: JSON.stringify({ command: 'view', path }) } }] } }] } } },
        { id: id + 1, source: 'agent', cause: id, observation: 'read', content, extras: { path } },
      );
    };
    const files = ['/workspace/repo/a.py', '/workspace/repo/b.py', '/workspace/repo/c.py'];
    for (const path of files) view(path, `Here's the result of running \`cat -n\` on ${path}:\n     1\tx = 1\n`);
    history.push({ id: 100, source: 'agent', action: 'condensation', args: { forgotten_event_ids: [2, 3, 4, 5, 6, 7], summary: 'Read a.py, b.py, c.py' } });
    for (const path of files) view(path, `Here's the result of running \`cat -n\` on ${path}:\n     1\tx = 1\n`);
    const { calls, problems } = readOpenHandsTrajectory({ history }, source);
    expect(problems).to.deep.equal([]);
    expect(calls.map((call) => call.compactedBefore === true)).to.deep.equal([false, false, false, true, false, false]);
    const write = (name: string, events: unknown[]) => {
      const file = join(mkdtempSync(join(tmpdir(), 'loopguard-openhands-')), name);
      writeFileSync(file, JSON.stringify({ instance_id: name, history: events }));
      return file;
    };
    const condensed = (await evaluateFile(write('condensed.json', history), {}))[0]!.report;
    expect(condensed.refused).to.equal(0);
    // The same run without the condensation: the re-reads are refused, the result is "above".
    const uncondensed = (await evaluateFile(write('uncondensed.json', history.filter((event) => (event as { action?: string }).action !== 'condensation')), {}))[0]!.report;
    expect(uncondensed.refused).to.equal(3);
  });
});
