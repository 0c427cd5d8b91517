import { expect } from 'chai';
import { newRun, playRounds, type ScriptedCall } from '../play.js';

const missing = (bid: string) => ({ error: { type: 'ActionError', message: `Could not find element with bid "${bid}"` } });

describe('checks: failures that teach (issue 18 #3)', () => {
  it('a browser agent clicking six different missing elements, then one that exists, is narrowing down: not stopped', () => {
    const rounds: ScriptedCall[][] = ['252', '269', '251', 'a85', 'a86', 'a90'].map((bid) => [{ tool: 'click', args: { bid }, outcome: missing(bid) }]);
    rounds.push([{ tool: 'click', args: { bid: 'a91' }, outcome: { result: 'clicked' } }]);
    const log = playRounds(newRun(), rounds);
    expect(log).to.have.length(7);
    expect(log.every((round) => round.after.action === 'continue')).to.equal(true);
  });

  it('the same lookups answered "not found" past 2 x consecutiveFailures in a row count again', () => {
    const rounds: ScriptedCall[][] = Array.from({ length: 20 }, (_, i) => [{ tool: 'find_user_id_by_email', args: { email: `u${i}@example.com` }, outcome: { error: { type: 'Error', message: 'Error: user not found' } } }]);
    const stop = playRounds(newRun(), rounds).at(-1)!.after;
    expect(stop).to.include({ action: 'stop' });
  });

  it('in the researcher profile document 000 holds: the same tool failing 5 times in a row stops, whatever the arguments', () => {
    const rounds: ScriptedCall[][] = ['1', '2', '3', '4', '5', '6'].map((bid) => [{ tool: 'click', args: { bid }, outcome: missing(bid) }]);
    const log = playRounds(newRun({ profile: 'researcher' }), rounds);
    expect(log.at(-1)!.after).to.include({ action: 'stop', reason: 'consecutive_failures' });
    expect(log).to.have.length(5);
  });
});
