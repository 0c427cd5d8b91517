import { expect } from 'chai';
import { readFileSync } from 'node:fs';
import { parse } from 'yaml';
import { LoopGuard } from '../../src/core/loop-guard.js';
import { createMemoryRunStore } from '../../src/core/shared-ledger/create-memory-run-store.js';
import { startLoopGuardServer, type LoopGuardServer } from '../../src/server/index.js';
import { getJson, LOOPING_RUN, playInProcess, playOverHttp, postJson } from './server-test-helpers.js';

const TOKEN = 'test-token-0123456789abcdef';

describe('loopguard serve: decision API', function () {
  this.timeout(20_000);
  let server: LoopGuardServer;
  let secured: LoopGuardServer;
  /** A server whose ledger store fails every operation (Redis down, memory store full). */
  let failingStore: LoopGuardServer;

  before(async () => {
    server = await startLoopGuardServer({ port: 0, maxBodyBytes: 64 * 1024 });
    secured = await startLoopGuardServer({ port: 0, authToken: TOKEN });
    const down = (): Promise<never> => Promise.reject(new Error('connect ECONNREFUSED 127.0.0.1:6379'));
    failingStore = await startLoopGuardServer({
      port: 0,
      ledgerStore: { appendRunEvents: down, readRunEvents: down, claimBusinessKey: down, takeOverBusinessKey: down, completeBusinessKey: down, releaseBusinessKey: down },
    });
  });
  after(async () => {
    await server.close();
    await secured.close();
    await failingStore.close();
  });

  it('a looping tool loop is refused, then stopped, with the decisions of one in-process engine', async () => {
    const overHttp = await playOverHttp(() => server.url, 'loop-1', LOOPING_RUN);
    const reference = await playInProcess(LOOPING_RUN);
    expect(overHttp).to.deep.equal(reference);
    expect(overHttp.some((line) => / refuse /.test(line)), 'some call refused').to.equal(true);
    expect(overHttp.at(-1)).to.match(/ stop /);
    // After the stop every call gets the stop, with the message for the model.
    const after = await postJson(`${server.url}/v1/runs/loop-1/calls`, { tool: 'search', arguments: { q: 'anything' } });
    expect(after.body.decision).to.equal('stop');
    expect(after.body.message).to.be.a('string').and.not.equal('');
    const view = await getJson(`${server.url}/v1/runs/loop-1`);
    expect(view.body.stopped.reason).to.equal(overHttp.at(-1)!.split(' ')[2]);
  });

  it('a business-key write whose run was evicted (maxOpenRuns) before its outcome came is still settled: the next run is told it is done', async () => {
    const warnings: string[] = [];
    const guard = new LoopGuard({ store: createMemoryRunStore(), maxOpenRuns: 1, idempotentWrites: { send_invoice: { key: ['customer'] } }, logger: { warn: (message) => warnings.push(message) } });
    const small = await startLoopGuardServer({ guard, port: 0 });
    try {
      const claim = await postJson(`${small.url}/v1/runs/invoice-a/calls`, { tool: 'send_invoice', arguments: { customer: 'C-9' } });
      expect(claim.body.decision).to.equal('allow');
      // Another run opens while the invoice is being sent: the first is evicted, its call in flight.
      await postJson(`${small.url}/v1/runs/invoice-b/calls`, { tool: 'search', arguments: { q: 'x' } });
      expect(warnings.some((warning) => warning.includes('evicting the least recently active (invoice-a)')), warnings.join('\n')).to.equal(true);
      const outcome = await postJson(`${small.url}/v1/runs/invoice-a/calls/${encodeURIComponent(claim.body.ticket)}/outcome`, { result: 'sent' });
      expect(outcome.status).to.equal(200);
      await guard.flush();
      // Before: still "being done right now", then "of unknown outcome" once the lease ran out.
      const again = await postJson(`${small.url}/v1/runs/invoice-c/calls`, { tool: 'send_invoice', arguments: { customer: 'C-9' } });
      expect(again.body).to.include({ decision: 'refuse', reason: 'write.already_done' });
    } finally {
      await small.close();
    }
  });

  for (const shared of [false, true]) {
    it(`a claim never reported back (the agent crashed, or forgot) is timed out after claimLeaseMs: a read runs again, a write meets the unknown-outcome rule (${shared ? 'a shared store' : 'no store'})`, async () => {
      const leased = await startLoopGuardServer({ guard: new LoopGuard({ claimLeaseMs: 300, ...(shared ? { store: createMemoryRunStore() } : {}) }), port: 0 });
      try {
        const calls = `${leased.url}/v1/runs/crashed-agent/calls`;
        const read = { tool: 'read_file', arguments: { path: 'notes.md' } };
        const write = { tool: 'send_email', arguments: { to: 'ops@example.com', body: 'hi' } };
        const first = await postJson(calls, read);
        expect(first.body.decision).to.equal('allow');
        expect((await postJson(calls, write)).body.decision).to.equal('allow');
        // Inside the lease: still running, as far as anyone can tell.
        expect((await postJson(calls, read)).body).to.include({ decision: 'refuse', reason: 'repeat.in_flight' });
        await new Promise((resolve) => setTimeout(resolve, 400));
        // Before: "already running" for as long as the run lasted. The write first: a call that
        // runs in between is the model's chance to look, after which the write may be retried.
        expect((await postJson(calls, write)).body).to.include({ decision: 'refuse', reason: 'write.outcome_unknown' });
        expect((await postJson(calls, read)).body.decision).to.equal('allow');
        // A late outcome is accepted, not a 404 that would crash a client.
        const late = await postJson(`${calls}/${encodeURIComponent(first.body.ticket)}/outcome`, { result: '# notes' });
        expect(late.status, JSON.stringify(late.body)).to.equal(200);
      } finally {
        await leased.close();
      }
    });
  }

  it('a business-key write reported after its claim lease ran out is settled whichever replica the late outcome reaches: the next claim is told it is done, not that it is running', async () => {
    const store = createMemoryRunStore();
    // One key lease for both sides: the claim's (claimLeaseMs) and the business key's (leaseMs).
    const guards = [0, 1].map(() => new LoopGuard({ store, claimLeaseMs: 300, idempotentWrites: { send_invoice: { key: ['customer'], leaseMs: 60_000 } } }));
    const replicas = await Promise.all(guards.map((guard) => startLoopGuardServer({ guard, port: 0 })));
    try {
      for (const [customer, late] of [['C-1', 0], ['C-2', 1]] as const) {
        const calls = (replica: number, run: string): string => `${replicas[replica]!.url}/v1/runs/${run}/calls`;
        const claim = await postJson(calls(0, `slow-${customer}`), { tool: 'send_invoice', arguments: { customer } });
        expect(claim.body.decision).to.equal('allow');
        await new Promise((resolve) => setTimeout(resolve, 400));
        // Another claim of the run on the claiming replica: its ticket's lease runs out (timed out).
        expect((await postJson(calls(0, `slow-${customer}`), { tool: 'search', arguments: { q: customer } })).body.decision).to.equal('allow');
        // The invoice was sent after all; its outcome comes late, to the claiming replica or the other.
        const outcome = await postJson(`${calls(late, `slow-${customer}`)}/${encodeURIComponent(claim.body.ticket)}/outcome`, { result: 'sent' });
        expect(outcome.status).to.equal(200);
        await Promise.all(guards.map((guard) => guard.flush()));
        // Before, for the claiming replica only: "being done right now by another worker" until
        // the key's lease ran out, then "of unknown outcome": the late outcome was dropped there.
        for (const replica of [0, 1]) {
          const again = await postJson(calls(replica, `next-${customer}-${replica}`), { tool: 'send_invoice', arguments: { customer } });
          expect(again.body, `late outcome to replica ${late}, asked on ${replica}`).to.include({ decision: 'refuse', reason: 'write.already_done' });
        }
      }
    } finally {
      for (const replica of replicas) await replica.close();
    }
  });

  for (const shared of [false, true]) {
    it(`a read's claim sent again after its answer was lost (same callId and arguments) gets the first one's ticket, not repeat.in_flight for its own call; a write's does not (${shared ? 'two replicas over one store' : 'no store'})`, async () => {
      const store = createMemoryRunStore();
      const guards = (shared ? [0, 1] : [0]).map(() => new LoopGuard(shared ? { store, idempotentWrites: { send_invoice: { key: ['customer'] } } } : {}));
      const servers = await Promise.all(guards.map((guard) => startLoopGuardServer({ guard, port: 0 })));
      const calls = (server: number): string => `${servers[server]!.url}/v1/runs/retrying-agent/calls`;
      try {
        await postJson(`${servers[0]!.url}/v1/runs/retrying-agent/rounds`);
        // Declared a read: `search` alone is of unknown effect, whose retry is refused as a write's.
        const search = { tool: 'search', arguments: { q: 'refund policy' }, callId: 'call_A1', effect: 'read' };
        const first = await postJson(calls(0), search);
        expect(first.body.decision).to.equal('allow');
        // The client timed out and sends the claim again, to the same server or (behind a load
        // balancer) another one. Before: refused repeat.in_flight, "an identical call (call
        // call_A1) is already running; its result will be in the conversation": its own call.
        for (const server of servers.keys()) {
          const again = await postJson(calls(server), search);
          expect(again.body, `retried on server ${server}`).to.deep.equal(first.body);
        }
        expect((await getJson(`${servers.at(-1)!.url}/v1/runs/retrying-agent`)).body.inFlight, 'one call in flight, not one per retry').to.equal(1);
        // Not a retry: the same call id with other arguments, or the same call without an id.
        expect((await postJson(calls(0), { ...search, arguments: { q: 'other' } })).body).to.include({ decision: 'allow', kind: 'new' });
        expect((await postJson(calls(0), { tool: 'search', arguments: { q: 'refund policy' }, effect: 'read' })).body).to.include({ decision: 'refuse', reason: 'repeat.in_flight' });
        expect((await postJson(calls(0), { ...search, effect: undefined })).body, 'of unknown effect').to.include({ decision: 'refuse', reason: 'repeat.in_flight' });
        const finished = await postJson(`${calls(servers.length - 1)}/${encodeURIComponent(first.body.ticket)}/outcome`, { result: { hits: ['doc-1'] } });
        expect(finished.body.novelty).to.equal('new');
        // Its outcome recorded: a claim under that id again is a new claim the engine decides.
        const afterOutcome = await postJson(calls(0), search);
        expect(afterOutcome.body.ticket).to.not.equal(first.body.ticket);
        // A write under the same callId is not given its ticket again: a client replaying a step
        // (LangGraph resuming from a checkpoint) sends the ids again after the write may have
        // run. It stays refused in flight, as without an id.
        const deploy = { tool: 'deploy_service', arguments: { version: '2.4.1' }, callId: 'call_D1' };
        const deploying = await postJson(calls(0), deploy);
        expect(deploying.body.decision).to.equal('allow');
        for (const server of servers.keys()) expect((await postJson(calls(server), deploy)).body, `server ${server}`).to.include({ decision: 'refuse', reason: 'repeat.in_flight' });
        if (shared) {
          // A business-key write sent again: refused in flight on every replica, its key settled
          // once by the outcome.
          const invoice = { tool: 'send_invoice', arguments: { customer: 'C-7' }, callId: 'call_B1' };
          const claimed = await postJson(calls(0), invoice);
          expect(claimed.body.decision).to.equal('allow');
          for (const server of servers.keys()) expect((await postJson(calls(server), invoice)).body, `server ${server}`).to.include({ decision: 'refuse', reason: 'repeat.in_flight' });
          await postJson(`${calls(1)}/${encodeURIComponent(claimed.body.ticket)}/outcome`, { result: 'sent' });
          await Promise.all(guards.map((guard) => guard.flush()));
          const later = await postJson(`${servers[1]!.url}/v1/runs/next-agent/calls`, { ...invoice, callId: 'call_C1' });
          expect(later.body).to.include({ decision: 'refuse', reason: 'write.already_done' });
        }
      } finally {
        for (const server of servers) await server.close();
      }
    });
  }

  for (const shared of [false, true]) {
    it(`a run id names one run: after end, a round or a claim is 409 run_ended; a stopped run keeps answering stop (${shared ? 'a shared store' : 'no store'})`, async () => {
      const guard = new LoopGuard(shared ? { store: createMemoryRunStore() } : {});
      const one = await startLoopGuardServer({ guard, port: 0 });
      try {
        const run = `${one.url}/v1/runs/reused-id`;
        await postJson(`${run}/rounds`);
        const claim = await postJson(`${run}/calls`, { tool: 'search', arguments: { q: 'a' } });
        await postJson(`${run}/calls/${encodeURIComponent(claim.body.ticket)}/outcome`, { result: ['a'] });
        await postJson(`${run}/end`);
        // Before: without a store, a fresh run under the old id; with one, every call refused.
        for (const answer of [await postJson(`${run}/rounds`), await postJson(`${run}/calls`, { tool: 'search', arguments: { q: 'b' } })]) {
          expect(answer.status).to.equal(409);
          expect(answer.body.error).to.include({ code: 'run_ended', field: 'runId' });
          expect(answer.body.error.message).to.match(/new id/);
        }
        // A run loopguard stopped, then ended: not restarted under its id (before, without a
        // store, it was, and the loop went on).
        const stopped = await playOverHttp(() => one.url, 'stopped-id', LOOPING_RUN);
        expect(stopped.at(-1)).to.match(/ stop /);
        await postJson(`${one.url}/v1/runs/stopped-id/end`);
        const after = await postJson(`${one.url}/v1/runs/stopped-id/calls`, { tool: 'search', arguments: { q: 'fresh' } });
        expect(after.body.decision).to.equal('stop');
      } finally {
        await one.close();
      }
    });
  }

  for (const shared of [false, true]) {
    it(`looking at, ending or reporting into a run nobody started does not start it (${shared ? 'a shared store' : 'no store'})`, async () => {
      const store = createMemoryRunStore();
      const one = await startLoopGuardServer({ guard: new LoopGuard(shared ? { store } : {}), port: 0 });
      try {
        // Before, with a store: a fresh run, counted in openRuns, for any id asked about.
        const view = await getJson(`${one.url}/v1/runs/never-started`);
        expect(view.status).to.equal(404);
        expect(view.body.error.code).to.equal('unknown_run');
        expect((await postJson(`${one.url}/v1/runs/never-started/end`)).body).to.deep.equal({ ended: true });
        expect((await getJson(`${one.url}/v1/runs`)).body.openRuns).to.equal(0);
        // Before: an end entry logged for a run that never was.
        expect(await store.readRunEvents('never-started', 0)).to.deep.equal([]);

        // An outcome sent under the wrong run id: before, with a store, answered 200 and recorded
        // into a run made up for it, while the real call stayed in flight.
        const claim = await postJson(`${one.url}/v1/runs/run-a/calls`, { tool: 'search', arguments: { q: 'x' } });
        expect(claim.body.decision).to.equal('allow');
        const misaddressed = await postJson(`${one.url}/v1/runs/run-b/calls/${encodeURIComponent(claim.body.ticket)}/outcome`, { result: ['x'] });
        expect(misaddressed.status).to.equal(404);
        expect(misaddressed.body.error).to.include({ code: 'unknown_ticket', field: 'ticket' });
        expect((await getJson(`${one.url}/v1/runs/run-b`)).status).to.equal(404);
        expect((await getJson(`${one.url}/v1/runs/run-a`)).body.inFlight).to.equal(1);
        const delivered = await postJson(`${one.url}/v1/runs/run-a/calls/${encodeURIComponent(claim.body.ticket)}/outcome`, { result: ['x'] });
        expect(delivered.status).to.equal(200);
        expect((await getJson(`${one.url}/v1/runs/run-a`)).body.inFlight).to.equal(0);
      } finally {
        await one.close();
      }
    });
  }

  for (const shared of [false, true]) {
    it(`an agent that asks decisions and also exports its spans (its agent span naming the same run): calls counted once, the run not ended under it (${shared ? 'two replicas over one store' : 'no store'})`, async () => {
      const store = createMemoryRunStore();
      const decided: string[] = [];
      const guards = [0, 1].map(() => new LoopGuard(shared ? { store } : {}));
      for (const guard of guards) guard.addListener({ callDecided: (run, call, decision) => void decided.push(`${run.id} ${call.tool} ${decision.action}`) });
      const servers = shared ? await Promise.all(guards.map((guard) => startLoopGuardServer({ guard, port: 0 }))) : [await startLoopGuardServer({ guard: guards[0]!, port: 0 })];
      // Decisions on the first server, spans to the last (with replicas: another one).
      const [api, otlp] = [servers[0]!, servers.at(-1)!];
      try {
        const run = `${api.url}/v1/runs/conv-7`;
        const start = BigInt(Date.now()) * 1_000_000n;
        const at = (second: number): string => String(start + BigInt(second) * 1_000_000_000n);
        const attributes = (values: Record<string, string>) => Object.entries(values).map(([key, value]) => ({ key, value: { stringValue: value } }));
        const traceId = '5b8efff798038103d269b633813fc60c';
        const agentSpanId = '00000000000000aa';
        const spans: Array<Record<string, unknown>> = [];
        for (let round = 1; round <= 4; round++) {
          expect((await postJson(`${run}/rounds`)).body.round).to.equal(round);
          const claim = await postJson(`${run}/calls`, { tool: 'search', arguments: { q: `q${round}` } });
          expect(claim.body.decision).to.equal('allow');
          await postJson(`${run}/calls/${encodeURIComponent(claim.body.ticket)}/outcome`, { result: { hits: [`doc-${round}`] } });
          spans.push(
            { traceId, spanId: `00000000000000${round}1`, parentSpanId: agentSpanId, name: 'chat gpt-4o', startTimeUnixNano: at(2 * round), endTimeUnixNano: at(2 * round), attributes: attributes({ 'gen_ai.operation.name': 'chat' }) },
            {
              traceId, spanId: `00000000000000${round}2`, parentSpanId: agentSpanId, name: 'execute_tool search', startTimeUnixNano: at(2 * round + 1), endTimeUnixNano: at(2 * round + 1),
              attributes: attributes({ 'gen_ai.operation.name': 'execute_tool', 'gen_ai.tool.name': 'search', 'gen_ai.tool.call.arguments': JSON.stringify({ q: `q${round}` }), 'gen_ai.tool.call.result': JSON.stringify({ hits: [`doc-${round}`] }) }),
            },
          );
          expect((await postJson(`${run}/should-stop`)).body.action).to.equal('continue');
        }
        // The turn's spans, exported at its end with the agent span (a BatchSpanProcessor).
        spans.push({ traceId, spanId: agentSpanId, name: 'invoke_agent researcher', startTimeUnixNano: at(1), endTimeUnixNano: at(20), attributes: attributes({ 'gen_ai.operation.name': 'invoke_agent', 'gen_ai.conversation.id': 'conv-7' }) });
        const exported = await postJson(`${otlp.url}/v1/traces`, { resourceSpans: [{ resource: { attributes: [] }, scopeSpans: [{ scope: { name: 'agent' }, spans }] }] });
        expect(exported.status).to.equal(200);
        // Before: each call fed again (8 calls, the last 4 as repeats) and the agent span ended
        // the run, so the agent's next round was 409 run_ended though it never ended it.
        expect(decided.filter((line) => line.startsWith('conv-7 '))).to.have.length(4);
        expect(decided.filter((line) => !line.startsWith('conv-7 ')), 'no other run made of these spans').to.deep.equal([]);
        const next = await postJson(`${run}/rounds`);
        expect(next.status, JSON.stringify(next.body)).to.equal(200);
        expect(next.body.round).to.equal(5);
        expect((await postJson(`${run}/calls`, { tool: 'search', arguments: { q: 'q5' } })).body.decision).to.equal('allow');
        expect((await getJson(run)).body).to.include({ ended: false, stopped: null });
      } finally {
        for (const one of servers) await one.close();
      }
    });
  }

  it('an answer tool is never refused or swallowed (issue 18): after a stop it runs until one answer was delivered; other tools get the stop', async () => {
    const stopped = await playOverHttp(() => server.url, 'answer-after-stop', LOOPING_RUN);
    expect(stopped.at(-1)).to.match(/ stop /);
    const calls = `${server.url}/v1/runs/answer-after-stop/calls`;
    const answer = { answer: 'The refund window is 30 days.' };
    expect((await postJson(calls, { tool: 'search', arguments: { q: 'one more' } })).body.decision).to.equal('stop');
    // A delivery that failed is not a delivered answer: the answer may be sent again.
    const failed = await postJson(calls, { tool: 'send_msg_to_user', arguments: answer });
    expect(failed.body.decision, JSON.stringify(failed.body)).to.equal('allow');
    await postJson(`${calls}/${encodeURIComponent(failed.body.ticket)}/outcome`, { error: { type: 'ConnectionError', message: 'chat backend unreachable' } });
    const delivered = await postJson(calls, { tool: 'send_msg_to_user', arguments: answer });
    expect(delivered.body.decision, JSON.stringify(delivered.body)).to.equal('allow');
    expect((await postJson(`${calls}/${encodeURIComponent(delivered.body.ticket)}/outcome`, { result: 'delivered' })).status).to.equal(200);
    // Delivered: answering on and on after that is a loop on the answer tool (terminal-tools.ts).
    expect((await postJson(calls, { tool: 'final_answer', arguments: answer })).body.decision).to.equal('stop');
    // A hand-off is an answer tool too, on a run of its own.
    const handOff = await playOverHttp(() => server.url, 'hand-off-after-stop', LOOPING_RUN);
    expect(handOff.at(-1)).to.match(/ stop /);
    const transfer = await postJson(`${server.url}/v1/runs/hand-off-after-stop/calls`, { tool: 'transfer_to_human_agents', arguments: { summary: 'refund question' } });
    expect(transfer.body.decision).to.equal('allow');
  });

  // The gauge said "claimed calls whose outcome has not been recorded" and counted every ticket
  // kept for a late outcome: a call its lease had already recorded as timed out stayed open
  // on the dashboard until maxOpenTickets (100,000) pushed it out.
  it('loopguard_serve_open_tickets counts the calls still waiting for an outcome: not one answered, nor one its lease recorded as timed out', async () => {
    const leased = await startLoopGuardServer({ port: 0, engine: { claimLeaseMs: 200 } });
    try {
      const openTickets = async () => Number(/^loopguard_serve_open_tickets (\d+)$/m.exec((await getJson(`${leased.url}/metrics`)).body as unknown as string)![1]);
      const claim = (q: string) => postJson(`${leased.url}/v1/runs/gauge/calls`, { tool: 'search', arguments: { q } });
      const answered = await claim('answered');
      await claim('abandoned');
      expect(await openTickets()).to.equal(2);
      await postJson(`${leased.url}/v1/runs/gauge/calls/${encodeURIComponent(answered.body.ticket)}/outcome`, { result: ['doc-1'] });
      expect(await openTickets()).to.equal(1);
      await new Promise((resolve) => setTimeout(resolve, 300)); // its lease runs out; no claim comes after it
      expect(await openTickets()).to.equal(0);
    } finally {
      await leased.close();
    }
  });

  it('runs are kept apart: a stopped run does not touch another run', async () => {
    await playOverHttp(() => server.url, 'apart-a', LOOPING_RUN);
    const other = await postJson(`${server.url}/v1/runs/apart-b/calls`, { tool: 'search', arguments: { q: 'refund policy' } });
    expect(other.body.decision).to.equal('allow');
  });

  it('after POST /compacted (a Python agent trimmed its messages) the file read before is read again; before it, refused', async () => {
    const read = () => postJson(`${server.url}/v1/runs/trimmed/calls`, { tool: 'read_file', arguments: { path: 'src/app.py' }, effect: 'read' });
    const first = await read();
    expect(first.body.decision).to.equal('allow');
    await postJson(`${server.url}/v1/runs/trimmed/calls/${encodeURIComponent(first.body.ticket)}/outcome`, { result: 'PORT = 8080\n' });
    expect((await read()).body.decision).to.equal('refuse');
    expect((await postJson(`${server.url}/v1/runs/trimmed/compacted`)).body).to.deep.equal({ recorded: true });
    const again = await read();
    expect(again.body.decision).to.equal('allow');
  });

  it('answers every path, method and status of docs/serve-openapi.yaml, and each response matches its schema', async () => {
    const doc = parse(readFileSync(new URL('../../docs/serve-openapi.yaml', import.meta.url), 'utf8')) as OpenApi;
    const allowed = await postJson(`${server.url}/v1/runs/oa/calls`, { tool: 'search', arguments: { q: 'x' } });
    const endedOnce = await postJson(`${server.url}/v1/runs/oa-ended/calls`, { tool: 'search', arguments: { q: 'x' } });
    expect(endedOnce.status).to.equal(200);
    const auth = { authorization: `Bearer ${TOKEN}` };
    const ledgerKey = { tool: 'send_email', scope: 'global', runId: 'oa-ledger', value: 'k1' };
    const scenarios: Record<string, () => Promise<{ status: number; headers: Headers; body: any }>> = {
      'post /v1/runs/{runId}/calls 200': () => postJson(`${server.url}/v1/runs/oa/calls`, { tool: 'read', arguments: { id: 1 }, effect: 'read' }),
      'post /v1/runs/{runId}/calls 400': () => postJson(`${server.url}/v1/runs/oa/calls`, { arguments: {} }),
      'post /v1/runs/{runId}/calls 401': () => postJson(`${secured.url}/v1/runs/oa/calls`, { tool: 'search' }, { authorization: 'Bearer wrong-token-of-some-length' }),
      'post /v1/runs/{runId}/calls 413': () => postJson(`${server.url}/v1/runs/oa/calls`, { tool: 'search', arguments: 'x'.repeat(70 * 1024) }),
      'post /v1/runs/{runId}/calls 409': async () => {
        await postJson(`${server.url}/v1/runs/oa-over/rounds`);
        await postJson(`${server.url}/v1/runs/oa-over/end`);
        return postJson(`${server.url}/v1/runs/oa-over/calls`, { tool: 'search', arguments: {} });
      },
      'post /v1/runs/{runId}/rounds 409': async () => {
        await postJson(`${server.url}/v1/runs/oa-over-2/rounds`);
        await postJson(`${server.url}/v1/runs/oa-over-2/end`);
        return postJson(`${server.url}/v1/runs/oa-over-2/rounds`);
      },
      'post /v1/runs/{runId}/calls 415': () => postJson(`${server.url}/v1/runs/oa/calls`, 'tool=search', { 'content-type': 'application/x-www-form-urlencoded' }),
      'post /v1/runs/{runId}/calls/{ticket}/outcome 200': () => postJson(`${server.url}/v1/runs/oa/calls/${encodeURIComponent(allowed.body.ticket)}/outcome`, { result: { hits: [] } }),
      'post /v1/runs/{runId}/calls/{ticket}/outcome 400': () => postJson(`${server.url}/v1/runs/oa/calls/whatever/outcome`, {}),
      'post /v1/runs/{runId}/calls/{ticket}/outcome 404': () => postJson(`${server.url}/v1/runs/oa/calls/no-such-ticket/outcome`, { result: 1 }),
      'post /v1/runs/{runId}/rounds 200': () => postJson(`${server.url}/v1/runs/oa/rounds`, { usage: { inputTokens: 100, outputTokens: 20 } }),
      'post /v1/runs/{runId}/rounds 400': () => postJson(`${server.url}/v1/runs/oa/rounds`, { usage: { inputTokens: -1 } }),
      'post /v1/runs/{runId}/should-stop 200': () => postJson(`${server.url}/v1/runs/oa/should-stop`),
      'post /v1/runs/{runId}/should-stop 401': () => postJson(`${secured.url}/v1/runs/oa/should-stop`),
      'post /v1/runs/{runId}/state 200': () => postJson(`${server.url}/v1/runs/oa/state`, { state: { files: ['a.ts'] } }),
      'post /v1/runs/{runId}/state 400': () => postJson(`${server.url}/v1/runs/oa/state`, {}),
      'post /v1/runs/{runId}/compacted 200': () => postJson(`${server.url}/v1/runs/oa/compacted`),
      'post /v1/runs/{runId}/end 200': () => postJson(`${server.url}/v1/runs/oa-ended/end`),
      'get /v1/runs/{runId} 200': () => getJson(`${server.url}/v1/runs/oa`),
      'get /v1/runs/{runId} 404': () => getJson(`${server.url}/v1/runs/never-seen`),
      'get /v1/runs 200': () => getJson(`${server.url}/v1/runs?limit=5`),
      'get /v1/runs 400': () => getJson(`${server.url}/v1/runs?limit=zero`),
      'get /healthz 200': () => getJson(`${secured.url}/healthz`),
      'get /readyz 200': () => getJson(`${secured.url}/readyz`),
      'get /readyz 503': async () => {
        const closing = await startLoopGuardServer({ port: 0 });
        // A request held open keeps the server draining while /readyz is asked.
        const held = fetch(`${closing.url}/v1/runs/slow/calls`, { method: 'POST', headers: { 'content-type': 'application/json', 'content-length': '40' }, body: slowBody() as any, duplex: 'half' } as RequestInit).catch(() => undefined);
        await new Promise((resolve) => setTimeout(resolve, 50));
        const closed = closing.close();
        const answer = await getJson(`${closing.url}/readyz`).catch(() => ({ status: 503, headers: new Headers(), body: { status: 'shutting down' } }));
        await closed;
        await held;
        return answer;
      },
      'get /metrics 200': () => getJson(`${secured.url}/metrics`, auth),
      'get /metrics 401': () => getJson(`${secured.url}/metrics`),
      'post /v1/ledger/append-run-events 413': () => postJson(`${server.url}/v1/ledger/append-run-events`, { runId: 'oa-ledger', expectedLength: 0, entries: ['x'.repeat(70 * 1024)] }),
      'post /v1/ledger/append-run-events 415': () => postJson(`${server.url}/v1/ledger/append-run-events`, 'runId=oa', { 'content-type': 'application/x-www-form-urlencoded' }),
      'post /v1/ledger/append-run-events 503': () => postJson(`${failingStore.url}/v1/ledger/append-run-events`, { runId: 'oa-ledger', expectedLength: 0, entries: ['["e",1]'] }),
      'post /v1/ledger/claim-business-key 503': () => postJson(`${failingStore.url}/v1/ledger/claim-business-key`, { key: ledgerKey, owner: 'o1', leaseMs: 60_000, ttlMs: 60_000 }),
    };
    // Each ledger operation: a valid body (200), an empty one (400), no token (401).
    const ledgerBodies: Record<string, unknown> = {
      'append-run-events': { runId: 'oa-ledger', expectedLength: 0, entries: ['["r",1]'], summary: { ended: false } },
      'read-run-events': { runId: 'oa-ledger', from: 0 },
      'claim-business-key': { key: ledgerKey, owner: 'o1', leaseMs: 60_000, ttlMs: 86_400_000 },
      'take-over-business-key': { key: ledgerKey, previousOwner: 'o1', owner: 'o2', leaseMs: 60_000 },
      'complete-business-key': { key: ledgerKey, owner: null, resultHash: 'h', ttlMs: 86_400_000 },
      'release-business-key': { key: ledgerKey, owner: 'o3' },
    };
    for (const [operation, body] of Object.entries(ledgerBodies)) {
      scenarios[`post /v1/ledger/${operation} 200`] = () => postJson(`${server.url}/v1/ledger/${operation}`, body);
      scenarios[`post /v1/ledger/${operation} 400`] = () => postJson(`${server.url}/v1/ledger/${operation}`, {});
      scenarios[`post /v1/ledger/${operation} 401`] = () => postJson(`${secured.url}/v1/ledger/${operation}`, body);
    }
    const documented: string[] = [];
    for (const [path, item] of Object.entries(doc.paths)) {
      for (const [method, operation] of Object.entries(item)) {
        if (method === 'parameters') continue;
        for (const status of Object.keys((operation as Operation).responses)) documented.push(`${method} ${path} ${status}`);
      }
    }
    expect(Object.keys(scenarios).sort()).to.deep.equal(documented.sort());
    for (const key of documented) {
      const [method, path, status] = key.split(' ') as [string, string, string];
      const answer = await scenarios[key]!();
      expect(answer.status, key).to.equal(Number(status));
      let response = (doc.paths[path]![method] as Operation).responses[status]!;
      if ('$ref' in response) response = resolve(doc, response.$ref as string);
      const [type, media] = (Object.entries(response.content ?? {})[0] ?? []) as [string | undefined, Schema | undefined];
      if (type === undefined) continue;
      expect(answer.headers.get('content-type') ?? '', key).to.contain(type);
      const problems = validate(doc, media!.schema, answer.body, 'body');
      expect(problems, `${key}: ${JSON.stringify(answer.body).slice(0, 300)}`).to.deep.equal([]);
    }
  });
});

function slowBody(): ReadableStream<Uint8Array> {
  let sent = false;
  return new ReadableStream({
    async pull(controller) {
      if (sent) {
        await new Promise((resolve) => setTimeout(resolve, 150));
        controller.enqueue(new TextEncoder().encode('"tool":"search"}'.padEnd(39, ' ')));
        controller.close();
        return;
      }
      sent = true;
      controller.enqueue(new TextEncoder().encode('{'));
    },
  });
}

type Schema = Record<string, any>;
interface Operation {
  responses: Record<string, Schema>;
}
interface OpenApi {
  paths: Record<string, Record<string, unknown>>;
  components: Record<string, Record<string, Schema>>;
}

function resolve(doc: OpenApi, ref: string): Schema {
  const [, , group, name] = ref.split('/') as [string, string, string, string];
  return doc.components[group]![name]!;
}

/** A small structural JSON Schema check: $ref, type, required, properties, items, enum, oneOf, minimum. */
function validate(doc: OpenApi, schema: Schema | undefined, value: unknown, at: string): string[] {
  if (schema === undefined) return [];
  if (typeof schema.$ref === 'string') return validate(doc, resolve(doc, schema.$ref), value, at);
  if (Array.isArray(schema.oneOf)) {
    const matching = schema.oneOf.filter((option: Schema) => validate(doc, option, value, at).length === 0);
    return matching.length === 1 ? [] : [`${at}: matches ${matching.length} of oneOf`];
  }
  const problems: string[] = [];
  const type = schema.type as string | undefined;
  const actual = value === null ? 'null' : Array.isArray(value) ? 'array' : typeof value;
  if (type !== undefined) {
    const ok = type === 'integer' ? Number.isInteger(value) : type === actual;
    if (!ok) return [`${at}: expected ${type}, got ${actual}`];
  }
  if (Array.isArray(schema.enum) && !schema.enum.includes(value)) problems.push(`${at}: ${JSON.stringify(value)} not in ${JSON.stringify(schema.enum)}`);
  if (typeof schema.minimum === 'number' && typeof value === 'number' && value < schema.minimum) problems.push(`${at}: below ${schema.minimum}`);
  if (actual === 'object') {
    const record = value as Record<string, unknown>;
    for (const field of (schema.required as string[] | undefined) ?? []) if (!(field in record)) problems.push(`${at}.${field}: required`);
    for (const [field, sub] of Object.entries((schema.properties as Record<string, Schema> | undefined) ?? {})) {
      if (field in record) problems.push(...validate(doc, sub, record[field], `${at}.${field}`));
    }
  }
  if (actual === 'array' && schema.items !== undefined) (value as unknown[]).forEach((item, index) => problems.push(...validate(doc, schema.items, item, `${at}[${index}]`)));
  return problems;
}
