import { expect } from 'chai';
import { isAcknowledgement } from '../../../src/core/world-state/is-acknowledgement.js';
import { newRun, playRounds } from '../play.js';

describe('world-state/is-acknowledgement (issue 24 #5)', () => {
  it('knows the acknowledgements real APIs send', () => {
    for (const ack of [{ ok: true }, { success: true }, { acknowledged: true }, { status: 'ok' }, { ok: true, error: null }, { data: { issueAddLabel: { success: true } } }, true]) {
      expect(isAcknowledgement(ack), JSON.stringify(ack)).to.equal(true);
    }
  });

  it('a result with a fact in it, or a refusal, is no acknowledgement', () => {
    for (const data of [{ ok: false }, { ok: true, id: 'ENG-1207' }, { status: 'in_progress' }, { success: true, count: 3 }, {}, [], 'Label added to ENG-1207', 'OK.', false, null, { data: { issue: { id: 'ENG-1', title: 'x' } } }]) {
      expect(isAcknowledgement(data), JSON.stringify(data)).to.equal(false);
    }
  });

  it('a verdict of yes/no flags or a settled state is one too: it tells about what the call asked; data, a failure, a state still moving, one word under another name are not', () => {
    for (const verdict of [{ in_stock: true }, { available: false }, { available: true, backorder: false }, { data: { isMember: false } }, { status: 'delivered' }, { order_status: 'In Transit', gift: false }]) {
      expect(isAcknowledgement(verdict), JSON.stringify(verdict)).to.equal(true);
    }
    const notVerdicts: unknown[] = [{ in_stock: true, quantity: 3 }, { available: false, next_date: '2026-12-09' }, { success: false }, { ok: false, retry: true }, { a: true, b: true, c: true, d: true }];
    notVerdicts.push({ status: 'failed' }, { status: 'not_found' }, { status: 'running' }, { state: 'JOB_STATE_PENDING' }, { status: 'W1234' }, { answer: 'same' }, { label: 'spam' });
    for (const data of notVerdicts) {
      expect(isAcknowledgement(data), JSON.stringify(data)).to.equal(false);
    }
  });

  it('through the engine: the status of eight orders, all delivered, keeps the run going; eight reworded questions answered the same word are stale', () => {
    const run = newRun();
    const log = playRounds(run, Array.from({ length: 8 }, (_, i) => [{ tool: 'get_order_status', args: { order_id: `#W${1000 + i}` }, outcome: { result: { status: 'delivered' } } }]));
    expect(log.map((round) => round.after.action)).to.deep.equal(Array(8).fill('continue'));
    const reworded = playRounds(newRun(), Array.from({ length: 8 }, (_, i) => [{ tool: 'ask_kb', args: { question: `how long is the refund window, take ${i}` }, outcome: { result: { answer: 'thirty days' } } }]));
    expect(reworded.at(-1)!.after).to.include({ action: 'stop', reason: 'stale_rounds' });
  });

  it('through the engine: a stock check of eight items, all in stock, keeps the run going; the same item asked again is a repeat', () => {
    const run = newRun();
    const log = playRounds(run, Array.from({ length: 8 }, (_, i) => [{ tool: 'check_stock', args: { sku: `SKU-${i}` }, outcome: { result: { in_stock: true } } }]));
    expect(log.map((round) => round.after.action)).to.deep.equal(Array(8).fill('continue'));
    expect(run.staleRoundStreak).to.equal(0);
    const again = newRun();
    const againLog = playRounds(again, Array.from({ length: 6 }, () => [{ tool: 'check_stock', args: { sku: 'SKU-1' }, outcome: { result: { in_stock: true } } }]));
    expect(againLog.some((round) => round.decisions[0]!.action === 'refuse')).to.equal(true);
  });

  it('through the engine: {"ok":true} for 12 different targets keeps the run going; a changed answer is still new', () => {
    const run = newRun();
    const log = playRounds(run, Array.from({ length: 12 }, (_, i) => [{ tool: 'label_issue', args: { issue: `ENG-${i}` }, outcome: { result: { ok: true } } }]));
    expect(log.every((round) => round.decisions[0]!.action === 'allow' && round.after.action === 'continue')).to.equal(true);
    expect(run.staleRoundStreak).to.equal(0);
    // The same tool answering with data that repeats is judged as data: stale, then stopped.
    const data = newRun();
    const dataLog = playRounds(data, Array.from({ length: 12 }, (_, i) => [{ tool: 'label_issue', args: { issue: `ENG-${i}` }, outcome: { result: { ok: true, labels: ['triage'] } } }]));
    expect(dataLog.at(-1)!.after).to.include({ action: 'stop', reason: 'stale_rounds' });
  });
});
