// loopguard/client against real servers: a `loopguard serve` child process and
// startLoopGuardServer in this process. A LoopGuard whose store is createRemoteRunStore must
// decide exactly as an in-process one, run a business-key write once across engines, and
// fail open (never throw into the host) when the server is down, slow or refuses its token.
import { expect } from 'chai';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { createRemoteRunStore, RemoteRunStoreError } from '../../src/client/index.js';
import { LoopGuardConfigError } from '../../src/core/errors.js';
import { LoopGuard } from '../../src/core/loop-guard.js';
import { startLoopGuardServer, type LoopGuardServer } from '../../src/server/index.js';
import { startServeProcess, type ServeProcess } from '../server/serve-process.js';
import { LOOPING_RUN, playInProcess, type LoopStep } from '../server/server-test-helpers.js';

const TOKEN = 'client-test-token-0123456789';

/** A run that learns something new every round: nothing may be refused or stopped. */
const HEALTHY_RUN: LoopStep[][] = [
  [{ tool: 'search', args: { q: 'refund policy' }, result: { hits: ['doc-1', 'doc-2'] } }],
  [
    { tool: 'read', args: { id: 'doc-1' }, result: { text: 'refunds within 30 days' } },
    { tool: 'read', args: { id: 'doc-2' }, result: { text: 'store credit after 30 days' } },
  ],
  [{ tool: 'search', args: { q: 'refund exceptions' }, result: { hits: ['doc-7'] } }],
  [{ tool: 'read', args: { id: 'doc-7' }, result: { text: 'sale items: no refunds' } }],
];

function warnings(): { lines: string[]; logger: { warn(message: string): void } } {
  const lines: string[] = [];
  return { lines, logger: { warn: (message) => lines.push(message) } };
}

describe('loopguard/client: createRemoteRunStore', function () {
  this.timeout(60_000);

  describe('against a loopguard serve process', () => {
    let serve: ServeProcess;
    before(async () => {
      serve = await startServeProcess(['--auth-token', TOKEN]);
    });
    after(async () => {
      await serve.stop();
    });

    for (const [name, rounds] of [
      ['a looping run', LOOPING_RUN],
      ['a healthy run', HEALTHY_RUN],
    ] as const) {
      it(`${name}: the same decisions as an in-process LoopGuard, and the run is in the server's ledger`, async () => {
        const { lines, logger } = warnings();
        const store = createRemoteRunStore({ url: serve.url, token: TOKEN });
        const guard = new LoopGuard({ store, logger });
        const remote = await playInProcess([...rounds], guard, `remote ${name}`);
        await guard.flush();
        const reference = await playInProcess([...rounds]);
        expect(remote).to.deep.equal(reference);
        expect(lines, 'no store trouble').to.deep.equal([]);
        if (rounds === LOOPING_RUN) expect(remote.at(-1)).to.match(/ stop /);
        else expect(remote.filter((line) => / (refuse|stop) /.test(line))).to.deep.equal([]);
        // The decisions went through the server: another engine resuming the run sees them all.
        const other = await new LoopGuard({ store: createRemoteRunStore({ url: serve.url, token: TOKEN }), logger }).resumeRun(`remote ${name}`);
        expect(other.round).to.equal(remote.filter((line) => / (continue|stop)/.test(line)).length);
        expect(other.stopped?.reason).to.equal(rounds === LOOPING_RUN ? remote.at(-1)!.split(' ')[2] : undefined);
      });
    }

    it('a business-key write claimed through the server runs once across engines and runs', async () => {
      const engines = [0, 1, 2, 3].map(
        () => new LoopGuard({ store: createRemoteRunStore({ url: serve.url, token: TOKEN }), idempotentWrites: { send_email: { key: ['to', 'subject'] } }, logger: warnings().logger }),
      );
      const email = { to: 'ada@example.com', subject: 'Your refund' };
      // Four engines (four workers) claim the same write at once, each in its own run.
      const tickets = await Promise.all(engines.map((guard, index) => guard.startRun(`mail-${index}`).claimCall({ tool: 'send_email', args: email })));
      const allowed = tickets.filter((ticket) => ticket.decision.action === 'allow');
      expect(allowed, 'claimed exactly once').to.have.length(1);
      for (const ticket of tickets) if (ticket.decision.action === 'refuse') expect(ticket.decision.reason).to.equal('repeat.in_flight');
      const winner = tickets.indexOf(allowed[0]!);
      engines[winner]!.getRun(`mail-${winner}`)!.finishCall(allowed[0]!, { result: { id: 'msg-1' } });
      await engines[winner]!.flush();
      // Done: a later attempt, in a new run of a fresh engine, is refused as already done.
      const late = await new LoopGuard({ store: createRemoteRunStore({ url: serve.url, token: TOKEN }), idempotentWrites: { send_email: { key: ['to', 'subject'] } } })
        .startRun('mail-late')
        .claimCall({ tool: 'send_email', args: email });
      expect(late.decision.action).to.equal('refuse');
      expect(late.decision.action === 'refuse' && late.decision.reason).to.equal('write.already_done');
    });
  });

  it('carries the entry the client saw last, so a log the server lost and other clients wrote again is answered truncated', async () => {
    const server = await startLoopGuardServer({ port: 0 });
    try {
      const store = createRemoteRunStore({ url: server.url });
      expect(await store.appendRunEvents('r', 0, ['["u",{"inputTokens":1}]', '["u",{"inputTokens":2}]'])).to.deep.equal({ accepted: true, length: 2 });
      expect(await store.appendRunEvents('r', 2, ['["u",{"inputTokens":3}]'], undefined, '["u",{"inputTokens":9}]')).to.deep.equal({
        accepted: false,
        length: 2,
        entries: ['["u",{"inputTokens":1}]', '["u",{"inputTokens":2}]'],
        truncated: true,
      });
      expect(await store.appendRunEvents('r', 2, ['["u",{"inputTokens":3}]'], undefined, '["u",{"inputTokens":2}]')).to.deep.equal({ accepted: true, length: 3 });
    } finally {
      await server.close();
    }
  });

  describe('when the server is down, slow, or refuses the token', () => {
    let secured: LoopGuardServer;
    let silent: Server;
    let silentUrl: string;
    let downUrl: string;
    before(async () => {
      secured = await startLoopGuardServer({ port: 0, authToken: TOKEN });
      // Accepts connections and never answers.
      silent = createServer(() => undefined);
      await new Promise<void>((resolve) => silent.listen(0, '127.0.0.1', resolve));
      silentUrl = `http://127.0.0.1:${(silent.address() as AddressInfo).port}`;
      const closed = await startLoopGuardServer({ port: 0 });
      downUrl = closed.url;
      await closed.close();
    });
    after(async () => {
      await secured.close();
      silent.closeAllConnections();
      await new Promise<void>((resolve) => silent.close(() => resolve()));
    });

    for (const [name, url, expected] of [
      ['down', () => downUrl, /could not reach .*ECONNREFUSED/],
      ['slow', () => silentUrl, /no answer .* within 200 ms \(timeoutMs\)/],
    ] as const) {
      it(`server ${name}: calls go ahead on this process's copy of the run (one warning), business-key writes are refused; nothing throws`, async () => {
        const { lines, logger } = warnings();
        const guard = new LoopGuard({ store: createRemoteRunStore({ url: url(), timeoutMs: 200 }), idempotentWrites: { send_email: { key: ['to'] } }, logger });
        const started = Date.now();
        const local = await playInProcess(LOOPING_RUN, guard, `offline-${name}`);
        // The local copy still guards the run: the loop is refused and stopped as in process.
        expect(local).to.deep.equal(await playInProcess(LOOPING_RUN));
        const write = await guard.startRun(`offline-write-${name}`).claimCall({ tool: 'send_email', args: { to: 'ada@example.com' } });
        expect(write.decision.action === 'refuse' && write.decision.reason).to.equal('store.unavailable');
        expect(lines.filter((line) => /the shared store failed/.test(line)), 'one warning per outage').to.have.length(1);
        expect(lines[0]).to.match(expected);
        // Bounded by timeoutMs per store step, not hung.
        expect(Date.now() - started).to.be.below(30_000);
      });
    }

    it('a wrong or missing token: a clear error (and the same fail-open run)', async () => {
      const wrong = createRemoteRunStore({ url: secured.url, token: 'not-the-token-of-this-server' });
      const error = await wrong.readRunEvents('r', 0).then(
        () => undefined,
        (failure: unknown) => failure,
      );
      expect(error).to.be.instanceOf(RemoteRunStoreError);
      expect(error).to.include({ status: 401, code: 'unauthorized', operation: 'read-run-events' });
      expect((error as Error).message).to.contain('not the one the server was started with');
      const missing = await createRemoteRunStore({ url: secured.url })
        .claimBusinessKey({ tool: 't', scope: 'global', runId: 'r', value: 'v' }, 'o', 1000, 1000)
        .then(
          () => undefined,
          (failure: unknown) => failure as Error,
        );
      expect(missing?.message).to.match(/needs a token: pass token/);

      const { lines, logger } = warnings();
      const run = new LoopGuard({ store: wrong, logger }).startRun('wrong-token');
      const ticket = await run.claimCall({ tool: 'search', args: { q: 'x' } });
      expect(ticket.decision.action).to.equal('allow');
      expect(lines.join('\n')).to.contain('401 unauthorized');
    });

    it('a URL that is not a loopguard serve: a clear error', async () => {
      const error = await createRemoteRunStore({ url: `${secured.url}/not-here`, token: TOKEN })
        .readRunEvents('r', 0)
        .then(
          () => undefined,
          (failure: unknown) => failure as RemoteRunStoreError,
        );
      expect(error?.status).to.equal(404);
      expect(error?.message).to.contain('is url a loopguard serve');
    });
  });

  it('rejects misconfiguration at construction, naming the field', () => {
    for (const [options, field] of [
      [undefined, 'options'],
      [{}, 'url'],
      [{ url: 'ftp://example.com' }, 'url'],
      [{ url: 'not a url' }, 'url'],
      [{ url: 'http://127.0.0.1:4319', token: 'has a space' }, 'token'],
      [{ url: 'http://127.0.0.1:4319', token: 42 }, 'token'],
      [{ url: 'http://127.0.0.1:4319', timeoutMs: 0 }, 'timeoutMs'],
      [{ url: 'http://127.0.0.1:4319', timeoutMs: 2 ** 31 }, 'timeoutMs'],
      [{ url: 'http://127.0.0.1:4319', timeout: 5 }, 'timeout'],
    ] as const) {
      expect(() => createRemoteRunStore(options as never), JSON.stringify(options)).to.throw(LoopGuardConfigError).with.property('field', field);
    }
  });
});
