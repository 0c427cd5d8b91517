// startAgentRun: a hand-written agent loop guarded in a few lines, on the real OTel SDK.
import { expect } from 'chai';
import { context, ROOT_CONTEXT, SpanStatusCode, trace } from '@opentelemetry/api';
import { AlwaysOffSampler } from '../helpers/otel-sdk.js';

import type { RunDecision, StopDecision } from '../../src/core/types.js';
import { instrumentTool } from '../../src/otel/instrument-tool.js';
import { startAgentRun, type AgentRun } from '../../src/otel/start-agent-run.js';
import { makeHarness, sleep, useContextManager, useDiagCapture, type Harness } from './otel-test-helpers.js';

const SAME_DOCS = { docs: [{ id: 'doc-17', title: 'Refund policy' }, { id: 'doc-42', title: 'Returns FAQ' }] };

interface ModelReply {
  toolCall?: { query: string };
  text?: string;
  usage: { inputTokens: number; outputTokens: number };
}

/**
 * The plain loop from the README: one model call per round, its tool call, then shouldStop.
 * `model(step)` scripts the model; `search(query, step)` scripts the tool.
 */
async function plainLoop(
  run: AgentRun,
  model: (step: number) => ModelReply,
  search: (query: string, step: number) => unknown,
  maxSteps = 30,
): Promise<{ stop?: StopDecision; steps: number; toolResults: unknown[] }> {
  const tool = run.tool('search', async (args: { query: string; step: number }) => {
    await sleep(1);
    return search(args.query, args.step);
  });
  const toolResults: unknown[] = [];
  for (let step = 1; step <= maxSteps; step++) {
    const reply = await run.modelCall('gpt-test', async () => {
      await sleep(1);
      return model(step);
    });
    if (reply.toolCall === undefined) return { steps: step, toolResults };
    toolResults.push(await tool({ query: reply.toolCall.query, step }, { callId: `${run.runId}-call-${step}` }));
    const decision = run.shouldStop();
    if (decision.action === 'stop') return { stop: decision, steps: step, toolResults };
  }
  return { steps: maxSteps, toolResults };
}

const rewordingModel = (step: number): ModelReply => ({ toolCall: { query: `refund policy, wording ${step}` }, usage: { inputTokens: 800, outputTokens: 40 } });

describe('startAgentRun', () => {
  useContextManager();
  const diagnostics = useDiagCapture();
  let h: Harness;

  afterEach(async () => {
    await h?.shutdown();
  });

  it('stops a reworded-search loop with stale rounds and annotates the invoke_agent span', async () => {
    h = makeHarness({ profile: 'researcher' });
    const run = startAgentRun({ processor: h.processor, tracer: h.tracer, runId: 'researcher-1', agentName: 'researcher' });
    const { stop, steps } = await plainLoop(run, rewordingModel, () => SAME_DOCS);
    // The processor answers the same for the run's context.
    const viaProcessor = h.processor.shouldStop(run.context);
    run.end();

    expect(stop?.reason).to.equal('stale_rounds');
    expect(steps, 'long before the 21 rounds of the incident').to.equal(6);
    expect(viaProcessor).to.equal(stop);
    expect(stop!.partial).to.include({ rounds: 6, newFacts: 1, lastNewFactRound: 1 });
    // Stale (and refused) rounds wasted their model tokens.
    expect(stop!.partial.wastedTokens).to.equal(5 * 840);

    const agent = h.one('invoke_agent researcher');
    expect(agent.attributes).to.include({
      'gen_ai.operation.name': 'invoke_agent',
      'gen_ai.agent.name': 'researcher',
      'loopguard.run.id': 'researcher-1',
      'loopguard.stop.reason': 'stale_rounds',
      'loopguard.run.rounds': 6,
      'loopguard.run.tool_calls': stop!.partial.toolCalls,
      'loopguard.run.refusals': stop!.partial.refused,
    });
    // search is the run's only tool, so the ladder nudges but never disables it (issue 9,
    // item 6): every call runs, and the stale-rounds stop still comes after round 6.
    expect(stop!.partial, 'search stays enabled up to the stop').to.include({ toolCalls: 6, executed: 6, refused: 0, seenResults: 5 });

    const rounds = h.finished().filter((s) => s.name === 'chat gpt-test');
    expect(rounds).to.have.length(6);
    for (const round of rounds) {
      expect(round.parentSpanContext?.spanId).to.equal(agent.spanContext().spanId);
      expect(round.attributes).to.include({ 'gen_ai.operation.name': 'chat', 'gen_ai.request.model': 'gpt-test', 'gen_ai.usage.input_tokens': 800, 'gen_ai.usage.output_tokens': 40 });
    }
    const calls = h.finished().filter((s) => s.name === 'execute_tool search');
    expect(calls).to.have.length(6);
    expect(calls.every((s) => s.parentSpanContext?.spanId === agent.spanContext().spanId)).to.equal(true);
    expect(calls.map((s) => s.attributes['loopguard.round'])).to.deep.equal([1, 2, 3, 4, 5, 6]);
  });

  it('a healthy run that learns something every round is not stopped and ends with its answer', async () => {
    h = makeHarness({ profile: 'researcher' });
    const run = startAgentRun({ processor: h.processor, tracer: h.tracer });
    const { stop, steps, toolResults } = await plainLoop(
      run,
      (step) => (step <= 12 ? { toolCall: { query: `topic ${step}` }, usage: { inputTokens: 10, outputTokens: 1 } } : { text: 'answer', usage: { inputTokens: 10, outputTokens: 5 } }),
      (query) => ({ docs: [`doc for ${query}`] }),
    );
    expect(stop).to.equal(undefined);
    expect(steps).to.equal(13);
    expect(toolResults).to.have.length(12);
    expect(toolResults.every((r) => typeof r === 'object')).to.equal(true);
    expect(run.shouldStop()).to.deep.include({ action: 'continue' });
    expect(run.run.partial()).to.include({ rounds: 13, toolCalls: 12, newFacts: 12, wastedTokens: 0 });
    run.end();
    expect(h.finished().find((s) => s.name === 'invoke_agent agent')!.attributes).to.not.have.property('loopguard.stop.reason');
  });

  it('a polling tool inside its deadline keeps the run going', async () => {
    h = makeHarness({ profile: 'researcher', tools: { job_status: { poll: { deadlineMs: 60_000 } } } });
    const run = startAgentRun({ processor: h.processor, tracer: h.tracer });
    const status = run.tool('job_status', (args: { jobId: string }) => ({ jobId: args.jobId, state: 'running' }));
    const decisions: RunDecision[] = [];
    for (let i = 0; i < 10; i++) {
      await run.modelCall('m', () => ({}));
      expect(await status({ jobId: 'j1' })).to.deep.equal({ jobId: 'j1', state: 'running' });
      decisions.push(run.shouldStop());
    }
    expect(decisions.every((d) => d.action === 'continue')).to.equal(true);
    run.end();
  });

  it('modelCall returns the result, runs inside its chat span, and ends the span when the call throws', async () => {
    h = makeHarness();
    const run = startAgentRun({ processor: h.processor, tracer: h.tracer, runId: 'r' });
    let activeInside: string | undefined;
    const reply = await run.modelCall('m1', () => {
      activeInside = trace.getSpan(context.active())?.spanContext().spanId;
      return { text: 'hi', usage: { inputTokens: 3 } };
    });
    expect(reply).to.deep.equal({ text: 'hi', usage: { inputTokens: 3 } });
    const failure = new Error('model unavailable');
    let caught: unknown;
    await run.modelCall('m2', async () => {
      throw failure;
    }).catch((error: unknown) => (caught = error));
    expect(caught).to.equal(failure);
    run.end();

    const first = h.one('chat m1');
    expect(activeInside).to.equal(first.spanContext().spanId);
    expect(first.attributes['gen_ai.usage.input_tokens']).to.equal(3);
    expect(first.attributes).to.not.have.property('gen_ai.usage.output_tokens');
    expect(h.one('chat m2').ended).to.equal(true);
    expect(run.run.round).to.equal(2);
  });

  it('modelCall returns a result whose usage cannot be read (a throwing getter, a Proxy) or holds no numbers as it is, sampled or not', async () => {
    const results: Array<[string, unknown]> = [
      ['usage getter throws', { text: 'hi', get usage(): unknown { throw new Error('usage boom'); } }],
      ['token getter throws', { text: 'hi', usage: { get inputTokens(): number { throw new Error('tokens boom'); }, outputTokens: 2 } }],
      ['a Proxy whose reads throw', new Proxy({}, { get(_target, key) { if (key === 'then') return undefined; throw new Error('get boom'); } })],
      ['BigInt tokens', { text: 'hi', usage: { inputTokens: 10n, outputTokens: 2 } }],
    ];
    for (const sampler of [undefined, new AlwaysOffSampler()]) {
      h = makeHarness({}, sampler);
      const run = startAgentRun({ processor: h.processor, tracer: h.tracer, runId: 'usage' });
      for (const [what, result] of results) {
        const returned = await run.modelCall('m', () => result).catch((error: unknown) => error);
        // Compared by identity: chai's failure message would read the hostile value.
        expect(returned === result, `${what}: the result itself, got ${returned instanceof Error ? returned.message : typeof returned}`).to.equal(true);
      }
      expect(run.run.round).to.equal(results.length);
      run.end();
      await h.shutdown();
    }
  });

  it('end() is idempotent: one invoke_agent span, the run ended once', () => {
    h = makeHarness();
    const ended: string[] = [];
    h.processor.guard.addListener({ runEnded: (r) => ended.push(r.id) });
    const run = startAgentRun({ processor: h.processor, tracer: h.tracer, runId: 'once' });
    run.end();
    run.end();
    expect(h.finished().filter((s) => s.name.startsWith('invoke_agent'))).to.have.length(1);
    expect(ended).to.deep.equal(['once']);
    expect(run.run.isEnded).to.equal(true);
    expect(diagnostics.matching(/only call end\(\) on a span once/)).to.have.length(0);
  });

  it('defaults: a random run id, agent name "agent"; toolOptions reach every tool', async () => {
    h = makeHarness();
    const a = startAgentRun({ processor: h.processor, tracer: h.tracer, toolOptions: { recordArguments: true, type: 'datastore' } });
    const b = startAgentRun({ processor: h.processor, tracer: h.tracer });
    expect(a.runId).to.match(/^[0-9a-f-]{36}$/);
    expect(a.runId).to.not.equal(b.runId);
    expect(a.run).to.equal(h.processor.guard.getRun(a.runId));
    await a.tool('kv', () => 'v')({ key: 'k' });
    a.end();
    b.end();
    const span = h.one('execute_tool kv');
    expect(span.attributes).to.include({ 'gen_ai.tool.type': 'datastore', 'gen_ai.tool.call.arguments': '{"key":"k"}' });
    expect(h.finished().filter((s) => s.name === 'invoke_agent agent')).to.have.length(2);
  });

  it('after the stop, tools return the stop message instead of running', async () => {
    h = makeHarness({ profile: 'researcher', staleRounds: 2, escalation: { enabled: false } });
    const run = startAgentRun({ processor: h.processor, tracer: h.tracer });
    const { stop } = await plainLoop(run, rewordingModel, () => SAME_DOCS);
    expect(stop?.reason).to.equal('stale_rounds');
    let ran = false;
    const other = run.tool('fetch_page', () => {
      ran = true;
      return 'page';
    });
    const result = await other({ id: 'doc-17' });
    expect(ran).to.equal(false);
    expect(result).to.be.a('string').and.match(/Not run: tool use has ended/);
    run.end();
    expect(h.one('execute_tool fetch_page').attributes).to.include({ 'loopguard.decision': 'refuse', 'loopguard.refusal.reason': 'run.stopped' });
    expect(h.one('execute_tool fetch_page').status.code).to.not.equal(SpanStatusCode.ERROR);
  });

  // BUG: in an unsampled trace the processor never sees the invoke_agent span, so the run is
  // known only to the helper. run.tool() is guarded (it passes `run`), but a tool made with
  // instrumentTool() and called inside run.context lands in a separate implicit run
  // `trace:<id>`, and processor.shouldStop(run.context) is undefined: the run's stale loop is
  // never seen. Sampled, the very same code is guarded. Guarding must not depend on sampling.
  it('in an unsampled trace, tools instrumented separately still belong to the run', async () => {
    h = makeHarness({ profile: 'researcher', escalation: { enabled: false } }, new AlwaysOffSampler());
    const run = startAgentRun({ processor: h.processor, tracer: h.tracer, runId: 'unsampled-2' });
    const search = instrumentTool('search', () => SAME_DOCS, { processor: h.processor, tracer: h.tracer });
    let decision: RunDecision | undefined;
    for (let n = 1; n <= 6; n++) {
      await run.modelCall('m', () => ({}));
      await context.with(run.context, () => search({ query: `wording ${n}` }));
      decision = run.shouldStop();
    }
    expect(run.run.partial().toolCalls, 'the calls were recorded on the run').to.equal(6);
    expect(decision?.action).to.equal('stop');
    expect(h.processor.shouldStop(run.context)?.action).to.equal('stop');
    run.end();
  });

  describe('interleaved runs in one process', () => {
    it('two loops run concurrently with Promise.all never mix', async () => {
      h = makeHarness({ profile: 'researcher' });
      const looping = startAgentRun({ processor: h.processor, tracer: h.tracer, runId: 'looping' });
      const healthy = startAgentRun({ processor: h.processor, tracer: h.tracer, runId: 'healthy' });
      // Both ask the very same queries; only the looping one keeps getting the same documents.
      const [a, b] = await Promise.all([
        plainLoop(looping, rewordingModel, () => SAME_DOCS, 12),
        plainLoop(healthy, rewordingModel, (_query, step) => ({ docs: [`fresh-${step}`] }), 12),
      ]);
      looping.end();
      healthy.end();

      expect(a.stop?.reason).to.equal('stale_rounds');
      expect(b.stop).to.equal(undefined);
      expect(b.steps).to.equal(12);
      // Same arguments as the other run: never refused as a repeat.
      expect(b.toolResults.every((r) => typeof r === 'object')).to.equal(true);
      expect(looping.run.partial()).to.include({ rounds: 6, newFacts: 1 });
      expect(healthy.run.partial()).to.include({ rounds: 12, toolCalls: 12, executed: 12, refused: 0, newFacts: 12 });
      const spansOf = (runId: string) => {
        const root = h.finished().find((s) => s.attributes['loopguard.run.id'] === runId)!;
        return h.finished().filter((s) => s.parentSpanContext?.spanId === root.spanContext().spanId && s.name === 'execute_tool search');
      };
      expect(spansOf('looping')).to.have.length(6);
      expect(spansOf('healthy')).to.have.length(12);
      expect(spansOf('healthy').every((s) => s.attributes['loopguard.decision'] === 'allow')).to.equal(true);
    });

    it('two loops started under one request span (one trace) never mix either', async () => {
      h = makeHarness({ profile: 'researcher' });
      const request = h.tracer.startSpan('POST /research');
      await context.with(trace.setSpan(ROOT_CONTEXT, request), async () => {
        const a = startAgentRun({ processor: h.processor, tracer: h.tracer, runId: 'a' });
        const b = startAgentRun({ processor: h.processor, tracer: h.tracer, runId: 'b' });
        expect(trace.getSpan(a.context)?.spanContext().traceId).to.equal(trace.getSpan(b.context)?.spanContext().traceId);
        const [ra, rb] = await Promise.all([
          plainLoop(a, rewordingModel, () => SAME_DOCS, 10),
          plainLoop(b, rewordingModel, (_query, step) => ({ docs: [`b-${step}`] }), 10),
        ]);
        expect(h.processor.shouldStop(a.context)?.action).to.equal('stop');
        expect(h.processor.shouldStop(b.context)?.action).to.equal('continue');
        a.end();
        b.end();
        expect(ra.stop?.reason).to.equal('stale_rounds');
        expect(rb.stop).to.equal(undefined);
        expect(b.run.partial()).to.include({ rounds: 10, toolCalls: 10, refused: 0 });
      });
      request.end();
    });
  });

  // Was a bug (fixed in 448d3cd): start-agent-run.ts keeps "a private run so the loop still works (unguarded telemetry,
  // guarded decisions)" when the processor does not see the spans, but tools made with
  // run.tool() take their decision from the processor's onStart only, so nothing is refused.
  // Seen with a sampler that drops the trace (the common production set-up).
  it('a run whose trace is not sampled still refuses repeated calls', async () => {
    h = makeHarness({ profile: 'researcher' }, new AlwaysOffSampler());
    const run = startAgentRun({ processor: h.processor, tracer: h.tracer, runId: 'unsampled' });
    let runs = 0;
    const search = run.tool('search', () => {
      runs += 1;
      return SAME_DOCS;
    });
    await run.modelCall('m', () => ({}));
    await search({ query: 'refunds' });
    await run.modelCall('m', () => ({}));
    const second = await search({ query: 'refunds' });
    run.end();
    expect(runs).to.equal(1);
    expect(second).to.be.a('string');
    expect(run.run.partial().toolCalls).to.equal(2);
  });

  describe('a compacted prompt (modelCall contextCompacted, loopguard.context.compacted on the chat span)', () => {
    // A hand-written loop that trims old tool results from its messages: after the trim the
    // model reads the file again, which is a healthy re-read, not a repeat of a result it holds.
    async function readTwiceAround(run: AgentRun, compacted: boolean): Promise<{ runs: number; second: unknown }> {
      let runs = 0;
      const read = run.tool('read_file', (args: { path: string }) => {
        runs += 1;
        return `contents of ${args.path}`;
      });
      await run.modelCall('m', () => ({}));
      await read({ path: 'src/app.ts' });
      await run.modelCall('m', () => ({}));
      await read({ path: 'src/routes.ts' });
      await run.modelCall('m', () => ({}), { contextCompacted: compacted });
      const second = await read({ path: 'src/app.ts' });
      run.end();
      return { runs, second };
    }

    it('the re-read after the trim runs; kept, it is refused; the span says so', async () => {
      h = makeHarness();
      const trimmed = await readTwiceAround(startAgentRun({ processor: h.processor, tracer: h.tracer, runId: 'trimmed' }), true);
      expect(trimmed).to.deep.equal({ runs: 3, second: 'contents of src/app.ts' });
      const chats = h.finished().filter((span) => span.name === 'chat m');
      expect(chats.map((span) => span.attributes['loopguard.context.compacted'])).to.deep.equal([undefined, undefined, true]);
      const kept = await readTwiceAround(startAgentRun({ processor: h.processor, tracer: h.tracer, runId: 'kept' }), false);
      expect(kept.runs).to.equal(2);
      expect(kept.second).to.be.a('string').and.match(/already/i);
    });

    it('an unsampled trace: the run is told directly', async () => {
      h = makeHarness({}, new AlwaysOffSampler());
      const trimmed = await readTwiceAround(startAgentRun({ processor: h.processor, tracer: h.tracer, runId: 'trimmed-unsampled' }), true);
      expect(trimmed.runs).to.equal(3);
    });

    it('set on the chat span after it started (an instrumentation writing it late): read when the span ends, once', async () => {
      h = makeHarness();
      const run = startAgentRun({ processor: h.processor, tracer: h.tracer, runId: 'late' });
      let runs = 0;
      const read = run.tool('read_file', () => {
        runs += 1;
        return 'contents';
      });
      let compactions = 0;
      const original = run.run.contextCompacted.bind(run.run);
      run.run.contextCompacted = () => {
        compactions += 1;
        original();
      };
      await run.modelCall('m', () => ({}));
      await read({ path: 'a' });
      // Another instrumentation's model-call span under the run, the attribute written mid-span.
      const chat = h.tracer.startSpan('chat m', { attributes: { 'gen_ai.operation.name': 'chat' } }, run.context);
      chat.setAttribute('loopguard.context.compacted', true);
      chat.end();
      await read({ path: 'a' });
      await run.modelCall('m', () => ({}), { contextCompacted: true });
      run.end();
      expect(runs).to.equal(2);
      // One per span: the late one at its end, the one given at start not again at its end.
      expect(compactions).to.equal(2);
    });
  });
});
