// With a shared store, instrumentTool claims a call before its span starts and the span
// processor takes that claim (issue 12 item 7). The arguments are hashed once for both
// (issue 20: a store-backed call hashed them twice, once for the span and once for the claim).
import { expect } from 'chai';
import { createMemoryRunStore } from '../../src/core/shared-ledger/create-memory-run-store.js';
import { startAgentRun } from '../../src/otel/start-agent-run.js';
import { ATTR_ARGS_HASH } from '../../src/otel/attributes.js';
import { makeHarness, useContextManager, useDiagCapture, type Harness } from './otel-test-helpers.js';

describe('instrumentTool with a shared store: the arguments are hashed once per call', () => {
  useContextManager();
  useDiagCapture();
  const harnesses: Harness[] = [];
  afterEach(async () => {
    for (const harness of harnesses.splice(0)) await harness.shutdown();
  });

  it('reads the arguments once, and the span carries the hash the claim decided on', async () => {
    const harness = makeHarness({ store: createMemoryRunStore(), profile: 'researcher' });
    harnesses.push(harness);
    let reads = 0;
    const args = {
      get query() {
        reads += 1;
        return 'refunds';
      },
    };
    const run = startAgentRun({ processor: harness.processor, tracer: harness.tracer, runId: 'hash-once' });
    await run.modelCall('m', () => 'round 1');
    const guardRun = harness.processor.guard.getRun('hash-once')!;
    // What identifying the call once reads (the clock-stamp check and canonical JSON): a pure query.
    guardRun.shouldRefuse({ tool: 'search', args });
    const readsPerIdentity = reads;
    reads = 0;
    await run.tool('search', async () => ['doc'])(args);
    expect(reads, 'the arguments identified once').to.equal(readsPerIdentity);
    const span = harness.finished().find((entry) => entry.name === 'execute_tool search');
    expect(span?.attributes[ATTR_ARGS_HASH]).to.equal(guardRun.argsHash('search', { query: 'refunds' }));
    expect(guardRun.partial().toolCalls).to.equal(1);
  });

  it("a call whose arguments carry the call's own clock stamp is recorded once (the span's hash is the claim's)", async () => {
    const harness = makeHarness({ store: createMemoryRunStore(), profile: 'researcher' });
    harnesses.push(harness);
    const run = startAgentRun({ processor: harness.processor, tracer: harness.tracer, runId: 'stamped' });
    await run.modelCall('m', () => 'round 1');
    await run.tool('lookup_invoice', async () => ({ status: 'paid' }))({ invoice: 'INV-2041', timestamp: Date.now() });
    expect(harness.processor.guard.getRun('stamped')!.partial().toolCalls).to.equal(1);
  });
});
