import { expect } from 'chai';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import type { LoopGuardOptions } from '../../src/core/types.js';
import { EXAMPLE_POLICY, EXAMPLES_DIR, replayFiles, runNamed, readTranscript, loadExamplePolicy } from './replay-test-helpers.js';

const policy = loadExamplePolicy();
const example = (name: string): string => join(EXAMPLES_DIR, `${name}.jsonl`);

describe('example transcripts: expected verdicts with examples/transcripts/policy.json', () => {
  it('reworded search (document 000): different queries, same documents -> stopped for stale rounds, early', async () => {
    const { runs, problems } = await replayFiles([example('reworded-search')], policy);
    expect(problems).to.deep.equal([]);
    const run = runNamed(runs, 'reworded-search');
    expect(run.calls).to.equal(21);
    expect(run.stop?.reason).to.equal('stale_rounds');
    // Round 1 learns the two documents; the stop must come long before the recorded 21 rounds.
    expect(run.stop!.round).to.be.at.most(8);
    expect(run.skipped).to.equal(21 - run.stop!.call);
    expect(run.decisions.slice(run.stop!.call).every((d) => d.decision === 'skip')).to.equal(true);
    expect(run.decisions[0]).to.include({ decision: 'allow', novelty: 'new' });
    // Every allowed call after round 1 brought back the same documents.
    expect(run.decisions.slice(1).filter((d) => d.decision === 'allow').every((d) => d.novelty === 'seen')).to.equal(true);
    expect(run.saved.tokens).to.be.greaterThan(0);
  });

  it('exact repeat (document 002): 73 identical searches -> repeats refused, stopped on refused rounds', async () => {
    const { runs } = await replayFiles([example('exact-repeat')], policy);
    const run = runNamed(runs, 'exact-repeat');
    expect(run.calls).to.equal(73);
    expect(run.executed).to.equal(1);
    expect(run.decisions[1]).to.include({ decision: 'refuse', reason: 'repeat.run_wide' });
    expect(run.stop?.reason).to.equal('refused_rounds');
    expect(run.saved.calls).to.equal(72);
    // Saved tokens are the usage of the rounds that would never have happened.
    const lines = readTranscript(example('exact-repeat'));
    const skippedRoundTokens = lines
      .filter((l) => l.round > run.stop!.round)
      .reduce((sum, l) => sum + l.usage!.inputTokens! + l.usage!.outputTokens!, 0);
    expect(run.saved.tokens).to.equal(skippedRoundTokens);
  });

  it('exact repeat under the chat profile: back-to-back repeats are refused and the run still stops', async () => {
    const { runs } = await replayFiles([example('exact-repeat')], { ...policy, profile: 'chat' });
    const run = runNamed(runs, 'exact-repeat');
    expect(run.profile).to.equal('chat');
    expect(run.decisions[1]).to.include({ decision: 'allow' });
    expect(run.decisions[2]).to.include({ decision: 'refuse', reason: 'repeat.back_to_back' });
    expect(run.stop).to.not.equal(null);
  });

  it('attempt-counter retry (document 003): the attempt field does not hide the loop -> stopped', async () => {
    const { runs } = await replayFiles([example('attempt-counter-retry')], policy);
    const run = runNamed(runs, 'attempt-counter-retry');
    expect(run.calls).to.equal(40);
    expect(run.stop).to.not.equal(null);
    expect(run.stop!.round).to.be.at.most(10);
    expect(run.refused + run.skipped).to.be.at.least(30);
  });

  it('polling to completion: unchanged "running" answers inside the poll deadline are fine -> finishes', async () => {
    const { runs } = await replayFiles([example('polling-to-completion')], policy);
    const run = runNamed(runs, 'polling-to-completion');
    expect(run.stop).to.equal(null);
    expect(run.refused).to.equal(0);
    expect(run.executed).to.equal(run.calls);
    expect(run.decisions.at(-1)).to.include({ tool: 'fetch_export', decision: 'allow' });
    // The unchanged polls neither learned nor went stale: they are neutral rounds.
    expect(run.roundVerdicts.filter((v) => v === 'neutral').length).to.be.at.least(5);
    expect(run.roundVerdicts).to.not.include('stale');
  });

  it('polling without a poll policy finishes too: the answers say the job is running, so the same call again is a poll', async () => {
    const { runs } = await replayFiles([example('polling-to-completion')], {});
    const run = runNamed(runs, 'polling-to-completion');
    expect(run.refused).to.equal(0);
    expect(run.stop).to.equal(null);
    expect(run.roundVerdicts).to.not.include('stale');
  });

  it('pagination: an advancing cursor is never a repeat -> finishes', async () => {
    const { runs } = await replayFiles([example('pagination')], policy);
    const run = runNamed(runs, 'pagination');
    expect(run.stop).to.equal(null);
    expect(run.decisions.map((d) => `${d.decision}/${d.novelty}`)).to.deep.equal(Array(9).fill('allow/new'));
  });

  it('empty exploration (document 000): eight periods with zero results count as new -> finishes', async () => {
    const { runs } = await replayFiles([example('empty-exploration')], policy);
    const run = runNamed(runs, 'empty-exploration');
    expect(run.stop).to.equal(null);
    expect(run.refused).to.equal(0);
    expect(run.decisions.every((d) => d.novelty === 'new')).to.equal(true);
  });

  it('empty exploration with failClosed (document 003 stance) is stopped instead', async () => {
    const { runs } = await replayFiles([example('empty-exploration')], { ...policy, failClosed: true });
    expect(runNamed(runs, 'empty-exploration').stop?.reason).to.equal('stale_rounds');
  });
});
