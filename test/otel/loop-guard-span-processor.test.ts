import { LoopGuardConfigError } from '../../src/core/errors.js';
// LoopGuardSpanProcessor fed by the real OTel SDK (TracerProvider of @opentelemetry/sdk-trace, 2.x or 3.x):
// runs, rounds and calls are built from spans exactly as a framework's GenAI instrumentation
// emits them; what the processor writes back is read from an InMemorySpanExporter.
import { expect } from 'chai';
import { context, ROOT_CONTEXT, SpanStatusCode, trace, type Context } from '@opentelemetry/api';

import type { RunDecision, StopDecision } from '../../src/core/types.js';
import { instrumentTool } from '../../src/otel/instrument-tool.js';
import type { SpanInterpreter } from '../../src/otel/span-roles.js';
import {
  GEN_AI,
  makeHarness,
  modelCallSpan,
  startRunSpan,
  toolCallSpan,
  useContextManager,
  useDiagCapture,
  type Harness,
} from './otel-test-helpers.js';

/** The same documents, whatever the query: the reworded-search incident (document 000). */
const SAME_DOCS = { docs: [{ id: 'doc-17', title: 'Refund policy' }, { id: 'doc-42', title: 'Returns FAQ' }], took_ms: 12 };

function expectStop(decision: RunDecision | undefined): StopDecision {
  expect(decision, 'a decision').to.not.equal(undefined);
  expect(decision?.action).to.equal('stop');
  return decision as StopDecision;
}

describe('LoopGuardSpanProcessor', () => {
  useContextManager();
  const diagnostics = useDiagCapture();
  let h: Harness;

  afterEach(async () => {
    await h?.shutdown();
  });

  describe('runs, rounds and calls from spans', () => {
    it('opens a run per invoke_agent span, named by loopguard.run.id, else gen_ai.conversation.id, else the span id', () => {
      h = makeHarness();
      const a = startRunSpan(h.tracer, 'run-a');
      const b = h.tracer.startSpan('invoke_agent x', { attributes: { [GEN_AI.op]: 'invoke_agent', 'gen_ai.conversation.id': 'conv-9' } });
      const c = h.tracer.startSpan('invoke_agent y', { attributes: { [GEN_AI.op]: 'invoke_agent' } });
      expect(h.processor.guard.getRun('run-a')).to.not.equal(undefined);
      expect(h.processor.guard.getRun('conv-9')).to.not.equal(undefined);
      expect(h.processor.guard.getRun(`span:${c.spanContext().spanId}`)).to.not.equal(undefined);
      expect(h.processor.runForContext(a.ctx)?.id).to.equal('run-a');
      expect(h.processor.runForContext(trace.setSpan(ROOT_CONTEXT, b))?.id).to.equal('conv-9');
      // Ending the span ends the run (still queryable within the TTL).
      a.span.end();
      expect(h.processor.guard.getRun('run-a')?.isEnded).to.equal(true);
      expect([...h.processor.guard.runs()].map((r) => r.id)).to.have.members(['conv-9', `span:${c.spanContext().spanId}`]);
      b.end();
      c.end();
    });

    it('decides execute_tool spans at start and writes decision, round and novelty on them', () => {
      // Document 000's researcher: an exact repeat is refused at the first repeat.
      h = makeHarness({ profile: 'researcher' });
      const { span: root, ctx } = startRunSpan(h.tracer, 'r1');
      modelCallSpan(h.tracer, ctx);
      toolCallSpan(h.tracer, ctx, 'search', { q: 'refunds' }, { result: SAME_DOCS }, 'call_1');
      modelCallSpan(h.tracer, ctx);
      // Same call, arguments as differently ordered / spaced JSON text: still the same call.
      toolCallSpan(h.tracer, ctx, 'search', '{ "q" : "refunds" }', { result: SAME_DOCS }, 'call_2');
      toolCallSpan(h.tracer, ctx, 'search', { q: 'refund policy' }, { result: SAME_DOCS }, 'call_3');
      root.end();

      const [first, second, third] = h.finished().filter((s) => s.name === 'execute_tool search');
      expect(first.attributes).to.include({ 'loopguard.decision': 'allow', 'loopguard.round': 1, 'loopguard.novelty': 'new' });
      expect(second.attributes).to.include({ 'loopguard.decision': 'refuse', 'loopguard.refusal.reason': 'repeat.run_wide', 'loopguard.round': 2 });
      expect(second.attributes).to.not.have.property('loopguard.novelty');
      // Reworded arguments run, and the result is recognised as already seen.
      expect(third.attributes).to.include({ 'loopguard.decision': 'allow', 'loopguard.novelty': 'seen' });
      const partial = h.processor.guard.getRun('r1')!.partial();
      expect(partial).to.include({ rounds: 2, toolCalls: 3, executed: 2, refused: 1, newFacts: 1, seenResults: 1 });
    });

    it('decisionForSpan gives the start-time decision; the refusal names the earlier call id', () => {
      h = makeHarness({ profile: 'researcher' });
      const { ctx } = startRunSpan(h.tracer, 'r1');
      toolCallSpan(h.tracer, ctx, 'fetch', { id: 7 }, { result: { body: 'x' } }, 'call_A');
      const again = h.tracer.startSpan('execute_tool fetch', { attributes: { [GEN_AI.op]: 'execute_tool', [GEN_AI.toolName]: 'fetch', [GEN_AI.args]: '{"id":7}' } }, ctx);
      const decision = h.processor.decisionForSpan(again.spanContext().spanId);
      expect(decision?.action).to.equal('refuse');
      if (decision?.action !== 'refuse') return;
      expect(decision.reason).to.equal('repeat.run_wide');
      expect(decision.previousCallId).to.equal('call_A');
      expect(decision.message).to.contain('call_A');
      again.end();
      expect(h.processor.decisionForSpan(again.spanContext().spanId), 'forgotten once ended').to.equal(undefined);
      expect(h.processor.decisionForSpan('0000000000000000')).to.equal(undefined);
    });

    it('shouldRefuse(call, ctx) previews without recording; outside any run it allows', () => {
      h = makeHarness({ profile: 'researcher' });
      const { ctx } = startRunSpan(h.tracer, 'r1');
      toolCallSpan(h.tracer, ctx, 'fetch', { id: 1 }, { result: { v: 1 } });
      expect(h.processor.shouldRefuse({ tool: 'fetch', args: { id: 1 } }, ctx)).to.include({ action: 'refuse', reason: 'repeat.run_wide' });
      expect(h.processor.shouldRefuse({ tool: 'fetch', args: { id: 2 } }, ctx)).to.include({ action: 'allow', kind: 'new' });
      // Preview only: nothing recorded.
      expect(h.processor.guard.getRun('r1')!.partial().toolCalls).to.equal(1);
      // The active context is the default.
      const viaActive = context.with(ctx, () => h.processor.shouldRefuse({ tool: 'fetch', args: { id: 1 } }));
      expect(viaActive.action).to.equal('refuse');
      expect(h.processor.shouldRefuse({ tool: 'fetch', args: { id: 1 } }, ROOT_CONTEXT)).to.include({ action: 'allow' });
      expect(h.processor.shouldStop(ROOT_CONTEXT)).to.equal(undefined);
    });

    it('records a model-call span\'s token usage on its round (wasted tokens of stale rounds)', () => {
      h = makeHarness({ escalation: { enabled: false } });
      const { span: root, ctx } = startRunSpan(h.tracer, 'r1');
      modelCallSpan(h.tracer, ctx, { input: 1000, output: 50 });
      toolCallSpan(h.tracer, ctx, 'search', { q: 'a' }, { result: SAME_DOCS });
      modelCallSpan(h.tracer, ctx, { input: 2000, output: 70 });
      toolCallSpan(h.tracer, ctx, 'search', { q: 'b' }, { result: SAME_DOCS });
      modelCallSpan(h.tracer, ctx, { input: 3000, output: 30 });
      // Round 1 learned something; round 2 only saw seen results: its tokens were wasted.
      expect(h.processor.guard.getRun('r1')!.partial().wastedTokens).to.equal(2070);
      root.end();
    });
  });

  describe('stale rounds stop a run built from spans (researcher profile)', () => {
    /** One model call, then a reworded search that brings back the same documents. */
    function staleRound(harness: Harness, ctx: Context, n: number): void {
      modelCallSpan(harness.tracer, ctx, { input: 500, output: 20 });
      toolCallSpan(harness.tracer, ctx, 'search', { query: `refund policy wording #${n}` }, { result: { ...SAME_DOCS, took_ms: n } }, `call_${n}`);
    }

    it('stops after 5 rounds in a row of already-seen documents, via shouldStop(ctx) and the active context', () => {
      h = makeHarness({ profile: 'researcher', escalation: { enabled: false } });
      const { span: root, ctx } = startRunSpan(h.tracer, 'researcher-1');
      const decisions: string[] = [];
      for (let n = 1; n <= 6; n++) {
        staleRound(h, ctx, n);
        const decision = h.processor.shouldStop(ctx);
        decisions.push(decision?.action ?? 'none');
        if (n < 6) expect(decision?.action, `round ${n}`).to.equal('continue');
      }
      // Round 1 is new; rounds 2..6 are five stale rounds.
      expect(decisions).to.deep.equal(['continue', 'continue', 'continue', 'continue', 'continue', 'stop']);
      const stop = expectStop(h.processor.shouldStop(ctx));
      expect(stop.reason).to.equal('stale_rounds');
      expect(stop.round).to.equal(6);
      expect(stop.partial).to.include({ rounds: 6, toolCalls: 6, executed: 6, newFacts: 1, seenResults: 5, lastNewFactRound: 1 });
      expect(stop.message).to.match(/final answer/i);
      // The same answer through the active context (what an agent loop would call).
      expect(context.with(ctx, () => h.processor.shouldStop())).to.equal(stop);

      // From now on every call is refused.
      toolCallSpan(h.tracer, ctx, 'search', { query: 'something else entirely' }, { result: { docs: ['new'] } });
      root.end();
      const refused = h.finished().filter((s) => s.name === 'execute_tool search').at(-1)!;
      expect(refused.attributes).to.include({ 'loopguard.decision': 'refuse', 'loopguard.refusal.reason': 'run.stopped' });

      const agent = h.one('invoke_agent researcher');
      expect(agent.attributes).to.include({
        'loopguard.stop.reason': 'stale_rounds',
        'loopguard.run.rounds': 6,
        'loopguard.run.refusals': 1,
        'loopguard.run.tool_calls': 7,
      });
      expect(h.processor.guard.getRun('researcher-1')?.isEnded).to.equal(true);
    });

    it('a round where another tool finds something new is progress: the streak resets', () => {
      h = makeHarness({ profile: 'researcher', escalation: { enabled: false } });
      const { span: root, ctx } = startRunSpan(h.tracer, 'r');
      for (let n = 1; n <= 4; n++) staleRound(h, ctx, n);
      // Round 5: the search repeats itself, but fetch_page brings a new document.
      modelCallSpan(h.tracer, ctx);
      toolCallSpan(h.tracer, ctx, 'search', { query: 'yet another wording' }, { result: SAME_DOCS });
      toolCallSpan(h.tracer, ctx, 'fetch_page', { id: 'doc-17' }, { result: { text: 'Refunds within 30 days.' } });
      for (let n = 6; n <= 9; n++) staleRound(h, ctx, n);
      expect(h.processor.shouldStop(ctx)?.action, 'four stale rounds after the reset').to.equal('continue');
      staleRound(h, ctx, 10);
      expect(expectStop(h.processor.shouldStop(ctx)).reason).to.equal('stale_rounds');
      root.end();
    });

    it('with the default escalation ladder: a nudge first, then the tool is disabled, then the stop', () => {
      h = makeHarness({ profile: 'researcher' });
      const { span: root, ctx } = startRunSpan(h.tracer, 'ladder');
      const seen: RunDecision[] = [];
      for (let n = 1; n <= 20; n++) {
        staleRound(h, ctx, n);
        // Round 1 also fetches a page: the run has used a second tool, so disabling search
        // still leaves it one (the ladder never disables the only tool a run uses: issue 9, item 6).
        if (n === 1) toolCallSpan(h.tracer, ctx, 'fetch_page', { id: 'doc-17' }, { result: { text: 'Refunds within 30 days.' } });
        const decision = h.processor.shouldStop(ctx)!;
        seen.push(decision);
        if (decision.action === 'stop') break;
      }
      const stop = seen.at(-1)!;
      expect(stop.action).to.equal('stop');
      expect((stop as StopDecision).reason).to.equal('stale_rounds');
      // Far sooner than the 21 rounds of the incident.
      expect(seen.length).to.be.at.most(6);
      const nudgeAt = seen.findIndex((d) => d.action === 'continue' && d.nudge !== undefined);
      const disabledAt = seen.findIndex((d) => d.action === 'continue' && d.disabledTools.includes('search'));
      expect(nudgeAt, 'a nudge comes before the stop').to.be.within(0, seen.length - 2);
      expect(disabledAt, 'search is disabled before the stop').to.be.within(nudgeAt, seen.length - 2);
      root.end();
      expect(h.one('invoke_agent researcher').attributes['loopguard.stop.reason']).to.equal('stale_rounds');
    });

    it('an observed run nobody asked shouldStop gets its verdict when its invoke_agent span ends', () => {
      h = makeHarness({ profile: 'researcher', escalation: { enabled: false }, staleRounds: 2 });
      const { span: root, ctx } = startRunSpan(h.tracer, 'late');
      for (let n = 1; n <= 3; n++) staleRound(h, ctx, n);
      root.end();
      const run = h.processor.guard.getRun('late')!;
      expect(run.stopped?.reason).to.equal('stale_rounds');
      expect(() => run.shouldStop()).to.not.throw();
      expect(h.one('invoke_agent researcher').attributes).to.have.property('loopguard.stop.reason', 'stale_rounds');
      expect(diagnostics.matching(/ended Span/)).to.have.length(0);
    });
  });

  describe('healthy runs are not stopped', () => {
    it('a polling tool answering "still running" inside its deadline never makes a round stale', () => {
      let clock = 1_000_000;
      h = makeHarness({ profile: 'researcher', now: () => clock, tools: { job_status: { poll: { deadlineMs: 120_000 } } } });
      const { span: root, ctx } = startRunSpan(h.tracer, 'poller');
      modelCallSpan(h.tracer, ctx);
      toolCallSpan(h.tracer, ctx, 'start_job', { spec: 'build' }, { result: { jobId: 'j1' } });
      for (let n = 0; n < 12; n++) {
        clock += 5_000;
        modelCallSpan(h.tracer, ctx);
        toolCallSpan(h.tracer, ctx, 'job_status', { jobId: 'j1' }, { result: { state: 'running' } });
        expect(h.processor.shouldStop(ctx)?.action, `poll ${n}`).to.equal('continue');
      }
      clock += 5_000;
      modelCallSpan(h.tracer, ctx);
      toolCallSpan(h.tracer, ctx, 'job_status', { jobId: 'j1' }, { result: { state: 'done', artifact: 'a.tgz' } });
      expect(h.processor.shouldStop(ctx)?.action).to.equal('continue');
      const polls = h.finished().filter((s) => s.name === 'execute_tool job_status');
      expect(polls.map((s) => s.attributes['loopguard.decision'])).to.deep.equal(Array(13).fill('allow'));
      expect(polls.at(-1)!.attributes['loopguard.novelty']).to.equal('new');
      // Past the deadline identical polls are refused.
      clock += 120_000;
      toolCallSpan(h.tracer, ctx, 'job_status', { jobId: 'j1' }, { result: { state: 'done', artifact: 'a.tgz' } });
      expect(h.finished().at(-1)!.attributes).to.include({ 'loopguard.decision': 'refuse', 'loopguard.refusal.reason': 'poll.deadline_passed' });
      root.end();
    });

    it('pagination with an advancing cursor runs through many pages; a cursor that does not advance is refused', () => {
      h = makeHarness({ profile: 'chat', tools: { list_issues: { cursorArg: 'cursor' } } });
      const { span: root, ctx } = startRunSpan(h.tracer, 'pager');
      for (let page = 1; page <= 15; page++) {
        modelCallSpan(h.tracer, ctx);
        toolCallSpan(h.tracer, ctx, 'list_issues', { repo: 'x/y', cursor: page === 1 ? null : `p${page}` }, { result: { items: [`issue-${page}a`, `issue-${page}b`], next: `p${page + 1}` } });
        expect(h.processor.shouldStop(ctx)?.action, `page ${page}`).to.equal('continue');
      }
      const pages = h.finished().filter((s) => s.name === 'execute_tool list_issues');
      expect(pages.every((s) => s.attributes['loopguard.decision'] === 'allow' && s.attributes['loopguard.novelty'] === 'new')).to.equal(true);
      modelCallSpan(h.tracer, ctx);
      toolCallSpan(h.tracer, ctx, 'list_issues', { repo: 'x/y', cursor: 'p7' }, { result: { items: ['issue-7a'] } });
      expect(h.finished().at(-1)!.attributes).to.include({ 'loopguard.decision': 'refuse', 'loopguard.refusal.reason': 'pagination.cursor_not_advanced' });
      root.end();
    });
  });

  describe('failures recorded from spans', () => {
    it('an ERROR status is a failure; error.type overloaded is overloaded; an identical retry is allowed', () => {
      h = makeHarness({ profile: 'researcher' });
      const { span: root, ctx } = startRunSpan(h.tracer, 'r');
      const failures: string[] = [];
      h.processor.guard.addListener({ callFinished: (_run, _call, outcome) => failures.push(outcome) });
      toolCallSpan(h.tracer, ctx, 'fetch', { id: 1 }, { error: 'Too Many Requests', type: 'overloaded' });
      toolCallSpan(h.tracer, ctx, 'fetch', { id: 1 }, { error: 'Too Many Requests', type: 'overloaded' });
      toolCallSpan(h.tracer, ctx, 'fetch', { id: 1 }, { error: 'bad id', type: 'ValidationError' });
      toolCallSpan(h.tracer, ctx, 'fetch', { id: 1 }, { result: { body: 'ok' } });
      // Succeeded once: now it is a repeat.
      toolCallSpan(h.tracer, ctx, 'fetch', { id: 1 }, { result: { body: 'ok' } });
      root.end();
      expect(failures).to.deep.equal(['overloaded', 'overloaded', 'error', 'success']);
      const decisions = h.finished().filter((s) => s.name === 'execute_tool fetch').map((s) => s.attributes['loopguard.decision']);
      expect(decisions).to.deep.equal(['allow', 'allow', 'allow', 'allow', 'refuse']);
      expect(h.processor.guard.getRun('r')!.partial().tools.fetch).to.include({ failures: 3, executed: 4, refused: 1 });
    });
  });

  describe('interleaved runs never mix', () => {
    it('two runs in separate traces, the same calls interleaved: each run judges only its own calls', () => {
      h = makeHarness({ profile: 'researcher', escalation: { enabled: false }, staleRounds: 3 });
      const a = startRunSpan(h.tracer, 'run-a');
      const b = startRunSpan(h.tracer, 'run-b');
      for (let n = 1; n <= 4; n++) {
        modelCallSpan(h.tracer, a.ctx);
        modelCallSpan(h.tracer, b.ctx);
        // A loops on the same documents; B learns something new each round.
        toolCallSpan(h.tracer, a.ctx, 'search', { q: `a${n}` }, { result: SAME_DOCS });
        toolCallSpan(h.tracer, b.ctx, 'search', { q: `a${n}` }, { result: { docs: [`b-doc-${n}`] } });
      }
      expect(h.processor.shouldStop(a.ctx)?.action).to.equal('stop');
      expect(h.processor.shouldStop(b.ctx)?.action).to.equal('continue');
      expect(h.processor.guard.getRun('run-a')!.partial()).to.include({ rounds: 4, toolCalls: 4, newFacts: 1 });
      expect(h.processor.guard.getRun('run-b')!.partial()).to.include({ rounds: 4, toolCalls: 4, newFacts: 4 });
      a.span.end();
      b.span.end();
    });

    // Was a bug (fixed in 448d3cd): a span whose parent is not a GenAI span (an HTTP client span, a framework "step"
    // span) is attributed to "the live run of its trace" = the run started LAST in that trace.
    // Two runs started under one request span (same trace) therefore mix.
    it('two runs under one request span (same trace), calls made under intermediate spans, stay apart', () => {
      h = makeHarness({ profile: 'researcher' });
      const request = h.tracer.startSpan('POST /agents');
      const requestCtx = trace.setSpan(ROOT_CONTEXT, request);
      const a = startRunSpan(h.tracer, 'run-a', requestCtx);
      const b = startRunSpan(h.tracer, 'run-b', requestCtx);
      const stepA = h.tracer.startSpan('agent step', {}, a.ctx);
      const stepACtx = trace.setSpan(a.ctx, stepA);
      toolCallSpan(h.tracer, stepACtx, 'search', { q: 'refunds' }, { result: SAME_DOCS });
      expect(h.processor.runForContext(stepACtx)?.id, 'the step span belongs to run A').to.equal('run-a');
      expect(h.processor.guard.getRun('run-a')!.partial().toolCalls, 'run A recorded its call').to.equal(1);
      expect(h.processor.guard.getRun('run-b')!.partial().toolCalls, 'run B saw nothing').to.equal(0);
      stepA.end();
      a.span.end();
      b.span.end();
      request.end();
    });

    // Was a bug (fixed in 448d3cd): same root cause. When a sub-agent (invoke_agent child of invoke_agent) ends, the
    // trace's live run is dropped, and the parent run's later calls under a non-GenAI span
    // open an implicit run `trace:<id>` instead of going to the parent run.
    it("a sub-agent's end does not detach the parent run's later calls", () => {
      h = makeHarness({ profile: 'researcher' });
      const parent = startRunSpan(h.tracer, 'parent');
      const child = startRunSpan(h.tracer, 'child', parent.ctx);
      toolCallSpan(h.tracer, child.ctx, 'search', { q: 'sub' }, { result: { docs: ['s'] } });
      child.span.end();
      const step = h.tracer.startSpan('agent step', {}, parent.ctx);
      toolCallSpan(h.tracer, trace.setSpan(parent.ctx, step), 'search', { q: 'main' }, { result: { docs: ['m'] } });
      step.end();
      expect(h.processor.guard.getRun('parent')!.partial().toolCalls).to.equal(1);
      expect(h.processor.guard.getRun(`trace:${parent.span.spanContext().traceId}`), 'no implicit run').to.equal(undefined);
      parent.span.end();
    });
  });

  describe('bad input never crashes the host', () => {
    it('non-JSON argument text is compared as exact text', () => {
      // Researcher: the exact-text repeat is refused at the first repeat.
      h = makeHarness({ profile: 'researcher' });
      const { span: root, ctx } = startRunSpan(h.tracer, 'r');
      expect(() => {
        toolCallSpan(h.tracer, ctx, 'shell', 'ls -la /tmp {{{', { result: 'a b c' });
        toolCallSpan(h.tracer, ctx, 'shell', 'ls -la /tmp {{{', { result: 'a b c' });
        toolCallSpan(h.tracer, ctx, 'shell', '{ not: json', { result: 'x' });
        toolCallSpan(h.tracer, ctx, 'shell', '', { result: 'y' });
      }).to.not.throw();
      root.end();
      const decisions = h.finished().filter((s) => s.name === 'execute_tool shell').map((s) => s.attributes['loopguard.decision']);
      expect(decisions).to.deep.equal(['allow', 'refuse', 'allow', 'allow']);
    });

    it('a 10 MB raw result attribute is fingerprinted; the same text later is seen', () => {
      h = makeHarness({ profile: 'researcher', escalation: { enabled: false } });
      const { span: root, ctx } = startRunSpan(h.tracer, 'r');
      const big = JSON.stringify({ rows: Array.from({ length: 100_000 }, (_, i) => ({ i, text: 'y'.repeat(90) })) });
      expect(big.length).to.be.above(10_000_000);
      modelCallSpan(h.tracer, ctx);
      toolCallSpan(h.tracer, ctx, 'dump', { page: 1 }, { result: big });
      modelCallSpan(h.tracer, ctx);
      toolCallSpan(h.tracer, ctx, 'dump', { page: 2 }, { result: big });
      root.end();
      expect(h.finished().filter((s) => s.name === 'execute_tool dump').map((s) => s.attributes['loopguard.novelty'])).to.deep.equal(['new', 'seen']);
      expect(diagnostics.matching(/loopguard: span processor/)).to.have.length(0);
    });

    // Was a bug (fixed in 448d3cd): the SDK truncates attribute values at spanLimits.attributeValueLengthLimit (a common
    // setting to cap span size). Two different calls whose argument JSON shares the first N
    // characters then read as the same exact text, and the second is refused as a repeat. Text
    // that looks like JSON but does not parse (truncated) should lean to "new call".
    it('arguments truncated by the SDK attribute length limit are not mistaken for a repeat', () => {
      h = makeHarness({ profile: 'researcher' }, undefined, { attributeValueLengthLimit: 256 });
      const { span: root, ctx } = startRunSpan(h.tracer, 'r');
      const body = 'export const value = 1;\n'.repeat(20);
      toolCallSpan(h.tracer, ctx, 'write_file', { path: 'src/a.ts', content: `${body}// v1` }, { result: { ok: true, version: 1 } });
      toolCallSpan(h.tracer, ctx, 'write_file', { path: 'src/a.ts', content: `${body}// v2` }, { result: { ok: true, version: 2 } });
      root.end();
      const [first, second] = h.finished().filter((s) => s.name === 'execute_tool write_file');
      expect((first.attributes[GEN_AI.args] as string).length, 'the SDK truncated the arguments').to.equal(256);
      expect(second.attributes['loopguard.decision']).to.equal('allow');
    });

    // Was a bug (fixed in 448d3cd): same cause on the result side: two different results truncated to the same prefix
    // read as the same fingerprint, so a round that learned something counts as stale.
    it('results truncated by the SDK attribute length limit are not mistaken for seen results', () => {
      h = makeHarness({ profile: 'researcher' }, undefined, { attributeValueLengthLimit: 256 });
      const { span: root, ctx } = startRunSpan(h.tracer, 'r');
      const rows = Array.from({ length: 20 }, (_, i) => ({ id: i, title: 'common header row' }));
      toolCallSpan(h.tracer, ctx, 'query', { sql: 'select 1' }, { result: { rows, tail: 'first answer' } });
      toolCallSpan(h.tracer, ctx, 'query', { sql: 'select 2' }, { result: { rows, tail: 'second answer' } });
      root.end();
      const [, second] = h.finished().filter((s) => s.name === 'execute_tool query');
      expect(second.attributes['loopguard.novelty']).to.equal('new');
    });

    // BUG (regression of the truncation fix in 448d3cd): isTruncatedJson treats ANY text that
    // starts with "[" or "{" and does not parse as cut-off JSON. Plain-text results such as
    // numbered search hits ("[1] Title ...") or log lines ("[WARN] ...") then never get a
    // fingerprint, so a reworded-search loop returning them is never seen as stale.
    it('plain-text results that merely start with "[" are still compared (reworded search loop stops)', () => {
      h = makeHarness({ profile: 'researcher', escalation: { enabled: false } });
      const { span: root, ctx } = startRunSpan(h.tracer, 'r');
      const hits = '[1] Refund policy (doc-17): refunds within 30 days\n[2] Returns FAQ (doc-42): how to return an item';
      for (let n = 1; n <= 6; n++) {
        modelCallSpan(h.tracer, ctx);
        toolCallSpan(h.tracer, ctx, 'search', { query: `refund policy wording ${n}` }, { result: hits });
      }
      expect(h.processor.shouldStop(ctx)?.action).to.equal('stop');
      root.end();
    });

    // BUG (same regression, argument side): non-JSON argument text is documented as "compared
    // as exact text", but text starting with "[" or "{" now matches no other call at all.
    it('non-JSON argument text that starts with "[" is still compared as exact text', () => {
      h = makeHarness({ profile: 'researcher' });
      const { span: root, ctx } = startRunSpan(h.tracer, 'r');
      toolCallSpan(h.tracer, ctx, 'shell', '[ -f /etc/hosts ] && cat /etc/hosts', { result: '127.0.0.1 localhost' });
      toolCallSpan(h.tracer, ctx, 'shell', '[ -f /etc/hosts ] && cat /etc/hosts', { result: '127.0.0.1 localhost' });
      root.end();
      const decisions = h.finished().filter((s) => s.name === 'execute_tool shell').map((s) => s.attributes['loopguard.decision']);
      expect(decisions).to.deep.equal(['allow', 'refuse']);
    });

    it('onStart on spans with weird attributes does not throw', () => {
      h = makeHarness();
      const { span: root, ctx } = startRunSpan(h.tracer, 'r');
      const weird: Array<Record<string, unknown>> = [
        { [GEN_AI.op]: 'execute_tool', [GEN_AI.toolName]: 42, [GEN_AI.args]: 17 },
        { [GEN_AI.op]: 'execute_tool', [GEN_AI.toolName]: ['a', 'b'] },
        { [GEN_AI.op]: 'execute_tool', [GEN_AI.toolName]: 'x', 'loopguard.tool.args_hash': 12.5, [GEN_AI.callId]: false },
        { [GEN_AI.op]: 'execute_tool', [GEN_AI.toolName]: 'y', [GEN_AI.args]: ['{"a":1}', null] },
        { [GEN_AI.op]: 'execute_tool', [GEN_AI.toolName]: 'z', [GEN_AI.args]: 'x'.repeat(3 * 1024 * 1024) },
        { [GEN_AI.op]: 'invoke_agent', 'loopguard.run.id': true },
        { [GEN_AI.op]: 'chat', [GEN_AI.inputTokens]: 'lots', [GEN_AI.outputTokens]: Number.NaN },
        { [GEN_AI.op]: 42 },
        { [GEN_AI.op]: '' },
      ];
      expect(() => {
        for (const attributes of weird) {
          const span = h.tracer.startSpan('execute_tool', { attributes: attributes as Record<string, string> }, ctx);
          span.setAttribute('loopguard.tool.outcome', 'nonsense');
          span.setStatus({ code: SpanStatusCode.ERROR });
          span.end();
        }
      }).to.not.throw();
      expect(diagnostics.matching(/loopguard: span processor/)).to.have.length(0);
      root.end();
      const tool42 = h.finished().find((s) => s.attributes[GEN_AI.toolName] === 42);
      expect(tool42?.attributes['loopguard.decision']).to.equal('allow');
    });

    it('an execute_tool span with no run opens an implicit run per trace; a root tool span opens none', () => {
      h = makeHarness({ profile: 'researcher' });
      const request = h.tracer.startSpan('GET /answer');
      const ctx = trace.setSpan(ROOT_CONTEXT, request);
      toolCallSpan(h.tracer, ctx, 'search', { q: 'x' }, { result: SAME_DOCS });
      toolCallSpan(h.tracer, ctx, 'search', { q: 'x' }, { result: SAME_DOCS });
      // A lone tool span is alone in its trace: no run could ever see its repeat (issue 10 #9).
      toolCallSpan(h.tracer, ROOT_CONTEXT, 'search', { q: 'x' }, { result: SAME_DOCS });
      request.end();
      const spans = h.finished().filter((s) => s.name === 'execute_tool search');
      expect(spans.map((s) => s.attributes['loopguard.decision'])).to.deep.equal(['allow', 'refuse', undefined]);
      const traceId = request.spanContext().traceId;
      expect(h.processor.guard.getRun(`trace:${traceId}`)?.partial()).to.include({ toolCalls: 2, refused: 1 });
      expect(h.processor.guard.getRun(`trace:${spans[2].spanContext().traceId}`)).to.equal(undefined);
    });

    it('implicitRuns: false ignores tool spans with no run', () => {
      h = makeHarness({ implicitRuns: false });
      const open = h.tracer.startSpan('execute_tool search', { attributes: { [GEN_AI.op]: 'execute_tool', [GEN_AI.toolName]: 'search' } });
      expect(h.processor.decisionForSpan(open.spanContext().spanId)).to.equal(undefined);
      open.end();
      toolCallSpan(h.tracer, ROOT_CONTEXT, 'search', { q: 'x' }, { result: SAME_DOCS });
      toolCallSpan(h.tracer, ROOT_CONTEXT, 'search', { q: 'x' }, { result: SAME_DOCS });
      expect([...h.processor.guard.runs()]).to.have.length(0);
      expect(h.finished().every((s) => s.attributes['loopguard.decision'] === undefined)).to.equal(true);
      // A model-call span with no run is ignored too.
      modelCallSpan(h.tracer, ROOT_CONTEXT);
      expect([...h.processor.guard.runs()]).to.have.length(0);
    });

    it('spans ended out of order: a child after its parent, a parent ended twice', () => {
      h = makeHarness({ profile: 'researcher' });
      const { span: root, ctx } = startRunSpan(h.tracer, 'r');
      modelCallSpan(h.tracer, ctx);
      const call = h.tracer.startSpan('execute_tool search', { attributes: { [GEN_AI.op]: 'execute_tool', [GEN_AI.toolName]: 'search', [GEN_AI.args]: '{"q":1}' } }, ctx);
      const model = h.tracer.startSpan('chat m', { attributes: { [GEN_AI.op]: 'chat' } }, ctx);
      expect(() => {
        root.end();
        root.end();
        call.setAttribute(GEN_AI.result, '{"docs":[1]}');
        call.end();
        model.end();
        call.end();
      }).to.not.throw();
      expect(diagnostics.matching(/only call end\(\) on a span once/)).to.have.length.at.least(1);
      expect(diagnostics.matching(/loopguard: span processor/)).to.have.length(0);
      const run = h.processor.guard.getRun('r')!;
      expect(run.isEnded).to.equal(true);
      // The run span was exported once, with the counts as they stood when it ended.
      const agent = h.one('invoke_agent researcher');
      expect(agent.attributes).to.include({ 'loopguard.run.tool_calls': 1 });
      expect(run.inFlight, 'the late call was still finished').to.equal(0);
    });

    it('an engine listener that throws is reported through diag and never reaches the SDK', () => {
      h = makeHarness({
        listeners: [
          {
            callDecided: () => {
              throw new Error('listener exploded');
            },
            runStopped: () => {
              throw new Error('stop listener exploded');
            },
          },
        ],
        escalation: { enabled: false },
        staleRounds: 1,
      });
      const { span: root, ctx } = startRunSpan(h.tracer, 'r');
      expect(() => {
        modelCallSpan(h.tracer, ctx);
        toolCallSpan(h.tracer, ctx, 'search', { q: 1 }, { result: SAME_DOCS });
        modelCallSpan(h.tracer, ctx);
        toolCallSpan(h.tracer, ctx, 'search', { q: 2 }, { result: SAME_DOCS });
      }).to.not.throw();
      expect(h.processor.shouldStop(ctx)?.action).to.equal('stop');
      root.end();
      expect(diagnostics.matching(/listener callDecided threw: listener exploded/, 'warn')).to.have.length(2);
      expect(diagnostics.matching(/listener runStopped threw/, 'warn')).to.have.length(1);
      // The processor's own listener still ran: the stop reason is on the span.
      expect(h.one('invoke_agent researcher').attributes['loopguard.stop.reason']).to.equal('stale_rounds');
    });

    it('an interpreter that throws is caught in onStart and reported through diag.error', () => {
      const exploding: SpanInterpreter = (name) => {
        if (name.includes('boom')) throw new Error('interpreter exploded');
        return undefined;
      };
      h = makeHarness({ interpreters: [exploding] });
      expect(() => {
        const span = h.tracer.startSpan('execute_tool boom', { attributes: { [GEN_AI.op]: 'execute_tool' } });
        span.end();
      }).to.not.throw();
      expect(diagnostics.matching(/onStart failed.*interpreter exploded/, 'error')).to.have.length(1);
      expect(h.finished()).to.have.length(1);
    });
  });

  describe('memory is bounded', () => {
    it('maxTrackedSpans forgets the oldest open spans, with one diag warning', () => {
      h = makeHarness({ maxTrackedSpans: 3 });
      const { ctx } = startRunSpan(h.tracer, 'r');
      const open = Array.from({ length: 10 }, (_, i) =>
        h.tracer.startSpan('execute_tool t', { attributes: { [GEN_AI.op]: 'execute_tool', [GEN_AI.toolName]: 't', [GEN_AI.args]: JSON.stringify({ i }) } }, ctx),
      );
      expect(diagnostics.matching(/forgetting the oldest/, 'warn')).to.have.length(1);
      const tracked = open.filter((span) => h.processor.decisionForSpan(span.spanContext().spanId) !== undefined);
      expect(tracked).to.deep.equal(open.slice(-3));
      expect(() => open.forEach((span) => span.end())).to.not.throw();
    });

    it('a bad maxTrackedSpans is rejected at construction, naming the field', () => {
      expect(() => makeHarness({ maxTrackedSpans: -1 })).to.throw(LoopGuardConfigError, /^maxTrackedSpans: /);
    });

    it('ended runs stay queryable for endedRunTtlMs, then are evicted', () => {
      let clock = 0;
      h = makeHarness({ now: () => clock, endedRunTtlMs: 60_000 });
      const first = startRunSpan(h.tracer, 'first');
      first.span.end();
      clock += 59_000;
      startRunSpan(h.tracer, 'second').span.end();
      expect(h.processor.guard.getRun('first')?.isEnded, 'inside the TTL').to.equal(true);
      clock += 2_000;
      startRunSpan(h.tracer, 'third');
      expect(h.processor.guard.getRun('first'), 'past the TTL').to.equal(undefined);
      expect(h.processor.guard.getRun('second')).to.not.equal(undefined);
    });

    it('maxOpenRuns evicts the least recently active run, with one diag warning', () => {
      h = makeHarness({ maxOpenRuns: 2 });
      const runs = ['r1', 'r2', 'r3', 'r4'].map((id) => startRunSpan(h.tracer, id));
      expect(diagnostics.matching(/more than 2 runs are open/, 'warn')).to.have.length(1);
      expect([...h.processor.guard.runs()].map((r) => r.id)).to.deep.equal(['r3', 'r4']);
      expect(h.processor.guard.getRun('r1')?.isEnded).to.equal(true);
      // Ending an evicted run's span later is harmless.
      expect(() => runs.forEach((r) => r.span.end())).to.not.throw();
      expect(diagnostics.matching(/loopguard: span processor/)).to.have.length(0);
    });

    // Was a bug (fixed in 448d3cd): implicit runs (tool spans with no invoke_agent) are kept in a per-trace map that is
    // only cleaned when the same trace is looked up again. The engine evicts the runs at
    // maxOpenRuns, but the map keeps every evicted RunGuard (its whole ledger) alive forever.
    it('implicit runs of many traces do not accumulate past maxOpenRuns', () => {
      h = makeHarness({ maxOpenRuns: 5 });
      for (let i = 0; i < 200; i++) {
        const request = h.tracer.startSpan(`GET /${i}`);
        toolCallSpan(h.tracer, trace.setSpan(ROOT_CONTEXT, request), 'search', { q: i }, { result: { docs: [i] } });
        request.end();
      }
      expect(h.processor.guard.stats().openRuns).to.equal(5);
      // White-box: the processor's own per-trace index must be bounded too.
      const internals = h.processor as unknown as { runsByTrace: Map<string, unknown>; spans: Map<string, unknown> };
      expect(internals.spans.size, 'ended spans are forgotten').to.equal(0);
      expect(internals.runsByTrace.size, 'per-trace index of implicit runs').to.be.at.most(5);
    });

    // Was a bug (minor) (fixed in 448d3cd): a call span forgotten by the maxTrackedSpans cap is never finished in the
    // ledger, so its signature stays "in flight" forever: every later identical call is refused
    // as repeat.in_flight ("an identical call is already running") although it ended long ago,
    // and run.inFlight > 0 keeps shouldStop from judging the open round.
    it('a call span forgotten by the cap does not leave its call in flight forever', () => {
      h = makeHarness({ profile: 'chat', maxTrackedSpans: 2 });
      const { ctx } = startRunSpan(h.tracer, 'r');
      const attrs = (q: number) => ({ [GEN_AI.op]: 'execute_tool', [GEN_AI.toolName]: 'search', [GEN_AI.args]: JSON.stringify({ q }) });
      const first = h.tracer.startSpan('execute_tool search', { attributes: attrs(1) }, ctx);
      const others = [2, 3].map((q) => h.tracer.startSpan('execute_tool search', { attributes: attrs(q) }, ctx));
      expect(h.processor.decisionForSpan(first.spanContext().spanId), 'forgotten').to.equal(undefined);
      first.setAttribute(GEN_AI.result, '{"docs":[1]}');
      first.end();
      others.forEach((span) => span.end());
      // Chat profile: an identical call after the first one finished is allowed.
      toolCallSpan(h.tracer, ctx, 'search', { q: 1 }, { result: { docs: [1] } });
      expect(h.finished().at(-1)!.attributes['loopguard.refusal.reason']).to.not.equal('repeat.in_flight');
      expect(h.processor.guard.getRun('r')!.inFlight).to.equal(0);
    });

    // Was a bug (fixed in 448d3cd): rootSpans (run id -> invoke_agent Span) is only cleaned when a tracked run span
    // ends. Run spans forgotten by the maxTrackedSpans cap — the very "spans that never end"
    // the cap exists for — stay in it forever, each holding a whole SDK Span.
    it('run spans that never end do not accumulate past the caps', () => {
      h = makeHarness({ maxTrackedSpans: 10, maxOpenRuns: 10 });
      for (let i = 0; i < 300; i++) startRunSpan(h.tracer, `leaked-${i}`);
      expect(h.processor.guard.stats().openRuns).to.be.at.most(10);
      const internals = h.processor as unknown as { rootSpans: Map<string, unknown>; spans: Map<string, unknown>; runsByTrace: Map<string, unknown> };
      expect(internals.spans.size).to.be.at.most(10);
      expect(internals.rootSpans.size, 'root spans index').to.be.at.most(10);
      expect(internals.runsByTrace.size, 'per-trace index').to.be.at.most(10);
    });

    // Was a bug (fixed in 448d3cd): with an engine shared between processors (the documented `guard` option, "e.g. with
    // telemetry or a second provider"), shutting one processor down ends every open run of the
    // engine, including the other provider's live runs.
    it("shutting down one of two processors sharing an engine leaves the other's runs open", async () => {
      const shared = makeHarness({ profile: 'researcher' });
      h = makeHarness({ guard: shared.processor.guard });
      try {
        const live = startRunSpan(shared.tracer, 'live-on-provider-1');
        await h.processor.shutdown();
        expect(shared.processor.guard.getRun('live-on-provider-1')?.isEnded).to.equal(false);
        live.span.end();
      } finally {
        await shared.shutdown();
      }
    });

    it('shutdown ends every open run once, is idempotent, and guards nothing afterwards', async () => {
      const ended: string[] = [];
      h = makeHarness({ listeners: [{ runEnded: (run) => ended.push(run.id) }] });
      startRunSpan(h.tracer, 'r1');
      const r2 = startRunSpan(h.tracer, 'r2');
      const request = h.tracer.startSpan('GET /x');
      toolCallSpan(h.tracer, trace.setSpan(ROOT_CONTEXT, request), 'search', { q: 1 }, { result: SAME_DOCS });
      await h.processor.shutdown();
      await h.processor.shutdown();
      expect(ended).to.have.members(['r1', 'r2', `trace:${request.spanContext().traceId}`]);
      expect(ended).to.have.length(3);
      expect([...h.processor.guard.runs()]).to.have.length(0);
      const after = h.tracer.startSpan('execute_tool search', { attributes: { [GEN_AI.op]: 'execute_tool', [GEN_AI.toolName]: 'search' } }, r2.ctx);
      expect(h.processor.decisionForSpan(after.spanContext().spanId)).to.equal(undefined);
      expect(() => {
        after.end();
        r2.span.end();
      }).to.not.throw();
      // The provider's own shutdown calls it again: still fine.
      await h.provider.shutdown();
      expect(ended).to.have.length(3);
      expect(diagnostics.matching(/loopguard: span processor/)).to.have.length(0);
    });
  });

  describe('span hierarchies seen in real frameworks', () => {
    // Was a bug (fixed in 448d3cd): a nested invoke_agent (a sub-agent / handoff) that carries the parent's
    // gen_ai.conversation.id maps to the parent's run (startRun returns the open run), replaces
    // the parent's root span in rootSpans, and when it ends it ENDS THE PARENT RUN and drops the
    // parent's root span: the parent's later stop is no longer written on its invoke_agent span.
    it('a sub-agent span with the same conversation id does not end the parent run when it ends', () => {
      h = makeHarness({ profile: 'researcher', escalation: { enabled: false }, staleRounds: 2 });
      const parent = h.tracer.startSpan('invoke_agent triage', { attributes: { [GEN_AI.op]: 'invoke_agent', 'gen_ai.conversation.id': 'conv-1' } });
      const parentCtx = trace.setSpan(ROOT_CONTEXT, parent);
      const child = h.tracer.startSpan('invoke_agent billing', { attributes: { [GEN_AI.op]: 'invoke_agent', 'gen_ai.conversation.id': 'conv-1' } }, parentCtx);
      child.end();
      expect(h.processor.guard.getRun('conv-1')?.isEnded, 'the parent run is still open').to.equal(false);
      for (let n = 1; n <= 3; n++) {
        modelCallSpan(h.tracer, parentCtx);
        toolCallSpan(h.tracer, parentCtx, 'search', { q: n }, { result: SAME_DOCS });
      }
      expect(h.processor.shouldStop(parentCtx)?.action).to.equal('stop');
      parent.end();
      const exported = h.finished().find((s) => s.name === 'invoke_agent triage')!;
      expect(exported.attributes['loopguard.stop.reason']).to.equal('stale_rounds');
    });

    // BUG: a tool that calls a model itself (a summarize tool, an LLM-backed extractor; the
    // provider instrumentation makes a `chat` span inside the execute_tool span) opens a NEW
    // ROUND of the run in the middle of the current one. The current round is closed before the
    // tool's result arrives, and the result is then counted in no round (ticket.round differs),
    // so a loop on such a tool never becomes stale; every call also burns an extra round.
    it('a model call made inside a tool is not a round of the run', async () => {
      h = makeHarness({ profile: 'researcher', escalation: { enabled: false } });
      const { span: root, ctx } = startRunSpan(h.tracer, 'r');
      const summarize = instrumentTool(
        'summarize',
        () => {
          // The tool's own LLM call, traced by the provider instrumentation under the tool span.
          const inner = h.tracer.startSpan('chat gpt-4o-mini', { attributes: { [GEN_AI.op]: 'chat' } });
          inner.end();
          return { summary: 'Refunds are accepted within 30 days.' };
        },
        { processor: h.processor, tracer: h.tracer },
      );
      for (let n = 1; n <= 6; n++) {
        modelCallSpan(h.tracer, ctx);
        await context.with(ctx, () => summarize({ url: `https://shop.example/refunds?v=${n}` }));
      }
      const run = h.processor.guard.getRun('r')!;
      expect(run.round, 'six model calls of the agent, six rounds').to.equal(6);
      expect(h.processor.shouldStop(ctx)?.action, 'five rounds of the same summary').to.equal('stop');
      root.end();
    });

    // Was a bug (fixed in 448d3cd): two instrumentation layers for one model call (a framework's `chat` span with the
    // provider SDK's `chat` span inside it — e.g. LangChain + OpenAI instrumentation) open two
    // rounds. Each model call then counts twice against maxRounds (chat: 40 → 20 real rounds).
    it('a model-call span nested in another model-call span is the same round', () => {
      h = makeHarness({ profile: 'chat' });
      const { span: root, ctx } = startRunSpan(h.tracer, 'r');
      for (let n = 0; n < 3; n++) {
        const outer = h.tracer.startSpan('chat gpt-4o', { attributes: { [GEN_AI.op]: 'chat' } }, ctx);
        const inner = h.tracer.startSpan('chat gpt-4o', { attributes: { [GEN_AI.op]: 'chat' } }, trace.setSpan(ctx, outer));
        inner.end();
        outer.end();
        toolCallSpan(h.tracer, ctx, 'search', { q: n }, { result: { docs: [n] } });
      }
      expect(h.processor.guard.getRun('r')!.round).to.equal(3);
      root.end();
    });
  });

  describe('loopguard.internal spans', () => {
    it('are ignored: no run, no round, no decision', () => {
      h = makeHarness();
      const internalRun = h.tracer.startSpan('invoke_agent exporter', { attributes: { [GEN_AI.op]: 'invoke_agent', 'loopguard.run.id': 'internal', 'loopguard.internal': true } });
      const internalTool = h.tracer.startSpan('execute_tool export', {
        attributes: { [GEN_AI.op]: 'execute_tool', [GEN_AI.toolName]: 'export', 'loopguard.internal': true },
      });
      expect(h.processor.decisionForSpan(internalTool.spanContext().spanId)).to.equal(undefined);
      internalTool.end();
      internalRun.end();
      expect(h.processor.guard.getRun('internal')).to.equal(undefined);
      expect([...h.processor.guard.runs()]).to.have.length(0);
      expect(h.finished().every((s) => !('loopguard.decision' in s.attributes))).to.equal(true);
      // The same span without the marker is guarded.
      const request = h.tracer.startSpan('GET /export');
      toolCallSpan(h.tracer, trace.setSpan(ROOT_CONTEXT, request), 'export', {}, { result: 'ok' });
      expect(h.finished().at(-1)!.attributes['loopguard.decision']).to.equal('allow');
    });
  });
});
