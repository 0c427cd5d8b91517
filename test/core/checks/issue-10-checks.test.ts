import { expect } from 'chai';
import type { LoopGuardEngineOptions } from '../../../src/core/loop-guard.js';
import type { RefuseDecision, RunDecision } from '../../../src/core/types.js';
import { newRun, playRounds, sameDocuments, type ScriptedCall } from '../play.js';

/** The round a scripted loop stops at (Infinity when it never does). */
function stopRound(options: LoopGuardEngineOptions, rounds: ScriptedCall[][]): number {
  const log = playRounds(newRun(options), rounds);
  return log.at(-1)!.after.action === 'stop' ? log.length : Infinity;
}

const reworded = (round: number): ScriptedCall => ({ tool: 'search_docs', args: { query: `refund policy wording ${round}` }, outcome: { result: sameDocuments } });

describe('issue 10: decision logic', () => {
  describe('issue 10 #5: the ladder never delays the stop', () => {
    const tools = { wait_for_subagent: { exempt: true }, check_job: { poll: { deadlineMs: 3_600_000 } } };
    // Round 1 also fetches a page, so search_docs is not the run's last tool and the ladder
    // really switches it off; every later round pairs the reworded search with a call that
    // is neutral by construction (an exempt wait, an identical poll inside its window).
    const loopWith = (neutral: (round: number) => ScriptedCall): ScriptedCall[][] => [
      [reworded(0), { tool: 'fetch_page', args: { url: 'u0' }, outcome: { result: { body: 'page' } } }, neutral(0)],
      ...Array.from({ length: 29 }, (_, i) => [neutral(i + 1), reworded(i + 1)]),
    ];
    const wait = (round: number): ScriptedCall => ({ tool: 'wait_for_subagent', args: { id: 'A' }, at: round * 1_000, outcome: { result: { status: 'running' } } });
    const poll = (round: number): ScriptedCall => ({ tool: 'check_job', args: { job: 'J1' }, at: round * 1_000, outcome: { result: { status: 'running' } } });

    for (const [name, neutral] of [['an exempt wait', wait], ['an in-window poll', poll]] as const) {
      it(`issue 10 #5: a reworded-search loop with ${name} stops no later with the ladder on than off`, () => {
        const rounds = loopWith(neutral);
        const off = stopRound({ tools, escalation: { enabled: false } }, rounds);
        const log = playRounds(newRun({ tools }), rounds);
        const on = log.at(-1)!.after.action === 'stop' ? log.length : Infinity;
        expect(off).to.equal(6);
        expect(on).to.be.at.most(off);
        // The ladder did act: the search was switched off before the stop.
        expect(log.some((round) => round.decisions.some((d) => d.action === 'refuse' && d.reason === 'tool.disabled'))).to.equal(true);
      });
    }

    it('issue 10 #5: over many scripted loops mixing neutral calls, refusals and seen results, the ladder never stops later', () => {
      let seed = 10;
      const random = (): number => ((seed = (seed * 1103515245 + 12345) % 2147483648) / 2147483648);
      const kinds = ['search', 'search', 'wait', 'poll', 'grep', 'seenPage', 'write', 'none'] as const;
      for (let script = 0; script < 150; script++) {
        const rounds: ScriptedCall[][] = [[reworded(0), { tool: 'fetch_page', args: { url: 'u0' }, outcome: { result: { body: 'page' } } }, { tool: 'bash', args: { command: 'ls' }, outcome: { result: 'a b' } }]];
        let n = 0;
        for (let round = 1; round < 30; round++) {
          const calls: ScriptedCall[] = [];
          for (let c = 0; c < 1 + Math.floor(random() * 3); c++) {
            n += 1;
            const kind = kinds[Math.floor(random() * kinds.length)]!;
            if (kind === 'search') calls.push(reworded(100 + n));
            if (kind === 'wait') calls.push(wait(round));
            if (kind === 'poll') calls.push(poll(round));
            if (kind === 'grep') calls.push({ tool: 'bash', args: { command: `grep x${n} f.txt` }, outcome: { result: 'same line' } });
            if (kind === 'seenPage') calls.push({ tool: 'fetch_page', args: { url: `u${n}` }, outcome: { result: { body: 'page' } } });
            if (kind === 'write') calls.push({ tool: 'save_note', args: { n }, outcome: { result: 'saved' } });
          }
          rounds.push(calls);
        }
        for (const profile of ['general', 'researcher', 'chat'] as const) {
          const options = { profile, tools: { ...tools, save_note: { writes: true } } };
          const on = stopRound(options, rounds);
          const off = stopRound({ ...options, escalation: { enabled: false } }, rounds);
          expect(on, `script ${script}, ${profile}`).to.be.at.most(off);
        }
      }
    });
  });

  describe('issue 10 #6: a declared retry budget is not cut short by other checks', () => {
    const locked = { error: { type: 'LedgerLocked', message: 'ledger is locked by another job' } };
    const call = (outcome: ScriptedCall['outcome']): ScriptedCall => ({ tool: 'post_ledger', args: { entry: 'E-1' }, outcome });
    const sixFailuresThenSuccess = [...Array.from({ length: 6 }, () => [call(locked)]), [call({ result: { posted: true } })]];

    it('issue 10 #6: with retries 8, six failures then success runs to the success (not consecutive_failures)', () => {
      const log = playRounds(newRun({ tools: { post_ledger: { retries: 8 } } }), sixFailuresThenSuccess);
      expect(log).to.have.length(7);
      expect(log.map((round) => round.decisions[0]!.action)).to.deep.equal(Array(7).fill('allow'));
      expect(log.every((round) => round.after.action === 'continue')).to.equal(true);
    });

    it('issue 10 #6: raising consecutiveFailures does not move the cut to stale_rounds (retries within budget are not stale)', () => {
      const log = playRounds(newRun({ consecutiveFailures: 20, tools: { post_ledger: { retries: 8 } } }), sixFailuresThenSuccess);
      expect(log).to.have.length(7);
      expect(log.every((round) => round.after.action === 'continue')).to.equal(true);
    });

    it('issue 10 #6: once the declared budget is spent the retries count at once: the failure that spends it stops the run', () => {
      const log = playRounds(newRun({ tools: { post_ledger: { retries: 8 } } }), Array.from({ length: 30 }, () => [call(locked)]));
      // 1 attempt + 8 retries, all failing: stopped right there, not after 5 more refused rounds.
      expect(log).to.have.length(9);
      expect(log.at(-1)!.after).to.include({ action: 'stop', reason: 'consecutive_failures' });
      expect(log.every((round) => round.decisions[0]!.action === 'allow')).to.equal(true);
    });

    it('issue 10 #6: the default budget (5) takes effect: a transient failure five times then success on the 6th attempt', () => {
      const badGateway = { error: { status: 502, type: 'BadGateway', message: '502 Bad Gateway' } };
      const rpc = (outcome: ScriptedCall['outcome']): ScriptedCall => ({ tool: 'billing_rpc', args: { invoice: 'INV-7' }, outcome });
      const log = playRounds(newRun(), [...Array.from({ length: 5 }, () => [rpc(badGateway)]), [rpc({ result: { paid: true } })]]);
      expect(log).to.have.length(6);
      expect(log.at(-1)!.decisions[0]).to.include({ action: 'allow', kind: 'retry' });
      expect(log.every((round) => round.after.action === 'continue')).to.equal(true);
    });

    it('issue 10 #6: failures with different arguments still count at once (not retries)', () => {
      const log = playRounds(newRun({ tools: { post_ledger: { retries: 8 } } }), Array.from({ length: 8 }, (_, i) => [{ tool: 'post_ledger', args: { entry: `E-${i}` }, outcome: locked }]));
      expect(log).to.have.length(5);
      expect(log.at(-1)!.after).to.include({ action: 'stop', reason: 'consecutive_failures' });
    });
  });

  describe('issue 10 #10: a timed-out write is not re-run blindly', () => {
    const timedOut = { error: { code: 'ETIMEDOUT', message: 'connect ETIMEDOUT 10.0.0.7:443' } };
    const send: ScriptedCall = { tool: 'send_email', args: { to: 'ana@example.com', subject: 'Invoice' }, outcome: timedOut };
    const tools = { send_email: { approval: true }, list_sent: { readOnly: true }, search: { readOnly: true } };

    it('issue 10 #10: an identical approval write after a timeout is refused with write.outcome_unknown, telling the model to check first', () => {
      const log = playRounds(newRun({ tools }), [[send], [send], [send]]);
      expect(log[0]!.decisions[0]).to.include({ action: 'allow' });
      const refusal = log[1]!.decisions[0] as RefuseDecision;
      expect(refusal).to.include({ action: 'refuse', reason: 'write.outcome_unknown' });
      expect(refusal.message).to.match(/may have (run|gone through)/i).and.match(/check/i);
      expect(log[2]!.decisions[0]).to.include({ action: 'refuse', reason: 'write.outcome_unknown' });
    });

    it('issue 10 #10: the same holds in every profile and for a declared write whose outcome arrives prehashed', () => {
      for (const profile of ['general', 'researcher', 'chat'] as const) {
        const run = newRun({ profile, tools: { create_ticket: { writes: true } } });
        run.beginRound();
        const call = { tool: 'create_ticket', argsHash: run.argsHash('create_ticket', { title: 'x' }) };
        const first = run.startCall(call);
        run.finishCall(first, { outcome: 'timeout' });
        expect(run.shouldRefuse(call), profile).to.include({ action: 'refuse', reason: 'write.outcome_unknown' });
      }
    });

    it('issue 10 #10: once the model has looked (another call ran), the identical write may be retried', () => {
      const log = playRounds(newRun({ tools }), [[send], [{ tool: 'list_sent', args: { to: 'ana@example.com' }, outcome: { result: { sent: [] } } }], [{ ...send, outcome: { result: { id: 'm-1' } } }]]);
      expect(log[2]!.decisions[0]).to.include({ action: 'allow', kind: 'retry' });
    });

    it('issue 10 #10: a bash-only agent (span calls, taken to write) can re-run a timed-out command once another ran', () => {
      const run = newRun();
      run.beginRound();
      const slow = { tool: 'bash', argsHash: run.argsHash('bash', { command: 'npm test' }) };
      run.finishCall(run.startCall(slow), { outcome: 'timeout' });
      expect(run.shouldRefuse(slow)).to.include({ action: 'refuse', reason: 'write.outcome_unknown' });
      run.finishCall(run.startCall({ tool: 'bash', argsHash: run.argsHash('bash', { command: 'ls' }) }), { outcome: 'success', resultHash: 'listing' });
      expect(run.shouldRefuse(slow)).to.include({ action: 'allow', kind: 'retry' });
    });

    it('issue 10 #10: a timed-out read keeps retrying as before', () => {
      const read: ScriptedCall = { tool: 'search', args: { q: 'invoice' }, outcome: timedOut };
      const log = playRounds(newRun({ tools }), [[read], [read], [{ ...read, outcome: { result: { hits: 3 } } }]]);
      expect(log.map((round) => round.decisions[0])).to.satisfy((ds: Array<{ action: string }>) => ds.every((d) => d.action === 'allow'));
      expect(log[1]!.decisions[0]).to.include({ kind: 'retry' });
    });

    it('issue 10 #10: a write turned away by an overloaded server (it did not run) may be retried', () => {
      const busy: ScriptedCall = { ...send, outcome: { error: { status: 429, message: 'rate limited' } } };
      const log = playRounds(newRun({ tools }), [[busy], [busy]]);
      expect(log[1]!.decisions[0]).to.include({ action: 'allow', kind: 'retry' });
    });
  });

  describe('issue 10 #11: stalled progress goes through the ladder', () => {
    const playStalled = (options: LoopGuardEngineOptions): RunDecision[] => {
      const run = newRun(options);
      const afters: RunDecision[] = [];
      for (let i = 0; i < 20; i++) {
        run.beginRound();
        run.recordCall({ tool: 'fill_field', args: { i } }, { result: { accepted: i } });
        run.reportState({ fieldsFilled: ['name'] });
        const after = run.shouldStop();
        afters.push(after);
        if (after.action === 'stop') break;
      }
      return afters;
    };

    it('issue 10 #11: a nudge comes before the stalled_progress stop, and the stop is not delayed', () => {
      const withLadder = playStalled({});
      const withoutLadder = playStalled({ escalation: { enabled: false } });
      expect(withLadder.at(-1)).to.include({ action: 'stop', reason: 'stalled_progress' });
      expect(withLadder).to.have.length(withoutLadder.length);
      const nudges = withLadder.filter((after) => after.action === 'continue' && after.nudge !== undefined);
      expect(nudges.length).to.be.greaterThan(0);
      // Nudged from the first stalled round on (nudgeAfter 1), like stale rounds.
      expect(withLadder[1]).to.have.property('nudge').that.matches(/progress/i);
      expect(withLadder[0]).to.not.have.property('nudge');
      expect(withoutLadder.some((after) => after.action === 'continue' && after.nudge !== undefined)).to.equal(false);
    });
  });
});
