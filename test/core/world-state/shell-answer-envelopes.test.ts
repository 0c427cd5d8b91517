// Codex CLI's shell tools, in the shapes its rollouts record: `exec_command {cmd}` answered by
// its unified-exec header (a fresh random `Chunk ID` and the `Wall time` on every answer, then
// the exit code or the running session, the token count and the output), and the older
// `shell {command: ["bash", "-lc", "<script>"]}`. The same answer with another chunk id is the
// same answer; a `bash -lc` script is judged by what it runs.
import { expect } from 'chai';
import { fingerprintOutcome, fingerprintResult } from '../../../src/core/result-fingerprint.js';
import { resolveOptions } from '../../../src/core/policy.js';
import { classifyShellCommand } from '../../../src/core/world-state/classify-shell-command.js';
import { kinds, newRun, playRounds, type ScriptedCall } from '../play.js';

const options = resolveOptions();
/** Names an agent greps for one after another; none found (exit code 1, nothing printed) in the silent-grep tests. */
const GREPPED_NAMES = ['parse_args', 'ArgParser', 'argv', 'sys.argv', 'optparse', 'click.command'];
const execPolicy = options.tool('exec_command');

let chunk = 0x3a41f0;
/** One unified-exec answer, as Codex writes it. */
function execOutput(body: string, exit: number | 'running' = 0): string {
  chunk += 0x1d3b;
  const status = exit === 'running' ? 'Process running with session ID 52328' : `Process exited with code ${exit}`;
  return `Chunk ID: ${chunk.toString(16)}\nWall time: ${(0.1 + (chunk % 97) / 100).toFixed(4)} seconds\n${status}\nOriginal token count: ${Math.ceil(body.length / 4)}\nOutput:\n${body}`;
}

describe('world-state: Codex CLI shell tools', () => {
  it('the same output under another chunk id and wall time fingerprints alike; another output or exit code does not', () => {
    const a = fingerprintResult(execOutput('src/a.py:10:def parse(x):\n'), execPolicy, options.maxFingerprintBytes);
    const b = fingerprintResult(execOutput('src/a.py:10:def parse(x):\n'), execPolicy, options.maxFingerprintBytes);
    expect(a.resultHash).to.be.a('string').and.equal(b.resultHash);
    expect(fingerprintResult(execOutput('src/a.py:11:def parse(y):\n'), execPolicy, options.maxFingerprintBytes).resultHash).to.not.equal(a.resultHash);
    expect(fingerprintResult(execOutput('src/a.py:10:def parse(x):\n', 1), execPolicy, options.maxFingerprintBytes).resultHash).to.not.equal(a.resultHash);
  });

  it('no output is an empty result, like an empty output, whatever the exit code (a grep finding nothing exits 1); a command still running is not', () => {
    expect(fingerprintResult(execOutput(''), execPolicy, options.maxFingerprintBytes)).to.deep.equal({ outcome: 'empty' });
    expect(fingerprintResult(execOutput('', 1), execPolicy, options.maxFingerprintBytes)).to.deep.equal({ outcome: 'empty' });
    expect(fingerprintResult(execOutput('', 'running'), execPolicy, options.maxFingerprintBytes).outcome).to.equal('success');
  });

  // The `shell` tool answers as text (`Exit code`, `Wall time`, `Output:`) or as JSON
  // (`{"output", "metadata": {"exit_code", "duration_seconds"}}`), codex-rs format_exec_output_for_model*.
  const shellPolicy = options.tool('shell');
  const asText = (output: string, exit = 0, seconds = 0.2) => `Exit code: ${exit}\nWall time: ${seconds} seconds\nOutput:\n${output}`;
  const asJson = (output: string, exit = 0, seconds = 0.2) => JSON.stringify({ output, metadata: { exit_code: exit, duration_seconds: seconds } });

  it('the `shell` tool\'s text and JSON answers: no output is empty whatever the exit code; the same output in another time is alike, another exit code is not', () => {
    for (const shape of [asText, asJson]) {
      expect(fingerprintResult(shape('', 1), shellPolicy, options.maxFingerprintBytes), shape.name).to.deep.equal({ outcome: 'empty' });
      expect(fingerprintResult(shape('\n', 0), shellPolicy, options.maxFingerprintBytes), shape.name).to.deep.equal({ outcome: 'empty' });
      const a = fingerprintResult(shape('src/a.py:10:def parse(x):\n', 0, 0.1), shellPolicy, options.maxFingerprintBytes);
      expect(a.resultHash, shape.name).to.be.a('string').and.equal(fingerprintResult(shape('src/a.py:10:def parse(x):\n', 0, 1.4), shellPolicy, options.maxFingerprintBytes).resultHash);
      expect(fingerprintResult(shape('src/a.py:10:def parse(x):\n', 2), shellPolicy, options.maxFingerprintBytes).resultHash, shape.name).to.not.equal(a.resultHash);
    }
  });

  it('six different greps that find nothing (exit code 1), in each of its three shapes, are six new facts: the run goes on', () => {
    const shapes: Array<[string, (query: string) => ScriptedCall]> = [
      ['exec_command', (query) => ({ tool: 'exec_command', args: { cmd: `rg -n "${query}" src/` }, outcome: { result: execOutput('', 1) } })],
      ['shell, text', (query) => ({ tool: 'shell', args: { command: ['bash', '-lc', `rg -n "${query}" src/`] }, outcome: { result: asText('', 1) } })],
      ['shell, JSON', (query) => ({ tool: 'shell', args: { command: ['bash', '-lc', `rg -n "${query}" src/`] }, outcome: { result: asJson('', 1) } })],
    ];
    for (const [shape, grep] of shapes) {
      const log = playRounds(newRun(), GREPPED_NAMES.map((query) => [grep(query)]));
      expect(log.flatMap((round) => round.decisions).map((decision) => decision.action), shape).to.deep.equal(Array(6).fill('allow'));
      expect(log.at(-1)!.after.action, shape).to.equal('continue');
    }
  });

  it('a status the command prints inside the JSON answer is read as one: the CI run polled after a sleep is a poll, and so is one looked at again at once', () => {
    const look = (status: string): ScriptedCall => ({ tool: 'shell', args: { command: ['bash', '-lc', 'gh run view 123 --json status'] }, outcome: { result: asJson(`{"status":"${status}"}\n`, 0, 0.4) } });
    const log = playRounds(newRun(), [...Array.from({ length: 6 }, () => [look('in_progress')]), [look('completed')]]);
    expect(log.flatMap((round) => round.decisions).every((decision) => decision.action === 'allow')).to.equal(true);
    expect(log.at(-1)!.after.action).to.equal('continue');
  });

  it('reworded searches answering the same, each under its own chunk id, stop on stale rounds', () => {
    const rounds: ScriptedCall[][] = ['parse', 'parser', 'parse_args', 'Parse', 'parsing', 'parse(', 'def parse', 'parse_'].map((query) => [
      { tool: 'exec_command', args: { cmd: `rg -n "${query}" src/core/cli.py` }, outcome: { result: execOutput('12:    args = parse(argv)\n') } },
    ]);
    const log = playRounds(newRun(), rounds);
    expect(log.at(-1)!.after).to.include({ action: 'stop', reason: 'stale_rounds' });
    expect(log.length).to.be.below(8);
  });

  it('`bash -lc` runs its script: a read script is a read, a write script a write, and the family is the script\'s', () => {
    expect(classifyShellCommand("bash -lc 'grep -rn \"def parse\" src/'")).to.include({ effect: 'read', family: 'grep' });
    expect(classifyShellCommand("timeout 60 bash -lc 'sed -n 1,80p src/a.py'")).to.include({ effect: 'read', family: 'sed' });
    expect(classifyShellCommand("bash -lc 'cat > notes.txt <<EOF\nx\nEOF'")).to.include({ effect: 'write' });
    expect(classifyShellCommand("bash -lc 'grep x src/' > out.txt")).to.include({ effect: 'write' });
    expect(classifyShellCommand('bash script.sh')).to.include({ effect: 'write' });
  });

  it('the older `shell` tool\'s argv list is read as the script it carries: the same read again is refused', () => {
    const read = (): ScriptedCall => ({ tool: 'shell', args: { command: ['bash', '-lc', "sed -n '1,80p' src/core/cli.py"] }, outcome: { result: '{"output":"import sys\\n","metadata":{"exit_code":0,"duration_seconds":0.1}}' } });
    const log = playRounds(newRun(), [[read()], [read()]]);
    expect(log[1]!.decisions[0]).to.include({ action: 'refuse', reason: 'repeat.run_wide' });
  });
});

// gemini-cli's run_shell_command answers "Output: …" then "Process Group PGID: 42546" (the
// longer form also "Command:", "Directory:", "Error:", "Exit Code:", "Signal:", "Background
// PIDs:"): a new process group id on every call.
describe('world-state: gemini-cli shell answers', () => {
  const shellPolicy = options.tool('run_shell_command');
  let pgid = 42_000;
  const short = (output: string) => `Output: ${output || '(empty)'}\nProcess Group PGID: ${(pgid += 17)}`;
  const long = (command: string, output: string, exit = 0) =>
    `Command: ${command}\nDirectory: (root)\nOutput: ${output || '(empty)'}\nError: (none)\nExit Code: ${exit}\nSignal: (none)\nBackground PIDs: ${pgid + 3}\nProcess Group PGID: ${(pgid += 17)}`;

  it('the same output under another process group fingerprints alike; another output does not', () => {
    const a = fingerprintResult(short('12:    args = parse(argv)'), shellPolicy, options.maxFingerprintBytes);
    expect(a.resultHash).to.be.a('string').and.equal(fingerprintResult(short('12:    args = parse(argv)'), shellPolicy, options.maxFingerprintBytes).resultHash);
    expect(fingerprintResult(short('13:    args = parse(argv)'), shellPolicy, options.maxFingerprintBytes).resultHash).to.not.equal(a.resultHash);
    const b = fingerprintResult(long('rg parse', 'x'), shellPolicy, options.maxFingerprintBytes);
    expect(b.resultHash).to.equal(fingerprintResult(long('rg parse', 'x'), shellPolicy, options.maxFingerprintBytes).resultHash);
    expect(fingerprintResult(long('rg parse', 'x', 1), shellPolicy, options.maxFingerprintBytes).resultHash).to.not.equal(b.resultHash);
  });

  it('"Output: (empty)" is an empty result whatever the exit code; with gemini-cli\'s own error (the command did not run) it is not', () => {
    expect(fingerprintResult(short(''), shellPolicy, options.maxFingerprintBytes)).to.deep.equal({ outcome: 'empty' });
    expect(fingerprintResult(long('mkdir -p out', ''), shellPolicy, options.maxFingerprintBytes)).to.deep.equal({ outcome: 'empty' });
    expect(fingerprintResult(long('grep zzz f', '', 1), shellPolicy, options.maxFingerprintBytes)).to.deep.equal({ outcome: 'empty' });
    const spawnFailed = long('grep zzz f', '', 1).replace('Error: (none)', 'Error: spawn /bin/bash ENOENT');
    expect(fingerprintResult(spawnFailed, shellPolicy, options.maxFingerprintBytes).outcome).to.equal('success');
  });

  it('reworded searches answering the same stop on stale rounds', () => {
    const rounds: ScriptedCall[][] = ['parse', 'parser', 'parse_args', 'Parse', 'parsing', 'parse(', 'def parse', 'parse_'].map((query) => [
      { tool: 'run_shell_command', args: { command: `rg -n "${query}" src/core/cli.py` }, outcome: { result: short('12:    args = parse(argv)') } },
    ]);
    const log = playRounds(newRun(), rounds);
    expect(log.at(-1)!.after).to.include({ action: 'stop', reason: 'stale_rounds' });
  });
});

describe('world-state: mini-swe-agent and OpenHands shell envelopes', () => {
  const miniSweAgent = (output: string, exit = 0) => `<returncode>${exit}</returncode>\n<output>\n${output}</output>`;
  const openHands = (output: string, exit = 0) =>
    `${output}\n[The command completed with exit code ${exit}.]\n[Current working directory: /workspace/django]\n[Python interpreter: /opt/miniconda3/envs/testbed/bin/python]\n[Command finished with exit code ${exit}]`;
  const bash = options.tool('bash');
  const executeBash = options.tool('execute_bash');

  it('no output is an empty result, like an empty output, whatever the exit code; an output is not', () => {
    expect(fingerprintResult(miniSweAgent(''), bash, options.maxFingerprintBytes)).to.deep.equal({ outcome: 'empty' });
    expect(fingerprintResult(miniSweAgent('', 1), bash, options.maxFingerprintBytes)).to.deep.equal({ outcome: 'empty' });
    expect(fingerprintResult({ returncode: 1, output: '' }, bash, options.maxFingerprintBytes)).to.deep.equal({ outcome: 'empty' });
    expect(fingerprintResult({ returncode: 1, output: 'grep: src/: No such file or directory\n' }, bash, options.maxFingerprintBytes).outcome).to.equal('success');
    expect(fingerprintResult(miniSweAgent('tests/test_a.py\n'), bash, options.maxFingerprintBytes).outcome).to.equal('success');
    expect(fingerprintResult(openHands(''), executeBash, options.maxFingerprintBytes)).to.deep.equal({ outcome: 'empty' });
    expect(fingerprintResult(openHands('', 1), executeBash, options.maxFingerprintBytes)).to.deep.equal({ outcome: 'empty' });
    expect(fingerprintResult(openHands('tests/test_a.py'), executeBash, options.maxFingerprintBytes).outcome).to.equal('success');
    // An object that is no shell's answer, or another tool's, is judged as any.
    expect(fingerprintResult({ returncode: 1, output: '', cwd: '/testbed' }, bash, options.maxFingerprintBytes).outcome).to.equal('success');
    expect(fingerprintResult({ returncode: 1, output: '' }, options.tool('search_docs'), options.maxFingerprintBytes).outcome).to.equal('success');
    // Another tool's text that happens to look alike is not read as a shell's.
    expect(fingerprintResult(miniSweAgent(''), options.tool('search_docs'), options.maxFingerprintBytes).outcome).to.equal('success');
  });

  // A grep that finds nothing exits 1: with exit code 0 only, six of them in an envelope were a
  // stale streak, the grep family switched off and the run stopped (Codex's three shapes too).
  it('six different greps that find nothing (exit code 1) are six new facts, as bare empty outputs are; the same match six times still stops', () => {
    for (const [tool, envelope] of [['bash', miniSweAgent], ['execute_bash', openHands]] as const) {
        const silent = playRounds(newRun(), GREPPED_NAMES.map((query) => [{ tool, args: { command: `grep -rn "${query}" src/` }, outcome: { result: envelope('', 1) } }]));
      expect(silent.at(-1)!.after, tool).to.include({ action: 'continue' });
      const same = playRounds(newRun(), [...GREPPED_NAMES, 'parse('].map((query) => [{ tool, args: { command: `grep -rn "${query}" src/` }, outcome: { result: envelope('src/cli.py:12:    args = parse(argv)\n') } }]));
      expect(same.at(-1)!.after, tool).to.include({ action: 'stop', reason: 'stale_rounds' });
    }
  });
});

// Claude Code answers a command that exited non-zero as an error (`is_error: true`; the
// PostToolUseFailure hook's `error`): `Exit code 1`, then what it printed.
describe("world-state: Claude Code's Bash failing with nothing printed", () => {
  const bash = options.tool('Bash');
  const grep = (query: string, message: string): ScriptedCall => ({ tool: 'Bash', args: { command: `grep -rn "${query}" src/`, description: `Find ${query}` }, outcome: { error: { type: 'tool_error', message } } });
  const queries = [...GREPPED_NAMES, 'typer'];

  it('`Exit code 1` alone is an empty answer; with output it is the failure it reports', () => {
    expect(fingerprintOutcome({ error: { type: 'tool_error', message: 'Exit code 1' } }, bash, options.maxFingerprintBytes)).to.deep.equal({ outcome: 'empty' });
    expect(fingerprintOutcome({ error: { type: 'tool_error', message: 'Error: Exit code 2' } }, bash, options.maxFingerprintBytes)).to.deep.equal({ outcome: 'empty' });
    expect(fingerprintOutcome({ error: { type: 'tool_error', message: 'Exit code 1\nnpm ERR! missing script: lint' } }, bash, options.maxFingerprintBytes).outcome).to.not.equal('empty');
    // Another tool's error that reads alike is judged as any error.
    expect(fingerprintOutcome({ error: { type: 'tool_error', message: 'Exit code 1' } }, options.tool('search_docs'), options.maxFingerprintBytes).outcome).to.not.equal('empty');
  });

  it('seven greps for seven names, none found (`Exit code 1`), are seven empty answers: the run goes on (it stopped on consecutive failures at the fifth)', () => {
    const log = playRounds(newRun(), queries.map((query) => [grep(query, 'Exit code 1')]));
    expect(log.flatMap((round) => round.decisions).map((decision) => decision.action)).to.deep.equal(Array(queries.length).fill('allow'));
    expect(log.at(-1)!.after.action).to.equal('continue');
  });

  it('the same grep finding nothing again and again is still a repeat: refused', () => {
    const log = playRounds(newRun(), Array.from({ length: 4 }, () => [grep('parse_args', 'Exit code 1')]));
    expect(kinds(log.flatMap((round) => round.decisions)).slice(0, 2)).to.deep.equal(['allow:new', 'refuse:repeat.run_wide']);
  });
});

// Cline answers `execute_command` with `Command executed.` and its output after `\nOutput:\n`;
// Roo Code with its working directory, a failure's notice and the exit code before `Output:`.
describe("world-state: Cline's and Roo Code's execute_command answers", () => {
  const executeCommand = options.tool('execute_command');
  const cline = (output: string) => `Command executed.${output.length > 0 ? `\nOutput:\n${output}` : ''}`;
  const roo = (output: string, exit = 0) =>
    `Command executed in terminal  within working directory '/repo'. ${exit === 0 ? '' : 'Command execution was not successful, inspect the cause and adjust as needed.\n'}Exit code: ${exit}\nOutput:\n${output}`;

  it('nothing printed is an empty answer, whatever the exit code; an output is not', () => {
    expect(fingerprintResult(cline(''), executeCommand, options.maxFingerprintBytes)).to.deep.equal({ outcome: 'empty' });
    expect(fingerprintResult(roo('', 1), executeCommand, options.maxFingerprintBytes)).to.deep.equal({ outcome: 'empty' });
    expect(fingerprintResult(roo('', 0), executeCommand, options.maxFingerprintBytes)).to.deep.equal({ outcome: 'empty' });
    expect(fingerprintResult(cline('src/cli.py:12:    args = parse(argv)'), executeCommand, options.maxFingerprintBytes).outcome).to.equal('success');
    expect(fingerprintResult(roo('ls: x: No such file or directory', 1), executeCommand, options.maxFingerprintBytes).outcome).to.equal('success');
  });

  it('six greps that find nothing go on (they stopped on stale rounds); the same match six times still stops', () => {
    for (const [name, answer] of [['Cline', () => cline('')], ['Roo Code', () => roo('', 1)]] as const) {
      const silent = playRounds(newRun(), GREPPED_NAMES.map((query) => [{ tool: 'execute_command', args: { command: `grep -rn "${query}" src/` }, outcome: { result: answer() } }]));
      expect(silent.at(-1)!.after.action, name).to.equal('continue');
      expect(kinds(silent.flatMap((round) => round.decisions)).filter((kind) => kind.startsWith('refuse')), name).to.deep.equal([]);
    }
    const same = playRounds(newRun(), [...GREPPED_NAMES, 'parse('].map((query) => [{ tool: 'execute_command', args: { command: `grep -rn "${query}" src/` }, outcome: { result: roo('src/cli.py:12:    args = parse(argv)\n') } }]));
    expect(same.at(-1)!.after).to.include({ action: 'stop', reason: 'stale_rounds' });
  });
});
