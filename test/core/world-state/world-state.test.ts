import { expect } from 'chai';
import { LoopGuard } from '../../../src/core/loop-guard.js';
import type { RefuseDecision, StopDecision } from '../../../src/core/types.js';
import { kinds, newRun, playRounds, type ScriptedCall } from '../play.js';

const bash = (command: string, output: string, returncode = 0): ScriptedCall => ({
  tool: 'bash',
  args: { command },
  outcome: { result: { returncode, output } },
});

describe('world state: reads, writes and unknown effects (general profile)', () => {
  it('is the default profile', () => {
    expect(new LoopGuard().options.profile).to.equal('general');
    expect(newRun().profile).to.equal('general');
  });

  it('refuses an identical read with nothing written since, and lets it run again after a write', () => {
    const run = newRun({ tools: { get_file: { readOnly: true }, save_file: { writes: true } } });
    const log = playRounds(run, [
      [{ tool: 'get_file', args: { path: 'a.py' }, callId: 'c1', outcome: { result: 'v1' } }],
      [{ tool: 'get_file', args: { path: 'a.py' } }],
      [{ tool: 'save_file', args: { path: 'a.py', text: 'v2' }, outcome: { result: 'saved' } }],
      [{ tool: 'get_file', args: { path: 'a.py' }, outcome: { result: 'v2' } }],
    ]);
    expect(log[1]!.decisions[0]).to.include({ action: 'refuse', reason: 'repeat.run_wide', previousCallId: 'c1' });
    expect(log[3]!.decisions[0]).to.include({ action: 'allow', kind: 'reread' });
  });

  it('lets a call of unknown effect run again until two identical outcomes in a row confirm that nothing changes', () => {
    const run = newRun();
    const status = (state: string): ScriptedCall => ({ tool: 'check_deploy', args: { id: 7 }, outcome: { result: { state } } });
    // A settled state: a moving one (`running`) is a poll (world-state/says-in-progress.ts).
    const log = playRounds(run, [[status('failed')], [status('failed')], [status('failed')]]);
    expect(kinds(log.flatMap((round) => round.decisions))).to.deep.equal(['allow:new', 'allow:repeat', 'refuse:repeat.unchanged']);
    const refusal = log[2]!.decisions[0] as RefuseDecision;
    expect(refusal.message).to.include('returned the same result each time').and.include('change something first');
  });

  it('never confirms a call whose outcome changes: a status that moves keeps being allowed', () => {
    const run = newRun();
    const states = ['queued', 'running', 'running-50', 'running-90', 'done'];
    const log = playRounds(run, states.map((state) => [{ tool: 'check_deploy', args: { id: 7 }, outcome: { result: { state } } }]));
    expect(log.flatMap((round) => round.decisions).every((decision) => decision.action === 'allow')).to.equal(true);
  });

  it('re-runs a script after an edit even though the call is identical (issue 9: reproduce_issue.py)', () => {
    const run = newRun();
    const log = playRounds(run, [
      [bash('python reproduce_issue.py', 'BUG CONFIRMED')],
      [bash("sed -i 's/a/b/' src/module.py", '')],
      [bash('python reproduce_issue.py', 'FIXED')],
      [bash('python reproduce_issue.py', 'FIXED')],
    ]);
    expect(kinds(log.flatMap((round) => round.decisions))).to.deep.equal(['allow:new', 'allow:new', 'allow:repeat', 'allow:repeat']);
  });

  it('classifies shell commands: an identical grep with nothing written since is refused, after a script run it may run again', () => {
    const run = newRun();
    const log = playRounds(run, [
      [bash('grep -rn "def parse" src/', 'src/a.py:3:def parse')],
      [bash('grep -rn "def parse" src/', 'src/a.py:3:def parse')],
      [bash('python -m pytest -q', '1 passed')],
      [bash('grep -rn "def parse" src/', 'src/a.py:3:def parse')],
    ]);
    expect(kinds(log.flatMap((round) => round.decisions))).to.deep.equal(['allow:new', 'refuse:repeat.run_wide', 'allow:new', 'allow:reread']);
  });

  it('takes MCP annotations as the effect when no policy says otherwise', () => {
    const run = newRun({ tools: { search_issues: { annotations: { readOnlyHint: true } }, create_issue: { annotations: { destructiveHint: false, readOnlyHint: false } } } });
    const log = playRounds(run, [
      [{ tool: 'search_issues', args: { q: 'x' }, outcome: { result: [{ id: 1 }] } }],
      [{ tool: 'search_issues', args: { q: 'x' } }],
      [{ tool: 'create_issue', args: { title: 't' }, outcome: { result: { id: 2 } } }],
      [{ tool: 'search_issues', args: { q: 'x' }, outcome: { result: [{ id: 1 }, { id: 2 }] } }],
    ]);
    expect(kinds(log.flatMap((round) => round.decisions))).to.deep.equal(['allow:new', 'refuse:repeat.run_wide', 'allow:new', 'allow:reread']);
  });

  it('the policy wins over annotations and the well-known tool table', () => {
    const run = newRun({ tools: { Read: { writes: true }, lookup: { readOnly: true, annotations: { readOnlyHint: false } } } });
    const log = playRounds(run, [
      [{ tool: 'Read', args: { file_path: '/a' }, outcome: { result: 'x' } }],
      [{ tool: 'Read', args: { file_path: '/a' }, outcome: { result: 'x' } }],
      [{ tool: 'lookup', args: { k: 1 }, outcome: { result: 'v' } }],
      [{ tool: 'lookup', args: { k: 1 } }],
    ]);
    expect(kinds(log.flatMap((round) => round.decisions))).to.deep.equal(['allow:new', 'allow:repeat', 'allow:new', 'refuse:repeat.run_wide']);
  });

  it('well-known read tools (Claude Code Read) are reads in the general profile only', () => {
    const general = playRounds(newRun(), [
      [{ tool: 'Read', args: { file_path: '/a' }, outcome: { result: 'x' } }],
      [{ tool: 'Read', args: { file_path: '/a' } }],
    ]);
    expect(general[1]!.decisions[0]).to.include({ action: 'refuse', reason: 'repeat.run_wide' });
    const chat = playRounds(newRun({ profile: 'chat' }), [
      [{ tool: 'Read', args: { file_path: '/a' }, outcome: { result: 'x' } }],
      [{ tool: 'Read', args: { file_path: '/a' }, outcome: { result: 'x' } }],
    ]);
    expect(chat[1]!.decisions[0]).to.include({ action: 'allow' });
  });

  it("Cursor's and VS Code's coding tools are known: search_replace writes, run_in_terminal is a shell, get_terminal_output polls, file_editor views and edits", () => {
    // Cursor: an edit with search_replace, then the same failing tests again, eight times. Unknown,
    // the edit changed nothing the run could see and the re-runs were stale.
    const cursor = playRounds(
      newRun(),
      Array.from({ length: 8 }, (_, k) => [
        [{ tool: 'search_replace', args: { file_path: 'src/parse.ts', old_string: `return ${k};`, new_string: `return ${k + 1};` }, outcome: { result: 'The file src/parse.ts has been updated.' } }],
        [{ tool: 'run_terminal_cmd', args: { command: 'npx vitest run src/parse.test.ts', is_background: false }, outcome: { result: 'FAIL src/parse.test.ts > parses a date\nTests  1 failed (1)' } }],
      ]).flat() as ScriptedCall[][],
    );
    expect(cursor.every((round) => round.decisions[0]!.action === 'allow' && round.after.action === 'continue')).to.equal(true);
    // VS Code: a shell line that sleeps then looks is a poll; the terminal's output read again is a poll.
    const vscode = playRounds(newRun(), [
      ...Array.from({ length: 5 }, (_, k) => [{ tool: 'run_in_terminal', args: { command: 'sleep 10 && curl -s localhost:3000/health', explanation: `check ${k}`, isBackground: false }, at: k * 11_000, outcome: { result: 'curl: (7) Failed to connect to localhost port 3000' } }]),
      ...Array.from({ length: 4 }, (_, k) => [{ tool: 'get_terminal_output', args: { id: 'term-1' }, at: 60_000 + k * 5_000, outcome: { result: 'webpack compiling...' } }]),
    ]);
    expect(kinds(vscode.flatMap((round) => round.decisions))).to.deep.equal(['allow:new', ...Array(4).fill('allow:poll'), 'allow:new', ...Array(3).fill('allow:poll')]);
    // OpenHands' agent SDK editor: a view is a read (refused again with nothing written), str_replace a write.
    const view: ScriptedCall = { tool: 'file_editor', args: { command: 'view', path: '/workspace/app.py' }, outcome: { result: '     1\tprint(1)' } };
    const editor = playRounds(newRun(), [[view], [view], [{ tool: 'file_editor', args: { command: 'str_replace', path: '/workspace/app.py', old_str: 'print(1)', new_str: 'print(2)' }, outcome: { result: 'The file /workspace/app.py has been edited.' } }], [{ ...view, outcome: { result: '     1\tprint(2)' } }]]);
    expect(kinds(editor.flatMap((round) => round.decisions))).to.deep.equal(['allow:new', 'refuse:repeat.run_wide', 'allow:new', 'allow:reread']);
  });

  it('a code interpreter keeps its state: different cells printing the same shape are steps, the same cell failing again is a repeat', () => {
    const steps = ['df = df.drop_duplicates()', "df['date'] = pd.to_datetime(df['date'])", "df['region'] = df['region'].str.strip()", "df = df.fillna({'units': 0})", "df['units'] = df['units'].astype(int)", 'df = df[df.units >= 0]'];
    // In any case and spelling: `Python`, CrewAI's `Code Interpreter`, LangChain's `Python_REPL`.
    for (const tool of ['execute_code', 'Python', 'Code Interpreter', 'Python_REPL', 'python-repl']) {
      const cell = (code: string, result: string): ScriptedCall[] => [{ tool, args: { code }, outcome: { result } }];
      const cleaning = playRounds(newRun(), [cell("df = pd.read_csv('sales.csv')\nprint(df.shape)", '(1200, 8)'), ...steps.map((step) => cell(`${step}\nprint(df.shape)`, '(1200, 8)'))]);
      expect(cleaning.map((round) => round.after.action), tool).to.deep.equal(Array(7).fill('continue'));
      expect(kinds(cleaning.flatMap((round) => round.decisions)).every((kind) => kind.startsWith('allow')), tool).to.equal(true);
    }
    // The same cell failing the same way, nothing run in between: refused at the third (a confirmed repeat).
    for (const tool of ['python', 'run_code', 'python_interpreter', 'python_repl_ast']) {
      const failing = playRounds(newRun(), [1, 2, 3].map(() => [{ tool, args: { code: "df.groupby('Region').units.sum()" }, outcome: { result: "KeyError: 'Region'" } }]));
      expect(kinds(failing.flatMap((round) => round.decisions)), tool).to.deep.equal(['allow:new', 'allow:repeat', 'refuse:repeat.unchanged']);
    }
  });

  it("Claude Code's BashOutput polls a background shell: an identical poll is not a read repeat", () => {
    const polls = playRounds(newRun(), [
      [{ tool: 'BashOutput', args: { bash_id: 'b1' }, outcome: { result: 'compiling…' } }],
      [{ tool: 'BashOutput', args: { bash_id: 'b1' }, outcome: { result: 'compiling… 40%' } }],
      [{ tool: 'BashOutput', args: { bash_id: 'b1' }, outcome: { result: 'done' } }],
    ]);
    expect(polls.flatMap((round) => round.decisions).every((decision) => decision.action === 'allow')).to.equal(true);
  });

  it("Claude Code's Bash / Task description is a label, not identity, in every profile (live and in replay)", () => {
    for (const profile of ['general', 'researcher', 'chat'] as const) {
      const guard = new LoopGuard({ profile });
      expect(guard.argsHash('Bash', { command: 'ls', description: 'List files' }), profile).to.equal(guard.argsHash('Bash', { command: 'ls', description: 'Show the folder' }));
      expect(guard.argsHash('Task', { prompt: 'p', description: 'a' }), profile).to.equal(guard.argsHash('Task', { prompt: 'p', description: 'b' }));
      expect(guard.argsHash('Bash', { command: 'ls' }), profile).not.to.equal(guard.argsHash('Bash', { command: 'ls -a' }));
    }
    // Only Claude Code's names: another agent's `description` argument may be what the call does.
    const other = new LoopGuard();
    expect(other.argsHash('create_ticket', { description: 'a' })).not.to.equal(other.argsHash('create_ticket', { description: 'b' }));
  });

  it('never refuses a terminal tool called twice by its protocol (SWE-agent submit), as a tool or as a shell line', () => {
    const asTool = playRounds(newRun(), [
      [{ tool: 'submit', args: {}, outcome: { result: 'Review checklist: ...' } }],
      [{ tool: 'submit', args: {}, outcome: { result: 'Review checklist: ...' } }],
      [{ tool: 'submit', args: {}, outcome: { result: 'Review checklist: ...' } }],
    ]);
    expect(kinds(asTool.flatMap((round) => round.decisions))).to.deep.equal(['allow:terminal', 'allow:terminal', 'allow:terminal']);
    const asShell = playRounds(newRun(), [[bash('submit', 'checklist')], [bash('submit', 'checklist')], [bash('submit', 'checklist')]]);
    expect(asShell.flatMap((round) => round.decisions).every((decision) => decision.action === 'allow')).to.equal(true);
    const declared = playRounds(newRun({ profile: 'researcher', tools: { done: { terminal: true } } }), [[{ tool: 'done', outcome: { result: 'ok' } }], [{ tool: 'done', outcome: { result: 'ok' } }]]);
    expect(declared[1]!.decisions[0]).to.include({ action: 'allow', kind: 'terminal' });
  });

  it('silent successes of writes are neither new nor seen: five in a row do not stop a run mid-fix', () => {
    const run = newRun();
    const writes = ['cp a.py b.py', 'mkdir -p out', "cat > fix.patch <<'EOF'\n--- a\n+++ b\nEOF", 'touch x', 'mv b.py c.py', 'rm -f tmp.txt', 'git add -A'];
    const log = playRounds(run, writes.map((command) => [bash(command, '')]));
    expect(log.every((round) => round.after.action === 'continue')).to.equal(true);
    expect(run.partial().staleRoundStreak).to.equal(0);
  });

  it('a write answering the same acknowledgement as another write is neutral; the same write repeating its answer is seen', () => {
    const run = newRun({ tools: { create_file: { writes: true } } });
    const ack = { result: 'File created successfully.' };
    const log = playRounds(run, [
      [{ tool: 'create_file', args: { path: 'a' }, outcome: ack }],
      [{ tool: 'create_file', args: { path: 'b' }, outcome: ack }],
      [{ tool: 'create_file', args: { path: 'b' }, outcome: ack }],
    ]);
    expect(log.map((round) => round.after.action)).to.deep.equal(['continue', 'continue', 'continue']);
    expect(run.partial().tools.create_file).to.include({ newFacts: 1, seen: 1 });
  });

  it('the same call returning the same empty result again is seen (alternating empty greps stop)', () => {
    const run = newRun();
    const rounds: ScriptedCall[][] = [];
    for (let i = 0; i < 12; i++) rounds.push([bash(i % 2 === 0 ? 'grep -rn foo src' : 'grep -rn bar src', ''), bash('python check.py', 'same')]);
    const log = playRounds(run, rounds);
    // Round 3 repeats round 1 after a script run: allowed, but its empty answer is now seen, and
    // the script's third identical answer is refused; from round 4 on every call is refused,
    // and the third refused round in a row (general profile) stops the run.
    expect(kinds(log[2]!.decisions)).to.deep.equal(['allow:reread', 'refuse:repeat.unchanged']);
    for (const round of log.slice(3)) expect(round.decisions.every((decision) => decision.action === 'refuse')).to.equal(true);
    const stop = log.at(-1)!.after as StopDecision;
    expect(stop).to.include({ action: 'stop', reason: 'refused_rounds', round: 6 });
  });

  it('new queries finding nothing are exploration, not a loop (document 000)', () => {
    const run = newRun();
    const log = playRounds(run, Array.from({ length: 10 }, (_, month) => [{ tool: 'search_orders', args: { month }, outcome: { result: { status: 'ok', results: [] } } }]));
    expect(log.every((round) => round.after.action === 'continue')).to.equal(true);
  });
});

describe('world state: deterministic failures are not retries', () => {
  const notFound = { error: { status: 404, type: 'NotFound', message: 'no such page' } };
  const unavailable = { error: { status: 503, type: 'ServiceUnavailable', message: '503 Service Unavailable' } };

  it('refuses the third identical call that failed twice with the identical deterministic error', () => {
    const run = newRun();
    const log = playRounds(run, [
      [{ tool: 'fetch_page', args: { url: '/x' }, outcome: notFound }],
      [{ tool: 'fetch_page', args: { url: '/x' }, outcome: notFound }],
      [{ tool: 'fetch_page', args: { url: '/x' } }],
    ]);
    expect(kinds(log.flatMap((round) => round.decisions))).to.deep.equal(['allow:new', 'allow:retry', 'refuse:repeat.same_error']);
    expect((log[2]!.decisions[0] as RefuseDecision).message).to.include('failed 2 times in a row with the same error');
  });

  it('keeps the retry budget for transient failures: 503 four times, then success (document 003)', () => {
    const run = newRun();
    const log = playRounds(run, [
      ...Array.from({ length: 4 }, () => [{ tool: 'rpc', args: { id: 1 }, outcome: unavailable }]),
      [{ tool: 'rpc', args: { id: 1 }, outcome: { result: { ok: 'yes' } } }],
    ]);
    expect(log.flatMap((round) => round.decisions).every((decision) => decision.action === 'allow')).to.equal(true);
  });

  it('allows the same failing call again once something was written in between', () => {
    const run = newRun({ tools: { write_config: { writes: true } } });
    const log = playRounds(run, [
      [{ tool: 'deploy', args: {}, outcome: { error: { type: 'ValidationError', message: 'missing key' } } }],
      [{ tool: 'deploy', args: {}, outcome: { error: { type: 'ValidationError', message: 'missing key' } } }],
      [{ tool: 'write_config', args: { key: 'v' }, outcome: { result: 'ok' } }],
      [{ tool: 'deploy', args: {}, outcome: { result: 'deployed' } }],
    ]);
    expect(log[3]!.decisions[0]).to.include({ action: 'allow', kind: 'retry' });
  });

  it('a declared retry budget covers deterministic failures too (document 003, condition 3)', () => {
    const run = newRun({ tools: { flaky: { retries: 4 } } });
    const log = playRounds(run, Array.from({ length: 4 }, () => [{ tool: 'flaky', args: { id: 1 }, outcome: notFound }]));
    expect(log.flatMap((round) => round.decisions).every((decision) => decision.action === 'allow')).to.equal(true);
  });
});

describe('world state: escalation ladder for generic tools', () => {
  it('disables a shell command family, not the shell tool, and never the only tool the run uses', () => {
    const run = newRun({ staleRounds: 50 });
    // Reworded greps that keep finding the same line, after one listing: a grep loop inside `bash`.
    const rounds: ScriptedCall[][] = [[bash('ls src', 'a.py b.py')]];
    for (let i = 0; i < 4; i++) rounds.push([bash(`grep -rn "variant ${i}" .`, 'a.py:1:x')]);
    const log = playRounds(run, rounds);
    const lastContinue = log.at(-1)!.after;
    expect(lastContinue.action).to.equal('continue');
    if (lastContinue.action !== 'continue') return;
    // The tool stays offered (adapters drop whole tools from the list); the nudge names the family.
    expect(lastContinue.disabledTools).to.deep.equal([]);
    expect(lastContinue.nudge).to.include('bash(grep)');
    run.beginRound();
    const next = run.startCall({ tool: 'bash', args: { command: 'grep -rn "variant 9" .' } });
    expect(next.decision).to.include({ action: 'refuse', reason: 'tool.disabled' });
    const other = run.shouldRefuse({ tool: 'bash', args: { command: 'ls -la src' } });
    expect(other.action).to.equal('allow');
  });

  it('holds back from disabling a plain tool when it is the only one the run has used', () => {
    const run = newRun({ profile: 'researcher', staleRounds: 50 });
    const log = playRounds(run, Array.from({ length: 6 }, (_, i) => [{ tool: 'search', args: { q: `reworded ${i}` }, outcome: { result: ['doc-1', 'doc-2'] } }]));
    for (const round of log) if (round.after.action === 'continue') expect(round.after.disabledTools).to.deep.equal([]);
  });
});

describe('budgets are backstops', () => {
  it('general budgets are far above healthy long runs; a budget stop does not claim nothing new was learned', () => {
    const guard = new LoopGuard();
    expect(guard.options.maxToolCalls).to.be.at.least(1000);
    expect(guard.options.maxRounds).to.be.at.least(500);
    const run = newRun({ maxToolCalls: 3 });
    const log = playRounds(run, Array.from({ length: 4 }, (_, i) => [{ tool: 'search', args: { q: i }, outcome: { result: { hit: i } } }]));
    const stop = log.at(-1)!.after as StopDecision;
    expect(stop).to.include({ action: 'stop', reason: 'max_tool_calls' });
    expect(stop.message).to.include('budget of 3 tool calls').and.not.include('nothing new was being learned');
    expect(stop.message).to.include('The last new result came in round 3');
  });
});
