// The shared run ledger on a real Redis and a real three-node Redis Cluster (issue 12): worker
// processes with their own engines share runs through `loopguard/redis`.
import { spawnSync } from 'node:child_process';
import { join } from 'node:path';
import { expect } from 'chai';
import { LoopGuard } from '../../src/core/loop-guard.js';
import type { CallOutcome, LoopGuardOptions } from '../../src/core/types.js';
import { createRedisRunStore } from '../../src/redis/index.js';
import { replayInputs } from '../../src/replay/index.js';
import { REPO_ROOT } from '../cli/cli-test-helpers.js';
import type { PlayedCall, WorkerInit } from './fixtures/shared-worker.js';
import { cluster, singleServer, type Topology } from './topologies.js';
import { requestId, startWorker, type Worker } from './worker-pool.js';

/** A recorded run of the evaluation corpus, as rounds of calls with their recorded outcomes. */
async function recordedRounds(file: string): Promise<PlayedCall[][]> {
  const rounds = new Map<number, PlayedCall[]>();
  await replayInputs({
    files: [join(REPO_ROOT, 'eval/corpus', file)],
    engineOptions: {},
    onRun: () => undefined,
    onProblem: (problem) => {
      throw new Error(problem.message);
    },
    onCall: (call) => {
      const list = rounds.get(call.round) ?? [];
      list.push({ tool: call.tool, args: call.args, outcome: call.outcome as CallOutcome });
      rounds.set(call.round, list);
    },
  });
  return [...rounds.entries()].sort(([a], [b]) => a - b).map(([, calls]) => calls);
}

/** The same rounds in one process without a store: what every split must reproduce. */
function playInOneProcess(policy: LoopGuardOptions, rounds: PlayedCall[][]): { decisions: string[]; stop?: string } {
  const run = new LoopGuard(policy).startRun('reference');
  const decisions: string[] = [];
  for (const round of rounds) {
    run.beginRound();
    for (const call of round) {
      const ticket = run.startCall({ tool: call.tool, args: call.args });
      decisions.push(ticket.decision.action === 'allow' ? 'allow' : ticket.decision.reason);
      if (ticket.decision.action === 'allow') run.finishCall(ticket, call.outcome);
    }
    const decision = run.shouldStop();
    if (decision.action === 'stop') return { decisions, stop: decision.reason };
  }
  return { decisions };
}

const RECORDED_RUNS: Array<{ file: string; policy: LoopGuardOptions; label: string }> = [
  { file: 'react-webshop/react-webshop-fixed_24.jsonl', policy: {}, label: 'a looping WebShop run (general profile)' },
  { file: 'react-fever/react-fever-3033.jsonl', policy: { profile: 'researcher' }, label: 'a looping FEVER run (researcher profile)' },
  { file: 'mini-swe-agent-gemini-3-pro/django__django-11095.traj.json', policy: {}, label: 'a healthy SWE-bench coding run (general profile)' },
];

for (const makeTopology of [singleServer, cluster]) {
  describe(`loopguard/redis on ${makeTopology === singleServer ? 'one Redis server' : 'a three-node Redis Cluster'} (issue 12)`, function () {
    this.timeout(180_000);
    let topology: Topology;
    const workers: Worker[] = [];
    let prefix = '';
    let counter = 0;

    before(async () => {
      topology = await makeTopology();
    });
    after(async () => {
      for (const worker of workers) await worker.kill('SIGKILL');
      await topology?.stop();
    });
    beforeEach(() => {
      counter += 1;
      prefix = `lgtest${counter}`;
    });

    async function worker(init: Omit<WorkerInit, 'type' | 'url' | 'clusterPorts' | 'keyPrefix'>): Promise<Worker> {
      const started = await startWorker({ type: 'init', keyPrefix: prefix, ...topology.connection(), ...init });
      workers.push(started);
      return started;
    }

    for (const recorded of RECORDED_RUNS) {
      it(`${recorded.label}, split round by round between two worker processes, gets the decisions of one process`, async () => {
        const rounds = await recordedRounds(recorded.file);
        const reference = playInOneProcess(recorded.policy, rounds);
        const [a, b] = [await worker({ policy: recorded.policy }), await worker({ policy: recorded.policy })];
        const decisions: string[] = [];
        let stop: string | undefined;
        for (let index = 0; index < rounds.length && stop === undefined; index++) {
          const reply = await (index % 2 === 0 ? a : b).request({ type: 'play', id: requestId(), runId: 'recorded', rounds: [rounds[index]!] });
          decisions.push(...reply.decisions!);
          stop = reply.stop;
        }
        expect(decisions).to.deep.equal(reference.decisions);
        expect(stop).to.equal(reference.stop);
        if (recorded.label.includes('looping')) expect(stop, 'a looping run is stopped').to.be.a('string');
        else expect(stop, 'a healthy run is left alone').to.equal(undefined);
        await a.exit();
        await b.exit();
      });
    }

    it('1,000 trials of 2–4 processes racing the same business-key write: exactly one execution each', async () => {
      const pool: Worker[] = [];
      for (let index = 0; index < 4; index++) pool.push(await worker({ policy: {}, idempotent: { send_email: { key: ['to'], leaseMs: 30_000, verify: false } } }));
      const client = await topology.client();
      let sameRunTrials = 0;
      for (let trial = 0; trial < 1000; trial++) {
        const racers = pool.slice(0, 2 + (trial % 3));
        // Half the trials race inside one run, half across runs (the key's scope is global).
        const sameRun = trial % 2 === 0;
        if (sameRun) sameRunTrials += 1;
        const replies = await Promise.all(
          racers.map((racer, index) =>
            racer.request({ type: 'write', id: requestId(), runId: sameRun ? `race-${trial}` : `race-${trial}-${index}`, tool: 'send_email', args: { to: `t${trial}@example.com`, body: `from ${index}` }, mode: 'run' }),
          ),
        );
        const executions = Number(await client.get(`${prefix}:executions:{t${trial}@example.com}`));
        const allowed = replies.filter((reply) => reply.action === 'allow').length;
        if (executions !== 1 || allowed !== 1) {
          expect.fail(`trial ${trial} (${racers.length} processes): ${executions} executions, ${allowed} allowed; replies ${JSON.stringify(replies)}`);
        }
        for (const reply of replies) {
          if (reply.action === 'refuse') expect(reply.reason).to.be.oneOf(['write.already_done', 'repeat.in_flight']);
        }
      }
      expect(sameRunTrials).to.equal(500);
      for (const racer of pool) await racer.exit();
    });

    it('200 trials of processes racing the same lookup in one run: one execution, the others refused as a repeat', async () => {
      const pool: Worker[] = [];
      for (let index = 0; index < 3; index++) pool.push(await worker({ policy: { profile: 'researcher' } }));
      for (let trial = 0; trial < 200; trial++) {
        const racers = pool.slice(0, 2 + (trial % 2));
        const replies = await Promise.all(
          racers.map((racer) => racer.request({ type: 'play', id: requestId(), runId: `lookup-${trial}`, rounds: [[{ tool: 'search', args: { query: 'refund policy' }, outcome: { result: ['doc-1'] } }]] })),
        );
        const decisions = replies.flatMap((reply) => reply.decisions!);
        expect(decisions.filter((decision) => decision === 'allow'), `trial ${trial}: ${decisions.join(', ')}`).to.have.length(1);
        expect(decisions.filter((decision) => decision !== 'allow').every((reason) => reason === 'repeat.in_flight' || reason === 'repeat.run_wide')).to.equal(true);
      }
      for (const racer of pool) await racer.exit();
    });

    it('a worker killed with SIGKILL between claim and completion: the next attempt asks verify and never re-executes blindly', async () => {
      const idempotent = { send_email: { key: ['to'], leaseMs: 400, verify: true } };
      const client = await topology.client();

      // 1. The tool never ran (killed before it did): verify finds nothing, the write runs once.
      const first = await worker({ policy: {}, idempotent });
      const second = await worker({ policy: {}, idempotent });
      const id1 = requestId();
      const claimed1 = first.claimed(id1);
      void first.request({ type: 'write', id: id1, runId: 'job-1', tool: 'send_email', args: { to: 'never-sent@example.com' }, mode: 'hang' }).catch(() => undefined);
      await claimed1;
      await first.kill('SIGKILL');
      const early = await second.request({ type: 'write', id: requestId(), runId: 'job-1', tool: 'send_email', args: { to: 'never-sent@example.com' }, mode: 'run' });
      expect(early.reason, 'inside the lease the write is still in flight').to.equal('repeat.in_flight');
      await new Promise((resolve) => setTimeout(resolve, 500));
      const retried = await second.request({ type: 'write', id: requestId(), runId: 'job-1', tool: 'send_email', args: { to: 'never-sent@example.com' }, mode: 'run' });
      expect(retried.action).to.equal('allow');
      expect(Number(await client.get(`${prefix}:verify-calls:{never-sent@example.com}`))).to.equal(1);
      expect(Number(await client.get(`${prefix}:executions:{never-sent@example.com}`))).to.equal(1);

      // 2. The tool ran and its response was lost: verify finds it, the write is not repeated.
      const third = await worker({ policy: {}, idempotent });
      const id3 = requestId();
      const claimed3 = third.claimed(id3);
      void third.request({ type: 'write', id: id3, runId: 'job-2', tool: 'send_email', args: { to: 'lost@example.com' }, mode: 'lost' }).catch(() => undefined);
      await claimed3;
      await third.kill('SIGKILL');
      await new Promise((resolve) => setTimeout(resolve, 500));
      const afterLoss = await second.request({ type: 'write', id: requestId(), runId: 'job-2', tool: 'send_email', args: { to: 'lost@example.com' }, mode: 'run' });
      expect(afterLoss.action).to.equal('refuse');
      expect(afterLoss.reason).to.equal('write.already_done');
      expect(afterLoss.message).to.match(/already done .*checked in the records/);
      expect(Number(await client.get(`${prefix}:executions:{lost@example.com}`))).to.equal(1);

      // 3. Without verify, a lost claim is refused as of unknown outcome, never run.
      const fourth = await worker({ policy: {}, idempotent: { send_email: { key: ['to'], leaseMs: 400, verify: false } } });
      const id4 = requestId();
      const claimed4 = fourth.claimed(id4);
      void fourth.request({ type: 'write', id: id4, runId: 'job-3', tool: 'send_email', args: { to: 'unknown@example.com' }, mode: 'lost' }).catch(() => undefined);
      await claimed4;
      await fourth.kill('SIGKILL');
      await new Promise((resolve) => setTimeout(resolve, 500));
      const noVerify = await worker({ policy: {}, idempotent: { send_email: { key: ['to'], leaseMs: 400, verify: false } } });
      const blind = await noVerify.request({ type: 'write', id: requestId(), runId: 'job-3', tool: 'send_email', args: { to: 'unknown@example.com' }, mode: 'run' });
      expect(blind.reason).to.equal('write.outcome_unknown');
      expect(blind.message).to.match(/never reported back/);
      expect(Number(await client.get(`${prefix}:executions:{unknown@example.com}`))).to.equal(1);
      for (const live of [second, noVerify]) await live.exit();
    });

    it('Redis crashes and restarts (append-only file, appendfsync always) in the middle of a run: nothing recorded is lost', async () => {
      const rounds = await recordedRounds('react-webshop/react-webshop-fixed_24.jsonl');
      const reference = playInOneProcess({}, rounds);
      const half = Math.floor(rounds.length / 2);
      const client = await topology.client();
      const store = createRedisRunStore({ client, keyPrefix: prefix, timeoutMs: 2000 });
      const before = new LoopGuard({ store, logger: { warn: () => undefined } });
      const run = before.startRun('restart');
      const decisions: string[] = [];
      const play = async (target: typeof run, part: PlayedCall[][]): Promise<string | undefined> => {
        for (const round of part) {
          target.beginRound();
          for (const call of round) {
            const ticket = await target.claimCall({ tool: call.tool, args: call.args });
            decisions.push(ticket.decision.action === 'allow' ? 'allow' : ticket.decision.reason);
            if (ticket.decision.action === 'allow') target.finishCall(ticket, call.outcome);
          }
          const decision = target.shouldStop();
          if (decision.action === 'stop') return decision.reason;
        }
        return undefined;
      };
      expect(await play(run, rounds.slice(0, half))).to.equal(undefined);
      await before.flush();
      const ledgerBefore = run.partial();
      await topology.crashAndRestart(store.keysOf('restart').log);

      // A new process (a new engine and client) resumes the run after the restart.
      const resumedClient = await topology.client();
      const after = new LoopGuard({ store: createRedisRunStore({ client: resumedClient, keyPrefix: prefix, timeoutMs: 2000 }), logger: { warn: () => undefined } });
      const resumed = await after.resumeRun('restart');
      expect(resumed.partial()).to.deep.equal(ledgerBefore);
      const stop = await play(resumed, rounds.slice(half));
      expect(decisions).to.deep.equal(reference.decisions);
      expect(stop).to.equal(reference.stop);
    });

    it('Redis stopped: calls fail open (one warning, a storeError event), business-key writes fail closed, nothing throws; the outage is logged once it is back', async () => {
      const client = await topology.client();
      const warnings: string[] = [];
      const storeErrors: string[] = [];
      const store = createRedisRunStore({ client, keyPrefix: prefix, timeoutMs: 300 });
      const guard = new LoopGuard({
        store,
        // Run scope: the key lives in the run's slot, on the node that goes down with it.
        idempotentWrites: { send_email: { key: ['to'], scope: 'run' } },
        logger: { warn: (message) => warnings.push(message) },
        listeners: [{ storeError: (operation) => storeErrors.push(operation) }],
      });
      const run = guard.startRun('outage');
      run.beginRound();
      const healthy = await run.claimCall({ tool: 'search', args: { q: 'before' } });
      run.finishCall(healthy, { result: ['a'] });
      await guard.flush();
      const restart = await topology.crash(store.keysOf('outage').log);

      const during = await run.claimCall({ tool: 'search', args: { q: 'during' } });
      expect(during.decision.action, 'an ordinary call fails open').to.equal('allow');
      run.finishCall(during, { result: ['b'] });
      const again = await run.claimCall({ tool: 'search', args: { q: 'during, again' } });
      expect(again.decision.action).to.equal('allow');
      run.finishCall(again, { result: ['c'] });
      const write = await run.claimCall({ tool: 'send_email', args: { to: 'ops@example.com' } });
      expect(write.decision.action, 'a business-key write fails closed').to.equal('refuse');
      expect(write.decision.action === 'refuse' && write.decision.reason).to.equal('store.unavailable');
      // The synchronous path (the span processor's) never throws either.
      expect(() => run.finishCall(run.startCall({ tool: 'search', args: { q: 'sync' } }), { result: ['d'] })).not.to.throw();
      await guard.flush();
      expect(storeErrors).to.include('claim');
      expect(warnings.filter((warning) => warning.includes('the shared store failed')), warnings.join('\n')).to.have.length(1);

      await restart();
      await new Promise((resolve) => setTimeout(resolve, 1500)); // the client reconnects
      const back = await run.claimCall({ tool: 'search', args: { q: 'after' } });
      expect(back.decision.action).to.equal('allow');
      run.finishCall(back, { result: ['e'] });
      await guard.flush();
      expect(warnings.some((warning) => warning.includes('reachable again'))).to.equal(true);
      // Every call of the outage reached the log: another process sees the whole run.
      const observer = new LoopGuard({ store, logger: { warn: () => undefined } });
      const seen = await observer.resumeRun('outage');
      expect(seen.partial().toolCalls).to.equal(run.partial().toolCalls);
      expect(seen.partial().toolCalls).to.equal(6);
    });

    it('a store made from a URL waits for its connection: the first claim is not a store failure', async function () {
      const url = topology.connection().url;
      if (url === undefined) this.skip(); // `url` is one server; a cluster is given as a Cluster client
      const warnings: string[] = [];
      const store = createRedisRunStore({ url, keyPrefix: prefix });
      const guard = new LoopGuard({ store, logger: { warn: (message) => warnings.push(message) } });
      const run = guard.startRun('from-url');
      const ticket = await run.claimCall({ tool: 'search', args: { q: 'x' } });
      run.finishCall(ticket, { result: ['a'] });
      await guard.flush();
      await store.close();
      await store.close(); // idempotent
      expect(warnings).to.deep.equal([]);
      expect(ticket.decision.action).to.equal('allow');
      const client = await topology.client();
      expect(await client.llen(store.keysOf('from-url').log)).to.equal(2);
    });

    it('keeps one run in one slot, and every key expires', async () => {
      const client = await topology.client();
      const store = createRedisRunStore({ client, keyPrefix: prefix, runTtlMs: 3_600_000 });
      const guard = new LoopGuard({ store, idempotentWrites: { send_email: { key: ['to'], scope: 'run' } } });
      const run = guard.startRun('tenant{7}/job');
      run.beginRound();
      const ticket = await run.claimCall({ tool: 'send_email', args: { to: 'a@example.com' } });
      run.finishCall(ticket, { result: 'ok' });
      await guard.flush();
      const keys = store.keysOf('tenant{7}/job');
      const slots = new Set<number>();
      for (const key of [keys.log, keys.run]) {
        slots.add(Number(await client.cluster('KEYSLOT', key).catch(() => spawnSync('redis-cli', ['cluster', 'keyslot', key]).stdout) as number));
        const ttl = await client.pttl(key);
        expect(ttl, key).to.be.greaterThan(0).and.at.most(3_600_000);
      }
      expect(slots.size, 'braces inside a run id must not split its keys').to.equal(1);
      const summary = await store.describeRun('tenant{7}/job');
      expect(summary).to.include({ runId: 'tenant{7}/job', events: 3, ended: false });
      // An empty id would make the empty tag `{}`, which is no tag (review #14).
      const empty = store.keysOf('');
      const emptySlots = new Set([empty.log, empty.run].map((key) => Number(spawnSync('redis-cli', ['cluster', 'keyslot', key], { encoding: 'utf8' }).stdout.trim() || 'NaN')));
      if (!Number.isNaN([...emptySlots][0])) expect(emptySlots.size).to.equal(1);
      expect(empty.log).to.equal(`${prefix}:{%00}:log`);
    });
  });
}
