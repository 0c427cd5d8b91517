// `loopguard serve --redis` when its Redis fails: a real serve process over a real
// redis-server that crashes (SIGKILL, restarted from its append-only file) or goes mute
// (SIGSTOP). The server must keep answering within its store timeout, follow storeFailure
// (ordinary calls go ahead, business-key writes are refused), stay up, and claim writes
// across the fleet again once Redis is back, without forgetting the ones done before.
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { expect } from 'chai';
import { startRedisServer, type RedisServer } from '../helpers/redis-servers.js';
import { getJson, postJson } from './server-test-helpers.js';
import { startServeProcess, type ServeProcess } from './serve-process.js';

describe('loopguard serve --redis when Redis fails (real redis-server, a real serve process)', function () {
  this.timeout(60_000);
  let redis: RedisServer;
  let serve: ServeProcess;
  let dir: string;

  before(async () => {
    redis = await startRedisServer({ appendOnly: true });
    dir = await mkdtemp(join(tmpdir(), 'loopguard-serve-faults-'));
    const policy = join(dir, 'policy.json');
    await writeFile(policy, JSON.stringify({ idempotentWrites: { refund: { key: ['order'] } } }));
    serve = await startServeProcess(['--redis', redis.url, '--policy', policy]);
  });
  after(async () => {
    const code = await serve.stop();
    await redis.stop();
    await rm(dir, { recursive: true, force: true });
    expect(code, `clean shutdown on SIGTERM after the faults:\n${serve.stderr()}`).to.equal(0);
  });

  const claim = (runId: string, tool: string, args: unknown) => postJson(`${serve.url}/v1/runs/${runId}/calls`, { tool, arguments: args });
  const refundDone = async (runId: string, order: string) => {
    const claimed = await claim(runId, 'refund', { order });
    expect(claimed.body.decision, JSON.stringify(claimed.body)).to.equal('allow');
    const outcome = await postJson(`${serve.url}/v1/runs/${runId}/calls/${encodeURIComponent(claimed.body.ticket)}/outcome`, { result: 'refunded' });
    expect(outcome.status).to.equal(200);
  };

  const faults = [
    { name: 'crashed (SIGKILL), then restarted from its append-only file', fail: () => redis.crash(), recover: () => redis.restart() },
    { name: 'mute (SIGSTOP), then answering again', fail: async () => redis.pause(), recover: async () => redis.resume() },
  ];
  faults.forEach(({ name, fail, recover }, index) => {
    it(`Redis ${name}: reads answered, business-key writes refused store.unavailable, the server stays up; afterwards writes are claimed once again`, async () => {
      await refundDone(`before-${index}`, `A-${index}`);
      await fail();

      const started = Date.now();
      const read = await claim(`during-${index}`, 'search', { q: 'refund policy' });
      expect(read.status).to.equal(200);
      expect(read.body.decision, JSON.stringify(read.body)).to.equal('allow');
      const write = await claim(`during-${index}`, 'refund', { order: `B-${index}` });
      expect(write.status).to.equal(200);
      expect(write.body, JSON.stringify(write.body)).to.include({ decision: 'refuse', reason: 'store.unavailable' });
      expect(write.body.message).to.match(/^Not run: refund was not run because loopguard's shared store cannot be reached/);
      // Each answer is bounded by the store's timeout, not by the outage.
      expect(Date.now() - started).to.be.below(10_000);
      expect((await getJson(`${serve.url}/healthz`)).status).to.equal(200);
      expect(serve.child.exitCode).to.equal(null);

      await recover();
      // The client reconnects on its own: within a few seconds a new key is claimed through Redis.
      let again: Awaited<ReturnType<typeof claim>> | undefined;
      for (const deadline = Date.now() + 15_000; Date.now() < deadline; await new Promise((resolve) => setTimeout(resolve, 250))) {
        again = await claim(`after-${index}`, 'refund', { order: `B-${index}` });
        if (again.body.decision === 'allow') break;
      }
      expect(again?.body.decision, JSON.stringify(again?.body)).to.equal('allow');
      // The refund done before the fault is still known to every run: not done twice.
      const repeat = await claim(`after-${index}-other`, 'refund', { order: `A-${index}` });
      expect(repeat.body, JSON.stringify(repeat.body)).to.include({ decision: 'refuse', reason: 'write.already_done' });
    });
  });
});
