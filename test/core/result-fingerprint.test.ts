import { expect } from 'chai';
import { resolveOptions } from '../../src/core/policy.js';
import { classifyError, fingerprintError, fingerprintResult, isEmptyResult, isTransientError } from '../../src/core/result-fingerprint.js';

const options = resolveOptions({ tools: { weather: { volatileResult: ['observed'] } } });
const policy = options.defaultTool;
const cap = options.maxFingerprintBytes;

describe('isEmptyResult', () => {
  it('finds "zero results" in any shape by walking the value, not by a list of keys', () => {
    for (const empty of [null, undefined, '', 0, false, [], {}, { items: [], count: 0 }, { rows: [], rowCount: 0 }, { a: { b: [null, '', { c: false }] } }]) {
      expect(isEmptyResult(empty), JSON.stringify(empty)).to.equal(true);
    }
  });
  it('sees a single fact anywhere', () => {
    for (const full of [1, 'x', true, [0, 0, 1], { items: [], count: 0, note: 'n' }, { a: { b: [null, { c: -1 }] } }]) {
      expect(isEmptyResult(full), JSON.stringify(full)).to.equal(false);
    }
  });
});

describe('fingerprintResult', () => {
  it('marks a short error answer saying what its arguments name does not exist (issue 18 #3), and nothing else', () => {
    for (const answer of ['Error: user not found', 'ERROR: Order #W123 does not exist', '  Exception: no such product', '{"error":"Order not found"}', { error: 'User not found' }]) {
      expect(fingerprintResult(answer, policy, cap), JSON.stringify(answer)).to.include({ outcome: 'success', aboutArguments: true });
    }
    const longPage = `Error: not found${' '.repeat(600)}`;
    for (const data of ['Found 3 users', 'Searched the wiki: page not found in index 2, showing page 3', 'Error: the order is archived', longPage, { message: 'not found', error: 42 }, ['Error: not found']]) {
      expect(fingerprintResult(data, policy, cap), JSON.stringify(data).slice(0, 40)).not.to.have.property('aboutArguments');
    }
  });

  it('marks a one-line plain answer that opens by rejecting its argument (WorkBench sandbox tools), and not a shell program saying so', () => {
    const rejections = [
      "Value to plot must be one of 'total_visits', 'session_duration_seconds', 'user_engaged'",
      'Assignee email not valid. Please choose from the list of team members.',
      'Invalid recipient email address.',
      'End date not provided.',
      'Email not found.',
      'Error: value must be one of a, b',
    ];
    for (const answer of rejections) {
      expect(fingerprintResult(answer, policy, cap), answer).to.include({ outcome: 'success', aboutArguments: true });
    }
    const data = [
      'The quarterly report says the key metric was not valid for Q3 because the source data arrived late.',
      'Found 2 events.\nEnd date not provided.',
      'no results',
      'No matches for that query',
      `Email not found.${' and more'.repeat(30)}`,
    ];
    for (const answer of data) expect(fingerprintResult(answer, policy, cap), answer.slice(0, 40)).not.to.have.property('aboutArguments');
    const shell = resolveOptions({}).tool('bash');
    expect(fingerprintResult('/bin/bash: line 1: xxd: command not found', shell, cap)).not.to.have.property('aboutArguments');
  });

  it('marks a rejection that names what it rejects before saying so, and not one naming what is accepted', () => {
    const naming = [
      "Error executing query: Table 'course_teach.teachers' doesn't exist",
      'Error: user "bob@example.com" not found',
      'Error: file `src/x.py` does not exist',
    ];
    for (const answer of naming) expect(fingerprintResult(answer, policy, cap), answer).to.include({ aboutArguments: true, namesRejected: true });
    const notNaming = ["Value to plot must be one of 'total_visits', 'user_engaged'", 'Email not found.', 'Error: user not found', "Error: not found in 'index 2'"];
    for (const answer of notNaming) expect(fingerprintResult(answer, policy, cap), answer).to.include({ aboutArguments: true }).and.not.to.have.property('namesRejected');
    expect(fingerprintError({ type: 'ProgrammingError', message: "Table 'shop.teachers' doesn't exist" })).to.include({ aboutArguments: true, namesRejected: true });
    expect(fingerprintError({ type: 'NotFound', message: 'user not found' })).to.include({ aboutArguments: true }).and.not.to.have.property('namesRejected');
  });

  it('gives empty results no fingerprint', () => {
    expect(fingerprintResult({ items: [], count: 0 }, policy, cap)).to.deep.equal({ outcome: 'empty' });
    expect(fingerprintResult('   ', policy, cap)).to.deep.equal({ outcome: 'empty' });
    expect(fingerprintResult('{"rows":[],"rowCount":0}', policy, cap)).to.deep.equal({ outcome: 'empty' });
  });

  it('fingerprints a result the same as an object and as JSON text', () => {
    const value = { items: [{ id: 1 }], total: 1 };
    const fromObject = fingerprintResult(value, policy, cap);
    expect(fromObject.outcome).to.equal('success');
    expect(fromObject.resultHash).to.be.a('string');
    expect(fingerprintResult(JSON.stringify(value, null, 2), policy, cap)).to.deep.equal(fromObject);
  });

  it('ignores volatile fields (took_ms, request_id, fetched_at) and per-tool ones', () => {
    const a = fingerprintResult({ items: [1], took_ms: 12, meta: { request_id: 'a', fetched_at: 1 } }, policy, cap);
    const b = fingerprintResult({ items: [1], took_ms: 40, meta: { request_id: 'b', fetched_at: 2 } }, policy, cap);
    expect(a.resultHash).to.equal(b.resultHash);
    const weather = options.tool('weather');
    expect(fingerprintResult({ t: 3, observed: 'now' }, weather, cap).resultHash).to.equal(fingerprintResult({ t: 3, observed: 'later' }, weather, cap).resultHash);
    expect(fingerprintResult({ t: 3, observed: 'now' }, policy, cap).resultHash).to.not.equal(fingerprintResult({ t: 3, observed: 'later' }, policy, cap).resultHash);
  });

  it('an uptime ticks between two looks at the same state: a health check re-run at once answers the same', () => {
    // As docker ps's `Up 3 minutes` (result-noise-rules.ts AGO): the counter moves, the state does not.
    for (const key of ['uptime', 'uptime_seconds', 'uptimeMs', 'uptime_in_seconds', 'upTime']) {
      const health = (uptime: number) => ({ status: 'degraded', db: 'down', [key]: uptime, checked_at: `2026-12-06T07:0${uptime % 10}:00Z` });
      for (const form of [(v: object) => v, (v: object) => JSON.stringify(v), (v: object) => JSON.stringify(v, null, 2)]) {
        expect(fingerprintResult(form(health(86400)), policy, cap).resultHash, key).to.equal(fingerprintResult(form(health(86407)), policy, cap).resultHash);
      }
    }
    // The state itself still tells answers apart.
    expect(fingerprintResult({ status: 'degraded', uptime: 1 }, policy, cap).resultHash).to.not.equal(fingerprintResult({ status: 'ok', uptime: 2 }, policy, cap).resultHash);
  });

  it('treats a result holding only volatile fields and empties as empty', () => {
    expect(fingerprintResult({ items: [], took_ms: 31 }, policy, cap)).to.deep.equal({ outcome: 'empty' });
  });

  it('tells different content apart', () => {
    expect(fingerprintResult({ items: [1] }, policy, cap).resultHash).to.not.equal(fingerprintResult({ items: [2] }, policy, cap).resultHash);
    expect(fingerprintResult('plain text A', policy, cap).resultHash).to.not.equal(fingerprintResult('plain text B', policy, cap).resultHash);
  });

  it('marks values it cannot fingerprint instead of throwing: cycles, BigInt, functions, over the cap', () => {
    const cyclic: Record<string, unknown> = { a: 1 };
    cyclic.self = cyclic;
    for (const value of [cyclic, { n: 1n }, () => 1, 'x'.repeat(2000)]) {
      expect(fingerprintResult(value, policy, 1000)).to.deep.equal({ outcome: 'success', unfingerprintable: true });
    }
  });

  it('fingerprints a 10 MB result (bounded: one stringify and one hash) and rejects it over a smaller cap', () => {
    const big = { rows: Array.from({ length: 100_000 }, (_, i) => ({ id: i, body: 'lorem ipsum dolor sit amet '.repeat(3) })) };
    const full = fingerprintResult(big, policy, cap);
    expect(full.outcome).to.equal('success');
    expect(full.resultHash).to.be.a('string');
    expect(fingerprintResult(big, policy, 1024 * 1024)).to.deep.equal({ outcome: 'success', unfingerprintable: true });
  });
});

describe('fingerprintResult: an envelope around an empty list', () => {
  const issue = (title: string) => ({
    id: 2_900_022_899,
    node_id: 'I_kwDOAbCd11f',
    number: 1347,
    title,
    state: 'open',
    html_url: 'https://github.com/acme/api/issues/1347',
    user: { login: 'triage-bot', id: 41898282 },
    labels: [],
    comments: 0,
    body: 'Steps: open /login, submit the form, see a 500.',
  });

  it('a short paging envelope around no items is "nothing found", as an object and as JSON text', () => {
    const page = { results: [], total: 0, page: 3, next: null };
    expect(fingerprintResult(page, policy, cap).outcome).to.equal('empty');
    expect(fingerprintResult(JSON.stringify(page), policy, cap).outcome).to.equal('empty');
  });

  it('a long paging envelope past the end (Laravel: data, meta, links) is still "nothing found"', () => {
    const past = {
      data: [],
      meta: { current_page: 5, per_page: 20, total: 42, last_page: 3, from: null, to: null },
      links: { first: 'https://api.example.com/orders?page=1', last: 'https://api.example.com/orders?page=3', prev: 'https://api.example.com/orders?page=4', next: null },
    };
    expect(JSON.stringify(past).length).to.be.greaterThan(200);
    expect(fingerprintResult(past, policy, cap).outcome).to.equal('empty');
    expect(fingerprintResult(JSON.stringify(past), policy, cap).outcome).to.equal('empty');
  });

  it('a record that holds an empty list among its fields (a new GitHub issue) is a record with facts, as an object and as JSON text', () => {
    for (const value of [issue('Login fails'), JSON.stringify(issue('Login fails'))]) {
      const prehashed = fingerprintResult(value, policy, cap);
      expect(prehashed.outcome).to.equal('success');
      expect(prehashed.resultHash).to.be.a('string');
    }
    expect(fingerprintResult(issue('Login fails'), policy, cap).resultHash).to.not.equal(fingerprintResult(issue('Signup fails'), policy, cap).resultHash);
    expect(fingerprintResult(issue('Login fails'), policy, cap).resultHash).to.equal(fingerprintResult(JSON.stringify(issue('Login fails')), policy, cap).resultHash);
  });
});

describe('classifyError / fingerprintError', () => {
  it('sorts rate limits and 503s into overloaded, timeouts into timeout, the rest into error', () => {
    expect(classifyError({ status: 429 })).to.equal('overloaded');
    expect(classifyError({ statusCode: 503 })).to.equal('overloaded');
    expect(classifyError({ type: 'overloaded', message: 'busy' })).to.equal('overloaded');
    expect(classifyError(Object.assign(new Error('x'), { name: 'RateLimitError' }))).to.equal('overloaded');
    expect(classifyError({ type: 'timeout' })).to.equal('timeout');
    expect(classifyError(Object.assign(new Error('x'), { name: 'AbortError' }))).to.equal('timeout');
    expect(classifyError({ code: 'ETIMEDOUT' })).to.equal('timeout');
    expect(classifyError(new TypeError('bad input'))).to.equal('error');
    expect(classifyError('a string')).to.equal('error');
  });

  it('fingerprints errors by type and body: the same error twice is the same result', () => {
    const first = fingerprintError(new TypeError('query too long'));
    expect(fingerprintError(new TypeError('query too long'))).to.deep.equal(first);
    expect(fingerprintError(new RangeError('query too long')).resultHash).to.not.equal(first.resultHash);
    expect(fingerprintError(new TypeError('other')).resultHash).to.not.equal(first.resultHash);
    expect(first).to.include({ outcome: 'error', errorType: 'TypeError' });
  });

  it('tells transient failures (retry budget) from deterministic ones (repeat.same_error) by status, type, code and text', () => {
    expect(isTransientError({ status: 502, message: 'x' })).to.equal(true);
    expect(isTransientError({ response: { status: 500 } })).to.equal(true);
    expect(isTransientError({ code: 'ECONNRESET' })).to.equal(true);
    expect(isTransientError({ type: 'ServiceUnavailable', message: 'x' })).to.equal(true);
    // A plain Error whose text is the only clue (the demo's billing service being down).
    expect(isTransientError(new Error('billing ledger unavailable (LEDGER_DOWN)'))).to.equal(true);
    expect(isTransientError(new Error('request timed out after 30 s'))).to.equal(true);
    expect(isTransientError({ status: 404, type: 'NotFound', message: 'no such page' })).to.equal(false);
    expect(isTransientError(new Error('bash: foo: command not found'))).to.equal(false);
    expect(isTransientError(new SyntaxError('Unexpected token } in JSON at position 12'))).to.equal(false);
    expect(fingerprintError(new Error('service temporarily unavailable'))).to.include({ transient: true });
    expect(fingerprintError(new TypeError('bad input'))).to.not.have.property('transient');
  });
});
