import { expect } from 'chai';
import { playNoiseScenarios, replayNoiseScenarios, type ScenarioOutcome } from '../../eval/noise-classes/evaluate-noise-scenarios.js';

/** Issue 24's bar: every loop of these classes stopped within 5 stale calls; no healthy twin refused. */
const STALE_CALL_TARGET = 5;

function expectVerdicts(outcomes: ScenarioOutcome[], path: string): void {
  expect(outcomes.filter((o) => o.scenario.label === 'looping')).to.have.length.greaterThan(5);
  expect(outcomes.filter((o) => o.scenario.label === 'healthy')).to.have.length.greaterThan(5);
  for (const outcome of outcomes) {
    const what = `${path}: ${outcome.scenario.name}`;
    if (outcome.scenario.label === 'looping') {
      expect(outcome.caught, `${what} caught by a loop rule`).to.equal(true);
      expect(outcome.staleCalls, `${what} stale calls`).to.be.at.most(STALE_CALL_TARGET);
    } else {
      expect(outcome.stop, `${what} not stopped`).to.equal(undefined);
      expect(outcome.refusals, `${what} never refused`).to.equal(0);
    }
  }
}

describe('loops hidden behind noise (issue 24) and failures that teach (issue 18 #3, #5): looping runs and healthy twins from real tool output', () => {
  it('through the engine: every loop stopped within 5 stale calls, no healthy twin refused or stopped', () => {
    expectVerdicts(playNoiseScenarios(), 'engine');
  });

  it('through replay (transcript format): the same verdicts', async () => {
    expectVerdicts(await replayNoiseScenarios(), 'replay');
  });

  it('each loop is stopped by the rule of its class', () => {
    const byName = new Map(playNoiseScenarios().map((o) => [o.scenario.name, o]));
    // Re-running the same failing suite with no edit: the timing no longer makes it look new.
    expect(byName.get('pytest-rerun-without-edit')!.refusals).to.be.greaterThan(0);
    expect(byName.get('go-test-rerun-without-edit')!.refusals).to.be.greaterThan(0);
    // Reworded searches whose hits differ only in score and took: already-seen results.
    expect(byName.get('es-search-reworded-same-hits')!.stop).to.equal('stale_rounds');
    // An expired token on eight GitHub tools: one stuck state, stopped at the 5th failure.
    expect(byName.get('expired-token-across-github-tools')).to.include({ stop: 'consecutive_failures', stopCall: 5 });
  });

  it('OpenHands: the same shell command run 4 times, each failing with a different error text, is stuck at the 4th', () => {
    const outcome = playNoiseScenarios().find((o) => o.scenario.name === 'openhands-same-command-failing-differently')!;
    expect(outcome).to.include({ stop: 'consecutive_failures', stopCall: 4 });
  });

  it("Cline: a bookkeeping argument that changes every call (task_progress) is not part of the call's identity", () => {
    const outcome = playNoiseScenarios().find((o) => o.scenario.name === 'cline-task-progress-same-command')!;
    expect(outcome.refusals).to.be.greaterThan(0);
    expect(outcome.staleCalls).to.be.at.most(1);
  });

  it('shell polls: `sleep 30 && gh run view` runs until the run succeeds; `sleep 20 && kubectl get pods` stuck in CrashLoopBackOff is stopped past the deadline', () => {
    const byName = new Map(playNoiseScenarios().map((o) => [o.scenario.name, o]));
    expect(byName.get('gh-run-view-until-success')).to.include({ refusals: 0, stop: undefined });
    const crashLoop = byName.get('kubectl-crashloop-poll')!;
    expect(crashLoop.refusals).to.be.greaterThan(0);
    expect(crashLoop.stop).to.equal('refused_rounds');
    // Every poll inside the 10-minute default deadline ran (index 0..24); none after it.
    expect(crashLoop.stopCall).to.be.within(25, 29);
    expect(crashLoop.staleCalls).to.equal(0);
  });

  it('the same acknowledgement for 50 different targets is progress; the same call acknowledged again is not', () => {
    const byName = new Map(playNoiseScenarios().map((o) => [o.scenario.name, o]));
    for (const name of ['batch-relabel-50-issues', 'slack-react-to-50-messages']) {
      expect(byName.get(name), name).to.include({ refusals: 0, stop: undefined });
    }
    const again = byName.get('relabel-the-same-issue-again')!;
    expect(again.refusals).to.be.greaterThan(0);
    expect(again.staleCalls).to.be.at.most(2);
  });

  it('paging past the end: empty pages after "has_more: false" are stale; empty results of different searches stay new', () => {
    const byName = new Map(playNoiseScenarios().map((o) => [o.scenario.name, o]));
    expect(byName.get('notion-different-searches-finding-nothing')).to.include({ refusals: 0, stop: undefined });
    const pastTheEnd = byName.get('notion-search-pages-past-the-end')!;
    expect(pastTheEnd.stop).to.equal('stale_rounds');
    expect(pastTheEnd.staleCalls).to.be.at.most(5);
  });

  it('window re-reads: a file read whole then again in windows it showed is stale; new windows of a long file, or after an edit, are new', () => {
    const byName = new Map(playNoiseScenarios().map((o) => [o.scenario.name, o]));
    for (const name of ['claude-code-read-whole-then-windows', 'openhands-view-then-view-ranges', 'mini-swe-agent-cat-then-sed-windows', 'swe-agent-goto-inside-seen-windows']) {
      const outcome = byName.get(name)!;
      // Every window differs in text from the whole read: only the range it returns tells it is stale.
      expect(outcome.caught, name).to.equal(true);
      expect(outcome.stop, name).to.be.oneOf(['stale_rounds', 'refused_rounds']);
      expect(outcome.staleCalls, name).to.be.at.most(5);
    }
    for (const name of ['claude-code-read-long-file-in-windows', 'swe-agent-scrolling-through-a-long-file', 'mini-swe-agent-cat-edit-numbered-windows']) {
      expect(byName.get(name), name).to.include({ refusals: 0, stop: undefined });
    }
  });
});

