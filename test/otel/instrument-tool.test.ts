// instrumentTool on the real OTel SDK: every call is an execute_tool span decided by the
// processor in onStart; refusals return the message without running the tool; timeouts abort.
import { expect } from 'chai';
import { context, ProxyTracerProvider, ROOT_CONTEXT, SpanStatusCode, trace, type Context } from '@opentelemetry/api';
import { AlwaysOffSampler, type ReadableSpan } from '../helpers/otel-sdk.js';

import { instrumentTool, type ToolCallExtras } from '../../src/otel/instrument-tool.js';
import { ToolTimeoutError } from '../../src/otel/tool-timeout-error.js';
import { makeHarness, modelCallSpan, startRunSpan, useContextManager, useDiagCapture, type Harness } from './otel-test-helpers.js';

const DOCS = { docs: [{ id: 'doc-17', title: 'Refund policy' }] };

function toolSpans(h: Harness, tool: string): ReadableSpan[] {
  return h.finished().filter((s) => s.name === `execute_tool ${tool}`);
}

/** Every attribute value of every finished span, as text. */
function allAttributeText(h: Harness): string {
  return h
    .finished()
    .map((s) => JSON.stringify(s.attributes) + (s.status.message ?? ''))
    .join('\n');
}

describe('instrumentTool', () => {
  useContextManager();
  const diagnostics = useDiagCapture();
  let h: Harness;
  let root: { span: ReturnType<Harness['tracer']['startSpan']>; ctx: Context };

  afterEach(async () => {
    await h?.shutdown();
  });

  /** Runs `fn` inside a run's context, the way an agent loop calls its tools. */
  function inRun<T>(fn: () => Promise<T>): Promise<T> {
    return context.with(root.ctx, fn);
  }

  describe('allowed calls', () => {
    it('hands the live outcome to the processor: item-level novelty works through spans (reordered documents are seen)', async () => {
      h = makeHarness({ profile: 'researcher' });
      root = startRunSpan(h.tracer, 'items');
      const docs = [{ id: 'doc-1', title: 'Refund policy' }, { id: 'doc-2', title: 'Refund window' }, { id: 'doc-3', title: 'Enterprise refunds' }];
      const answers = [docs, [docs[2], docs[0], docs[1]], [docs[1], docs[2]]];
      let call = 0;
      const search = instrumentTool('search', () => ({ documents: answers[call++] }), { processor: h.processor, tracer: h.tracer });
      for (const q of ['refunds', 'refund policy', 'enterprise refund']) {
        modelCallSpan(h.tracer, root.ctx);
        await inRun(() => search({ q }));
      }
      root.span.end();
      const novelty = h.finished().filter((span) => span.name === 'execute_tool search').map((span) => span.attributes['loopguard.novelty']);
      // Span attributes carry only the whole-result hash: without the hand-over all three were "new".
      expect(novelty).to.deep.equal(['new', 'seen', 'seen']);
    });

    it('opens an execute_tool span under the active span with GenAI and loopguard attributes', async () => {
      h = makeHarness({ profile: 'researcher' });
      root = startRunSpan(h.tracer, 'r1');
      let received: { args: unknown; extras: ToolCallExtras } | undefined;
      const search = instrumentTool(
        'search',
        (args: { q: string }, extras) => {
          received = { args, extras };
          expect(trace.getSpan(context.active())?.spanContext().spanId, 'the tool runs inside its span').to.not.equal(root.span.spanContext().spanId);
          return DOCS;
        },
        { processor: h.processor, tracer: h.tracer, type: 'extension' },
      );
      const result = await inRun(() => search({ q: 'refunds' }, { callId: 'call_1' }));
      root.span.end();

      expect(result).to.equal(DOCS);
      expect(received?.args).to.deep.equal({ q: 'refunds' });
      expect(received?.extras.callId).to.equal('call_1');
      expect(received?.extras.signal.aborted).to.equal(false);
      const [span] = toolSpans(h, 'search');
      expect(span.parentSpanContext?.spanId).to.equal(root.span.spanContext().spanId);
      expect(span.attributes).to.include({
        'gen_ai.operation.name': 'execute_tool',
        'gen_ai.tool.name': 'search',
        'gen_ai.tool.type': 'extension',
        'gen_ai.tool.call.id': 'call_1',
        'loopguard.tool.args_hash': h.processor.guard.argsHash('search', { q: 'refunds' }),
        'loopguard.tool.result_hash': h.processor.guard.fingerprint('search', { result: DOCS }).resultHash,
        'loopguard.tool.outcome': 'success',
        'loopguard.decision': 'allow',
        'loopguard.novelty': 'new',
        'loopguard.round': 1,
      });
      expect(span.status.code).to.equal(SpanStatusCode.UNSET);
      expect(h.processor.guard.getRun('r1')!.partial()).to.include({ toolCalls: 1, executed: 1, newFacts: 1 });
    });

    it('defaults gen_ai.tool.type to function and uses parentContext when given', async () => {
      h = makeHarness();
      root = startRunSpan(h.tracer, 'r1');
      const tool = instrumentTool('lookup', () => 'value', { processor: h.processor, tracer: h.tracer, parentContext: () => root.ctx });
      // Called from outside any active context: the parentContext option places it in the run.
      await context.with(ROOT_CONTEXT, () => tool({}));
      const [span] = toolSpans(h, 'lookup');
      expect(span.attributes['gen_ai.tool.type']).to.equal('function');
      expect(span.attributes).to.not.have.property('gen_ai.tool.call.id');
      expect(span.parentSpanContext?.spanId).to.equal(root.span.spanContext().spanId);
      expect(h.processor.guard.getRun('r1')!.partial().toolCalls).to.equal(1);
      root.span.end();
    });

    it('an empty result has no result hash and counts as a new fact', async () => {
      h = makeHarness();
      root = startRunSpan(h.tracer, 'r1');
      const tool = instrumentTool('search', () => ({ docs: [], total: 0 }), { processor: h.processor, tracer: h.tracer });
      await inRun(() => tool({ q: 'nothing' }));
      const [span] = toolSpans(h, 'search');
      expect(span.attributes).to.include({ 'loopguard.tool.outcome': 'empty', 'loopguard.novelty': 'new' });
      expect(span.attributes).to.not.have.property('loopguard.tool.result_hash');
      root.span.end();
    });
  });

  describe('refusals', () => {
    it('a run-wide repeat is not run: the caller gets the refusal message naming the earlier call', async () => {
      h = makeHarness({ profile: 'researcher' });
      root = startRunSpan(h.tracer, 'r1');
      let runs = 0;
      const search = instrumentTool(
        'search',
        () => {
          runs += 1;
          return DOCS;
        },
        { processor: h.processor, tracer: h.tracer },
      );
      modelCallSpan(h.tracer, root.ctx);
      const first = await inRun(() => search({ q: 'refunds', limit: 5 }, { callId: 'call_first' }));
      modelCallSpan(h.tracer, root.ctx);
      // Same call, keys in another order: the same call.
      const second = await inRun(() => search({ limit: 5, q: 'refunds' }, { callId: 'call_second' }));

      expect(first).to.equal(DOCS);
      expect(runs, 'the tool ran only once').to.equal(1);
      expect(second).to.be.a('string');
      expect(second).to.contain('call_first');
      expect(second).to.match(/already/i);
      expect(second).to.not.equal(DOCS);

      const refused = toolSpans(h, 'search')[1];
      expect(refused.attributes).to.include({ 'loopguard.decision': 'refuse', 'loopguard.refusal.reason': 'repeat.run_wide', 'gen_ai.tool.call.id': 'call_second' });
      expect(refused.status.code, 'a refusal is not a span error').to.not.equal(SpanStatusCode.ERROR);
      expect(refused.attributes).to.not.have.property('error.type');
      expect(refused.attributes).to.not.have.property('loopguard.tool.result_hash');
      expect(h.processor.guard.getRun('r1')!.partial()).to.include({ executed: 1, refused: 1 });
      root.span.end();
    });

    it("a call whose arguments differ only in the client's own clock stamp: the span's args hash is the engine's, and the repeat is refused (issue 24 #7)", async () => {
      h = makeHarness({ profile: 'researcher' });
      root = startRunSpan(h.tracer, 'stamped');
      let runs = 0;
      const getInvoice = instrumentTool(
        'get_invoice',
        () => {
          runs += 1;
          return { invoice: 'INV-2041', status: 'open', amount_due: 1250 };
        },
        { processor: h.processor, tracer: h.tracer },
      );
      // A client stamping each request with Date.now(), as the example does.
      modelCallSpan(h.tracer, root.ctx);
      await inRun(() => getInvoice({ invoice: 'INV-2041', timestamp: Date.now() }, { callId: 'call_1' }));
      await new Promise((resolve) => setTimeout(resolve, 5));
      modelCallSpan(h.tracer, root.ctx);
      const second = await inRun(() => getInvoice({ invoice: 'INV-2041', timestamp: Date.now() }, { callId: 'call_2' }));
      root.span.end();
      const spans = toolSpans(h, 'get_invoice');
      const engineHash = h.processor.guard.getRun('stamped')!.argsHash('get_invoice', { invoice: 'INV-2041' });
      expect(spans.map((span) => span.attributes['loopguard.tool.args_hash'])).to.deep.equal([engineHash, engineHash]);
      expect(runs, 'the stamped repeat did not run').to.equal(1);
      expect(second).to.be.a('string').and.to.match(/already/i);
      expect(spans[1]!.attributes).to.include({ 'loopguard.decision': 'refuse', 'loopguard.refusal.reason': 'repeat.run_wide' });
    });

    it('a Read of windows of a file it already showed whole is seen through spans (issue 24 #6)', async () => {
      h = makeHarness({});
      root = startRunSpan(h.tracer, 'windows');
      const lines = Array.from({ length: 120 }, (_, i) => `line ${i + 1}`);
      // Claude Code's Read output: the line number in six columns, an arrow, the line.
      const read = instrumentTool(
        'Read',
        ({ offset = 1, limit = lines.length }: { file_path: string; offset?: number; limit?: number }) =>
          lines.slice(offset - 1, offset - 1 + limit).map((line, i) => `${String(offset + i).padStart(6)}→${line}`).join('\n'),
        { processor: h.processor, tracer: h.tracer },
      );
      for (const args of [{ file_path: '/r/m.py' }, { file_path: '/r/m.py', offset: 30, limit: 20 }, { file_path: '/r/m.py', offset: 100, limit: 40 }]) {
        modelCallSpan(h.tracer, root.ctx);
        await inRun(() => read(args));
      }
      root.span.end();
      // The third asks up to line 139 of a 120-line file: every line it returned was shown.
      expect(toolSpans(h, 'Read').map((span) => span.attributes['loopguard.novelty'])).to.deep.equal(['new', 'seen', 'seen']);
    });

    it('an identical call still in flight in the same round is refused', async () => {
      h = makeHarness({ profile: 'researcher' });
      root = startRunSpan(h.tracer, 'r1');
      let runs = 0;
      const slow = instrumentTool(
        'fetch',
        async () => {
          runs += 1;
          await new Promise((resolve) => setTimeout(resolve, 20));
          return { body: 'page' };
        },
        { processor: h.processor, tracer: h.tracer },
      );
      modelCallSpan(h.tracer, root.ctx);
      const [a, b] = await inRun(() => Promise.all([slow({ url: 'https://x' }, { callId: 'c1' }), slow({ url: 'https://x' }, { callId: 'c2' })]));
      expect(runs).to.equal(1);
      expect(a).to.deep.equal({ body: 'page' });
      expect(b).to.be.a('string').and.contain('c1');
      const reasons = toolSpans(h, 'fetch').map((s) => s.attributes['loopguard.refusal.reason']);
      expect(reasons).to.include('repeat.in_flight');
      root.span.end();
    });
  });

  describe('timeoutMs', () => {
    it('aborts a slow tool: its signal fires, the caller gets ToolTimeoutError, the span says timeout', async () => {
      h = makeHarness({ tools: { slow_api: { timeoutMs: 40 } } });
      root = startRunSpan(h.tracer, 'r1');
      let seenSignal: AbortSignal | undefined;
      const slowApi = instrumentTool(
        'slow_api',
        (_args: object, { signal }) => {
          seenSignal = signal;
          // Honours its signal: rejects when aborted, otherwise would take 10 s.
          return new Promise((resolve, reject) => {
            const timer = setTimeout(() => resolve('late'), 10_000);
            signal.addEventListener('abort', () => {
              clearTimeout(timer);
              reject(signal.reason);
            });
          });
        },
        { processor: h.processor, tracer: h.tracer },
      );
      const started = Date.now();
      let caught: unknown;
      try {
        await inRun(() => slowApi({ id: 1 }));
      } catch (error) {
        caught = error;
      }
      expect(Date.now() - started).to.be.below(5_000);
      expect(caught).to.be.instanceOf(ToolTimeoutError);
      expect(caught).to.include({ tool: 'slow_api', timeoutMs: 40, type: 'timeout' });
      expect(seenSignal?.aborted).to.equal(true);
      expect(seenSignal?.reason).to.equal(caught);

      const [span] = toolSpans(h, 'slow_api');
      expect(span.attributes).to.include({ 'loopguard.tool.outcome': 'timeout', 'error.type': 'timeout' });
      expect(span.status.code).to.equal(SpanStatusCode.ERROR);
      expect(h.processor.guard.getRun('r1')!.partial().tools.slow_api).to.include({ failures: 1 });
      root.span.end();
    });

    it('a tool that ignores its signal still returns control to the caller at the timeout; a retry is allowed', async () => {
      h = makeHarness({ profile: 'researcher', tools: { stuck: { timeoutMs: 30 } } });
      root = startRunSpan(h.tracer, 'r1');
      let runs = 0;
      const stuck = instrumentTool(
        'stuck',
        () => {
          runs += 1;
          return new Promise<string>((resolve) => setTimeout(() => resolve('eventually'), 300).unref());
        },
        { processor: h.processor, tracer: h.tracer },
      );
      await inRun(() => stuck({ id: 1 })).then(
        () => expect.fail('expected a timeout'),
        (error: unknown) => expect(error).to.be.instanceOf(ToolTimeoutError),
      );
      // A timeout does not prove the call did nothing; retrying it unchanged is a retry, not a repeat.
      await inRun(() => stuck({ id: 1 })).catch(() => undefined);
      expect(runs).to.equal(2);
      expect(toolSpans(h, 'stuck').map((s) => s.attributes['loopguard.decision'])).to.deep.equal(['allow', 'allow']);
      root.span.end();
    });

    it('a tool that finishes in time is unaffected', async () => {
      h = makeHarness({ tools: { quick: { timeoutMs: 2_000 } } });
      root = startRunSpan(h.tracer, 'r1');
      const quick = instrumentTool('quick', async (_a: object, { signal }) => ({ ok: !signal.aborted }), { processor: h.processor, tracer: h.tracer });
      expect(await inRun(() => quick({}))).to.deep.equal({ ok: true });
      expect(toolSpans(h, 'quick')[0].attributes['loopguard.tool.outcome']).to.equal('success');
      root.span.end();
    });
  });

  describe("the caller's AbortSignal", () => {
    it('aborting it aborts the signal the tool sees', async () => {
      h = makeHarness();
      root = startRunSpan(h.tracer, 'r1');
      const controller = new AbortController();
      let seen: AbortSignal | undefined;
      const tool = instrumentTool(
        'wait',
        (_a: object, { signal }) => {
          seen = signal;
          return new Promise((_, reject) => signal.addEventListener('abort', () => reject(new Error('aborted by caller'))));
        },
        { processor: h.processor, tracer: h.tracer },
      );
      const pending = inRun(() => tool({}, { signal: controller.signal }));
      await new Promise((resolve) => setTimeout(resolve, 5));
      controller.abort(new Error('user cancelled'));
      await pending.catch(() => undefined);
      expect(seen?.aborted).to.equal(true);
      root.span.end();
    });

    // Was a bug (fixed in 448d3cd): instrumentTool only listens for a future 'abort' event on the caller's signal; a
    // signal that is already aborted never fires it, so the tool runs with a live signal.
    it('an already-aborted caller signal reaches the tool aborted', async () => {
      h = makeHarness();
      root = startRunSpan(h.tracer, 'r1');
      let aborted: boolean | undefined;
      const tool = instrumentTool(
        'wait',
        (_a: object, { signal }) => {
          aborted = signal.aborted;
          return 'ran';
        },
        { processor: h.processor, tracer: h.tracer },
      );
      await inRun(() => tool({}, { signal: AbortSignal.abort(new Error('cancelled before the call')) })).catch(() => undefined);
      expect(aborted).to.equal(true);
      root.span.end();
    });
  });

  describe('errors', () => {
    class ValidationError extends Error {
      override readonly name = 'ValidationError';
    }

    it('are rethrown unchanged and recorded on the span; a retry after a failure is allowed', async () => {
      h = makeHarness({ profile: 'researcher' });
      root = startRunSpan(h.tracer, 'r1');
      const thrown = new ValidationError('id must be numeric');
      let attempt = 0;
      const fetch = instrumentTool(
        'fetch',
        () => {
          attempt += 1;
          if (attempt === 1) throw thrown;
          return { body: 'ok' };
        },
        { processor: h.processor, tracer: h.tracer },
      );
      let caught: unknown;
      await inRun(() => fetch({ id: 'x' })).catch((error: unknown) => (caught = error));
      expect(caught, 'the very same error object').to.equal(thrown);
      const retried = await inRun(() => fetch({ id: 'x' }));
      expect(retried).to.deep.equal({ body: 'ok' });
      const third = await inRun(() => fetch({ id: 'x' }));
      expect(attempt).to.equal(2);
      expect(third).to.be.a('string');

      const [failed, retry, repeat] = toolSpans(h, 'fetch');
      expect(failed.attributes).to.include({ 'loopguard.tool.outcome': 'error', 'error.type': 'ValidationError', 'loopguard.decision': 'allow' });
      expect(failed.attributes['loopguard.tool.result_hash']).to.be.a('string');
      expect(failed.status).to.deep.equal({ code: SpanStatusCode.ERROR, message: 'id must be numeric' });
      expect(retry.attributes).to.include({ 'loopguard.decision': 'allow', 'loopguard.tool.outcome': 'success' });
      expect(repeat.attributes).to.include({ 'loopguard.decision': 'refuse', 'loopguard.refusal.reason': 'repeat.run_wide' });
      root.span.end();
    });

    it('a 429-ish error is recorded as overloaded', async () => {
      h = makeHarness({ profile: 'researcher' });
      root = startRunSpan(h.tracer, 'r1');
      const rateLimited = Object.assign(new Error('Too Many Requests'), { status: 429 });
      const api = instrumentTool(
        'api',
        () => {
          throw rateLimited;
        },
        { processor: h.processor, tracer: h.tracer },
      );
      for (let i = 0; i < 2; i++) {
        await inRun(() => api({ q: 1 })).then(
          () => expect.fail('expected the error'),
          (error: unknown) => expect(error).to.equal(rateLimited),
        );
      }
      const spans = toolSpans(h, 'api');
      expect(spans.map((s) => s.attributes['loopguard.tool.outcome'])).to.deep.equal(['overloaded', 'overloaded']);
      expect(spans.map((s) => s.attributes['error.type'])).to.deep.equal(['overloaded', 'overloaded']);
      expect(spans.map((s) => s.attributes['loopguard.decision'])).to.deep.equal(['allow', 'allow']);
      expect(spans.every((s) => s.status.code === SpanStatusCode.ERROR)).to.equal(true);
      root.span.end();
    });

    // BUG (src/core/result-fingerprint.ts classifyError): only a top-level `status` /
    // `statusCode` is read, and never the message. The 429s of the common HTTP clients carry
    // the status on `error.response` (got: response.statusCode; axios before 1.7:
    // response.status) with a generic name/code, so they are recorded as plain `error`: they
    // do not come off the call budget and do not grow the round limit as overloaded calls should.
    it('429s from common HTTP clients (status on error.response) are recorded as overloaded', async () => {
      h = makeHarness({ profile: 'researcher' });
      root = startRunSpan(h.tracer, 'r1');
      const gotStyle = Object.assign(new Error('Response code 429 (Too Many Requests)'), { name: 'HTTPError', code: 'ERR_NON_2XX_3XX_RESPONSE', response: { statusCode: 429 } });
      const axiosStyle = Object.assign(new Error('Request failed with status code 429'), { name: 'AxiosError', code: 'ERR_BAD_REQUEST', response: { status: 429 } });
      const api = instrumentTool(
        'api',
        (args: { client: string }) => {
          throw args.client === 'got' ? gotStyle : axiosStyle;
        },
        { processor: h.processor, tracer: h.tracer },
      );
      await inRun(() => api({ client: 'got' })).catch(() => undefined);
      await inRun(() => api({ client: 'axios' })).catch(() => undefined);
      expect(toolSpans(h, 'api').map((s) => s.attributes['loopguard.tool.outcome'])).to.deep.equal(['overloaded', 'overloaded']);
      root.span.end();
    });

    it('a synchronous throw and a thrown non-Error value are rethrown as they are', async () => {
      h = makeHarness();
      root = startRunSpan(h.tracer, 'r1');
      const weird = { code: 'E_WEIRD', detail: [1, 2] };
      const tool = instrumentTool(
        'odd',
        (args: { kind: string }) => {
          if (args.kind === 'string') throw 'plain string failure';
          throw weird;
        },
        { processor: h.processor, tracer: h.tracer },
      );
      await inRun(() => tool({ kind: 'string' })).then(
        () => expect.fail('expected a throw'),
        (error: unknown) => expect(error).to.equal('plain string failure'),
      );
      await inRun(() => tool({ kind: 'object' })).then(
        () => expect.fail('expected a throw'),
        (error: unknown) => expect(error).to.equal(weird),
      );
      const spans = toolSpans(h, 'odd');
      expect(spans.map((s) => s.attributes['loopguard.tool.outcome'])).to.deep.equal(['error', 'error']);
      expect(spans[0].status.message).to.equal('plain string failure');
      root.span.end();
    });
  });

  describe('bad input never crashes the host', () => {
    it('a circular result is returned as is and counts as a new fact (not fingerprintable)', async () => {
      h = makeHarness({ profile: 'researcher' });
      root = startRunSpan(h.tracer, 'r1');
      const circular: Record<string, unknown> = { name: 'node' };
      circular.self = circular;
      const tool = instrumentTool('graph', () => circular, { processor: h.processor, tracer: h.tracer, recordResult: true });
      const result = await inRun(() => tool({ id: 1 }));
      expect(result).to.equal(circular);
      const [span] = toolSpans(h, 'graph');
      expect(span.attributes).to.include({ 'loopguard.tool.outcome': 'success', 'loopguard.tool.unfingerprintable': true, 'loopguard.novelty': 'new' });
      expect(span.attributes).to.not.have.property('loopguard.tool.result_hash');
      expect(span.attributes['gen_ai.tool.call.result']).to.be.a('string');
      expect(diagnostics.matching(/loopguard: span processor/)).to.have.length(0);
      root.span.end();
    });

    /**
     * Values a tool may return or throw that throw when read: a lazy record, a Proxy, a revoked
     * Proxy. Only thenable-safe ones can be returned: an async function resolving with a value
     * reads its `then` (so the Proxy answers that read, and a revoked Proxy is only thrown).
     */
    const unreadableValues = (): Array<[string, unknown]> => {
      const revoked = Proxy.revocable({}, {});
      revoked.revoke();
      return [
        ['a getter that throws', { output: '1\tline one\n', get returncode(): number { throw new Error('getter boom'); }, get name(): string { throw new Error('name boom'); } }],
        ['a Proxy whose reads throw', new Proxy({}, { get(_target, key) { if (key === 'then') return undefined; throw new Error(`get boom ${String(key)}`); }, ownKeys() { throw new Error('ownKeys boom'); } })],
        ['a revoked Proxy', revoked.proxy],
      ];
    };

    it('a result that throws when read reaches the caller as it is (read tools too, raw values recorded): a success, unfingerprintable, not left in flight', async () => {
      h = makeHarness({ profile: 'researcher' });
      root = startRunSpan(h.tracer, 'r1');
      const run = h.processor.guard.getRun('r1')!;
      for (const [tool, args] of [['search', { q: 'x' }], ['read_file', { path: '/x' }], ['bash', { command: 'cat /x' }]] as const) {
        for (const [what, value] of unreadableValues().slice(0, 2)) {
          const label = `${tool}, ${what}`;
          const guarded = instrumentTool(tool, () => value, { processor: h.processor, tracer: h.tracer, recordArguments: true, recordResult: true });
          modelCallSpan(h.tracer, root.ctx);
          // Compared by identity: chai's failure message would read the hostile value.
          let returned: unknown;
          await inRun(() => guarded({ ...args, what })).then(
            (result) => void (returned = result),
            (error: unknown) => void (returned = error),
          );
          expect(returned === value, `${label}: the result itself, got ${returned instanceof Error ? returned.message : typeof returned}`).to.equal(true);
          expect(run.inFlight, label).to.equal(0);
          const span = toolSpans(h, tool).at(-1)!;
          expect(span.status.code, label).to.not.equal(SpanStatusCode.ERROR);
          expect(span.attributes, label).to.include({ 'loopguard.tool.outcome': 'success', 'loopguard.tool.unfingerprintable': true });
          // Arguments that throw when read run too, their raw text recorded as best it can be.
          let again: unknown;
          await inRun(() => guarded(value as Record<string, unknown>)).then(
            (result) => void (again = result),
            (error: unknown) => void (again = error),
          );
          expect(again === value, `${label}, as arguments`).to.equal(true);
        }
      }
      root.span.end();
    });

    it('a thrown value that throws when read (name getter, Proxy, revoked Proxy) is rethrown as it is; the span is an error', async () => {
      h = makeHarness({ profile: 'researcher' });
      root = startRunSpan(h.tracer, 'r1');
      for (const [what, thrown] of unreadableValues()) {
        const tool = instrumentTool(
          'search',
          () => {
            throw thrown;
          },
          { processor: h.processor, tracer: h.tracer },
        );
        modelCallSpan(h.tracer, root.ctx);
        let caught: unknown = 'nothing thrown';
        await inRun(() => tool({ q: what })).catch((error: unknown) => void (caught = error));
        // Compared by identity, and described only when it is another value: chai would read it.
        if (caught !== thrown) expect.fail(`${what}: the caller got ${caught instanceof Error ? caught.message : typeof caught} instead of the thrown value`);
        const span = toolSpans(h, 'search').at(-1)!;
        expect(span.status.code, what).to.equal(SpanStatusCode.ERROR);
        expect(span.attributes, what).to.include({ 'loopguard.tool.outcome': 'error', 'error.type': 'Error' });
      }
      expect(h.processor.guard.getRun('r1')!.inFlight).to.equal(0);
      root.span.end();
    });

    it('a 10 MB result completes, is fingerprinted, and an equal one later is recognised as seen', async () => {
      h = makeHarness({ profile: 'researcher', escalation: { enabled: false } });
      root = startRunSpan(h.tracer, 'r1');
      const big = { rows: Array.from({ length: 100_000 }, (_, i) => ({ i, text: 'x'.repeat(90) })) };
      expect(JSON.stringify(big).length).to.be.above(10_000_000);
      const dump = instrumentTool('dump', (args: { page: number }) => (args.page === 1 ? big : structuredClone(big)), {
        processor: h.processor,
        tracer: h.tracer,
        recordResult: true,
      });
      modelCallSpan(h.tracer, root.ctx);
      const first = await inRun(() => dump({ page: 1 }));
      modelCallSpan(h.tracer, root.ctx);
      const second = await inRun(() => dump({ page: 2 }));
      expect(first).to.equal(big);
      expect(second).to.deep.equal(big);
      const [a, b] = toolSpans(h, 'dump');
      expect(a.attributes['loopguard.tool.result_hash']).to.be.a('string');
      expect(b.attributes['loopguard.tool.result_hash']).to.equal(a.attributes['loopguard.tool.result_hash']);
      expect(a.attributes['loopguard.novelty']).to.equal('new');
      expect(b.attributes['loopguard.novelty']).to.equal('seen');
      // The recorded raw result is capped, not 10 MB on a span.
      expect((a.attributes['gen_ai.tool.call.result'] as string).length).to.be.at.most(64 * 1024 + 1);
      root.span.end();
    });

    it('arguments that cannot be serialized (BigInt, cycles) still run, as a new call each time', async () => {
      h = makeHarness({ profile: 'researcher' });
      root = startRunSpan(h.tracer, 'r1');
      let runs = 0;
      const tool = instrumentTool(
        'calc',
        () => {
          runs += 1;
          return { v: runs };
        },
        { processor: h.processor, tracer: h.tracer, recordArguments: true },
      );
      const cyclic: Record<string, unknown> = {};
      cyclic.me = cyclic;
      await inRun(() => tool({ n: 10n }));
      await inRun(() => tool({ n: 10n }));
      await inRun(() => tool(cyclic));
      expect(runs).to.equal(3);
      root.span.end();
    });

    it('a tool called outside any run is guarded by an implicit run of its trace', async () => {
      h = makeHarness({ profile: 'researcher' });
      const request = h.tracer.startSpan('GET /ask');
      root = { span: request, ctx: trace.setSpan(ROOT_CONTEXT, request) };
      let runs = 0;
      const tool = instrumentTool(
        'search',
        () => {
          runs += 1;
          return DOCS;
        },
        { processor: h.processor, tracer: h.tracer },
      );
      await inRun(() => tool({ q: 1 }));
      const again = await inRun(() => tool({ q: 1 }));
      expect(runs).to.equal(1);
      expect(again).to.be.a('string');
      request.end();
    });

    it('with implicitRuns: false a tool outside any run simply runs', async () => {
      h = makeHarness({ implicitRuns: false });
      let runs = 0;
      const tool = instrumentTool(
        'search',
        () => {
          runs += 1;
          return DOCS;
        },
        { processor: h.processor, tracer: h.tracer },
      );
      expect(await tool({ q: 1 })).to.equal(DOCS);
      expect(await tool({ q: 1 })).to.equal(DOCS);
      expect(runs).to.equal(2);
      expect(toolSpans(h, 'search').every((s) => !('loopguard.decision' in s.attributes))).to.equal(true);
    });
  });

  describe('raw arguments and results stay off spans unless asked', () => {
    const SECRET_ARG = 'patient-ssn-123-45-6789';
    const SECRET_RESULT = 'diagnosis: confidential-result-text';

    it('by default only hashes are recorded', async () => {
      h = makeHarness();
      root = startRunSpan(h.tracer, 'r1');
      const tool = instrumentTool('records', () => ({ note: SECRET_RESULT }), { processor: h.processor, tracer: h.tracer });
      await inRun(() => tool({ ssn: SECRET_ARG }));
      root.span.end();
      const [span] = toolSpans(h, 'records');
      expect(span.attributes).to.not.have.property('gen_ai.tool.call.arguments');
      expect(span.attributes).to.not.have.property('gen_ai.tool.call.result');
      expect(span.attributes['loopguard.tool.args_hash']).to.be.a('string');
      expect(allAttributeText(h)).to.not.contain(SECRET_ARG);
      expect(allAttributeText(h)).to.not.contain(SECRET_RESULT);
    });

    it('recordArguments / recordResult put them on the span', async () => {
      h = makeHarness();
      root = startRunSpan(h.tracer, 'r1');
      const tool = instrumentTool('records', () => ({ note: SECRET_RESULT }), { processor: h.processor, tracer: h.tracer, recordArguments: true, recordResult: true });
      const onlyArgs = instrumentTool('args_only', () => ({ note: SECRET_RESULT }), { processor: h.processor, tracer: h.tracer, recordArguments: true });
      await inRun(() => tool({ ssn: SECRET_ARG }));
      await inRun(() => onlyArgs({ ssn: SECRET_ARG }));
      root.span.end();
      const [span] = toolSpans(h, 'records');
      expect(JSON.parse(span.attributes['gen_ai.tool.call.arguments'] as string)).to.deep.equal({ ssn: SECRET_ARG });
      expect(JSON.parse(span.attributes['gen_ai.tool.call.result'] as string)).to.deep.equal({ note: SECRET_RESULT });
      const [argsOnly] = toolSpans(h, 'args_only');
      expect(argsOnly.attributes).to.have.property('gen_ai.tool.call.arguments');
      expect(argsOnly.attributes).to.not.have.property('gen_ai.tool.call.result');
    });
  });

  describe('sampling', () => {
    // Was a bug (fixed in 448d3cd): the decision was taken only in the processor's onStart,
    // which the SDK calls only for recording spans, so a trace the sampler dropped (ratio
    // sampling, an unsampled upstream traceparent) was not guarded at all.
    it('a trace that is not sampled is still guarded (implicit run of the trace)', async () => {
      h = makeHarness({ profile: 'researcher' }, new AlwaysOffSampler());
      const request = h.tracer.startSpan('GET /ask');
      expect(request.isRecording(), 'the sampler dropped the trace').to.equal(false);
      root = { span: request, ctx: trace.setSpan(ROOT_CONTEXT, request) };
      let runs = 0;
      const tool = instrumentTool(
        'search',
        (args: { q: string }) => {
          runs += 1;
          return args.q === 'boom' ? Promise.reject(new Error('boom')) : DOCS;
        },
        { processor: h.processor, tracer: h.tracer },
      );
      await inRun(() => tool({ q: 'refunds' }, { callId: 'call_1' }));
      const second = await inRun(() => tool({ q: 'refunds' }));
      expect(runs, 'the identical second call is refused').to.equal(1);
      expect(second).to.be.a('string').and.contain('call_1');
      // Failures are recorded too: an identical retry after an error is allowed.
      await inRun(() => tool({ q: 'boom' })).catch(() => undefined);
      await inRun(() => tool({ q: 'boom' })).catch(() => undefined);
      expect(runs).to.equal(3);
      const run = h.processor.guard.getRun(`trace:${request.spanContext().traceId}`);
      expect(run?.partial()).to.include({ toolCalls: 4, executed: 3, refused: 1 });
      expect(run?.inFlight).to.equal(0);
      expect(h.finished()).to.have.length(0);
    });

    // BUG (from the sampling fallback in 448d3cd): with no SDK registered (the API's no-op
    // tracer, e.g. tracing not set up yet or turned off) every span has the INVALID span
    // context, traceId 000…0. The fallback then puts every call of the whole process into ONE
    // implicit run `trace:000…0`: user B's request is refused because user A already made the
    // same call. Without a trace id there is no run to guard; the calls must not be merged.
    it('with no SDK at all (no-op tracer), calls of unrelated requests are not merged into one run', async () => {
      h = makeHarness({ profile: 'researcher' });
      const noopTracer = new ProxyTracerProvider().getTracer('no-sdk');
      let runs = 0;
      const search = instrumentTool(
        'search',
        () => {
          runs += 1;
          return DOCS;
        },
        { processor: h.processor, tracer: noopTracer },
      );
      // Two users' requests, one after the other, each asking the same question.
      const userA = await context.with(ROOT_CONTEXT, () => search({ q: 'refund policy' }));
      const userB = await context.with(ROOT_CONTEXT, () => search({ q: 'refund policy' }));
      expect(userA).to.equal(DOCS);
      expect(userB, "user B gets a result, not a refusal pointing at user A's call").to.equal(DOCS);
      expect(runs).to.equal(2);
      expect(h.processor.guard.getRun(`trace:${'0'.repeat(32)}`)).to.equal(undefined);
    });

    it('a tool whose tracer belongs to a provider without the processor is still guarded', async () => {
      h = makeHarness({ profile: 'researcher' });
      const other = makeHarness();
      try {
        const request = other.tracer.startSpan('GET /ask');
        root = { span: request, ctx: trace.setSpan(ROOT_CONTEXT, request) };
        let runs = 0;
        const tool = instrumentTool(
          'search',
          () => {
            runs += 1;
            return DOCS;
          },
          { processor: h.processor, tracer: other.tracer },
        );
        await inRun(() => tool({ q: 'refunds' }));
        await inRun(() => tool({ q: 'refunds' }));
        expect(runs).to.equal(1);
        request.end();
      } finally {
        await other.processor.shutdown();
        await other.shutdown();
      }
    });
  });
});
