/**
 * Client CPU of one guarded call through the Redis store against one SET (issue 20 #4), for
 * `node --cpu-prof`: `PROBE_TASK=call|set|append|memory|none PROBE_CALLS=20000`. Prints the
 * process CPU per call of the chosen task after a warm-up; the profile shows where it goes.
 */
import { Redis } from 'ioredis';
import { LoopGuard } from '../../src/core/loop-guard.js';
import { createMemoryRunStore } from '../../src/core/shared-ledger/create-memory-run-store.js';
import { encodeRunEvent } from '../../src/core/shared-ledger/run-event.js';
import { createRedisRunStore } from '../../src/redis/index.js';
import { smallArgs } from '../lib/fixtures.js';
import { startBenchRedisServer } from '../lib/redis-server.js';

const TASK = process.env.PROBE_TASK ?? 'call';
const CALLS = Number(process.env.PROBE_CALLS ?? 20000);
const POLICY = { maxToolCalls: Infinity, maxRounds: Infinity } as const;

function documents(call: number, count = 5): Record<string, unknown> {
  const hits = [];
  for (let index = 0; index < count; index++) {
    const id = call * count + index;
    hits.push({ id: `doc-${id}`, title: `Configuring retries for index ${id}`, url: `https://docs.example.com/search/retries/${id}`, score: 1 / (index + 1), snippet: 'Retries are attempted with exponential backoff; set maxAttempts to bound them.' });
  }
  return { total: count, hits };
}

async function main(): Promise<void> {
  const server = process.env.PROBE_URL === undefined ? await startBenchRedisServer() : undefined;
  const url = process.env.PROBE_URL ?? server!.url;
  const client = new Redis(url, { enableOfflineQueue: false, maxRetriesPerRequest: 1, lazyConnect: true });
  await client.connect();
  const results = Array.from({ length: 64 }, (_, index) => documents(index));
  const store = TASK === 'memory' ? createMemoryRunStore() : TASK === 'none' ? undefined : createRedisRunStore({ client, keyPrefix: `probe-${process.pid}` });
  const guard = new LoopGuard(store === undefined ? POLICY : { ...POLICY, store });
  const run = guard.startRun('probe');
  const entry = encodeRunEvent({ type: 'call', key: 'probe.1', time: Date.now(), call: { tool: 'search', argsHash: run.argsHash('search', smallArgs(0)) }, decision: { action: 'allow', kind: 'new', tool: 'search', argsHash: run.argsHash('search', smallArgs(0)) } });
  let serial = 0;
  let appended = 0;
  const task = async (): Promise<void> => {
    const n = serial++;
    if (TASK === 'set') {
      await client.set('probe-set', JSON.stringify(smallArgs(n)));
    } else if (TASK === 'append') {
      appended = (await store!.appendRunEvents('append-only', appended, [entry], undefined, appended > 0 ? entry : undefined)).length;
    } else {
      const ticket = await run.claimCall({ tool: 'search', args: smallArgs(n) });
      if (ticket.decision.action !== 'allow') throw new Error('expected allow');
      run.finishCall(ticket, { result: results[n & 63] });
    }
  };
  for (let i = 0; i < 3000; i++) await task();
  const cpu = process.cpuUsage();
  const start = process.hrtime.bigint();
  for (let i = 0; i < CALLS; i++) await task();
  const wall = Number(process.hrtime.bigint() - start) / 1e3 / CALLS;
  const used = process.cpuUsage(cpu);
  console.log(`${TASK}: wall ${wall.toFixed(1)} us/call, client CPU ${((used.user + used.system) / CALLS).toFixed(1)} us/call (user ${(used.user / CALLS).toFixed(1)}, sys ${(used.system / CALLS).toFixed(1)})`);
  await guard.flush();
  client.disconnect();
  await server?.stop();
}

void main();
