// OpenHands' `think` tool (CodeActAgent): the model writes a thought, the tool answers "Your
// thought has been logged." whatever the thought. The answer says nothing about the world, so a
// new thought is not a stale result; the same thought again is a repeat. The `thought` argument
// is the call itself here, although it is a bookkeeping argument of every other well-known tool.
import { expect } from 'chai';
import { kinds, newRun, playRounds, type ScriptedCall } from '../play.js';

const logged = { result: 'Your thought has been logged.' };
const think = (thought: string): ScriptedCall => ({ tool: 'think', args: { thought }, outcome: logged });
const bash = (command: string, thought: string, output: string): ScriptedCall => ({ tool: 'execute_bash', args: { command, thought }, outcome: { result: output } });

describe('world state: the think tool', () => {
  it('eight new thoughts in a row, each acknowledged the same, are neither stale rounds nor new facts', () => {
    const run = newRun();
    const thoughts = Array.from({ length: 8 }, (_, i) => `step ${i}: the failing test needs the fixture from conftest ${i}`);
    const log = playRounds(run, thoughts.map((thought) => [think(thought)]));
    expect(log).to.have.length(8);
    expect(log.every((round) => round.after.action === 'continue')).to.equal(true);
    const partial = run.partial();
    expect(partial.staleRoundStreak).to.equal(0);
    expect(partial.seenResults).to.equal(0);
    expect(partial.newFacts).to.equal(0);
  });

  it('a thought between stale reads does not reset the stale streak (it is no new fact)', () => {
    const run = newRun();
    const same = (i: number): ScriptedCall => ({ tool: 'search_docs', args: { query: `refund policy wording ${i}` }, outcome: { result: 'doc-17: Refund policy' } });
    const rounds: ScriptedCall[][] = [[same(0)]];
    for (let i = 1; i <= 6; i++) rounds.push([think(`maybe wording ${i} helps`)], [same(i)]);
    const log = playRounds(run, rounds);
    // The five stale reads count, the thoughts between them neither count nor reset: the stop
    // comes after the fifth stale read (round 11), not earlier (thoughts as seen results) and
    // not later (a thought as a new fact).
    expect(log.at(-1)!.after).to.include({ action: 'stop', reason: 'stale_rounds' });
    expect(log).to.have.length(11);
  });

  it('the same thought acknowledged again and again is a repeat: the run stops', () => {
    const log = playRounds(newRun(), Array.from({ length: 12 }, () => [think('I should look at the test again')]));
    expect(log.at(-1)!.after).to.include({ action: 'stop' });
    expect(log.length).to.be.at.most(8);
  });

  it('`thought` is part of the identity of think, and a bookkeeping argument of a shell tool', () => {
    const log = playRounds(newRun(), [[think('first idea')], [think('second idea')], [bash('ls', 'look around', 'a\nb\n')], [bash('ls', 'look again', 'a\nb\n')]]);
    expect(kinds(log.flatMap((round) => round.decisions))).to.deep.equal(['allow:new', 'allow:new', 'allow:new', 'refuse:repeat.run_wide']);
  });

  it('a user bookkeepingArgs list naming `thought` still leaves think its thought', () => {
    const log = playRounds(newRun({ bookkeepingArgs: ['thought'] }), [[think('first idea')], [think('second idea')]]);
    expect(kinds(log.flatMap((round) => round.decisions))).to.deep.equal(['allow:new', 'allow:new']);
  });

  // The MCP reference server's sequential thinking (@modelcontextprotocol/server-sequential-thinking)
  // answers each thought with its own counters ({"thoughtNumber": 3, "thoughtHistoryLength": 3, …}):
  // a new answer every time, but no fact about the world. Counted as news, one thought per round
  // hid a reworded search answering the same documents for as long as the model kept thinking.
  it('sequential thinking is a thought tool: thinking in every round does not hide a stale search (its own name, and as Claude Code names it)', () => {
    const documents = { results: [{ id: 'doc-17', title: 'Refund policy' }, { id: 'doc-42', title: 'Returns FAQ' }] };
    for (const tool of ['sequentialthinking', 'mcp__sequential-thinking__sequentialthinking']) {
      const rounds: ScriptedCall[][] = [];
      for (let i = 1; i <= 12; i++) {
        const counters = { thoughtNumber: i, totalThoughts: 12, nextThoughtNeeded: true, branches: [], thoughtHistoryLength: i };
        rounds.push([
          { tool, args: { thought: `maybe wording ${i} helps`, thoughtNumber: i, totalThoughts: 12, nextThoughtNeeded: true }, outcome: { result: { content: [{ type: 'text', text: JSON.stringify(counters, null, 2) }] } } },
          { tool: 'search_docs', args: { query: `refund window ${i}` }, outcome: { result: documents } },
        ]);
      }
      const log = playRounds(newRun(), rounds);
      expect(log.at(-1)!.after, tool).to.include({ action: 'stop', reason: 'stale_rounds' });
      expect(log.length, tool).to.equal(6);
    }
  });

  it('a thought before each identical command writes nothing: the repeat is refused as without it (tau-bench\'s think tool)', () => {
    // The same failing command, each time after a thought. Counted as a possible write (its effect
    // unknown), each thought made the command a re-run after a write, and it was never refused.
    const failing = (i: number): ScriptedCall[] => [think(`Let me try once more, attempt ${i}`), { tool: 'execute_bash', args: { command: "echo -e 'JTYz' | base64 -d" }, outcome: { result: 'base64: invalid input' } }];
    const withThoughts = playRounds(newRun(), Array.from({ length: 8 }, (_, i) => failing(i)));
    const without = playRounds(newRun(), Array.from({ length: 8 }, (_, i) => [failing(i)[1]!]));
    const commandKinds = (log: typeof without) => log.map((round) => kinds(round.decisions).at(-1));
    expect(commandKinds(withThoughts)).to.deep.equal(commandKinds(without));
    expect(commandKinds(withThoughts)).to.include('refuse:repeat.unchanged');
    expect(withThoughts.at(-1)!.after).to.deep.include({ action: 'stop' });
    expect(withThoughts.length).to.equal(without.length);
  });

  it('a round of refused calls and a thought is a refused round; the only tool besides `think` is the last tool standing', () => {
    // A SQL agent that thinks before each query: its ladder holds back as for an agent with one
    // tool, and its refused rounds count, thought or not.
    const query = (i: number): ScriptedCall[] => [think(`Check the count again (${i})`), { tool: 'execute_sql', args: { query: `SELECT COUNT(*) FROM singer WHERE age > ${30 + (i % 2)}` }, outcome: { result: '[(6,)]' } }];
    const withThoughts = playRounds(newRun(), Array.from({ length: 12 }, (_, i) => query(i)));
    const without = playRounds(newRun(), Array.from({ length: 12 }, (_, i) => [query(i)[1]!]));
    expect(withThoughts.map((round) => kinds(round.decisions).at(-1))).to.deep.equal(without.map((round) => kinds(round.decisions).at(-1)));
    const { action, reason, round } = without.at(-1)!.after as { action: string; reason?: string; round?: number };
    expect(withThoughts.at(-1)!.after).to.include({ action, reason, round });
    expect(withThoughts.at(-1)!.after).to.include({ action: 'stop' });
  });

  it('a plan tool (Claude Code\'s TodoWrite, Codex\'s update_plan, …) between identical commands writes nothing: the repeat is refused', () => {
    const command: ScriptedCall = { tool: 'Bash', args: { command: 'npx vitest run src/parse.test.ts' }, outcome: { result: 'FAIL src/parse.test.ts > parses dates\nAssertionError: expected 2 to be 3' } };
    const without = playRounds(newRun(), Array.from({ length: 8 }, () => [command]));
    const plans: Array<[string, (i: number) => Record<string, unknown>]> = [
      ['TodoWrite', (i) => ({ todos: [{ content: 'Fix the date parser', status: 'in_progress', activeForm: `Fixing the date parser (${i})` }] })],
      ['update_plan', (i) => ({ plan: [{ step: `Run the tests, try ${i}`, status: 'in_progress' }] })],
      ['task_tracker', (i) => ({ command: 'plan', task_list: [{ id: '1', title: `Fix parser ${i}`, status: 'in_progress' }] })],
    ];
    for (const [tool, args] of plans) {
      const withPlans = playRounds(newRun(), Array.from({ length: 8 }, (_, i) => [{ tool, args: args(i), outcome: { result: 'Todos have been modified successfully.' } }, command]));
      expect(withPlans.map((round) => kinds(round.decisions).at(-1)), tool).to.deep.equal(without.map((round) => kinds(round.decisions).at(-1)));
      expect(withPlans.at(-1)!.after, tool).to.include({ action: 'stop' });
    }
  });
});
