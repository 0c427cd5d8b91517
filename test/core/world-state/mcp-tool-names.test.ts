// Claude Code names an MCP server's tools `mcp__<server>__<tool>`. The well-known tool tables
// describe the tool, not the harness that connects it: the reference filesystem server's
// `read_text_file` reads under either name, Playwright MCP's `browser_wait_for` waits, and an
// MCP shell server's `run_command` runs a command line. Before, only the answer, browser and
// thought tables were matched by the tool's own name: a Claude Code user's page wait was
// refused from its third look, and a filesystem read loop was judged as a tool of unknown
// effect (caught only once its outcomes confirmed themselves). Goose names every extension's
// tool `<extension>__<tool>`: its built-in developer extension's `developer__shell` and
// `developer__text_editor` are a shell and Anthropic's text editor.
import { expect } from 'chai';
import { kinds, judgeEachCall, newRun, playRounds, type ScriptedCall } from '../play.js';

/** The same scripted run with every tool renamed as Claude Code names an MCP server's tool. */
function underClaudeCode(rounds: ScriptedCall[][], server: string): ScriptedCall[][] {
  return renamed(rounds, `mcp__${server}__`);
}

/** The same scripted run with every tool renamed as Goose names an extension's tool. */
function underGoose(rounds: ScriptedCall[][], extension: string): ScriptedCall[][] {
  return renamed(rounds, `${extension}__`);
}

function renamed(rounds: ScriptedCall[][], prefix: string): ScriptedCall[][] {
  return rounds.map((calls) => calls.map((call) => ({ ...call, tool: `${prefix}${call.tool}` })));
}

function decisionsOf(rounds: ScriptedCall[][]): string[] {
  return playRounds(newRun(), rounds).flatMap((round) => [...kinds(round.decisions), round.after.action]);
}

const ciPage = (status: string) => `### Page state\n- Page URL: https://ci.example/run/42\n- Page Snapshot:\n\`\`\`yaml\n- heading "Run 42" [level=1] [ref=e3]\n- text: "Status: ${status}" [ref=e4]\n\`\`\``;

describe("Claude Code's and Goose's MCP tool names are judged by the tool's own name (every well-known table)", () => {
  it('Playwright MCP browser_wait_for as mcp__playwright__browser_wait_for: a poll, never refused while the page may change', () => {
    const rounds: ScriptedCall[][] = Array.from({ length: 7 }, (_, i) => [{ tool: 'browser_wait_for', args: { time: 5 }, at: i * 6_000, outcome: { result: ciPage('in progress') } }]);
    const prefixed = decisionsOf(underClaudeCode(rounds, 'playwright'));
    expect(prefixed.filter((decision) => decision.startsWith('refuse'))).to.deep.equal([]);
    expect(prefixed.at(-1)).to.equal('continue');
    expect(prefixed).to.deep.equal(decisionsOf(rounds));
  });

  it('the filesystem server read_text_file as mcp__filesystem__read_text_file: a read, so reading the same file again with nothing written since is refused', () => {
    const read: ScriptedCall = { tool: 'read_text_file', args: { path: '/repo/src/app.ts' }, outcome: { result: { content: [{ type: 'text', text: 'export const port = 8080;\n' }] } } };
    const rounds: ScriptedCall[][] = Array.from({ length: 4 }, () => [read]);
    const prefixed = decisionsOf(underClaudeCode(rounds, 'filesystem'));
    // A tool of unknown effect ran again until its outcomes confirmed themselves ('allow:repeat').
    expect(prefixed.slice(0, 4)).to.deep.equal(['allow:new', 'continue', 'refuse:repeat.run_wide', 'continue']);
    expect(prefixed).to.deep.equal(decisionsOf(rounds));
  });

  it('an MCP shell server run_command as mcp__shell__run_command: its command line is classified (a read re-runs after a write)', () => {
    const status: ScriptedCall = { tool: 'run_command', args: { command: 'git status --short' }, outcome: { result: ' M src/app.ts\n' } };
    const edit: ScriptedCall = { tool: 'run_command', args: { command: "sed -i 's/8080/9090/' src/app.ts" }, outcome: { result: '' } };
    const rounds: ScriptedCall[][] = [[status], [status], [edit], [status], [status], [status]];
    const prefixed = decisionsOf(underClaudeCode(rounds, 'shell'));
    // The same status with nothing written since is refused; after the edit it is a re-read the
    // edit made worth asking. Only a classified command line tells the two apart.
    expect(prefixed).to.deep.equal(decisionsOf(rounds));
    expect(prefixed.slice(0, 8)).to.deep.equal(['allow:new', 'continue', 'refuse:repeat.run_wide', 'continue', 'allow:new', 'continue', 'allow:reread', 'continue']);
  });

  it("Goose's developer__shell: its command line is classified, as the shell tool's", () => {
    const status: ScriptedCall = { tool: 'shell', args: { command: 'git status --short' }, outcome: { result: ' M src/app.ts\n' } };
    const edit: ScriptedCall = { tool: 'shell', args: { command: "sed -i 's/8080/9090/' src/app.ts" }, outcome: { result: '' } };
    const rounds: ScriptedCall[][] = [[status], [status], [edit], [status], [status]];
    const goose = decisionsOf(underGoose(rounds, 'developer'));
    expect(goose).to.deep.equal(decisionsOf(rounds));
    expect(goose.slice(0, 8)).to.deep.equal(['allow:new', 'continue', 'refuse:repeat.run_wide', 'continue', 'allow:new', 'continue', 'allow:reread', 'continue']);
  });

  it("Goose's developer__text_editor: view reads, str_replace writes, as Anthropic's text editor", () => {
    const view: ScriptedCall = { tool: 'text_editor', args: { command: 'view', path: '/repo/src/app.ts' }, outcome: { result: 'export const port = 8080;\n' } };
    const replace: ScriptedCall = { tool: 'text_editor', args: { command: 'str_replace', path: '/repo/src/app.ts', old_str: '8080', new_str: '9090' }, outcome: { result: 'The file /repo/src/app.ts has been edited.' } };
    const viewAfter: ScriptedCall = { ...view, outcome: { result: 'export const port = 9090;\n' } };
    const rounds: ScriptedCall[][] = [[view], [view], [replace], [viewAfter], [viewAfter]];
    const goose = decisionsOf(underGoose(rounds, 'developer'));
    expect(goose).to.deep.equal(decisionsOf(rounds));
    expect(goose.slice(0, 8)).to.deep.equal(['allow:new', 'continue', 'refuse:repeat.run_wide', 'continue', 'allow:new', 'continue', 'allow:reread', 'continue']);
  });

  it('through an MCP aggregator (`mcp__<hub>__<server>__<tool>`): every table resolves the tool alike, as the raw tool', () => {
    // A hub server (MetaMCP, mcp-hub) names the tools it forwards `<server>__<tool>`, and Claude
    // Code prefixes its own. One table saw `filesystem__read_text_file` and another
    // `read_text_file`: the read was of unknown effect while the answer table knew its tools.
    const read: ScriptedCall = { tool: 'read_text_file', args: { path: '/repo/src/app.ts' }, outcome: { result: 'export const port = 8080;\n' } };
    const reads: ScriptedCall[][] = Array.from({ length: 4 }, () => [read]);
    expect(decisionsOf(renamed(reads, 'mcp__hub__filesystem__'))).to.deep.equal(decisionsOf(reads));
    const status: ScriptedCall = { tool: 'shell', args: { command: 'git status --short' }, outcome: { result: ' M src/app.ts\n' } };
    const edit: ScriptedCall = { tool: 'shell', args: { command: "sed -i 's/8080/9090/' src/app.ts" }, outcome: { result: '' } };
    const shell: ScriptedCall[][] = [[status], [status], [edit], [status], [status]];
    expect(decisionsOf(renamed(shell, 'mcp__hub__developer__'))).to.deep.equal(decisionsOf(shell));
    const waits: ScriptedCall[][] = Array.from({ length: 7 }, (_, i) => [{ tool: 'browser_wait_for', args: { time: 5 }, at: i * 6_000, outcome: { result: ciPage('in progress') } }]);
    expect(decisionsOf(renamed(waits, 'mcp__hub__playwright__'))).to.deep.equal(decisionsOf(waits));
  });

  it('a name that only looks prefixed stays itself (`__proto__`, `a__`, `__b`)', () => {
    for (const tool of ['__proto__', 'a__', '__b']) {
      const run = newRun();
      run.beginRound();
      const ticket = run.startCall({ tool, args: { q: 1 } });
      expect(ticket.decision.action, tool).to.equal('allow');
      expect(run.finishCall(ticket, { result: 'x' }), tool).to.equal('new');
    }
  });

  it('a read window of mcp__filesystem__read_text_file (`head`) is read as the raw tool\'s: lines already shown are seen', () => {
    const whole: ScriptedCall = { tool: 'read_text_file', args: { path: '/repo/notes.txt' }, outcome: { result: 'alpha\nbeta\ngamma\n' } };
    const head: ScriptedCall = { tool: 'read_text_file', args: { path: '/repo/notes.txt', head: 2 }, outcome: { result: 'alpha\nbeta\n' } };
    const raw = judgeEachCall([whole, head]).judged;
    expect(raw).to.deep.equal(['new', 'seen']);
    expect(judgeEachCall(underClaudeCode([[whole, head]], 'filesystem')[0]!).judged).to.deep.equal(raw);
  });

  it('Playwright MCP typing into a field, as mcp__playwright__browser_type, on a page that does not show the value: neutral, as the raw tool', () => {
    const form = '### Page state\n- Page URL: https://shop.example/checkout\n- Page Snapshot:\n```yaml\n- heading "Checkout" [ref=e2]\n- textbox "Name" [ref=e5]\n- textbox "Address" [ref=e6]\n```';
    const steps: ScriptedCall[] = [
      { tool: 'browser_navigate', args: { url: 'https://shop.example/checkout' }, outcome: { result: form } },
      { tool: 'browser_type', args: { element: 'Name', ref: 'e5', text: 'Ada Lovelace' }, outcome: { result: form } },
      { tool: 'browser_type', args: { element: 'Address', ref: 'e6', text: '12 St James Sq' }, outcome: { result: form } },
    ];
    const raw = judgeEachCall(steps).judged;
    expect(raw).to.deep.equal(['new', 'neutral', 'neutral']);
    expect(judgeEachCall(underClaudeCode([steps], 'playwright')[0]!).judged).to.deep.equal(raw);
  });
});
