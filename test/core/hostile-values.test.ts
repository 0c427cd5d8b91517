import { expect } from 'chai';
import fc from 'fast-check';
import { canonicalize } from 'json-canonicalize';
import { callSignature } from '../../src/core/call-signature.js';
import { canonicalJson } from '../../src/core/canonical-json.js';
import { InvalidToolCallError, UnfingerprintableValueError } from '../../src/core/errors.js';
import { LoopGuard } from '../../src/core/loop-guard.js';
import { classifyError, describeError, isTransientError } from '../../src/core/result-fingerprint.js';
import { resolveOptions } from '../../src/core/policy.js';
import { createMemoryRunStore } from '../../src/core/shared-ledger/create-memory-run-store.js';

const policy = resolveOptions().defaultTool;

describe('call identity under hostile and time-bearing values (issue 10)', () => {
  it('issue 10 #7: time arguments are meaningful by default; a tool opts in to stripping them', () => {
    expect(callSignature('get_price', { symbol: 'AAPL', date: '2024-05-01', timestamp: '2024-05-01T00:00:00Z' }, policy)).to.not.equal(
      callSignature('get_price', { symbol: 'AAPL', date: '2024-05-01', timestamp: '2024-05-02T00:00:00Z' }, policy),
    );
    expect(callSignature('check_slot', { room: 'A', time: '10:00' }, policy)).to.not.equal(callSignature('check_slot', { room: 'A', time: '14:00' }, policy));
    for (const field of ['ts', 'now', 'requested_at', 'sent_at']) {
      expect(callSignature('t', { [field]: 1 }, policy), field).to.not.equal(callSignature('t', { [field]: 2 }, policy));
    }
    // Non-semantic by construction: still stripped by default (the 340-attempt incident).
    for (const field of ['nonce', 'attempt', 'request_id', 'traceId', 'idempotency_key']) {
      expect(callSignature('t', { q: 'a', [field]: 1 }, policy), field).to.equal(callSignature('t', { q: 'a', [field]: 2 }, policy));
    }
    // Opt-in per tool: the tool's volatileArgs.
    const stamped = resolveOptions({ tools: { heartbeat_search: { volatileArgs: ['timestamp'] } } }).tool('heartbeat_search');
    expect(callSignature('heartbeat_search', { q: 'a', timestamp: 1 }, stamped)).to.equal(callSignature('heartbeat_search', { q: 'a', timestamp: 2 }, stamped));
  });

  it('issue 10 #7: two prices on two dates are two calls in a run, not a repeat', () => {
    const run = new LoopGuard({ profile: 'researcher', logger: { warn() {} } }).startRun('r');
    run.beginRound();
    const first = run.recordCall({ tool: 'get_price', args: { symbol: 'AAPL', timestamp: '2024-05-01' } }, { result: { price: 1 } });
    const second = run.recordCall({ tool: 'get_price', args: { symbol: 'AAPL', timestamp: '2024-05-02' } }, { result: { price: 2 } });
    expect([first.decision.action, second.decision.action]).to.deep.equal(['allow', 'allow']);
    expect(second.decision).to.include({ kind: 'new' });
  });

  it('issue 10 #14: a nested JSON-text argument is the same call as the object it encodes', () => {
    const asObject = callSignature('search', { q: 'x', filters: { a: 1, b: [1, 2] } }, policy);
    expect(callSignature('search', { q: 'x', filters: '{"b":[1,2],"a":1}' }, policy)).to.equal(asObject);
    expect(callSignature('search', { q: 'x', filters: '  {"a":1, "b":[1,2]}' }, policy)).to.equal(asObject);
    // Whole arguments as text, with a nested JSON text inside, still match.
    expect(callSignature('search', JSON.stringify({ q: 'x', filters: '{"a":1,"b":[1,2]}' }), policy)).to.equal(asObject);
    expect(callSignature('search', { ids: '[1,2]' }, policy)).to.equal(callSignature('search', { ids: [1, 2] }, policy));
    // Volatile fields inside the embedded text are dropped too.
    expect(callSignature('search', { filters: '{"a":1,"nonce":7}' }, policy)).to.equal(callSignature('search', { filters: { a: 1 } }, policy));
    // Text that is not JSON, or not an object/array, stays text.
    expect(callSignature('search', { q: '[citation needed]' }, policy)).to.not.equal(callSignature('search', { q: '[citation needed] ' }, policy));
    expect(callSignature('search', { n: '1' }, policy)).to.not.equal(callSignature('search', { n: 1 }, policy));
    expect(callSignature('search', { q: 'true' }, policy)).to.not.equal(callSignature('search', { q: true }, policy));
  });

  it('issue 10 #14: embedded JSON text over the size cap is compared as text (bounded time)', () => {
    const big = { items: Array.from({ length: 200_000 }, (_, index) => index) };
    const text = JSON.stringify(big);
    expect(text.length).to.be.greaterThan(1024 * 1024);
    expect(callSignature('t', { payload: text }, policy)).to.not.equal(callSignature('t', { payload: big }, policy));
  });

  it('issue 10 #15: arguments holding different Maps or Sets are different calls; equal contents are one call', () => {
    const a = new Map<unknown, unknown>([['k', 1], ['j', { x: 1 }]]);
    const sameContents = new Map<unknown, unknown>([['j', { x: 1 }], ['k', 1]]);
    const b = new Map<unknown, unknown>([['k', 2]]);
    expect(callSignature('t', { m: a }, policy)).to.not.equal(callSignature('t', { m: b }, policy));
    expect(callSignature('t', { m: a }, policy)).to.equal(callSignature('t', { m: sameContents }, policy));
    expect(callSignature('t', { m: new Map() }, policy)).to.not.equal(callSignature('t', { m: {} }, policy));
    expect(callSignature('t', { m: new Map([[1, 'a']]) }, policy)).to.not.equal(callSignature('t', { m: new Map([['1', 'a']]) }, policy));
    expect(callSignature('t', { s: new Set([1, 2]) }, policy)).to.not.equal(callSignature('t', { s: new Set([1, 3]) }, policy));
    expect(callSignature('t', { s: new Set([2, 1]) }, policy)).to.equal(callSignature('t', { s: new Set([1, 2]) }, policy));
    expect(callSignature('t', { s: new Set([1, 2]) }, policy)).to.not.equal(callSignature('t', { s: [1, 2] }, policy));
    // Deep inside the exact writer's range too (past the fast path's depth).
    let deepA: unknown = new Map([['v', 1]]);
    let deepB: unknown = new Map([['v', 2]]);
    for (let level = 0; level < 100; level++) [deepA, deepB] = [[deepA], [deepB]];
    expect(callSignature('t', deepA, policy)).to.not.equal(callSignature('t', deepB, policy));
    // A Map holding itself has no identity (matches nothing), like any cycle.
    const cyclic = new Map<string, unknown>();
    cyclic.set('self', cyclic);
    expect(callSignature('t', { m: cyclic }, policy)).to.not.equal(callSignature('t', { m: cyclic }, policy));
  });

  it('issue 10 #15: a tool named __proto__ is counted in partial().tools like any other', () => {
    const run = new LoopGuard({ logger: { warn() {} } }).startRun('r');
    run.beginRound();
    run.recordCall({ tool: '__proto__', args: { q: 1 } }, { result: 'a' });
    run.recordCall({ tool: 'constructor', args: { q: 1 } }, { result: 'b' });
    const tools = run.partial().tools;
    expect(Object.keys(tools).sort()).to.deep.equal(['__proto__', 'constructor']);
    expect(Object.prototype.hasOwnProperty.call(tools, '__proto__')).to.equal(true);
    expect(tools['__proto__']).to.include({ calls: 1 });
    expect(JSON.parse(JSON.stringify(tools))).to.have.property('__proto__');
  });

  it('issue 10 #15: call identity is linear in nesting depth', () => {
    // ~900 KB either way; each level holds two dozen small objects, so an ancestor scan per
    // node (quadratic) shows up as a ratio, not as a machine-dependent absolute time.
    const level = () => Array.from({ length: 24 }, (_, index) => ({ k: index }));
    let deep: unknown = 0;
    for (let depth = 0; depth < 4000; depth++) deep = { items: level(), c: deep };
    const flat = Array.from({ length: 4000 }, () => ({ items: level(), c: 0 }));
    const deepText = JSON.stringify(deep);
    const flatText = JSON.stringify(flat);
    const deepTimes: number[] = [];
    const flatTimes: number[] = [];
    const timed = (text: string): number => {
      const started = performance.now();
      callSignature('t', text, policy);
      return performance.now() - started;
    };
    // Interleaved after a warm-up, medians: both shapes see the same JIT state and load.
    for (let round = 0; round < 4; round++) timed(deepText) + timed(flatText);
    for (let round = 0; round < 11; round++) {
      deepTimes.push(timed(deepText));
      flatTimes.push(timed(flatText));
    }
    const median = (times: number[]): number => times.sort((x, y) => x - y)[times.length >> 1]!;
    const ratio = median(deepTimes) / median(flatTimes);
    expect(ratio, `deep/flat time ratio ${ratio.toFixed(2)}`).to.be.lessThan(5);
    expect(callSignature('t', deepText, policy)).to.equal(callSignature('t', deep, policy));
  });

  it('issue 10 #15: deep values are written exactly as shallow ones, and deep cycles are still found', () => {
    // Deeper than the recursive fast path (64), mixing arrays, objects, drops and undefined.
    const nest = (inner: unknown, levels: number, salt: number): unknown => {
      let value = inner;
      for (let level = 0; level < levels; level++) {
        value = (level + salt) % 3 === 0 ? [level, value, undefined] : { z: value, a: level, nonce: level, gone: undefined };
      }
      return value;
    };
    fc.assert(
      fc.property(fc.jsonValue({ maxDepth: 3 }), fc.integer({ min: 60, max: 400 }), fc.nat(2), (inner, levels, salt) => {
        const value = nest(inner, levels, salt);
        const expected = canonicalize(JSON.parse(JSON.stringify(value, (key, child) => (key === 'nonce' ? undefined : child))));
        return canonicalJson(value, new Set(['nonce'])) === expected;
      }),
      { numRuns: 200 },
    );
    for (const [entry, period] of [[10, 1], [70, 1], [70, 3], [3, 200], [500, 77]]) {
      const ring = Array.from({ length: period }, () => ({ next: undefined as unknown }));
      ring.forEach((node, index) => (node.next = ring[(index + 1) % period]));
      const value = nest(ring[0], entry, 0);
      expect(() => canonicalJson(value), `entry ${entry}, period ${period}`).to.throw(UnfingerprintableValueError).with.property('why', 'cycle');
    }
    // A getter making a fresh level forever never cycles: it must end (no identity), not hang.
    const endless = (): object => ({
      get deeper() {
        return endless();
      },
    });
    const started = performance.now();
    expect(callSignature('t', endless(), policy)).to.not.equal(callSignature('t', endless(), policy));
    expect(performance.now() - started).to.be.lessThan(10_000);
  });
});

describe('a call or an outcome of the wrong shape (bad input never crashes the host, and is named)', () => {
  const hostileArguments = (): Array<[string, unknown]> => {
    const revoked = Proxy.revocable({}, {});
    revoked.revoke();
    return [
      ['a getter that throws', { q: 'x', get page(): number { throw new Error('getter boom'); } }],
      ['a Proxy whose keys throw', new Proxy({}, { ownKeys() { throw new Error('ownKeys boom'); } })],
      ['a revoked Proxy', revoked.proxy],
    ];
  };

  it('arguments that throw when read are a call with an identity that matches nothing: allowed, never thrown to the host', () => {
    for (const tool of ['search', 'bash', 'browser_click', 'str_replace_editor']) {
      for (const [what, args] of hostileArguments()) {
        const run = new LoopGuard({ logger: { warn() {} } }).startRun('r');
        run.beginRound();
        const decisions = [0, 1, 2].map(() => {
          expect(run.shouldRefuse({ tool, args }).action, `${tool}, ${what}: shouldRefuse`).to.equal('allow');
          const ticket = run.startCall({ tool, args });
          run.finishCall(ticket, { result: 'the same answer' });
          return ticket.decision;
        });
        // Three identical answers to "identical" calls: no repeat is refused, since no two of the calls are known to be the same.
        expect(decisions.map((decision) => decision.action), `${tool}, ${what}`).to.deep.equal(['allow', 'allow', 'allow']);
        expect(new Set(decisions.map((decision) => decision.argsHash)).size, `${tool}, ${what}`).to.equal(3);
      }
    }
  });

  it('a tool name that is not a string is an InvalidToolCallError naming call.tool, from every call method, and nothing is recorded', async () => {
    const guard = new LoopGuard({ logger: { warn() {} } });
    const run = guard.startRun('r');
    run.beginRound();
    for (const tool of [undefined, null, 5, { name: 'search' }]) {
      const call = { tool, args: { q: 'x' } } as unknown as { tool: string; args: unknown };
      for (const [method, act] of [
        ['startCall', () => run.startCall(call)],
        ['shouldRefuse', () => run.shouldRefuse(call)],
        ['recordCall', () => run.recordCall(call, { result: 1 })],
      ] as const) {
        expect(act, `${method}(${String(tool)})`).to.throw(InvalidToolCallError, /call\.tool: must be the tool's name as a string/).with.property('field', 'call.tool');
      }
      expect(() => run.argsHash(tool as unknown as string, {})).to.throw(InvalidToolCallError).with.property('field', 'tool');
    }
    expect(() => run.startCall(undefined as unknown as { tool: string })).to.throw(InvalidToolCallError).with.property('field', 'call');
    expect(run.partial().toolCalls).to.equal(0);
    // Through a store, the claim rejects (a promise), it does not throw where the caller awaits nothing.
    const shared = new LoopGuard({ store: createMemoryRunStore(), logger: { warn() {} } }).startRun('s');
    const claimed = shared.claimCall({ tool: 7, args: {} } as unknown as { tool: string });
    expect(claimed).to.be.instanceOf(Promise);
    const error = await claimed.then(() => undefined, (reason: unknown) => reason);
    expect(error).to.be.instanceOf(InvalidToolCallError).with.property('field', 'call.tool');
  });

  it('finishCall with an outcome or a ticket of the wrong shape throws InvalidToolCallError and leaves the call to be finished properly', () => {
    const run = new LoopGuard({ logger: { warn() {} } }).startRun('r');
    run.beginRound();
    const ticket = run.startCall({ tool: 'search', args: { q: 'x' } });
    for (const outcome of [undefined, null, 'the answer', 42]) {
      expect(() => run.finishCall(ticket, outcome as unknown as { result: unknown }), String(outcome))
        .to.throw(InvalidToolCallError, /outcome: must be \{ result \} or \{ error \}/)
        .with.property('field', 'outcome');
    }
    for (const bad of [undefined, null, {}, { decision: null }]) {
      expect(() => run.finishCall(bad as unknown as typeof ticket, { result: 1 })).to.throw(InvalidToolCallError).with.property('field', 'ticket');
    }
    // Nothing above consumed the ticket: the call is still in flight, and finishes once, as usual.
    expect(run.finishCall(ticket, { result: ['doc-1'] })).to.equal('new');
    expect(run.finishCall(ticket, { result: ['doc-1'] })).to.equal('neutral');
    expect(run.partial()).to.include({ toolCalls: 1, executed: 1, newFacts: 1 });
  });
  /** Values a tool may return or throw that throw when read: a lazy record, a Proxy, a revoked Proxy. */
  const unreadableValues = (): Array<[string, unknown]> => {
    const revoked = Proxy.revocable({}, {});
    revoked.revoke();
    return [
      ['a getter that throws', { output: '1\tline one\n', get returncode(): number { throw new Error('getter boom'); } }],
      ['a Proxy whose reads throw', new Proxy({}, { get() { throw new Error('get boom'); }, ownKeys() { throw new Error('ownKeys boom'); } })],
      ['a revoked Proxy', revoked.proxy],
    ];
  };

  it('a result that throws when read is an unfingerprintable success, never thrown to the host; the call is no longer in flight (window reads too)', () => {
    const calls: Array<[string, Record<string, unknown>]> = [
      ['search', { q: 'x' }],
      ['read_file', { path: '/x' }],
      ['bash', { command: 'cat /x' }],
      ['str_replace_editor', { command: 'view', path: '/x' }],
    ];
    for (const [tool, args] of calls) {
      for (const [what, result] of unreadableValues()) {
        const label = `${tool}, ${what}`;
        const run = new LoopGuard({ logger: { warn() {} } }).startRun('r');
        run.beginRound();
        const ticket = run.startCall({ tool, args });
        expect(() => run.finishCall(ticket, { result }), label).to.not.throw();
        expect(run.inFlight, label).to.equal(0);
        expect(run.partial(), label).to.include({ executed: 1, newFacts: 1 });
        run.beginRound();
        expect(run.startCall({ tool, args }).decision, label).to.not.include({ reason: 'repeat.in_flight' });
      }
    }
  });

  it('an MCP error result (isError: true) whose structured content cannot be read is still a failure of the tool, never thrown to the host', () => {
    for (const [what, structuredContent] of unreadableValues()) {
      const run = new LoopGuard({ logger: { warn() {} } }).startRun('r');
      run.beginRound();
      const ticket = run.startCall({ tool: 'lookup', args: { id: 1 } });
      expect(() => run.finishCall(ticket, { result: { isError: true, content: [], structuredContent } }), what).to.not.throw();
      // Read as a success (unfingerprintable), a loop of such failures was never a failure streak.
      expect(run.partial().tools.lookup, what).to.include({ executed: 1, failures: 1 });
    }
  });

  it('an error that throws when read is an error outcome; describeError, classifyError and isTransientError never throw', () => {
    for (const [what, error] of unreadableValues()) {
      const run = new LoopGuard({ logger: { warn() {} } }).startRun('r');
      run.beginRound();
      const ticket = run.startCall({ tool: 'read_file', args: { path: '/x' } });
      expect(() => run.finishCall(ticket, { error }), what).to.not.throw();
      expect(run.inFlight, what).to.equal(0);
      expect(describeError(error), what).to.have.property('type').that.is.a('string');
      expect(describeError(error).message, what).to.be.a('string');
      expect(classifyError(error), what).to.equal('error');
      expect(isTransientError(error), what).to.equal(false);
    }
    // What can be read still is: a name that throws does not hide the message.
    const named = { get name(): string { throw new Error('name boom'); }, message: 'quota exceeded' };
    expect(describeError(named)).to.deep.equal({ type: 'Error', message: 'quota exceeded' });
  });
});
