// Claude Code names an MCP server's tools `mcp__<server>__<tool>`. The well-known tool tables
// describe the tool, not the harness that connects it: the reference filesystem server's
// `read_text_file` reads under either name, Playwright MCP's `browser_wait_for` waits, and an
// MCP shell server's `run_command` runs a command line. Before, only the answer, browser and
// thought tables were matched by the tool's own name: a Claude Code user's page wait was
// refused from its third look, and a filesystem read loop was judged as a tool of unknown
// effect (caught only once its outcomes confirmed themselves).
import { expect } from 'chai';
import type { CallDecision } from '../../../src/core/types.js';
import { newRun, playRounds, type ScriptedCall } from '../play.js';

function kinds(decisions: CallDecision[]): string[] {
  return decisions.map((decision) => (decision.action === 'allow' ? `allow:${decision.kind}` : `refuse:${decision.reason}`));
}

/** The same scripted run with every tool renamed as Claude Code names an MCP server's tool. */
function underClaudeCode(rounds: ScriptedCall[][], server: string): ScriptedCall[][] {
  return rounds.map((calls) => calls.map((call) => ({ ...call, tool: `mcp__${server}__${call.tool}` })));
}

function decisionsOf(rounds: ScriptedCall[][]): string[] {
  return playRounds(newRun(), rounds).flatMap((round) => [...kinds(round.decisions), round.after.action]);
}

const ciPage = (status: string) => `### Page state\n- Page URL: https://ci.example/run/42\n- Page Snapshot:\n\`\`\`yaml\n- heading "Run 42" [level=1] [ref=e3]\n- text: "Status: ${status}" [ref=e4]\n\`\`\``;

describe("Claude Code's MCP tool names are judged by the tool's own name (every well-known table)", () => {
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
});
