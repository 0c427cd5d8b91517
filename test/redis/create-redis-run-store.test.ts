// The append script's work per call (issue 20 #4): an ordinary append writes the run's log
// alone, and `describeRun` still tells when the run was created and last changed, on one
// server and on a three-node cluster (where the script's keys decide the node).
import { expect } from 'chai';
import { encodeRunEvent } from '../../src/core/shared-ledger/run-event.js';
import { createRedisRunStore, StoredRunUnreadableError } from '../../src/redis/index.js';
import { cluster, singleServer, type Topology } from './topologies.js';

const round = (time: number) => encodeRunEvent({ type: 'round', time });
const state = (digest: string) => encodeRunEvent({ type: 'state', digest });

for (const makeTopology of [singleServer, cluster]) {
  describe(`createRedisRunStore appends on ${makeTopology === singleServer ? 'one Redis server' : 'a three-node Redis Cluster'}`, function () {
    this.timeout(120_000);
    let topology: Topology;
    let counter = 0;
    let prefix = '';

    before(async () => {
      topology = await makeTopology();
    });
    after(async () => {
      await topology?.stop();
    });
    beforeEach(() => {
      counter += 1;
      prefix = `lgappend${counter}`;
    });

    it("an ordinary append writes the log alone: the run hash keeps the TTL and fields its creation gave it", async () => {
      const client = await topology.client();
      const store = createRedisRunStore({ client, keyPrefix: prefix, runTtlMs: 3_600_000 });
      const keys = store.keysOf('r');
      expect(await store.appendRunEvents('r', 0, [round(1_000)])).to.deep.equal({ accepted: true, length: 1 });
      expect(Object.keys(await client.hgetall(keys.run))).to.deep.equal(['created']);
      // A marker TTL far below runTtlMs: a write of the hash by the next append would reset it.
      await client.pexpire(keys.run, 50_000);
      expect(await store.appendRunEvents('r', 1, [round(2_000), round(3_000)])).to.deep.equal({ accepted: true, length: 3 });
      expect(await client.pttl(keys.run)).to.be.at.most(50_000);
      expect(Object.keys(await client.hgetall(keys.run))).to.deep.equal(['created']);
      expect(await client.pttl(keys.log)).to.be.greaterThan(50_000).and.at.most(3_600_000);
      // A stop and an end are written, and refresh the hash's expiry with the log's.
      await store.appendRunEvents('r', 3, [round(4_000)], { stopReason: 'stale_rounds', ended: true });
      expect(await client.hgetall(keys.run)).to.include({ stop: 'stale_rounds', ended: '1' });
      expect(await client.pttl(keys.run)).to.be.greaterThan(50_000);
    });

    it('a refused append writes nothing and returns what the caller missed', async () => {
      const client = await topology.client();
      const store = createRedisRunStore({ client, keyPrefix: prefix });
      await store.appendRunEvents('r', 0, [round(1), round(2)]);
      expect(await store.appendRunEvents('r', 1, [round(3)])).to.deep.equal({ accepted: false, length: 2, entries: [round(2)] });
      expect(await store.appendRunEvents('r', 5, [round(3)])).to.deep.equal({ accepted: false, length: 2, entries: [round(1), round(2)], truncated: true });
      expect(await client.llen(store.keysOf('r').log)).to.equal(2);
    });

    it("describeRun: the last change is the newest timed entry's time, and creation comes from the log once the hash is gone", async () => {
      const client = await topology.client();
      const store = createRedisRunStore({ client, keyPrefix: prefix });
      const later = Date.now() + 3_600_000;
      await store.appendRunEvents('r', 0, [round(later)]);
      await store.appendRunEvents('r', 1, [round(later + 5), state('digest')]);
      const summary = await store.describeRun('r');
      expect(summary).to.include({ events: 3, updated: later + 5, ended: false });
      expect(summary!.created).to.be.within(Date.now() - 60_000, Date.now() + 60_000);
      // A run older than runTtlMs keeps its log (refreshed by every append) but not its hash.
      await client.del(store.keysOf('r').run);
      expect(await store.describeRun('r')).to.include({ created: later, updated: later + 5, events: 3 });
      // Never a last change before the creation (the hash's time is the server's, entries' the writers').
      await store.appendRunEvents('s', 0, [round(1_000)]);
      const early = await store.describeRun('s');
      expect(early!.updated).to.equal(early!.created);
    });

    // Audit p03/d3: values loopguard never writes (another writer, a hand edit). A created
    // field of "abc" used to be NaN, and hid the last change though the log has timed entries.
    it('describeRun: a created field that is not a date is read as absent and named in problems; an entry time that is none is passed over', async () => {
      const client = await topology.client();
      const store = createRedisRunStore({ client, keyPrefix: prefix });
      const keys = store.keysOf('r');
      await store.appendRunEvents('r', 0, [round(5_000), round(6_000), '["r",1e20]']);
      await client.hset(keys.run, 'created', 'abc');
      const summary = await store.describeRun('r');
      expect(summary).to.include({ created: 5_000, updated: 6_000, events: 3 });
      // The 1e20 entry is one the log decoder skips (run-event.ts): it has no time to name.
      expect(summary!.problems).to.deep.equal([`${keys.run} field created is "abc", not a time (ms since the epoch); read as absent`]);
      await store.appendRunEvents('ok', 0, [round(1_000)]);
      expect(await store.describeRun('ok')).to.not.have.property('problems');
    });

    // Audit d9: one run key of the wrong type rejected the whole list, naming no key.
    it('listRuns: a run whose key has the wrong Redis type is reported with its key, the others listed', async () => {
      const client = await topology.client();
      const store = createRedisRunStore({ client, keyPrefix: prefix });
      for (const id of ['a', 'bad', 'b']) await store.appendRunEvents(id, 0, [round(Date.now())]);
      await client.del(store.keysOf('bad').log);
      await client.set(store.keysOf('bad').log, 'x');
      const unreadable: StoredRunUnreadableError[] = [];
      const runs = await store.listRuns({ onUnreadable: (error) => unreadable.push(error) });
      expect(runs.map((run) => run.runId).sort()).to.deep.equal(['a', 'b']);
      expect(unreadable.map((error) => [error.runId, error.key])).to.deep.equal([['bad', store.keysOf('bad').log]]);
      expect(unreadable[0]!.message).to.match(/^\S+:\{bad\}:log: WRONGTYPE /);
      // Without onUnreadable, the list fails as before, but the error names the key.
      const failure = await store.listRuns().then(() => undefined, (error: unknown) => error);
      expect(failure).to.be.instanceOf(StoredRunUnreadableError);
      const single = await store.describeRun('bad').then(() => undefined, (error: unknown) => error);
      expect(single).to.be.instanceOf(StoredRunUnreadableError).and.to.include({ runId: 'bad', key: store.keysOf('bad').log });
    });
  });
}
