// The span processor stays synchronous with a shared store (issue 12 item 7): instrumentTool
// claims each call across processes before its span starts (it can await), and the
// processor, deciding in onStart, takes that claim. Two providers stand for two processes.
import { expect } from 'chai';
import { createMemoryRunStore } from '../../src/core/shared-ledger/create-memory-run-store.js';
import { isLoopGuardRefusal } from '../../src/otel/instrument-tool.js';
import { startAgentRun } from '../../src/otel/start-agent-run.js';
import { ATTR_DECISION, ATTR_REFUSAL_REASON } from '../../src/otel/attributes.js';
import { makeHarness, useContextManager, useDiagCapture, type Harness } from './otel-test-helpers.js';

describe('LoopGuardSpanProcessor with a shared store', () => {
  useContextManager();
  useDiagCapture();
  const harnesses: Harness[] = [];
  afterEach(async () => {
    for (const harness of harnesses.splice(0)) await harness.shutdown();
  });
  const processes = (count: number, store = createMemoryRunStore()) =>
    Array.from({ length: count }, () => {
      const harness = makeHarness({ store, profile: 'researcher' });
      harnesses.push(harness);
      return harness;
    });

  it('a lookup one process made is refused in the other, and the refusal is on the span there', async () => {
    const [a, b] = processes(2);
    let executions = 0;
    const search = async (args: { q: string }) => {
      executions += 1;
      return [`doc for ${args.q}`];
    };
    const runA = startAgentRun({ processor: a!.processor, tracer: a!.tracer, runId: 'job-7' });
    await runA.modelCall('m', () => 'round 1');
    expect(await runA.tool('search', search)({ q: 'refunds' })).to.deep.equal(['doc for refunds']);
    await a!.processor.guard.flush();

    const runB = startAgentRun({ processor: b!.processor, tracer: b!.tracer, runId: 'job-7' });
    await runB.modelCall('m', () => 'round 2');
    const answer = await runB.tool('search', search)({ q: 'refunds' });
    expect(isLoopGuardRefusal(answer)).to.equal(true);
    expect(executions).to.equal(1);
    const span = b!.finished().find((entry) => entry.name === 'execute_tool search');
    expect(span?.attributes[ATTR_DECISION]).to.equal('refuse');
    expect(span?.attributes[ATTR_REFUSAL_REASON]).to.equal('repeat.run_wide');
  });

  it('the same call made at once in two processes runs once; each span carries its own decision', async () => {
    const [a, b] = processes(2);
    let executions = 0;
    const fetchPage = async () => {
      executions += 1;
      await new Promise((resolve) => setTimeout(resolve, 5));
      return 'page';
    };
    const runA = startAgentRun({ processor: a!.processor, tracer: a!.tracer, runId: 'job-8' });
    const runB = startAgentRun({ processor: b!.processor, tracer: b!.tracer, runId: 'job-8' });
    const answers = await Promise.all([runA.tool('fetch', fetchPage)({ url: 'https://x' }), runB.tool('fetch', fetchPage)({ url: 'https://x' })]);
    expect(executions).to.equal(1);
    expect(answers.filter((answer) => isLoopGuardRefusal(answer))).to.have.length(1);
    const decisions = [...a!.finished(), ...b!.finished()].filter((span) => span.name === 'execute_tool fetch').map((span) => span.attributes[ATTR_REFUSAL_REASON] ?? span.attributes[ATTR_DECISION]);
    expect(decisions.sort()).to.deep.equal(['allow', 'repeat.in_flight']);
  });

  it('the processor decides synchronously in onStart and writes the store afterwards, in the background', async () => {
    const store = createMemoryRunStore();
    const [a] = processes(1, store);
    const run = startAgentRun({ processor: a!.processor, tracer: a!.tracer, runId: 'job-9' });
    // A span from another instrumentation (no wrapper to claim for it): decided on the replica.
    const span = a!.tracer.startSpan('execute_tool lookup', { attributes: { 'gen_ai.operation.name': 'execute_tool', 'gen_ai.tool.name': 'lookup', 'gen_ai.tool.call.arguments': '{"id":1}' } }, run.context);
    // Decided inside startSpan, synchronously: the decision is on the span before any await.
    expect((span as unknown as { attributes: Record<string, unknown> }).attributes[ATTR_DECISION]).to.equal('allow');
    span.end();
    expect(await store.readRunEvents('job-9', 0), 'nothing is written synchronously').to.have.length(0);
    await a!.processor.guard.flush();
    const written = (await store.readRunEvents('job-9', 0)).map((entry) => JSON.parse(entry)[0]);
    expect(written).to.include('c');
    expect(written).to.include('f');
  });

  // A caller's abort reason is what the tool rejects with (fetch does): recorded as that error,
  // a deterministic one, it freed the business key of a write whose request had gone out, and
  // the next run's send_email ran again.
  it('a business-key write aborted by its caller, with a reason of its own, keeps its key: the next run is refused, the email goes out once', async () => {
    const store = createMemoryRunStore();
    const harness = makeHarness({ store, idempotentWrites: { send_email: { key: ['to'] } }, logger: { warn: () => undefined } });
    harnesses.push(harness);
    const sent: string[] = [];
    const sendEmail = async ({ to }: { to: string }, { signal }: { signal: AbortSignal }) => {
      sent.push(to); // the request is out
      await new Promise((resolve, reject) => {
        const timer = setTimeout(resolve, 100);
        signal.addEventListener('abort', () => (clearTimeout(timer), reject(signal.reason)), { once: true });
      });
      return 'sent';
    };
    const first = startAgentRun({ processor: harness.processor, tracer: harness.tracer, runId: 'mail-1' });
    const controller = new AbortController();
    setTimeout(() => controller.abort(new Error('user pressed stop')), 10);
    const thrown = await first.tool('send_email', sendEmail)({ to: 'ops@example.com' }, { signal: controller.signal }).then(() => 'nothing thrown', (error: Error) => error.message);
    expect(thrown).to.equal('user pressed stop');
    await harness.processor.guard.flush();
    const second = startAgentRun({ processor: harness.processor, tracer: harness.tracer, runId: 'mail-2' });
    const answer = await second.tool('send_email', sendEmail)({ to: 'ops@example.com' });
    expect(answer).to.match(/^Not run: the same send_email \(same business key\) is being done right now/);
    expect(sent).to.deep.equal(['ops@example.com']);
  });
});
