// Codex CLI's shell tools, in the shapes its rollouts record: `exec_command {cmd}` answered by
// its unified-exec header (a fresh random `Chunk ID` and the `Wall time` on every answer, then
// the exit code or the running session, the token count and the output), and the older
// `shell {command: ["bash", "-lc", "<script>"]}`. The same answer with another chunk id is the
// same answer; a `bash -lc` script is judged by what it runs.
import { expect } from 'chai';
import { fingerprintResult } from '../../../src/core/result-fingerprint.js';
import { resolveOptions } from '../../../src/core/policy.js';
import { classifyShellCommand } from '../../../src/core/world-state/classify-shell-command.js';
import { newRun, playRounds, type ScriptedCall } from '../play.js';

const options = resolveOptions();
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

  it('exit code 0 and no output is an empty result, like an empty output; a failure with no output is not', () => {
    expect(fingerprintResult(execOutput(''), execPolicy, options.maxFingerprintBytes)).to.deep.equal({ outcome: 'empty' });
    expect(fingerprintResult(execOutput('', 1), execPolicy, options.maxFingerprintBytes).outcome).to.equal('success');
    expect(fingerprintResult(execOutput('', 'running'), execPolicy, options.maxFingerprintBytes).outcome).to.equal('success');
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

  it('"Output: (empty)" with no error is an empty result; with a failing exit code it is not', () => {
    expect(fingerprintResult(short(''), shellPolicy, options.maxFingerprintBytes)).to.deep.equal({ outcome: 'empty' });
    expect(fingerprintResult(long('mkdir -p out', ''), shellPolicy, options.maxFingerprintBytes)).to.deep.equal({ outcome: 'empty' });
    expect(fingerprintResult(long('grep zzz f', '', 1), shellPolicy, options.maxFingerprintBytes).outcome).to.equal('success');
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

  it('exit code 0 and no output is an empty result, like an empty output; a failure or an output is not', () => {
    expect(fingerprintResult(miniSweAgent(''), bash, options.maxFingerprintBytes)).to.deep.equal({ outcome: 'empty' });
    expect(fingerprintResult(miniSweAgent('', 1), bash, options.maxFingerprintBytes).outcome).to.equal('success');
    expect(fingerprintResult(miniSweAgent('tests/test_a.py\n'), bash, options.maxFingerprintBytes).outcome).to.equal('success');
    expect(fingerprintResult(openHands(''), executeBash, options.maxFingerprintBytes)).to.deep.equal({ outcome: 'empty' });
    expect(fingerprintResult(openHands('', 1), executeBash, options.maxFingerprintBytes).outcome).to.equal('success');
    expect(fingerprintResult(openHands('tests/test_a.py'), executeBash, options.maxFingerprintBytes).outcome).to.equal('success');
    // Another tool's text that happens to look alike is not read as a shell's.
    expect(fingerprintResult(miniSweAgent(''), options.tool('search_docs'), options.maxFingerprintBytes).outcome).to.equal('success');
  });

  it('six different greps that find nothing are six new facts, as bare empty outputs are; the same match six times still stops', () => {
    for (const [tool, envelope] of [['bash', miniSweAgent], ['execute_bash', openHands]] as const) {
      const queries = ['parse_args', 'ArgParser', 'argv', 'sys.argv', 'optparse', 'click.command'];
      const silent = playRounds(newRun(), queries.map((query) => [{ tool, args: { command: `grep -rn "${query}" src/` }, outcome: { result: envelope('') } }]));
      expect(silent.at(-1)!.after, tool).to.include({ action: 'continue' });
      const same = playRounds(newRun(), [...queries, 'parse('].map((query) => [{ tool, args: { command: `grep -rn "${query}" src/` }, outcome: { result: envelope('src/cli.py:12:    args = parse(argv)\n') } }]));
      expect(same.at(-1)!.after, tool).to.include({ action: 'stop', reason: 'stale_rounds' });
    }
  });
});
