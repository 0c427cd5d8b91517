import { expect } from 'chai';
import { LoopGuardConfigError } from '../../src/core/errors.js';
import { LoopGuard } from '../../src/core/loop-guard.js';
import type { LoopGuardListener, RoundSummary, StopDecision } from '../../src/core/types.js';
import { sameDocuments } from './play.js';

function quietGuard(options: ConstructorParameters<typeof LoopGuard>[0] = {}) {
  const warnings: string[] = [];
  const guard = new LoopGuard({ logger: { warn: (message) => warnings.push(message) }, ...options });
  return { guard, warnings };
}

describe('LoopGuard', () => {
  it('keeps many open runs apart: the same call in two runs is new in each', () => {
    const { guard } = quietGuard();
    const runs = ['a', 'b', 'c'].map((id) => guard.startRun(id));
    for (const run of runs) run.beginRound();
    // Interleave: a1 b1 c1 a2 b2 c2 ...
    for (let i = 0; i < 3; i++) {
      for (const run of runs) {
        const { decision } = run.recordCall({ tool: 'search', args: { q: `${run.id}-${i}` } }, { result: sameDocuments });
        expect(decision.action).to.equal('allow');
      }
    }
    const first = runs.map((run) => run.recordCall({ tool: 'search', args: { q: 'shared' } }, { result: { only: run.id } }).decision.action);
    expect(first).to.deep.equal(['allow', 'allow', 'allow']);
    expect(runs.map((run) => run.partial().newFacts)).to.deep.equal([2, 2, 2]);
  });

  it('returns the open run for an id that is already open', () => {
    const { guard } = quietGuard();
    expect(guard.startRun('x')).to.equal(guard.startRun('x'));
  });

  it('evicts the least recently active run past maxOpenRuns, warning once', () => {
    const { guard, warnings } = quietGuard({ maxOpenRuns: 3 });
    const [a, b, c] = ['a', 'b', 'c'].map((id) => guard.startRun(id));
    a!.recordCall({ tool: 't' }, { result: 1 });
    guard.startRun('d');
    guard.startRun('e');
    expect([...guard.runs()].map((run) => run.id).sort()).to.deep.equal(['a', 'd', 'e']);
    expect(b!.isEnded && c!.isEnded).to.equal(true);
    expect(warnings).to.have.length(1);
    expect(warnings[0]).to.include('maxOpenRuns');
  });

  it('evicts in order of last activity through repeated calls of one run, ends and restarts (against a model)', () => {
    // The run touched last is not re-inserted again (backRun): eviction order must not notice.
    const { guard } = quietGuard({ maxOpenRuns: 4 });
    const model: string[] = []; // open run ids, least recently active first
    const activate = (id: string) => {
      const at = model.indexOf(id);
      if (at >= 0) model.splice(at, 1);
      model.push(id);
    };
    let seed = 7;
    const random = (n: number) => ((seed = (seed * 1103515245 + 12345) % 2 ** 31) % n);
    for (let step = 0; step < 3000; step++) {
      const id = `r${random(7)}`;
      const action = random(10);
      if (action === 0) {
        guard.endRun(id);
        const at = model.indexOf(id);
        if (at >= 0) model.splice(at, 1);
      } else {
        const open = model.includes(id);
        if (!open && model.length >= 4) model.shift();
        // Starting an open run returns it untouched; a call is activity.
        const run = guard.startRun(id);
        if (!open) activate(id);
        if (action > 3) {
          run.recordCall({ tool: 't', args: { step } }, { result: step });
          activate(id);
        }
      }
      expect([...guard.runs()].map((run) => run.id), `step ${step}`).to.deep.equal(model);
    }
  });

  it('keeps ended runs queryable for the TTL, then forgets them', () => {
    let now = 1_000;
    const { guard } = quietGuard({ endedRunTtlMs: 5_000, now: () => now });
    guard.startRun('old').recordCall({ tool: 't' }, { result: 1 });
    guard.endRun('old');
    expect(guard.getRun('old')?.isEnded).to.equal(true);
    now += 6_000;
    guard.startRun('new');
    expect(guard.getRun('old')).to.equal(undefined);
  });

  it('ends runs nobody ends once they are idle for maxIdleMs, telling listeners', () => {
    let now = 0;
    const ended: string[] = [];
    const { guard } = quietGuard({ maxIdleMs: 1_000, now: () => now, listeners: [{ runEnded: (run) => ended.push(run.id) }] });
    const forgotten = guard.startRun('forgotten');
    const busy = guard.startRun('busy');
    now = 900;
    busy.recordCall({ tool: 't' }, { result: 1 });
    now = 1_500;
    guard.startRun('next');
    expect(forgotten.isEnded).to.equal(true);
    expect(busy.isEnded).to.equal(false);
    expect(ended).to.deep.equal(['forgotten']);
  });

  it('bounds memory over many runs started and ended', () => {
    const { guard } = quietGuard({ endedRunTtlMs: 0 });
    for (let i = 0; i < 20_000; i++) {
      const run = guard.startRun(`r${i}`);
      run.recordCall({ tool: 't', args: { i } }, { result: { i } });
      guard.endRun(run.id);
    }
    expect(guard.stats().openRuns).to.equal(0);
    expect(guard.getRun('r0')).to.equal(undefined);
  });

  it('tells listeners about decisions, rounds and the stop, and survives a listener that throws', () => {
    const { guard, warnings } = quietGuard();
    const rounds: RoundSummary[] = [];
    const stops: StopDecision[] = [];
    guard.addListener({ callDecided: () => { throw new Error('telemetry exploded'); } });
    const listener: LoopGuardListener = { roundClosed: (_run, summary) => rounds.push(summary), runStopped: (_run, decision) => stops.push(decision) };
    guard.addListener(listener);
    const run = guard.startRun('r', { tenant: 'acme' });
    for (let i = 0; i < 8 && run.shouldStop().action === 'continue'; i++) {
      run.beginRound();
      run.recordCall({ tool: 'search', args: { q: i } }, { result: sameDocuments });
    }
    run.shouldStop();
    guard.endRun('r');
    expect(rounds.map((round) => round.verdict)).to.deep.equal(['new', 'stale', 'stale', 'stale', 'stale', 'stale']);
    expect(stops).to.have.length(1);
    expect(stops[0]).to.include({ reason: 'stale_rounds' });
    expect(warnings.some((warning) => warning.includes('telemetry exploded'))).to.equal(true);
  });

  // Anything can be thrown. String() of an object without a prototype throws too, and it did
  // so inside the catch meant to keep the listener's failure out of the agent loop.
  it('survives a listener that throws something String() cannot read (an object without a prototype)', () => {
    const { guard, warnings } = quietGuard();
    guard.addListener({ callDecided: () => { throw Object.create(null); } });
    const run = guard.startRun('r');
    expect(() => run.recordCall({ tool: 'search', args: { q: 1 } }, { result: sameDocuments })).not.to.throw();
    expect(warnings.some((warning) => warning.startsWith('listener callDecided threw'))).to.equal(true);
  });

  it('counts runs at risk (stale or refused streak of 2+) for the early-warning gauge', () => {
    const { guard } = quietGuard();
    const healthy = guard.startRun('healthy');
    const stalling = guard.startRun('stalling');
    for (let i = 0; i < 3; i++) {
      healthy.beginRound();
      healthy.recordCall({ tool: 'fetch', args: { i } }, { result: { i } });
      stalling.beginRound();
      stalling.recordCall({ tool: 'search', args: { q: i } }, { result: sameDocuments });
    }
    expect(guard.stats()).to.deep.equal({ openRuns: 2, runsAtRisk: 1 });
  });

  it('describes its policy for the system prompt, per profile and per tool', () => {
    const { guard } = quietGuard({ profile: 'researcher', tools: { check_job_status: { poll: { deadlineMs: 120_000, minIntervalMs: 5_000 } }, list_issues: { cursorArg: 'cursor' } } });
    const text = guard.describePolicy();
    expect(text).to.include('Do not repeat a call with the same tool and the same arguments');
    expect(text).to.include('check_job_status is a status check').and.include('120 s').and.include('5000 ms');
    expect(text).to.include('list_issues pages through results').and.include('`cursor`');
    expect(quietGuard({ profile: 'chat' }).guard.describePolicy()).to.include('3 times in a row is refused');
    // The general profile tells the model how to wait (polls it infers: a status still moving, a shell sleep).
    const general = quietGuard({ shellPollDeadlineMs: 300_000 }).guard.describePolicy();
    expect(general).to.include('still moving').and.include('for up to 5 min; after 10 unchanged answers, one look every 20 s').and.include('`sleep 30 && <command>`');
  });

  // A logger is the user's code, like a listener: a transport that throws once made every call
  // that warned (a store outage, a run evicted past maxOpenRuns, a business key that cannot
  // be read) throw into the agent.
  it('a logger that throws never breaks a call: the warning is dropped, the decision made', async () => {
    const down = (): Promise<never> => Promise.reject(new Error('connect ECONNREFUSED'));
    const store = { appendRunEvents: down, readRunEvents: down, claimBusinessKey: down, takeOverBusinessKey: down, completeBusinessKey: down, releaseBusinessKey: down };
    let tried = 0;
    const logger = { warn: () => { tried += 1; throw new Error('log transport closed'); } };
    const guard = new LoopGuard({ store, logger, maxOpenRuns: 1, idempotentWrites: { send_email: { key: ['to'] } } });
    for (const id of ['a', 'b']) {
      const run = guard.startRun(id); // 'b' evicts 'a', with a warning
      const read = await run.claimCall({ tool: 'search', args: { q: id } });
      expect(read.decision.action, 'fails open on the store').to.equal('allow');
      run.finishCall(read, { result: ['doc'] });
      expect((await run.claimCall({ tool: 'send_email', args: { to: id } })).decision).to.include({ action: 'refuse', reason: 'store.unavailable' });
      expect((await run.claimCall({ tool: 'send_email', args: {} })).decision.action, 'no key: runs, with a warning').to.equal('allow');
    }
    await guard.flush();
    expect(tried, 'the warnings were attempted').to.be.greaterThan(2);
  });

  it('rejects bad housekeeping options at construction, naming the field (issue 10 #16)', () => {
    expect(() => quietGuard({ maxOpenRuns: -5 })).to.throw(LoopGuardConfigError, /maxOpenRuns: must be a positive whole number, got -5/);
    expect(() => quietGuard({ maxOpenRuns: -5 })).to.throw(LoopGuardConfigError).with.property('field', 'maxOpenRuns');
  });
});
