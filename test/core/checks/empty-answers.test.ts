import { expect } from 'chai';
import { newRun, playRounds, playTakingTurns, type ScriptedCall } from '../play.js';

/** One round per query, each a lookup nobody asked before, answered with nothing. */
const emptyLookups = (count: number, result: unknown = []): ScriptedCall[][] =>
  Array.from({ length: count }, (_, i) => [{ tool: 'search_records', args: { query: `customer ${i}` }, outcome: { result } }]);

describe('checks: empty answers to new questions (documents 000 and 002)', () => {
  it('zero results for ten new queries in a row is exploration, and a real answer after them goes on (document 000)', () => {
    const rounds = emptyLookups(10);
    rounds.push([{ tool: 'search_records', args: { query: 'customer 10' }, outcome: { result: [{ id: 'c-10' }] } }]);
    rounds.push(...emptyLookups(10).map((round, i) => [{ ...round[0]!, args: { query: `order ${i}` } }]));
    const log = playRounds(newRun(), rounds);
    expect(log.map((round) => round.after.action)).to.deep.equal(Array(21).fill('continue'));
  });

  // Document 002: "the agent asks for a record that does not exist, the tool returns an empty set
  // ..., reformulates slightly, and tries again, forever." Past 2 x staleRounds rounds whose only
  // news was an empty answer, an empty answer counts as nothing new, so the run stops five later.
  for (const [name, result] of [['an empty list', []], ['empty text', ''], ['{"items": []}', { items: [] }]] as const) {
    it(`new queries answered with ${name} forever are stopped: after 2 x staleRounds such rounds, five more`, () => {
      const log = playRounds(newRun(), emptyLookups(60, result));
      expect(log.at(-1)!.after).to.include({ action: 'stop', reason: 'stale_rounds' });
      expect(log).to.have.length(15);
    });
  }

  it('in the researcher profile document 000 holds as written: every empty answer to a new query is a new fact', () => {
    const log = playRounds(newRun({ profile: 'researcher', maxToolCalls: Infinity, maxRounds: Infinity }), emptyLookups(60));
    expect(log.every((round) => round.after.action === 'continue')).to.equal(true);
  });

  it('two engines sharing the run through a store, taking turns, stop at the same round as one engine', async () => {
    const log = await playTakingTurns('lookups', emptyLookups(40).map((round) => round[0]!));
    expect(log).to.have.length(15);
    expect(log.at(-1)).to.equal('allow/stop');
  });
});
