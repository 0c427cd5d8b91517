import { expect } from 'chai';
import { saysNoMorePages } from '../../../src/core/world-state/says-no-more-pages.js';
import { newRun, playRounds, type ScriptedCall } from '../play.js';

describe('paging past the end (issue 24 #2)', () => {
  it('reads the end markers real APIs send, and nothing else', () => {
    for (const end of [{ data: [], has_more: false }, { results: [], next_cursor: null }, { items: [1], nextPageToken: '' }, { results: [], next: null }, { messages: [], response_metadata: { next_cursor: '' } }]) {
      expect(saysNoMorePages(end), JSON.stringify(end)).to.equal(true);
    }
    for (const more of [{ data: [1], has_more: true }, { results: [1], next_cursor: 'abc' }, { results: [1] }, [], null, 'has_more: false']) {
      expect(saysNoMorePages(more), JSON.stringify(more)).to.equal(false);
    }
  });

  const page = (query: string, at: number, cursor: string | undefined, result: unknown): ScriptedCall => ({ tool: 'list_charges', args: cursor === undefined ? { customer: query } : { customer: query, starting_after: cursor }, at, outcome: { result } });

  it('Stripe: empty pages after has_more:false are stale and stop the run; an empty page of another customer is new', () => {
    const run = newRun();
    const log = playRounds(run, [
      [page('cus_1', 0, undefined, { object: 'list', data: [{ id: 'ch_1', amount: 500 }], has_more: true })],
      [page('cus_1', 1_000, 'ch_1', { object: 'list', data: [{ id: 'ch_2', amount: 700 }], has_more: false })],
      // A different customer's empty listing: a genuinely different search, new.
      [page('cus_2', 2_000, undefined, { object: 'list', data: [], has_more: false })],
      ...Array.from({ length: 6 }, (_, i) => [page('cus_1', 3_000 + i * 1_000, `ch_${3 + i}`, { object: 'list', data: [], has_more: false })]),
    ]);
    expect(log[2]!.after).to.include({ action: 'continue' });
    expect(run.staleRoundStreak).to.be.greaterThan(0);
    expect(log.at(-1)!.after).to.include({ action: 'stop', reason: 'stale_rounds' });
    expect(log).to.have.length(8);
  });

  it('pages that still return rows are new, whatever their offset', () => {
    const run = newRun();
    const log = playRounds(run, [
      [{ tool: 'list_rows', args: { table: 'orders', offset: 0 }, outcome: { result: { rows: [{ id: 1 }] } } }],
      [{ tool: 'list_rows', args: { table: 'orders', offset: 100 }, outcome: { result: { rows: [{ id: 2 }] } } }],
    ]);
    expect(run.staleRoundStreak).to.equal(0);
    expect(log.every((round) => round.after.action === 'continue')).to.equal(true);
  });

  // Elasticsearch pages with `from` (and `size`): past the last hit every page answered the same
  // empty `hits`, each for another `from`, new forever. `from` is a page's offset only as a number:
  // a flight from "SFO", a conversion from "USD", mail from an address are what is asked.
  const esPage = (from: number): ScriptedCall => ({
    tool: 'es_search',
    args: { index: 'docs', query: { match: { body: 'refund' } }, from, size: 10 },
    outcome: { result: { took: 3, timed_out: false, hits: { total: { value: 20, relation: 'eq' }, max_score: from < 20 ? 1.2 : null, hits: from < 20 ? [{ _id: `d${from}`, _score: 1.1 }] : [] } } },
  });

  it("Elasticsearch's `from` past the last hit: the empty pages are stale and stop the run", () => {
    const log = playRounds(newRun(), Array.from({ length: 9 }, (_, page) => [esPage(page * 10)]));
    expect(log.at(-1)!.after).to.include({ action: 'stop', reason: 'stale_rounds' });
    expect(log.length).to.be.below(9);
  });

  it('a `from` that is not a number is what is asked: flights from one airport after another, none found, are new', () => {
    const log = playRounds(newRun(), ['SFO', 'OAK', 'SJC', 'SMF', 'FAT', 'MRY', 'STS', 'SCK'].map((from) => [{ tool: 'search_flights', args: { from, to: 'JFK', date: '2026-12-24' }, outcome: { result: { flights: [] } } }]));
    expect(log.map((round) => round.after.action)).to.deep.equal(Array(8).fill('continue'));
  });

  // Jira and Confluence page with `startAt` (the MCP servers' `start_at`), AWS with `NextToken`:
  // past the last issue every page answered the same `issues: []` for another `startAt`, new forever.
  const jiraPage = (startAt: number): ScriptedCall => ({
    tool: 'jira_search',
    args: { jql: 'project = OPS AND status = Open', startAt, maxResults: 50 },
    outcome: { result: { startAt, maxResults: 50, total: 42, issues: startAt === 0 ? Array.from({ length: 42 }, (_, i) => ({ key: `OPS-${i + 1}` })) : [] } },
  });

  it("Jira's `startAt` past the last issue: the empty pages are stale and stop the run", () => {
    const log = playRounds(newRun(), Array.from({ length: 9 }, (_, page) => [jiraPage(page * 50)]));
    expect(log.at(-1)!.after).to.include({ action: 'stop', reason: 'stale_rounds' });
    expect(log.length).to.be.below(9);
  });

  it('a `start_at` that is a time is what is asked: the calendar of one morning after another, empty, is new', () => {
    const log = playRounds(newRun(), Array.from({ length: 8 }, (_, day) => [{ tool: 'list_events', args: { start_at: `2026-12-${String(day + 7).padStart(2, '0')}T09:00:00Z`, calendar: 'team' }, outcome: { result: { events: [] } } }]));
    expect(log.map((round) => round.after.action)).to.deep.equal(Array(8).fill('continue'));
  });

  it("AWS's `NextToken` past the last page: the same empty page for another token is stale", () => {
    const token = (page: number) => (page === 0 ? undefined : `eyJwYWdlIjo${page}fQ==`);
    const log = playRounds(newRun(), Array.from({ length: 9 }, (_, page) => [{
      tool: 'list_log_groups',
      args: { logGroupNamePrefix: '/aws/lambda/', ...(token(page) === undefined ? {} : { NextToken: token(page) }) },
      outcome: { result: page === 0 ? { logGroups: [{ logGroupName: '/aws/lambda/api' }] } : { logGroups: [] } },
    }]));
    expect(log.at(-1)!.after).to.include({ action: 'stop', reason: 'stale_rounds' });
  });

  describe('a write in between: the list may have grown (issue 24 #2)', () => {
    const ended = [
      [page('cus_1', 0, undefined, { object: 'list', data: [{ id: 'ch_1', amount: 500 }], has_more: true })],
      [page('cus_1', 1_000, 'ch_1', { object: 'list', data: [{ id: 'ch_2', amount: 700 }], has_more: false })],
    ];
    /** Novelty of each call, in order, through the engine. */
    function novelties(rounds: ScriptedCall[][], options = {}): string[] {
      const run = newRun({ tools: { create_charge: { writes: true }, list_charges: {} }, ...options });
      const seen: string[] = [];
      for (const calls of rounds) {
        run.beginRound();
        for (const call of calls) {
          const ticket = run.startCall({ tool: call.tool, args: call.args, startTime: call.at });
          seen.push(ticket.decision.action === 'allow' ? run.finishCall(ticket, call.outcome ?? { result: { ok: true } }) : ticket.decision.reason);
        }
      }
      return seen;
    }
    // Stripe's answer to POST /v1/charges (trimmed): the new charge.
    const charge = (at: number): ScriptedCall => ({ tool: 'create_charge', args: { customer: 'cus_1', amount: 900, currency: 'usd' }, at, outcome: { result: { id: 'ch_9', object: 'charge', amount: 900, status: 'succeeded' } } });
    const emptyPage = (at: number, cursor: string) => page('cus_1', at, cursor, { object: 'list', data: [], has_more: false });

    it('after a write, the next empty page is not stale; the one after it, with nothing written, is', () => {
      const seen = novelties([...ended, [charge(2_000)], [emptyPage(3_000, 'ch_2')], [emptyPage(4_000, 'ch_3')]]);
      expect(seen.slice(3)).to.deep.equal(['new', 'seen']);
    });

    it('without the write the same empty page is stale (the twin)', () => {
      const seen = novelties([...ended, [emptyPage(3_000, 'ch_2')]]);
      expect(seen.slice(2)).to.deep.equal(['seen']);
    });

    it('a call of unknown effect of another tool clears it too; one of the listing tool itself does not', () => {
      const other: ScriptedCall = { tool: 'run_report', args: { name: 'daily' }, at: 2_000, outcome: { result: { rows: 3 } } };
      expect(novelties([...ended, [other], [emptyPage(3_000, 'ch_2')]]).at(-1)).to.equal('new');
      // Another customer's page is list_charges too: its unknown effect is the listing's own paging.
      const otherCustomer = page('cus_2', 2_000, undefined, { object: 'list', data: [{ id: 'ch_5', amount: 100 }], has_more: true });
      expect(novelties([...ended, [otherCustomer], [emptyPage(3_000, 'ch_2')]]).at(-1)).to.equal('seen');
    });
  });
});

