import { expect } from 'chai';
import { newRun, playRounds, playTakingTurns, type ScriptedCall } from '../play.js';
import { isStepRejection } from '../../../src/core/world-state/is-step-rejection.js';
import { fingerprintError } from '../../../src/core/result-fingerprint.js';

// BrowserGym's own texts (browsergym/core/action/highlevel.py, to_python_code), as the
// WorkArena runs in eval/corpus/browsergym-workarena record them: the page follows the error.
const page = "\n\n- Tab 0 (active)\n  - Title: Catalog | ServiceNow\n\nRootWebArea 'Catalog'\n\t[a85] textbox 'Search catalog'";
const multiAction = { error: { type: 'ActionError', message: `Error: ValueError: Received a multi-action, only single-actions are allowed.${page}` } };
const emptyAction = { error: { type: 'ActionError', message: `Error: ValueError: Received an empty action.${page}` } };
const invalidType = { error: { type: 'ActionError', message: `Error: NameError: Invalid action type 'type_text'.${page}` } };
const catalog = { result: page };

describe('checks: step rejections (BrowserGym rejected the step before running it)', () => {
  it('recognises BrowserGym\'s three step-rejection texts, and not an action that ran and failed', () => {
    expect(isStepRejection('ActionError', multiAction.error.message)).to.equal(true);
    expect(isStepRejection('ActionError', emptyAction.error.message)).to.equal(true);
    expect(isStepRejection('ActionError', invalidType.error.message)).to.equal(true);
    expect(isStepRejection('ActionError', 'Error: TimeoutError: Locator.click: Timeout 500ms exceeded.')).to.equal(false);
    expect(isStepRejection('ActionError', 'Error: ValueError: Could not find element with bid "252"')).to.equal(false);
    // Quoted inside a result that is not an error message's head: not a rejection.
    expect(isStepRejection('Error', `the log says: ${'x'.repeat(600)} Received a multi-action`)).to.equal(false);
    expect(fingerprintError(multiAction.error).stepRejected).to.equal(true);
  });

  it('the order-developer-laptop run: 12 rejected steps in a row on the same page, then the fill that works, is not stopped', () => {
    // eval/corpus/browsergym-workarena/…order-developer-laptop_0, rounds 4–17: the model wrote
    // two actions per step for 12 steps; BrowserGym ran none of them and showed the same page.
    const rejected: ScriptedCall[][] = [];
    for (let i = 0; i < 4; i++) rejected.push([{ tool: 'click', args: { args: ['252'] }, outcome: multiAction }]);
    for (let i = 0; i < 8; i++) rejected.push([{ tool: i % 2 === 0 ? 'focus' : 'fill', args: i % 2 === 0 ? { args: ['a85'] } : { args: ['a85', 'Developer Laptop (Mac)'] }, outcome: multiAction }]);
    const rounds = [[{ tool: 'goto', args: { args: ['catalog'] }, outcome: catalog }], ...rejected];
    rounds.push([{ tool: 'fill', args: { args: ['a85', 'Developer Laptop (Mac)'] }, outcome: { result: `${page}\n\tStaticText 'Developer Laptop (Mac)'` } }]);
    const run = newRun();
    const log = playRounds(run, rounds);
    expect(log).to.have.length(rounds.length);
    expect(log.every((round) => round.after.action === 'continue')).to.equal(true);
    expect(log.every((round) => round.decisions.every((decision) => decision.action === 'allow'))).to.equal(true);
  });

  it('a rejected step is neither a seen result nor a failure: it does not count toward stale rounds or consecutive failures', () => {
    const run = newRun();
    playRounds(run, [[{ tool: 'click', args: { args: ['a1'] }, outcome: catalog }]]);
    const before = run.partial();
    playRounds(run, Array.from({ length: 6 }, () => [{ tool: 'click', args: { args: ['a1'] }, outcome: multiAction }]));
    const after = run.partial();
    expect(after.staleRoundStreak).to.equal(0);
    expect(after.seenResults).to.equal(before.seenResults);
    expect(after.tools.click!.failures).to.equal(6);
    // The identical click running afterwards is judged against what ran before the rejections.
    const [round] = playRounds(run, [[{ tool: 'click', args: { args: ['a1'] }, outcome: catalog }]]);
    expect(round!.decisions[0]).to.include({ action: 'allow' });
  });

  it('the same step rejected four times, then run, is a retry each time, never a refused repeat (chat profile too)', () => {
    for (const profile of ['general', 'chat', 'researcher'] as const) {
      const rounds: ScriptedCall[][] = Array.from({ length: 4 }, () => [{ tool: 'click', args: { args: ['252'] }, outcome: multiAction }]);
      rounds.push([{ tool: 'click', args: { args: ['252'] }, outcome: catalog }]);
      const log = playRounds(newRun({ profile }), rounds);
      expect(log.flatMap((round) => round.decisions.map((decision) => decision.action)), profile).to.deep.equal(['allow', 'allow', 'allow', 'allow', 'allow']);
      expect(log.every((round) => round.after.action === 'continue'), profile).to.equal(true);
    }
  });

  it('a model stuck emitting invalid steps is a loop: past 2 x consecutiveFailures rejections in a row they count again, and the run stops', () => {
    const rounds: ScriptedCall[][] = Array.from({ length: 30 }, () => [{ tool: 'click', args: { args: ['252'] }, outcome: multiAction }]);
    const log = playRounds(newRun(), rounds);
    const stop = log.at(-1)!.after;
    expect(stop).to.include({ action: 'stop' });
    // 10 neutral rejections (2 x the default 5), then the stop within the next 5.
    expect(log.length).to.be.greaterThan(10);
    expect(log.length).to.be.at.most(15);
  });

  it('a step that runs resets the count: rejections separated by real actions stay neutral', () => {
    const rounds: ScriptedCall[][] = [];
    for (let i = 0; i < 40; i++) {
      rounds.push([{ tool: 'click', args: { args: [`a${i}`] }, outcome: multiAction }]);
      rounds.push([{ tool: 'click', args: { args: [`a${i}`] }, outcome: { result: `${page}\n\tStaticText 'item ${i}'` } }]);
    }
    const log = playRounds(newRun(), rounds);
    expect(log.every((round) => round.after.action === 'continue')).to.equal(true);
  });
});

describe('checks: step rejections, with the run shared through a store', () => {
  it('two engines taking turns on the order-developer-laptop shape agree with one engine: not stopped', async () => {
    const steps: ScriptedCall[] = [{ tool: 'goto', args: { args: ['catalog'] }, outcome: catalog }];
    for (let i = 0; i < 12; i++) steps.push({ tool: 'click', args: { args: ['252'] }, outcome: multiAction });
    steps.push({ tool: 'fill', args: { args: ['a85', 'Developer Laptop (Mac)'] }, outcome: { result: `${page}\n\tStaticText 'Developer Laptop (Mac)'` } });
    expect(await playTakingTurns('laptop', steps)).to.deep.equal(Array(steps.length).fill('allow/continue'));
  });
});
