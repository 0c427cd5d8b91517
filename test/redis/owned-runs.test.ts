// Issue 20 item 4: owned runs (`ownedRuns: true`) on a real redis-server. A read of a run this
// process owns is decided on the replica and returned without waiting for Redis; everything
// that may write is still claimed before it runs; another process appending to an "owned" run
// is detected at the next append and the run falls back to claiming every call.
import { expect } from 'chai';
import { LoopGuardConfigError } from '../../src/core/errors.js';
import { LoopGuard, type LoopGuardEngineOptions } from '../../src/core/loop-guard.js';
import type { RunStore } from '../../src/core/shared-ledger/run-store.js';
import type { CallTicket } from '../../src/core/run-guard.js';
import type { ToolCall } from '../../src/core/types.js';
import { createRedisRunStore } from '../../src/redis/index.js';
import { redisServerPerSuite } from '../helpers/redis-servers.js';

const TOOLS: LoopGuardEngineOptions['tools'] = { get_order: { readOnly: true }, charge_card: { writes: true } };
const READS: ToolCall[] = [
  { tool: 'get_order', args: { id: 1 } }, // the policy's readOnly
  { tool: 'Read', args: { file_path: 'README.md' } }, // a well-known read
  { tool: 'Bash', args: { command: 'cat README.md' } }, // a shell command classified read
];

/**
 * The real store with its appends held at a gate: while the gate is shut no append reaches
 * Redis, so a claim that resolves then did not wait for one. Counts appends sent.
 */
function gatedStore(store: RunStore): RunStore & { appends: number; shut(): void; open(): void } {
  let gate: Promise<void> | undefined;
  let release: (() => void) | undefined;
  const gated = {
    ...store,
    appends: 0,
    shut() {
      gate = new Promise((resolve) => (release = resolve));
    },
    open() {
      release?.();
      gate = undefined;
    },
    async appendRunEvents(...args: Parameters<RunStore['appendRunEvents']>) {
      gated.appends += 1;
      if (gate !== undefined) await gate;
      return store.appendRunEvents(...args);
    },
  };
  return gated;
}

/** Whether `promise` settles within `ms`. */
async function settlesWithin(promise: Promise<unknown>, ms: number): Promise<boolean> {
  let timer: ReturnType<typeof setTimeout> | undefined;
  const late = new Promise<false>((resolve) => (timer = setTimeout(() => resolve(false), ms)));
  const settled = await Promise.race([promise.then(() => true as const), late]);
  clearTimeout(timer);
  return settled;
}

function verdict(ticket: CallTicket): string {
  return ticket.decision.action === 'allow' ? 'allow' : ticket.decision.reason;
}

describe('issue 20 #4: owned runs decide reads without waiting for Redis (real redis-server)', function () {
  this.timeout(30_000);
  const redis = redisServerPerSuite('owned-runs');

  async function engine(options: Omit<LoopGuardEngineOptions, 'store'> = {}, timeoutMs = 2000) {
    const warnings: string[] = [];
    const store = gatedStore(createRedisRunStore({ client: await redis.server.client(), keyPrefix: redis.prefix, timeoutMs }));
    const guard = new LoopGuard({ tools: TOOLS, ...options, store, logger: { warn: (message) => warnings.push(message) } });
    return { guard, store, warnings };
  }

  it('ownedRuns is validated, naming the field, and needs a store', async () => {
    const store = createRedisRunStore({ client: await redis.server.client(), keyPrefix: redis.prefix });
    for (const bad of ['yes', 1, null, {}]) {
      expect(() => new LoopGuard({ store, ownedRuns: bad as never }))
        .to.throw(LoopGuardConfigError)
        .with.property('field', 'ownedRuns');
    }
    expect(() => new LoopGuard({ ownedRuns: true })).to.throw(LoopGuardConfigError).with.property('field', 'ownedRuns');
    expect(() => new LoopGuard({ store, ownedRuns: false })).not.to.throw();
  });

  it('a read of an owned run returns while no append can reach Redis; its claim lands with the next append', async () => {
    const { guard, store } = await engine({ ownedRuns: true });
    const run = guard.startRun('owned-reads');
    store.shut();
    for (const call of READS) {
      const claimed = run.claimCall(call);
      expect(await settlesWithin(claimed, 300), `${call.tool} answered without waiting for an append`).to.equal(true);
      const ticket = await claimed;
      expect(verdict(ticket)).to.equal('allow');
      run.finishCall(ticket, { result: `${call.tool} result` });
    }
    store.open();
    await guard.flush();
    // Every read and its outcome reached the log, in fewer appends than calls (pipelined).
    const observer = await engine();
    const replica = await observer.guard.resumeRun('owned-reads');
    expect(replica.partial().toolCalls).to.equal(READS.length);
    expect(replica.partial().executed).to.equal(READS.length);
    expect(store.appends).to.be.below(READS.length * 2);
  });

  it('without ownedRuns a read still waits for its claim (today\'s path, unchanged)', async () => {
    const { guard, store } = await engine();
    const run = guard.startRun('not-owned');
    store.shut();
    const claimed = run.claimCall(READS[0]!);
    expect(await settlesWithin(claimed, 300)).to.equal(false);
    store.open();
    expect(verdict(await claimed)).to.equal('allow');
  });

  it('a call that may write (write, unknown effect, business key) is still claimed before it runs in an owned run', async () => {
    const { guard, store } = await engine({ ownedRuns: true, idempotentWrites: { send_email: { key: ['to'] } } });
    const run = guard.startRun('owned-writes');
    const writes: ToolCall[] = [
      { tool: 'charge_card', args: { amount: 5 } },
      { tool: 'do_thing', args: { x: 1 } },
      { tool: 'Bash', args: { command: 'rm -rf build' } },
      { tool: 'send_email', args: { to: 'ops@example.com' } },
    ];
    for (const call of writes) {
      store.shut();
      const claimed = run.claimCall(call);
      expect(await settlesWithin(claimed, 300), `${call.tool} waited for its claim`).to.equal(false);
      store.open();
      const ticket = await claimed;
      expect(verdict(ticket)).to.equal('allow');
      run.finishCall(ticket, { result: 'done' });
    }
    await guard.flush();
  });

  it('two engines that both think they own a run race for the same write: it runs once', async () => {
    for (let round = 0; round < 20; round++) {
      const id = `race-${round}`;
      const first = await engine({ ownedRuns: true });
      const second = await engine({ ownedRuns: true });
      const runs = [first.guard.startRun(id), second.guard.startRun(id)];
      // Both have reads of their own waiting to be appended when the write is claimed.
      for (const run of runs) run.finishCall(await run.claimCall(READS[0]!), { result: 'order 1' });
      const tickets = await Promise.all(runs.map((run) => run.claimCall({ tool: 'charge_card', args: { amount: 5, round } })));
      expect(tickets.map(verdict).sort(), `round ${round}`).to.deep.equal(['allow', 'repeat.in_flight']);
      for (const [index, ticket] of tickets.entries()) if (ticket.decision.action === 'allow') runs[index]!.finishCall(ticket, { result: 'charged' });
      await Promise.all([first.guard.flush(), second.guard.flush()]);
      // The loser found the other's entries in the log: it said so, once.
      const warned = [...first.warnings, ...second.warnings].filter((line) => line.includes('ownedRuns'));
      expect(warned.length, `round ${round}`).to.be.at.least(1);
      expect(warned.length, `round ${round}`).to.be.at.most(2);
    }
  });

  it('another process appending to an owned run is detected at the next append: the owner falls back and decides as one engine would', async () => {
    const owner = await engine({ ownedRuns: true });
    const run = owner.guard.startRun('intruded');
    const order = { tool: 'get_order', args: { id: 7 } };
    run.finishCall(await run.claimCall(order), { result: 'order 7: shipped' });
    await owner.guard.flush();

    // Another process (no ownedRuns) joins and appends.
    const intruder = await engine();
    const other = await intruder.guard.resumeRun('intruded');
    for (let index = 0; index < 3; index++) other.finishCall(await other.claimCall(order), { result: 'order 7: shipped' });
    await intruder.guard.flush();

    // The owner's next read is decided alone (the documented cost); its append finds the log
    // longer than it left it.
    run.finishCall(await run.claimCall({ tool: 'Read', args: { file_path: 'a.txt' } }), { result: 'a' });
    await owner.guard.flush();
    const warned = owner.warnings.filter((line) => line.includes('ownedRuns'));
    expect(warned).to.have.length(1);
    expect(warned[0]).to.include('another process appended');

    // Fallen back: a read now waits for its claim again.
    owner.store.shut();
    const claimed = run.claimCall({ tool: 'Read', args: { file_path: 'b.txt' } });
    expect(await settlesWithin(claimed, 300)).to.equal(false);
    owner.store.open();
    run.finishCall(await claimed, { result: 'b' });
    await owner.guard.flush();

    // Its replica is the log's, and it decides the next calls as an engine rebuilt from the log.
    const reference = await (await engine()).guard.resumeRun('intruded');
    expect(run.partial()).to.deep.equal(reference.partial());
    for (const call of [order, { tool: 'Read', args: { file_path: 'a.txt' } }, { tool: 'charge_card', args: { amount: 1 } }]) {
      expect(run.shouldRefuse(call), call.tool).to.deep.equal(reference.shouldRefuse(call));
    }
    // Said once per run, however many appends follow.
    run.finishCall(await run.claimCall({ tool: 'Read', args: { file_path: 'c.txt' } }), { result: 'c' });
    await owner.guard.flush();
    expect(owner.warnings.filter((line) => line.includes('ownedRuns'))).to.have.length(1);
  });

  it('store stalled: owned reads fail open at once; a business-key write is refused store.unavailable; nothing is lost or doubled', async () => {
    const { guard, store } = await engine({ ownedRuns: true, idempotentWrites: { send_email: { key: ['to'] } } }, 200);
    const run = guard.startRun('owned-stalled');
    // Loads the scripts (a script the server never saw fails NOSCRIPT: another fault).
    run.finishCall(await run.claimCall({ tool: 'send_email', args: { to: 'warm@example.com' } }), { result: 'sent' });
    await guard.flush();
    const { over } = await redis.server.stall(800);
    const started = Date.now();
    const read = await run.claimCall(READS[0]!);
    expect(Date.now() - started).to.be.below(100);
    expect(verdict(read)).to.equal('allow');
    run.finishCall(read, { result: 'order 1' });
    const write = await run.claimCall({ tool: 'send_email', args: { to: 'ops@example.com' } });
    expect(verdict(write)).to.equal('store.unavailable');
    // The store failed: reads take the awaited path (fail open, as today) until it answers.
    const during = await run.claimCall(READS[1]!);
    expect(verdict(during)).to.equal('allow');
    run.finishCall(during, { result: 'readme' });
    await over;
    await guard.flush();
    const replica = await (await engine()).guard.resumeRun('owned-stalled');
    expect(replica.partial()).to.deep.equal(run.partial());
    // Back: reads are decided locally again.
    store.shut();
    const after = run.claimCall(READS[2]!);
    expect(await settlesWithin(after, 300)).to.equal(true);
    store.open();
  });

  it('storeFailure.calls closed: once the store is known down, an owned read is refused store.unavailable', async () => {
    const { guard } = await engine({ ownedRuns: true, storeFailure: { calls: 'closed' } }, 200);
    const run = guard.startRun('owned-closed');
    run.finishCall(await run.claimCall({ tool: 'charge_card', args: { amount: 1 } }), { result: 'ok' });
    await guard.flush();
    const { over } = await redis.server.stall(800);
    // A write notices the outage (awaited path).
    expect(verdict(await run.claimCall({ tool: 'charge_card', args: { amount: 2 } }))).to.equal('store.unavailable');
    expect(verdict(await run.claimCall(READS[0]!))).to.equal('store.unavailable');
    await over;
    await guard.flush();
  });

  it('reads that keep coming while the flush appends are not "appends lost to other processes" (found by bench/redis.ts)', async () => {
    const { guard, store, warnings } = await engine({ ownedRuns: true });
    const run = guard.startRun('steady-reads');
    for (let index = 0; index < 600; index++) {
      run.finishCall(await run.claimCall({ tool: 'get_order', args: { id: index } }), { result: `order ${index}` });
      // One turn of the event loop per call, as a tool's own I/O gives: the flush appends
      // while the next reads are recorded.
      await new Promise((resolve) => setImmediate(resolve));
    }
    await guard.flush();
    expect(warnings).to.deep.equal([]);
    expect(store.appends).to.be.below(600);
    const replica = await (await engine()).guard.resumeRun('steady-reads');
    expect(replica.partial().toolCalls).to.equal(600);
  });

  it('a burst of owned reads shares its appends, at most one per millisecond; a lone read is appended at once', async () => {
    const { guard, store, warnings } = await engine({ ownedRuns: true });
    const run = guard.startRun('paced-appends');
    const started = performance.now();
    for (let index = 0; index < 600; index++) {
      run.finishCall(await run.claimCall({ tool: 'get_order', args: { id: index } }), { result: `order ${index}` });
      await new Promise((resolve) => setImmediate(resolve));
    }
    const elapsedMs = performance.now() - started;
    // Before the pacing every append that came back was followed by another for the reads
    // recorded meanwhile: 0.86 appends per read in bench/redis.ts, about 500 here.
    expect(store.appends, `${store.appends} appends in ${elapsedMs.toFixed(0)} ms`).to.be.at.most(Math.ceil(elapsedMs) + 2);
    await guard.flush();
    expect(warnings).to.deep.equal([]);
    const replica = await (await engine()).guard.resumeRun('paced-appends');
    expect(replica.partial()).to.deep.equal(run.partial());

    // Idle for longer than the interval: the next read's claim goes out on the next turn.
    await new Promise((resolve) => setTimeout(resolve, 5));
    const before = store.appends;
    run.finishCall(await run.claimCall({ tool: 'get_order', args: { id: 'lone' } }), { result: 'lone order' });
    await new Promise((resolve) => setImmediate(resolve));
    expect(store.appends).to.equal(before + 1);
  });

  it('the same on the synchronous path of a run nobody owns (startCall, as the span processor decides)', async () => {
    const { guard, warnings } = await engine();
    const run = guard.startRun('steady-spans');
    for (let index = 0; index < 600; index++) {
      run.finishCall(run.startCall({ tool: 'get_order', args: { id: index } }), { result: `order ${index}` });
      await new Promise((resolve) => setImmediate(resolve));
    }
    await guard.flush();
    expect(warnings).to.deep.equal([]);
  });

  it('owned reads in a loop that never yields are not dropped past the pending cap: a backlog makes the next read wait', async () => {
    const { guard, warnings } = await engine({ ownedRuns: true, maxToolCalls: Infinity, maxRounds: Infinity });
    const run = guard.startRun('tight-loop');
    // A read and its outcome are two entries: 6,000 reads would be 12,000 entries waiting,
    // past the link's cap of 10,000, if no read ever waited for an append.
    for (let index = 0; index < 6000; index++) {
      run.finishCall(await run.claimCall({ tool: 'get_order', args: { id: index } }), { result: `order ${index}` });
    }
    await guard.flush();
    expect(warnings).to.deep.equal([]);
    const replica = await (await engine()).guard.resumeRun('tight-loop');
    expect(replica.partial().executed).to.equal(6000);
    expect(replica.partial()).to.deep.equal(run.partial());
  });

  it('flush() covers owned reads of runs that already left the engine', async () => {
    const { guard, store } = await engine({ ownedRuns: true, endedRunTtlMs: 1 });
    for (let index = 0; index < 5; index++) {
      const run = guard.startRun(`left-${index}`);
      store.shut();
      for (const call of READS) run.finishCall(await run.claimCall(call), { result: `${call.tool} ${index}` });
      run.end();
      store.open();
    }
    await guard.flush();
    const observer = (await engine()).guard;
    for (let index = 0; index < 5; index++) {
      const replica = await observer.resumeRun(`left-${index}`);
      expect(replica.partial().toolCalls, `left-${index}`).to.equal(READS.length);
      expect(replica.isEnded || replica.stopped?.reason === 'run_ended', `left-${index} ended in the log`).to.equal(true);
    }
  });
});
