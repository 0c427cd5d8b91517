import { expect } from 'chai';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { evaluateFile } from '../../eval/eval-run.js';
import type { ReplayCall } from '../../src/replay/replay-call.js';
import { replayInputs } from '../../src/replay/replay-inputs.js';
import type { RunReport } from '../../src/replay/run-report.js';
import { otlpLines, shuffled, transcriptToSpans } from '../replay/otlp-test-helpers.js';

/**
 * The same run, recorded by another harness, gets the same verdict. Every run of eval/corpus
 * (540 real runs, every agent kind) is written again as loopguard's JSONL with one recording
 * convention changed — results as an MCP text part, errors as an MCP `isError` result or as the
 * tool's answer text (tau-bench), tool names behind Claude Code's `mcp__<server>__` prefix, arguments as JSON text (OpenAI's
 * `function.arguments`), JSON text results as objects, indented or as MCP structured content,
 * object results as text, the shell as Claude Code's or Codex's, its output in mini-swe-agent's
 * or OpenHands' envelope, a coding agent's steps in SWE-agent's or Claude Code's tools, a `think`
 * call or a `TodoWrite` before every call, the whole run as OTLP spans — and replayed: where it stops (reason and round) must not move. A
 * detector that reads one convention and not another fails a user whose harness records the
 * other. Found this way: a browser tool's MCP `isError` result, or its failure as text, was read
 * as the page it printed or as a line about the action (result-fingerprint.ts, page-state.ts),
 * a silent command in mini-swe-agent's or OpenHands' envelope was an answer seen again rather
 * than an empty one (world-state/shell-answer-envelope.ts), and a `think` or `TodoWrite` call counted as a
 * possible write and as a call that ran, so a loop that thinks before each repeat went on (run-guard.ts,
 * checks/round-verdict.ts).
 */
const corpus = join(import.meta.dirname, '..', '..', 'eval', 'corpus');
const manifest = JSON.parse(readFileSync(join(corpus, 'manifest.json'), 'utf8')) as Array<{ file: string }>;

interface Line {
  run: string;
  round: number;
  tool: string;
  args?: unknown;
  callId?: string;
  ts?: number;
  durationMs?: number;
  compactedBefore?: true;
  result?: unknown;
  error?: unknown;
}

function parsedJson(text: string): object | undefined {
  try {
    const value: unknown = JSON.parse(text);
    return value !== null && typeof value === 'object' ? value : undefined;
  } catch {
    return undefined;
  }
}

function errorText(error: unknown): string {
  if (typeof error === 'string') return error;
  const message = (error as { message?: unknown } | null)?.message;
  return typeof message === 'string' ? message : JSON.stringify(error);
}

const CONVENTIONS: Record<string, (line: Line) => Line> = {
  'results as an MCP text part': (line) =>
    line.result === undefined ? line : { ...line, result: { content: [{ type: 'text', text: typeof line.result === 'string' ? line.result : JSON.stringify(line.result) }] } },
  'errors as an MCP isError result': ({ error, ...line }) =>
    error === undefined ? { ...line, error } : { ...line, result: { isError: true, content: [{ type: 'text', text: errorText(error) }] } },
  // tau-bench's tools return a failure as their answer ("Error: user not found"). Not a shell's: a shell's
  // output is the program's, and "Error: …" from a program is read as its output (result-fingerprint.ts).
  "errors as the tool's answer, 'Error: …' (tau-bench), but a shell's": ({ error, ...line }) => {
    if (error === undefined || line.tool === 'bash') return { ...line, error };
    const text = errorText(error);
    return { ...line, result: /^error/i.test(text) ? text : `Error: ${text}` };
  },
  "tool names behind Claude Code's mcp__<server>__ prefix": (line) => ({ ...line, tool: `mcp__recorded__${line.tool}` }),
  'arguments as JSON text': (line) => (line.args === undefined || typeof line.args === 'string' ? line : { ...line, args: JSON.stringify(line.args) }),
  'JSON text results as objects': (line) => {
    const value = typeof line.result === 'string' ? parsedJson(line.result) : undefined;
    return value === undefined ? line : { ...line, result: value };
  },
  'JSON text results indented': (line) => {
    const value = typeof line.result === 'string' ? parsedJson(line.result) : undefined;
    return value === undefined ? line : { ...line, result: JSON.stringify(value, null, 2) };
  },
  'object results as JSON text': (line) => (line.result === undefined || typeof line.result === 'string' ? line : { ...line, result: JSON.stringify(line.result) }),
  'JSON results as MCP structured content beside the text': (line) => {
    const value = typeof line.result === 'string' ? parsedJson(line.result) : undefined;
    return value === undefined || Array.isArray(value) ? line : { ...line, result: { content: [{ type: 'text', text: line.result }], structuredContent: value } };
  },
  // The shell runs (InterCode-Bash and -CTF record `bash {command}` and the bare output), as other harnesses record them.
  "a shell as Claude Code's Bash, a new description every call": (line) =>
    shellCommandOf(line) === undefined ? line : { ...line, tool: 'Bash', args: { command: shellCommandOf(line), description: `Step ${line.round}: run the next command` } },
  "a shell as Codex's shell, the script in an argv list": (line) =>
    shellCommandOf(line) === undefined ? line : { ...line, tool: 'shell', args: { command: ['bash', '-lc', shellCommandOf(line)], workdir: '/testbed' } },
  "mini-swe-agent's steps in SWE-agent 1.x's tools (str_replace_editor view / create, bash)": asSweAgent,
  "mini-swe-agent's steps in Claude Code's tools (Read, Write, Grep, Bash)": asClaudeCode,
  "shell output in mini-swe-agent's template": (line) =>
    line.tool !== 'bash' || typeof line.result !== 'string' ? line : { ...line, result: `<returncode>0</returncode>\n<output>\n${line.result}</output>` },
  // Codex's `shell` answers a command in one of two shapes (codex-rs format_exec_output_for_model*):
  // text with its exit code and wall time, or JSON with both as metadata. A grep finding nothing is
  // exit code 1 and no output there, and was read as one answer seen again for every such grep.
  "shell output in Codex's JSON answer, with its exit code": (line) => codexShell(line, (output, exit, seconds) => JSON.stringify({ output, metadata: { exit_code: exit, duration_seconds: seconds } })),
  "shell output in Codex's text answer, with its exit code": (line) => codexShell(line, (output, exit, seconds) => `Exit code: ${exit}\nWall time: ${seconds} seconds\nOutput:\n${output}`),
  "shell output in OpenHands' trailer": (line) =>
    line.tool !== 'bash' || typeof line.result !== 'string'
      ? line
      : { ...line, tool: 'execute_bash', result: `${line.result}\n[The command completed with exit code 0.]\n[Current working directory: /testbed]\n[Python interpreter: /usr/bin/python]\n[Command finished with exit code 0]` },
};

/**
 * mini-swe-agent's runs (one `bash` tool, `{returncode, output}`) as SWE-agent 1.x and Claude Code
 * would have recorded the same steps: a numbered window of a file (`nl -ba f | sed -n 'a,bp'`) or a
 * whole file (`cat f`) as the editor's view or Claude Code's Read, a heredoc into a file as its
 * create or Write, a plain recursive grep as Claude Code's Grep, the rest as the harness's shell
 * with its notice for no output (SWE-agent) or a failing exit code as an error (Claude Code).
 */
/** A mini-swe-agent step: its command, exit code and output, and the line without its result (`call`). */
type MiniSweAgentStep = { command: string; returncode: number; output: string; call: Omit<Line, 'result'> };
function miniSweAgentStepOf(line: Line): MiniSweAgentStep | undefined {
  const command = shellCommandOf(line);
  const { result, ...call } = line;
  const answer = result as { returncode?: unknown; output?: unknown } | undefined;
  if (command === undefined || typeof answer !== 'object' || answer === null || typeof answer.returncode !== 'number' || typeof answer.output !== 'string') return undefined;
  return { command: command.trim(), returncode: answer.returncode, output: answer.output, call };
}
const WINDOW = /^nl -ba (\S+) \| sed -n '(\d+),(\d+)p'$/;
const WHOLE_FILE = /^cat (\S+)$/;
const HEREDOC = /^cat <<'?EOF'? > (\S+)\n([\s\S]*)\nEOF$/;
const RECURSIVE_GREP = /^grep -rn "([^"]+)" (\S+)$/;

function asSweAgent(line: Line): Line {
  const step = miniSweAgentStepOf(line);
  if (step === undefined) return line;
  const { command, returncode, output, call } = step;
  const window = WINDOW.exec(command);
  const whole = WHOLE_FILE.exec(command);
  const path = `/testbed/${window?.[1] ?? whole?.[1] ?? ''}`;
  if (window !== null || whole !== null) {
    const args = window === null ? { command: 'view', path } : { command: 'view', path, view_range: [Number(window[2]), Number(window[3])] };
    return returncode === 0
      ? { ...call, tool: 'str_replace_editor', args, result: `Here's the result of running \`cat -n\` on ${path}:\n${output}` }
      : { ...call, tool: 'str_replace_editor', args, error: { type: 'tool_error', message: `The path ${path} does not exist.` } };
  }
  const heredoc = HEREDOC.exec(command);
  if (heredoc !== null) return { ...call, tool: 'str_replace_editor', args: { command: 'create', path: `/testbed/${heredoc[1]}`, file_text: heredoc[2] }, result: `File created successfully at: /testbed/${heredoc[1]}` };
  return { ...call, result: output === '' ? 'Your command ran successfully and did not produce any output.' : output };
}

function asClaudeCode(line: Line): Line {
  const step = miniSweAgentStepOf(line);
  if (step === undefined) return line;
  const { command, returncode, output, call } = step;
  const window = WINDOW.exec(command);
  if (window !== null) {
    const [from, to] = [Number(window[2]), Number(window[3])];
    return { ...call, tool: 'Read', args: { file_path: `/testbed/${window[1]}`, offset: from, limit: to - from + 1 }, result: output.replace(/^ *(\d+)\t/gm, (_match, number: string) => `${number.padStart(6)}→`) };
  }
  const whole = WHOLE_FILE.exec(command);
  if (whole !== null) return { ...call, tool: 'Read', args: { file_path: `/testbed/${whole[1]}` }, result: output.split('\n').map((text, index) => `${String(index + 1).padStart(6)}→${text}`).join('\n') };
  const heredoc = HEREDOC.exec(command);
  if (heredoc !== null) return { ...call, tool: 'Write', args: { file_path: `/testbed/${heredoc[1]}`, content: heredoc[2] }, result: `File created successfully at: /testbed/${heredoc[1]}` };
  const grep = RECURSIVE_GREP.exec(command);
  if (grep !== null) return { ...call, tool: 'Grep', args: { pattern: grep[1], path: `/testbed/${grep[2]}`, output_mode: 'content', '-n': true }, result: output === '' ? 'No matches found' : output };
  const bash = { ...call, tool: 'Bash', args: { command, description: `Run step ${line.round}` } };
  return returncode === 0
    ? { ...bash, result: output === '' ? 'Tool ran without output or errors' : output }
    : { ...bash, error: { type: 'tool_error', message: output === '' ? `Error: Exit code ${returncode}` : `Error: Exit code ${returncode}\n${output}` } };
}

/** A shell call (a bare output, or mini-swe-agent's `{returncode, output}`) as Codex's `shell` tool records it. */
function codexShell(line: Line, answer: (output: string, exit: number, seconds: number) => string): Line {
  const command = shellCommandOf(line);
  if (command === undefined) return line;
  const step = miniSweAgentStepOf(line);
  const output = step?.output ?? (typeof line.result === 'string' ? line.result : undefined);
  const call = { ...line, tool: 'shell', args: { command: ['bash', '-lc', command] } };
  if (output === undefined) return call;
  return { ...call, result: answer(output, step?.returncode ?? 0, Number((0.1 + (line.round % 7) / 10).toFixed(1))) };
}

function shellCommandOf(line: Line): string | undefined {
  const command = line.tool === 'bash' ? (line.args as { command?: unknown } | undefined)?.command : undefined;
  return typeof command === 'string' ? command : undefined;
}

function lineOf(call: ReplayCall): Line {
  const line: Line = { run: call.run, round: call.round, tool: call.tool, args: call.args };
  if (call.callId !== undefined) line.callId = call.callId;
  if (call.startTime !== undefined) line.ts = call.startTime;
  if (call.durationMs !== undefined) line.durationMs = call.durationMs;
  if (call.compactedBefore === true) line.compactedBefore = true;
  const outcome = call.outcome as { result?: unknown; error?: unknown };
  if (outcome.error !== undefined) line.error = outcome.error;
  else line.result = outcome.result;
  return line;
}

function verdictOf(report: RunReport): string {
  return report.stop === null ? 'finished' : `${report.stop.reason} after round ${report.stop.round}`;
}

describe('eval: the same recorded run, in another harness\'s recording conventions, gets the same verdict', () => {
  let directory: string;
  const recorded = new Map<string, { lines: Line[]; verdict: string }>();

  before(async function () {
    this.timeout(120_000);
    directory = mkdtempSync(join(tmpdir(), 'loopguard-invariance-'));
    for (const { file } of manifest) {
      const calls: ReplayCall[] = [];
      await replayInputs({ files: [join(corpus, file)], engineOptions: {}, onRun: () => {}, onProblem: (problem) => { throw problem; }, onCall: (call) => calls.push(call) });
      const runs = await evaluateFile(join(corpus, file), {});
      expect(runs, file).to.have.length(1);
      recorded.set(file, { lines: calls.map(lineOf), verdict: verdictOf(runs[0]!.report) });
    }
  });

  after(() => rmSync(directory, { recursive: true, force: true }));

  it('reads every run back unchanged when nothing is changed (the check itself)', async function () {
    this.timeout(120_000);
    expect(recorded.size).to.equal(manifest.length);
    const moved = await verdictsMoved((line) => line, 'unchanged');
    expect(moved).to.deep.equal([]);
  });

  for (const [convention, change] of Object.entries(CONVENTIONS)) {
    it(convention, async function () {
      this.timeout(120_000);
      expect(await verdictsMoved(change, convention)).to.deep.equal([]);
    });
  }

  it("a thought before every call, in its round (tau-bench's and OpenHands' think tool)", async function () {
    this.timeout(120_000);
    const thinking = (lines: Line[]) =>
      lines.flatMap((line, index) => [JSON.stringify({ run: line.run, round: line.round, tool: 'think', args: { thought: `Step ${index}: weigh what came back, then act.` }, result: '' }), JSON.stringify(line)]);
    expect(await verdictsMoved((line) => line, 'think', thinking)).to.deep.equal([]);
  });

  it("a plan update before every call, in its round (Claude Code's TodoWrite)", async function () {
    this.timeout(120_000);
    const planning = (lines: Line[]) =>
      lines.flatMap((line, index) => [
        JSON.stringify({ run: line.run, round: line.round, tool: 'TodoWrite', args: { todos: [{ content: 'Finish the task', status: 'in_progress', activeForm: `Working on step ${index}` }] }, result: 'Todos have been modified successfully.' }),
        JSON.stringify(line),
      ]);
    expect(await verdictsMoved((line) => line, 'todo', planning)).to.deep.equal([]);
  });

  // The same runs as the spans an instrumented agent exports (OTLP JSON, written out of order as
  // exporters do): one run span, a model-call span per round, a tool span per call with its raw
  // arguments and result. What `loopguard replay` and `loopguard serve` read from a Python agent.
  for (const [convention, flavor] of [['as OpenTelemetry GenAI spans (execute_tool)', 'genai'], ["as the Vercel AI SDK's spans (ai.toolCall)", 'vercel']] as const) {
    it(convention, async function () {
      this.timeout(120_000);
      // Spans need a clock to tell rounds apart: a call every 20 s where the recording has none.
      const timed = (lines: Line[]) => lines.map((line, index) => ({ ...line, ts: line.ts ?? 1_765_000_000_000 + index * 20_000, error: line.error === undefined ? undefined : { type: 'tool_error', message: errorText(line.error) } }));
      expect(await verdictsMoved((line) => line, convention, (lines) => otlpLines(shuffled(transcriptToSpans(timed(lines), flavor)), 16))).to.deep.equal([]);
    });
  }

  async function verdictsMoved(change: (line: Line) => Line, name: string, write = (lines: Line[]) => lines.map((line) => JSON.stringify(line))): Promise<string[]> {
    const moved: string[] = [];
    const file = join(directory, `${name.replace(/\W+/g, '-')}.jsonl`);
    for (const [source, { lines, verdict }] of recorded) {
      writeFileSync(file, `${write(lines.map(change)).join('\n')}\n`);
      const runs = await evaluateFile(file, {});
      const now = runs.length === 1 ? verdictOf(runs[0]!.report) : `${runs.length} runs`;
      if (now !== verdict) moved.push(`${source}: ${verdict} → ${now}`);
    }
    return moved;
  }
});
