// The /v1/ledger routes' bad input: every malformed body is a 400 naming the field, unknown
// operations a 404, wrong methods a 405, and none of it touches the store or another run.
import { expect } from 'chai';
import { startLoopGuardServer, type LoopGuardServer } from '../../src/server/index.js';
import { getJson, postJson } from './server-test-helpers.js';

const KEY = { tool: 'send_email', scope: 'global', runId: 'r', value: 'k' };

describe('loopguard serve: /v1/ledger bad input', function () {
  this.timeout(20_000);
  let server: LoopGuardServer;
  const ledger = (operation: string): string => `${server.url}/v1/ledger/${operation}`;

  before(async () => {
    server = await startLoopGuardServer({ port: 0, maxBodyBytes: 16 * 1024 });
  });
  after(async () => {
    await server.close();
  });

  const cases: Array<[operation: string, body: unknown, field: string]> = [
    ['append-run-events', { expectedLength: 0, entries: [] }, 'runId'],
    ['append-run-events', { runId: '', expectedLength: 0, entries: [] }, 'runId'],
    ['append-run-events', { runId: 'x'.repeat(513), expectedLength: 0, entries: [] }, 'runId'],
    ['append-run-events', { runId: 'r', expectedLength: -1, entries: [] }, 'expectedLength'],
    ['append-run-events', { runId: 'r', expectedLength: 1.5, entries: [] }, 'expectedLength'],
    ['append-run-events', { runId: 'r', expectedLength: '0', entries: [] }, 'expectedLength'],
    ['append-run-events', { runId: 'r', expectedLength: 0, entries: 'e' }, 'entries'],
    ['append-run-events', { runId: 'r', expectedLength: 0, entries: ['ok', 7] }, 'entries[1]'],
    ['append-run-events', { runId: 'r', expectedLength: 0, entries: [''] }, 'entries[0]'],
    ['append-run-events', { runId: 'r', expectedLength: 0, entries: [], summary: 'stopped' }, 'summary'],
    ['append-run-events', { runId: 'r', expectedLength: 1, entries: [], expectedLast: 7 }, 'expectedLast'],
    ['append-run-events', { runId: 'r', expectedLength: 0, entries: [], summary: { stopReason: 3 } }, 'summary.stopReason'],
    ['append-run-events', { runId: 'r', expectedLength: 0, entries: [], summary: { ended: 'yes' } }, 'summary.ended'],
    ['read-run-events', { runId: 'r' }, 'from'],
    ['read-run-events', { runId: 7, from: 0 }, 'runId'],
    ['claim-business-key', { owner: 'o', leaseMs: 1, ttlMs: 1 }, 'key'],
    ['claim-business-key', { key: [], owner: 'o', leaseMs: 1, ttlMs: 1 }, 'key'],
    ['claim-business-key', { key: { ...KEY, scope: 'everywhere' }, owner: 'o', leaseMs: 1, ttlMs: 1 }, 'key.scope'],
    ['claim-business-key', { key: { ...KEY, tool: '' }, owner: 'o', leaseMs: 1, ttlMs: 1 }, 'key.tool'],
    ['claim-business-key', { key: { ...KEY, runId: undefined }, owner: 'o', leaseMs: 1, ttlMs: 1 }, 'key.runId'],
    ['claim-business-key', { key: { ...KEY, value: 5 }, owner: 'o', leaseMs: 1, ttlMs: 1 }, 'key.value'],
    ['claim-business-key', { key: KEY, leaseMs: 1, ttlMs: 1 }, 'owner'],
    ['claim-business-key', { key: KEY, owner: 'o', leaseMs: 0, ttlMs: 1 }, 'leaseMs'],
    ['claim-business-key', { key: KEY, owner: 'o', leaseMs: 1, ttlMs: Number.MAX_SAFE_INTEGER + 2 }, 'ttlMs'],
    ['take-over-business-key', { key: KEY, owner: 'o', leaseMs: 1 }, 'previousOwner'],
    ['complete-business-key', { key: KEY, owner: 3, ttlMs: 1 }, 'owner'],
    ['complete-business-key', { key: KEY, resultHash: {}, ttlMs: 1 }, 'resultHash'],
    ['complete-business-key', { key: KEY }, 'ttlMs'],
    ['release-business-key', { key: KEY }, 'owner'],
  ];
  for (const [operation, body, field] of cases) {
    it(`${operation}: ${JSON.stringify(body).slice(0, 90)} → 400 naming ${field}`, async () => {
      const answer = await postJson(ledger(operation), body);
      expect(answer.status).to.equal(400);
      expect(answer.body.error.code).to.equal('bad_request');
      expect(answer.body.error.field).to.equal(field);
      expect(answer.body.error.message).to.match(new RegExp(`^${field.replace(/[[\].]/g, '\\$&')}: `));
    });
  }

  it('a bad request changes nothing in the store: the run log and the key are as before', async () => {
    expect((await postJson(ledger('append-run-events'), { runId: 'kept', expectedLength: 0, entries: ['a'] })).body).to.deep.equal({ accepted: true, length: 1 });
    expect((await postJson(ledger('append-run-events'), { runId: 'kept', expectedLength: 1, entries: ['b', 9] })).status).to.equal(400);
    expect((await postJson(ledger('read-run-events'), { runId: 'kept', from: 0 })).body).to.deep.equal({ entries: ['a'] });
    expect((await postJson(ledger('claim-business-key'), { key: { ...KEY, runId: 'kept' }, owner: 'o', leaseMs: 0, ttlMs: 1000 })).status).to.equal(400);
    expect((await postJson(ledger('claim-business-key'), { key: { ...KEY, runId: 'kept' }, owner: 'o', leaseMs: 1000, ttlMs: 1000 })).body).to.deep.equal({ state: 'claimed' });
  });

  it('bad JSON, a body that is not an object, a non-JSON type, a body too large', async () => {
    const badJson = await postJson(ledger('read-run-events'), '{"runId":');
    expect([badJson.status, badJson.body.error.code]).to.deep.equal([400, 'bad_json']);
    const array = await postJson(ledger('read-run-events'), '[]');
    expect([array.status, array.body.error.message]).to.deep.equal([400, 'the body must be a JSON object']);
    const form = await postJson(ledger('read-run-events'), 'runId=r', { 'content-type': 'text/plain' });
    expect(form.status).to.equal(415);
    const large = await postJson(ledger('append-run-events'), { runId: 'r', expectedLength: 0, entries: ['x'.repeat(20 * 1024)] });
    expect([large.status, large.body.error.code]).to.deep.equal([413, 'body_too_large']);
  });

  it('an unknown operation is a 404 listing the known ones; GET is a 405', async () => {
    const unknown = await postJson(ledger('append'), { runId: 'r' });
    expect(unknown.status).to.equal(404);
    expect(unknown.body.error.message).to.contain('append-run-events, read-run-events, claim-business-key');
    const nested = await postJson(`${ledger('read-run-events')}/more`, {});
    expect(nested.status).to.equal(404);
    const get = await getJson(ledger('read-run-events'));
    expect([get.status, get.body.error.code]).to.deep.equal([405, 'method_not_allowed']);
  });

  it('the server rejects a ledgerStore that is not a run store, naming the missing method', async () => {
    const error = await startLoopGuardServer({ port: 0, ledgerStore: { appendRunEvents: async () => ({ accepted: true, length: 0 }) } as never }).then(
      async (started) => {
        await started.close();
        return undefined;
      },
      (failure: unknown) => failure as { field?: string },
    );
    expect(error?.field).to.equal('ledgerStore.readRunEvents');
  });

  // A store method that threw instead of rejecting (a custom RunStore's bug) was a 500 through
  // the request handler's last net, whose report went to the server's logger; a logger that
  // throws there made it an unhandled rejection: the request never answered, and Node ends a
  // process on one. Now the store's throw is its failure (503, as a rejection is), and the
  // logger's is dropped.
  it('a store method that throws is a 503 store_unavailable, and a logger that throws never takes the server down', async () => {
    const answered = async () => ({ accepted: true as const, length: 0 });
    const unhandled: unknown[] = [];
    const record = (reason: unknown) => void unhandled.push(reason);
    process.on('unhandledRejection', record);
    const hostile = await startLoopGuardServer({
      port: 0,
      logger: { warn: () => { throw new Error('log transport closed'); } },
      ledgerStore: {
        appendRunEvents: answered,
        readRunEvents: () => { throw new Error('custom store bug'); },
        claimBusinessKey: async () => ({ state: 'claimed' as const }),
        takeOverBusinessKey: async () => true,
        completeBusinessKey: async () => true,
        releaseBusinessKey: async () => true,
      },
    });
    try {
      const read = await postJson(`${hostile.url}/v1/ledger/read-run-events`, { runId: 'r', from: 0 });
      expect([read.status, read.body.error.code]).to.deep.equal([503, 'store_unavailable']);
      expect(read.body.error.message).to.include('custom store bug');
      // A failure inside the server itself is a 500 reported to that logger: dropped, answered.
      hostile.guard.getRun = () => {
        throw new Error('engine bug');
      };
      const claim = await postJson(`${hostile.url}/v1/runs/r/calls`, { tool: 'search', arguments: { q: 1 } });
      expect([claim.status, claim.body.error.code]).to.deep.equal([500, 'internal']);
      expect((await getJson(`${hostile.url}/healthz`)).status).to.equal(200);
      await new Promise((resolve) => setTimeout(resolve, 20));
      expect(unhandled).to.deep.equal([]);
    } finally {
      process.off('unhandledRejection', record);
      await hostile.close();
    }
  });
});
