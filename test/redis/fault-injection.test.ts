// The fault-injection suite of the shared ledger (issue 23): four real worker processes
// (fixtures/shared-worker.ts) race for the same business-key write, round after round, on one
// Redis server and on a three-node cluster, while the node holding the run is stalled (DEBUG
// SLEEP), mute (SIGSTOP), or killed and restarted from its append-only file, and while a
// worker is SIGKILLed between claim and completion. Each asserts: nothing ran twice, nothing
// was lost (every decision reaches the run's log exactly once), every answer came within a
// bound, and no host crashed. The writes go to a separate Redis (the "system of record"),
// which no fault touches. Handing a run between processes is in redis-run-store.test.ts.
import { expect } from 'chai';
import type { Redis } from 'ioredis';
import { LoopGuard } from '../../src/core/loop-guard.js';
import { createRedisRunStore } from '../../src/redis/index.js';
import { startRedisServer, type RedisServer } from '../helpers/redis-servers.js';
import { cluster, singleServer, type Topology } from './topologies.js';
import { requestId, startWorker, type Worker } from './worker-pool.js';

/** The store's timeoutMs in the workers; every answer must come within a few of them. */
const TIMEOUT_MS = 300;
const ANSWER_BOUND_MS = 4_000;
const LEASE_MS = 600;

for (const makeTopology of [singleServer, cluster]) {
  describe(`issue 23: fault injection on ${makeTopology === singleServer ? 'one Redis server' : 'a three-node Redis Cluster'}`, function () {
    this.timeout(120_000);
    let topology: Topology;
    let records: RedisServer;
    let recordClient: Redis;
    let workers: Worker[] = [];
    let prefix = '';
    let writes = 0;
    let trial = 0;

    before(async () => {
      topology = await makeTopology();
      records = await startRedisServer();
      recordClient = await records.client();
    });
    after(async () => {
      for (const worker of workers) await worker.kill('SIGKILL');
      await records.stop();
      await topology.stop();
    });
    beforeEach(async () => {
      // The previous test's fault may still be felt on a node its own rounds never asked:
      // after the mute test, a cluster node kept refusing (CLUSTERDOWN) for ~3 s, and a CI
      // run's first round before the next fault saw every write refused (ran 0 of 1).
      await topology.settle();
      trial += 1;
      prefix = `faults-${trial}`;
      writes = 0;
      workers = [];
      for (let index = 0; index < 4; index++) {
        workers.push(
          await startWorker({
            type: 'init',
            ...topology.connection(),
            keyPrefix: prefix,
            policy: {},
            timeoutMs: TIMEOUT_MS,
            recordUrl: records.url,
            // Run scope: the key lives in the run's slot, on the node the fault hits.
            idempotent: { send_email: { key: ['to'], leaseMs: LEASE_MS, verify: true, scope: 'run' } },
          }),
        );
      }
    });
    afterEach(async () => {
      for (const worker of workers) {
        expect(worker.process.exitCode, 'a worker crashed').to.equal(null);
        expect(worker.process.signalCode === null || worker.process.signalCode === 'SIGKILL').to.equal(true);
      }
      for (const worker of workers) await worker.exit();
    });

    const executions = async (to: string) => Number(await recordClient.get(`${prefix}:executions:{${to}}`));

    /** The four workers race for one write in `runId`: its replies, and the slowest answer. */
    async function race(runId: string, to: string): Promise<{ reasons: string[]; slowest: number }> {
      const started = Date.now();
      let slowest = 0;
      const replies = await Promise.all(
        workers.map(async (worker) => {
          writes += 1;
          const reply = await worker.request({ type: 'write', id: requestId(), runId, tool: 'send_email', args: { to }, mode: 'run' });
          slowest = Math.max(slowest, Date.now() - started);
          return reply;
        }),
      );
      return { reasons: replies.map((reply) => (reply.action === 'allow' ? 'allow' : reply.reason!)), slowest };
    }

    /**
     * Rounds of races before, during and after a fault. During it, a write runs at most once;
     * after it, exactly once; each earlier write is then refused, never run again; the run's
     * log holds every decision of every worker once.
     */
    async function raceThrough(runId: string, fault: { inject(): Promise<void>; clear(): Promise<void> }, duringMs: number): Promise<void> {
      const targets: string[] = [];
      const round = async (label: string) => {
        const to = `${label}-${targets.length}@example.com`;
        targets.push(to);
        const { reasons, slowest } = await race(runId, to);
        expect(slowest, `${to}: an answer took ${slowest} ms`).to.be.below(ANSWER_BOUND_MS);
        const ran = await executions(to);
        expect(ran, `${to} ran ${ran} times: ${reasons.join(', ')}`).to.be.at.most(1);
        expect(reasons.filter((reason) => reason === 'allow'), `${to}: ${reasons.join(', ')}`).to.have.length(ran);
        for (const reason of reasons) expect(reason).to.be.oneOf(['allow', 'repeat.in_flight', 'write.already_done', 'store.unavailable', 'write.outcome_unknown']);
        return { ran, reasons };
      };
      for (let index = 0; index < 3; index++) {
        const { ran, reasons } = await round('before');
        expect(ran, `before the fault: ${reasons.join(', ')}`).to.equal(1);
      }
      await fault.inject();
      const faultEnds = Date.now() + duringMs;
      let refusedForStore = 0;
      while (Date.now() < faultEnds) refusedForStore += (await round('during')).reasons.filter((reason) => reason === 'store.unavailable').length;
      await fault.clear();
      expect(refusedForStore, 'the fault was felt').to.be.greaterThan(0);
      // Back: within a bound, a write runs exactly once again.
      const backBy = Date.now() + 15_000;
      for (;;) {
        const { ran } = await round('after');
        if (ran === 1) break;
        expect(Date.now(), 'the store never came back').to.be.below(backBy);
        await new Promise((resolve) => setTimeout(resolve, 200));
      }
      // Past every lease: a write that ran is refused as done (verify finds it), never repeated.
      await new Promise((resolve) => setTimeout(resolve, LEASE_MS + 100));
      for (const to of targets) {
        const before = await executions(to);
        const { reasons } = await race(runId, to);
        const after = await executions(to);
        if (before === 1) expect(after, `${to} ran again: ${reasons.join(', ')}`).to.equal(1);
        else expect(after, `${to}, refused throughout the fault, runs once now`).to.equal(1);
      }
      // Nothing lost, nothing twice: every worker's every decision is in the log once.
      for (const worker of workers) await worker.request({ type: 'play', id: requestId(), runId: 'flush', rounds: [] });
      const observer = new LoopGuard({ store: createRedisRunStore({ client: await topology.client(), keyPrefix: prefix }), logger: { warn: () => undefined } });
      const replica = await observer.resumeRun(runId);
      expect(replica.partial().toolCalls, 'calls in the shared log').to.equal(writes);
    }

    it('issue 23 fault injection: Redis stalled (DEBUG SLEEP) under 4 racing processes', async () => {
      const runId = 'stalled';
      const server = topology.serverOf(`${prefix}:{${runId}}:log`);
      let over: Promise<unknown> = Promise.resolve();
      await raceThrough(runId, { inject: async () => void ({ over } = await server.stall(1500)), clear: async () => void (await over) }, 1200);
    });

    it('issue 23 fault injection: Redis mute (SIGSTOP) under 4 racing processes', async () => {
      const runId = 'mute';
      const server = topology.serverOf(`${prefix}:{${runId}}:log`);
      await raceThrough(runId, { inject: async () => server.pause(), clear: async () => server.resume() }, 1200);
    });

    it('issue 23 fault injection: Redis killed (SIGKILL) and restarted from its append-only file under 4 racing processes', async () => {
      const runId = 'killed';
      let restart: () => Promise<void> = async () => undefined;
      await raceThrough(runId, { inject: async () => void (restart = await topology.crash(`${prefix}:{${runId}}:log`)), clear: () => restart() }, 800);
    });

    it('issue 23 fault injection: a worker SIGKILLed between claim and completion, 4 rounds; verify decides, nothing runs twice', async () => {
      // Each round restarts a worker process (~2 s of tsx start-up): 4 rounds cover both cases twice.
      for (let round = 0; round < 4; round++) {
        const to = `killed-worker-${round}@example.com`;
        const victim = workers[round % 4]!;
        const id = requestId();
        const claimed = victim.claimed(id);
        // Half the rounds the write ran before the kill (its answer lost), half it never ran.
        void victim.request({ type: 'write', id, runId: `job-${round}`, tool: 'send_email', args: { to }, mode: round % 2 === 0 ? 'lost' : 'hang' }).catch(() => undefined);
        await claimed;
        await victim.kill('SIGKILL');
        workers[round % 4] = await startWorker({
          type: 'init',
          ...topology.connection(),
          keyPrefix: prefix,
          policy: {},
          timeoutMs: TIMEOUT_MS,
          recordUrl: records.url,
          idempotent: { send_email: { key: ['to'], leaseMs: LEASE_MS, verify: true, scope: 'run' } },
        });
        await new Promise((resolve) => setTimeout(resolve, LEASE_MS + 50));
        const { reasons, slowest } = await race(`job-${round}`, to);
        expect(slowest).to.be.below(ANSWER_BOUND_MS);
        expect(await executions(to), `${to}: ${reasons.join(', ')}`).to.equal(1);
        expect(reasons.filter((reason) => reason === 'allow')).to.have.length(round % 2 === 0 ? 0 : 1);
      }
    });
  });
}
