import { expect } from 'chai';
import { MAX_COUNTED_TEXT, withoutAttemptCounter } from '../../../src/core/noise/attempt-counter-in-text.js';
import { kinds, newRun, playRounds } from '../play.js';

describe('noise/attempt-counter-in-text: a retry\'s own count in a short answer', () => {
  it('replaces the count in its usual spellings, and nothing else', () => {
    expect(withoutAttemptCounter('Search failed (attempt 3): index refund_v2 not found')).to.equal('Search failed (attempt N): index refund_v2 not found');
    expect(withoutAttemptCounter('Attempt #12 failed: 503')).to.equal('Attempt #N failed: 503');
    expect(withoutAttemptCounter('retry 2/5: connection refused')).to.equal('retry N/5: connection refused');
    expect(withoutAttemptCounter('try 2 of 5 timed out')).to.equal('try N of 5 timed out');
    expect(withoutAttemptCounter('attempt=4 status=error')).to.equal('attempt=N status=error');
    expect(withoutAttemptCounter('gave up after 4 attempts')).to.equal('gave up after N attempts');
    // No counter: the text itself, the same string.
    const plain = 'Found 3 results for "refund policy"';
    expect(withoutAttemptCounter(plain)).to.equal(plain);
    expect(withoutAttemptCounter('Retrying is disabled for index 3')).to.equal('Retrying is disabled for index 3');
  });

  it('leaves a long text alone: a log or a page that mentions attempts is data', () => {
    const log = `attempt 1 ok\n${'x'.repeat(MAX_COUNTED_TEXT)}`;
    expect(withoutAttemptCounter(log)).to.equal(log);
  });

  it('document 003\'s runaway retry, its attempt echoed in the answer text, is refused and stopped within 5 calls, not 340', () => {
    // Before, "(attempt 1)", "(attempt 2)", … made every answer new: twelve calls, never refused.
    const calls = (answer: (attempt: number) => { result: string } | { error: { type: string; message: string } }) =>
      Array.from({ length: 12 }, (_, i) => [{ tool: 'search_docs', args: { query: 'refund policy', attempt: i + 1 }, outcome: answer(i + 1) }]);
    for (const [form, answer] of [
      ['as the answer', (attempt: number) => ({ result: `Search failed (attempt ${attempt}): index refund_v2 not found` })],
      ['thrown', (attempt: number) => ({ error: { type: 'SearchError', message: `attempt ${attempt}: index refund_v2 not found` } })],
    ] as const) {
      const log = playRounds(newRun(), calls(answer));
      expect(log.length, form).to.be.at.most(6);
      expect(log.at(-1)!.after, form).to.include({ action: 'stop' });
    }
  });

  it('document 003\'s honest retry, a 503 reported with its attempt, runs to its success', () => {
    // "Error (attempt N): 503 …" is a transient failure reported as content: the retry budget
    // applies, whatever the attempt number says. Without the count removed it ran too, each
    // answer new; with it, the budget is what lets it run, as for the thrown 503.
    const answers = ['Error (attempt 1): 503 Service Unavailable', 'Error (attempt 2): 503 Service Unavailable', 'Error (attempt 3): 503 Service Unavailable', 'Upload done: 14 files'];
    const run = newRun();
    const log = playRounds(run, answers.map((result, i) => [{ tool: 'upload_batch', args: { batch: 'b-7', attempt: i + 1 }, outcome: { result } }]));
    expect(kinds(log.flatMap((round) => round.decisions))).to.deep.equal(['allow:new', 'allow:retry', 'allow:retry', 'allow:retry']);
    expect(run.shouldStop().action).to.equal('continue');
  });
});
