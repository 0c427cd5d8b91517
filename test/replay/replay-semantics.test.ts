import { expect } from 'chai';
import { LoopGuard } from '../../src/core/loop-guard.js';
import { replayFiles, runNamed, writeTempLines } from './replay-test-helpers.js';

describe('replay semantics', () => {
  it('a refused call is not run: its recorded result is never learned', async () => {
    // Call 2 repeats call 1 and is refused; the result it recorded ("secret") must stay unseen,
    // so call 3 returning "secret" is a new fact. Were the refused result learned, it would be "seen".
    const file = writeTempLines('refused-not-learned.jsonl', [
      { run: 'r', round: 1, tool: 'search', args: { q: 'a' }, result: { doc: 'first' } },
      { run: 'r', round: 2, tool: 'search', args: { q: 'a' }, result: { doc: 'secret' } },
      { run: 'r', round: 3, tool: 'lookup', args: { id: 1 }, result: { doc: 'secret' } },
    ]);
    // Document 000's researcher: an exact repeat is refused at the first repeat.
    const run = runNamed((await replayFiles([file], { profile: 'researcher' })).runs, 'r');
    expect(run.decisions.map((d) => d.decision)).to.deep.equal(['allow', 'refuse', 'allow']);
    expect(run.decisions[1].reason).to.equal('repeat.run_wide');
    expect(run.decisions[2].novelty).to.equal('new');
  });

  it('gives exactly one decision per input call, numbered 1..n per run, with interleaved runs kept apart', async () => {
    const lines: object[] = [];
    for (let round = 1; round <= 4; round++) {
      lines.push({ run: 'a', round, tool: 'search', args: { q: `a${round}` }, result: { n: round } });
      lines.push({ run: 'b', round, tool: 'search', args: { q: 'same' }, result: { n: 0 } });
      lines.push({ run: 'b', round, tool: 'fetch', args: { id: round }, result: { n: round } });
    }
    // Researcher: run b's exact repeats are refused from the first repeat on.
    const { runs, summary } = await replayFiles([writeTempLines('interleaved.jsonl', lines)], { profile: 'researcher' });
    const a = runNamed(runs, 'a');
    const b = runNamed(runs, 'b');
    expect(a.decisions.map((d) => d.call)).to.deep.equal([1, 2, 3, 4]);
    expect(b.decisions.map((d) => d.call)).to.deep.equal([1, 2, 3, 4, 5, 6, 7, 8]);
    expect(b.decisions.map((d) => d.round)).to.deep.equal([1, 1, 2, 2, 3, 3, 4, 4]);
    // Run a's identical-looking history does not leak into run b and vice versa.
    expect(a.refused).to.equal(0);
    expect(b.decisions.filter((d) => d.tool === 'search').map((d) => d.decision)).to.deep.equal(['allow', 'refuse', 'refuse', 'refuse']);
    expect(summary.calls).to.equal(12);
    expect(a.calls + b.calls).to.equal(12);
  });

  it('skips every call after the stop and saves the tokens of the skipped rounds only', async () => {
    const lines: object[] = [];
    for (let round = 1; round <= 10; round++) {
      lines.push({ run: 's', round, tool: 'search', args: { q: `q${round}` }, result: { docs: ['same'] }, usage: { inputTokens: 100 * round, outputTokens: 1 } });
      // A second call in the same round repeats the round's usage; it must not be counted twice.
      lines.push({ run: 's', round, tool: 'search', args: { q: `q${round}-b` }, result: { docs: ['same'] }, usage: { inputTokens: 100 * round, outputTokens: 1 } });
    }
    const run = runNamed((await replayFiles([writeTempLines('stop.jsonl', lines)], { escalation: { enabled: false } })).runs, 's');
    expect(run.stop?.reason).to.equal('stale_rounds');
    // Round 1 is new; rounds 2..6 are five stale rounds; the guard stops before round 7.
    expect(run.stop!.round).to.equal(6);
    expect(run.stop!.call).to.equal(12);
    const skipped = run.decisions.filter((d) => d.decision === 'skip');
    expect(skipped.map((d) => d.round)).to.deep.equal([7, 7, 8, 8, 9, 9, 10, 10]);
    expect(skipped.every((d) => d.reason === 'run.stopped')).to.equal(true);
    expect(run.saved.calls).to.equal(run.refused + 8);
    expect(run.saved.tokens).to.equal([7, 8, 9, 10].reduce((sum, r) => sum + 100 * r + 1, 0));
    expect(run.roundVerdicts.slice(6)).to.deep.equal(['skipped', 'skipped', 'skipped', 'skipped']);
  });

  it('omits saved.tokens when the run recorded no usage', async () => {
    const run = runNamed(
      (await replayFiles([writeTempLines('no-usage.jsonl', [{ run: 'n', round: 1, tool: 't', args: {}, result: 1 }])])).runs,
      'n',
    );
    expect(run.saved).to.deep.equal({ calls: 0 });
  });

  it('reports a round that goes backwards as file:line and does not feed that call', async () => {
    const file = writeTempLines('backwards.jsonl', [
      { run: 'r', round: 2, tool: 't', args: { a: 1 }, result: 1 },
      { run: 'r', round: 1, tool: 't', args: { a: 2 }, result: 2 },
      { run: 'r', round: 3, tool: 't', args: { a: 3 }, result: 3 },
    ]);
    const { runs, problems } = await replayFiles([file]);
    expect(problems).to.have.length(1);
    expect(problems[0]).to.match(/backwards\.jsonl:2: "round" 1 comes after round 2 of run "r"/);
    expect(runNamed(runs, 'r').calls).to.equal(2);
  });

  it('keeps round numbers aligned with the input when rounds have no tool calls (gaps)', async () => {
    const file = writeTempLines('gaps.jsonl', [
      { run: 'g', round: 1, tool: 't', args: { a: 1 }, result: 1 },
      { run: 'g', round: 4, tool: 't', args: { a: 2 }, result: 2 },
    ]);
    const run = runNamed((await replayFiles([file])).runs, 'g');
    expect(run.rounds).to.equal(4);
    expect(run.roundVerdicts).to.deep.equal(['new', 'empty', 'empty', 'new']);
  });

  // JSONL could not say a run made model calls after its last tool call, so replay counted a
  // run's rounds from its calls while the live processor and OTLP replay count every model call:
  // a chat answering on past maxRounds stopped live and not in replay.
  it('counts a line with no tool (a model call that asked for no tools) as a round, as live does', async () => {
    const calls = [
      { run: 'm', round: 1, tool: 'search', args: { q: 'a' }, result: ['doc-1'] },
      { run: 'm', round: 2, tool: 'search', args: { q: 'b' }, result: ['doc-2'] },
    ];
    const answers = [{ run: 'm', round: 3, usage: { inputTokens: 100, outputTokens: 20 } }, { run: 'm', round: 4 }, { run: 'm', round: 5 }];
    const policy = { maxRounds: 4 };
    // The engine as the span processor drives it: a round per model call.
    const live = new LoopGuard(policy).startRun('m');
    for (let round = 1; round <= 5; round++) {
      live.beginRound();
      const call = calls[round - 1];
      if (call !== undefined) live.recordCall({ tool: call.tool, args: call.args }, { result: call.result });
    }
    const liveStop = live.shouldStop();
    expect(liveStop).to.include({ action: 'stop', reason: 'max_rounds' });
    const replayed = runNamed((await replayFiles([writeTempLines('answers.jsonl', [...calls, ...answers])], policy)).runs, 'm');
    expect(replayed.stop?.reason).to.equal('max_rounds');
    expect(replayed).to.include({ rounds: 5, calls: 2, executed: 2 });
    const callsOnly = runNamed((await replayFiles([writeTempLines('calls-only.jsonl', calls)], policy)).runs, 'm');
    expect(callsOnly.stop, 'without the answer lines the run has 2 rounds').to.equal(null);
  });

  it('uses recorded times: a poll past its deadline is refused, one inside it is allowed', async () => {
    const t0 = 1_700_000_000_000;
    const poll = (round: number, ts: number): object => ({ run: 'p', round, tool: 'status', args: { job: 1 }, result: { s: 'running' }, ts });
    const policy = { tools: { status: { poll: { deadlineMs: 60_000 } } } };
    const inside = runNamed((await replayFiles([writeTempLines('poll-in.jsonl', [poll(1, t0), poll(2, t0 + 30_000)])], policy)).runs, 'p');
    expect(inside.decisions.map((d) => d.decision)).to.deep.equal(['allow', 'allow']);
    const past = runNamed((await replayFiles([writeTempLines('poll-out.jsonl', [poll(1, t0), poll(2, t0 + 90_000)])], policy)).runs, 'p');
    expect(past.decisions[1]).to.include({ decision: 'refuse', reason: 'poll.deadline_passed' });
  });

  it('treats a run id in two files as two runs', async () => {
    const line = { run: 'same', round: 1, tool: 't', args: { a: 1 }, result: 1 };
    const { runs } = await replayFiles([writeTempLines('one.jsonl', [line]), writeTempLines('two.jsonl', [line])]);
    expect(runs.map((r) => r.decisions[0].decision)).to.deep.equal(['allow', 'allow']);
  });

  it('stops a run whose recorded errors come back identical every round (overloaded is still a failure)', async () => {
    const lines: object[] = [];
    for (let round = 1; round <= 8; round++) {
      lines.push({ run: 'o', round, tool: 'api', args: { page: round }, error: { type: 'overloaded', message: '429 Too Many Requests' } });
    }
    const run = runNamed((await replayFiles([writeTempLines('overloaded.jsonl', lines)])).runs, 'o');
    expect(run.stop).to.not.equal(null);
    expect(['consecutive_failures', 'stale_rounds']).to.include(run.stop!.reason);
  });
});

describe('replay input limits', () => {
  it('rejects a round that jumps absurdly far (e.g. a timestamp in "round") instead of opening a billion rounds', async () => {
    const file = writeTempLines('jump.jsonl', [
      { run: 'j', round: 1, tool: 't', args: { a: 1 }, result: 1 },
      { run: 'j', round: 1_700_000_000, tool: 't', args: { a: 2 }, result: 2 },
    ]);
    const { runs, problems } = await replayFiles([file]);
    expect(problems).to.have.length(1);
    expect(problems[0]).to.match(/jump\.jsonl:2: "round" jumps from 1 to 1700000000 in run "j"/);
    expect(runNamed(runs, 'j').rounds).to.equal(1);
  });
});

describe('replay clocks', () => {
  it('keeps a clock per run: an interleaved run from a day later does not push another past its time budget', async () => {
    const day = 86_400_000;
    const t0 = 1_700_000_000_000;
    const lines: object[] = [];
    for (let round = 1; round <= 3; round++) {
      lines.push({ run: 'early', round, tool: 't', args: { n: round }, result: { n: round }, ts: t0 + round * 1000 });
      lines.push({ run: 'late', round, tool: 't', args: { n: round }, result: { n: round }, ts: t0 + day + round * 1000 });
    }
    const { runs } = await replayFiles([writeTempLines('clocks.jsonl', lines)], { maxRunMs: 60_000 });
    expect(runs.map((r) => [r.run, r.stop])).to.deep.equal([
      ['early', null],
      ['late', null],
    ]);
  });

  it('stops a run that really outlives maxRunMs, by its recorded times', async () => {
    const t0 = 1_700_000_000_000;
    const lines = [1, 2, 3].map((round) => ({ run: 'slow', round, tool: 't', args: { n: round }, result: { n: round }, ts: t0 + round * 60_000 }));
    const run = runNamed((await replayFiles([writeTempLines('slow.jsonl', lines)], { maxRunMs: 90_000 })).runs, 'slow');
    expect(run.stop?.reason).to.equal('max_run_ms');
  });
});
