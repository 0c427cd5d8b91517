import { expect } from 'chai';
import { LoopGuard, type LoopGuardEngineOptions } from '../../src/core/loop-guard.js';
import type { RunGuard } from '../../src/core/run-guard.js';
import type { CallDecision, RunDecision } from '../../src/core/types.js';

const MINUTE = 60_000;

function engineWithClock(options: LoopGuardEngineOptions = {}) {
  const clock = { now: 0 };
  const warnings: string[] = [];
  const evicted: Array<{ id: string; cause: string }> = [];
  const ended: string[] = [];
  const guard = new LoopGuard({
    now: () => clock.now,
    logger: { warn: (message) => warnings.push(message) },
    listeners: [
      {
        runEnded: (run) => ended.push(run.id),
        runEvicted: (run, cause) => evicted.push({ id: run.id, cause }),
      },
    ],
    ...options,
  });
  return { guard, clock, warnings, evicted, ended };
}

/** One call made and finished, as a live agent would: returns the decision. */
function callOnce(run: RunGuard, args: unknown): CallDecision {
  run.beginRound();
  const ticket = run.startCall({ tool: 'search', args });
  if (ticket.decision.action === 'allow') run.finishCall(ticket, { result: { docs: [JSON.stringify(args)] } });
  return ticket.decision;
}

/** The invariant of #1: a run whose calls are refused `run.stopped` answers stop. */
function expectConsistent(decision: CallDecision, stop: RunDecision): void {
  if (decision.action === 'refuse' && decision.reason === 'run.stopped') expect(stop.action, 'refused run.stopped but shouldStop').to.equal('stop');
}

describe('issue 10: engine lifecycle', () => {
  it('issue 10 #1: a run with a call in flight is not idled out when another run starts', () => {
    const { guard, clock, evicted } = engineWithClock({ tools: { wait_for_subagent: { exempt: true } } });
    const lead = guard.startRun('lead');
    lead.beginRound();
    const waiting = lead.startCall({ tool: 'wait_for_subagent', args: { id: 'sub-1' } });
    expect(waiting.decision.action).to.equal('allow');
    clock.now += 31 * MINUTE;
    guard.startRun('another');
    expect(lead.isEnded, 'busy lead ended by the idle sweep').to.equal(false);
    expect(evicted).to.deep.equal([]);
    lead.finishCall(waiting, { result: { status: 'done', summary: 'sub-agent result' } });
    const next = callOnce(lead, { q: 'follow-up' });
    expect(next).to.include({ action: 'allow', kind: 'new' });
    expect(lead.shouldStop().action).to.equal('continue');
    expect(guard.stats().openRuns).to.equal(2);
  });

  it('issue 10 #1: a run that really is idle is still ended by the sweep', () => {
    const { guard, clock, evicted } = engineWithClock();
    const forgotten = guard.startRun('forgotten');
    callOnce(forgotten, { q: 1 });
    clock.now += 31 * MINUTE;
    guard.startRun('another');
    expect(forgotten.isEnded).to.equal(true);
    expect(evicted).to.deep.equal([{ id: 'forgotten', cause: 'max_idle' }]);
  });

  it('issue 10 #1: a run whose calls are refused run.stopped answers stop from shouldStop, always', () => {
    const { guard, clock } = engineWithClock({ maxOpenRuns: 2 });
    // Every way a run can end: by itself, by the engine, by the idle sweep, by the cap.
    const byRun = guard.startRun('by-run');
    callOnce(byRun, { q: 1 });
    byRun.end();
    const byEngine = guard.startRun('by-engine');
    callOnce(byEngine, { q: 1 });
    guard.endRun('by-engine');
    const idled = guard.startRun('idled');
    callOnce(idled, { q: 1 });
    clock.now += 31 * MINUTE;
    const capped = guard.startRun('capped');
    callOnce(capped, { q: 1 });
    guard.startRun('x');
    guard.startRun('y'); // evicts 'capped'
    expect(idled.isEnded && capped.isEnded).to.equal(true);
    for (const run of [byRun, byEngine, idled, capped]) {
      for (let i = 0; i < 3; i++) {
        const decision = callOnce(run, { q: `after-end-${i}` });
        expectConsistent(decision, run.shouldStop());
      }
    }
    // An explicitly ended run refuses with run.stopped; its stop says why, and is not a loop verdict.
    const refused = byRun.startCall({ tool: 'search', args: { q: 'again' } });
    expect(refused.decision).to.include({ action: 'refuse', reason: 'run.stopped' });
    const stop = byRun.shouldStop();
    expect(stop).to.include({ action: 'stop', reason: 'run_ended' });
    expect(byRun.shouldStop(), 'the same answer every time').to.equal(stop);
    expect(byRun.stopped, 'ending is not a stop verdict').to.equal(undefined);
  });

  it('issue 10 #1: a run stopped by a check and then evicted keeps its stop and keeps refusing', () => {
    const { guard } = engineWithClock({ maxOpenRuns: 1, profile: 'researcher', staleRounds: 2, escalation: { enabled: false } });
    const looping = guard.startRun('looping');
    for (let i = 0; i < 5 && looping.shouldStop().action === 'continue'; i++) {
      looping.beginRound();
      looping.recordCall({ tool: 'search', args: { q: i } }, { result: { docs: ['same'] } });
    }
    expect(looping.shouldStop()).to.include({ action: 'stop', reason: 'stale_rounds' });
    guard.startRun('next'); // evicts 'looping'
    expect(looping.isEnded).to.equal(true);
    expect(looping.startCall({ tool: 'search', args: { q: 'new' } }).decision).to.include({ action: 'refuse', reason: 'run.stopped' });
    expect(looping.shouldStop()).to.include({ action: 'stop', reason: 'stale_rounds' });
  });

  it('issue 10 #2: at the open-run cap an evicted live run fails open: unguarded, counted, warned once', () => {
    const { guard, warnings, evicted } = engineWithClock({ maxOpenRuns: 2 });
    const [a, b] = ['a', 'b'].map((id) => guard.startRun(id)) as [RunGuard, RunGuard];
    callOnce(a, { q: 1 });
    callOnce(b, { q: 1 });
    callOnce(b, { q: 2 });
    guard.startRun('c'); // 'a' is the least recently active
    expect(a.isEnded).to.equal(true);
    expect(b.isEnded).to.equal(false);
    expect(evicted).to.deep.equal([{ id: 'a', cause: 'max_open_runs' }]);
    // The evicted agent keeps working: nothing it does is refused, and shouldStop never stops it.
    for (let i = 0; i < 4; i++) {
      const decision = callOnce(a, { q: 'same' });
      expect(decision, `call ${i}`).to.include({ action: 'allow', kind: 'unguarded' });
      expect(a.shouldStop().action).to.equal('continue');
    }
    expect(a.isUnguarded).to.equal(true);
    const aboutA = warnings.filter((warning) => warning.includes('"a"') && warning.includes('unguarded'));
    expect(aboutA, warnings.join('\n')).to.have.length(1);
  });

  it('issue 10 #2: every evicted run that keeps working is warned about, once each', () => {
    const { guard, warnings, evicted } = engineWithClock({ maxOpenRuns: 3 });
    const runs = Array.from({ length: 6 }, (_, i) => guard.startRun(`r${i}`));
    expect(evicted.map((e) => e.id)).to.deep.equal(['r0', 'r1', 'r2']);
    for (const run of runs.slice(0, 3)) for (let i = 0; i < 3; i++) callOnce(run, { q: i });
    for (const id of ['r0', 'r1', 'r2']) {
      expect(warnings.filter((warning) => warning.includes(`"${id}"`) && warning.includes('unguarded')), id).to.have.length(1);
    }
  });

  it('issue 10 #2: eviction never takes a run with a call in flight while another can go', () => {
    const { guard, clock } = engineWithClock({ maxOpenRuns: 2 });
    const busy = guard.startRun('busy');
    busy.beginRound();
    const pending = busy.startCall({ tool: 'build', args: {} });
    clock.now += 1_000;
    const quiet = guard.startRun('quiet');
    callOnce(quiet, { q: 1 });
    guard.startRun('new');
    expect(busy.isEnded, 'the run with a call in flight was evicted').to.equal(false);
    expect(quiet.isEnded).to.equal(true);
    busy.finishCall(pending, { result: { ok: true } });
    expect(callOnce(busy, { q: 'next' })).to.include({ action: 'allow', kind: 'new' });
  });

  it('issue 10 #2: when every open run has a call in flight, the least recently active goes, still failing open', () => {
    const { guard, clock } = engineWithClock({ maxOpenRuns: 2 });
    const first = guard.startRun('first');
    first.beginRound();
    const firstPending = first.startCall({ tool: 'build', args: {} });
    clock.now += 1_000;
    const second = guard.startRun('second');
    second.beginRound();
    second.startCall({ tool: 'build', args: {} });
    guard.startRun('third');
    expect(first.isEnded).to.equal(true);
    expect(second.isEnded).to.equal(false);
    expect(first.finishCall(firstPending, { result: { ok: true } })).to.be.oneOf(['new', 'neutral']);
    expect(first.startCall({ tool: 'build', args: {} }).decision).to.include({ action: 'allow', kind: 'unguarded' });
  });

  it('issue 10 #4: run.end() unregisters the run exactly like guard.endRun', () => {
    const { guard, ended } = engineWithClock();
    const turn1 = guard.startRun('conversation-1');
    callOnce(turn1, { q: 'weather' });
    turn1.end();
    expect(guard.stats().openRuns).to.equal(0);
    expect([...guard.runs()]).to.deep.equal([]);
    expect(ended).to.deep.equal(['conversation-1']);
    turn1.end();
    guard.endRun('conversation-1');
    expect(ended, 'ending twice tells listeners once').to.deep.equal(['conversation-1']);
    const turn2 = guard.startRun('conversation-1');
    expect(turn2).to.not.equal(turn1);
    expect(turn2.isEnded).to.equal(false);
    expect(callOnce(turn2, { q: 'weather' })).to.include({ action: 'allow', kind: 'new' });
    expect(guard.stats().openRuns).to.equal(1);
  });

  it('issue 10 #12: ended runs kept for endedRunTtlMs are bounded by count (maxOpenRuns), oldest dropped first', () => {
    const { guard } = engineWithClock({ maxOpenRuns: 3, endedRunTtlMs: 60 * MINUTE });
    for (let i = 0; i < 10; i++) {
      const run = guard.startRun(`ended-${i}`);
      callOnce(run, { q: i });
      if (i % 2 === 0) run.end();
      else guard.endRun(run.id);
    }
    const kept = Array.from({ length: 10 }, (_, i) => guard.getRun(`ended-${i}`) !== undefined);
    expect(kept).to.deep.equal([false, false, false, false, false, false, false, true, true, true]);
  });

  it('issue 10 #12: runs evicted at the cap are bounded by count too', () => {
    const { guard } = engineWithClock({ maxOpenRuns: 2, endedRunTtlMs: 60 * MINUTE });
    for (let i = 0; i < 10; i++) guard.startRun(`open-${i}`);
    const known = Array.from({ length: 10 }, (_, i) => guard.getRun(`open-${i}`) !== undefined);
    // Two open (8, 9) and the two most recently evicted (6, 7).
    expect(known).to.deep.equal([false, false, false, false, false, false, true, true, true, true]);
  });
});
