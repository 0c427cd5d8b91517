// What AI SDK 7 has and 6 does not, against the real `ai@7` and `@ai-sdk/otel` (the Node 24
// lane, .ci/lane-node24.sh, installs them; with AI SDK 6 these tests are skipped). Everything
// else the adapter does runs on both majors in the rest of the suite.
import { expect } from 'chai';
import { context } from '@opentelemetry/api';
import { AsyncLocalStorageContextManager } from '@opentelemetry/context-async-hooks';
import type { LanguageModelV3CallOptions } from '@ai-sdk/provider';
import { generateText, stepCountIs, tool } from 'ai';
import { z } from 'zod';

import { LoopGuard } from '../../../src/core/loop-guard.js';
import { createGuardedAgentSettings, loopGuardToolApproval } from '../../../src/integrations/ai-sdk/index.js';
import { LoopGuardSpanProcessor } from '../../../src/otel/loop-guard-span-processor.js';
import { InMemorySpanExporter, SimpleSpanProcessor, TracerProvider } from '../../helpers/otel-sdk.js';
import { AI_SDK_MAJOR, aiSdkOtel } from '../helpers/ai-sdk-telemetry.js';
import { scriptedLanguageModel } from '../helpers/scripted-language-model.js';

function searchTool(executions: string[]) {
  return tool({
    description: 'Search',
    inputSchema: z.object({ query: z.string() }),
    execute: async ({ query }) => {
      executions.push(query);
      return { results: ['data-retention'] };
    },
  });
}

const searches = (...queries: string[]) => queries.map((query, i) => ({ calls: [{ tool: 'search', args: { query }, id: `c${i + 1}` }] }));

describe('AI SDK 7', function () {
  before(function () {
    if (AI_SDK_MAJOR < 7) this.skip();
  });

  it("toolApproval denies loopguard's refusal in the loop: the model reads execution-denied with the reason", async () => {
    const executions: string[] = [];
    const model = scriptedLanguageModel(searches('q1', 'q1'));
    const guarded = createGuardedAgentSettings({ guard: new LoopGuard({ profile: 'researcher' }), tools: { search: searchTool(executions) } });
    // Spread, not written inline: AI SDK 6's types have no toolApproval. With 7 the spread
    // property is still checked against generateText's own toolApproval type.
    const approval = { toolApproval: loopGuardToolApproval(guarded.run) };
    await generateText({ model, prompt: 'x', ...guarded, ...approval, stopWhen: [guarded.stopWhen, stepCountIs(10)] });

    expect(executions).to.deep.equal(['q1']);
    const third = model.doGenerateCalls[2]!.prompt as LanguageModelV3CallOptions['prompt'];
    const told = third
      .filter((message) => message.role === 'tool')
      .flatMap((message) => message.content as Array<{ type: string; toolCallId?: string; output?: { type: string; reason?: string } }>)
      .find((part) => part.toolCallId === 'c2');
    expect(told?.output?.type).to.equal('execution-denied');
    expect(told?.output?.reason).to.match(/^Not run: search was already called with these same arguments/);
    expect(guarded.outcome().refusals.map((refusal) => refusal.reason)).to.deep.equal(['repeat.run_wide']);
  });

  describe("@ai-sdk/otel's OpenTelemetry integration (GenAI spans)", () => {
    let registered = false;
    before(() => {
      registered = context.setGlobalContextManager(new AsyncLocalStorageContextManager().enable());
    });
    after(() => {
      if (registered) context.disable();
    });

    it('emits invoke_agent / chat / execute_tool spans that LoopGuardSpanProcessor reads as is, results included', async () => {
      const processor = new LoopGuardSpanProcessor({ profile: 'researcher', escalation: { enabled: false } });
      const exporter = new InMemorySpanExporter();
      const provider = new TracerProvider({ spanProcessors: [processor, new SimpleSpanProcessor({ exporter })] });
      const executions: string[] = [];
      const telemetry = { experimental_telemetry: { isEnabled: true, integrations: [new aiSdkOtel!.OpenTelemetry({ tracer: provider.getTracer('ai7') })] } };
      await generateText({
        model: scriptedLanguageModel(searches('q1', 'q2', 'q3', 'q4', 'q5', 'q6', 'q7', 'q8')),
        prompt: 'x',
        tools: { search: searchTool(executions) },
        stopWhen: stepCountIs(20),
        ...(telemetry as object),
      });
      await provider.forceFlush();

      const spans = exporter.getFinishedSpans();
      const operations = new Set(spans.map((span) => span.attributes['gen_ai.operation.name']));
      expect([...operations]).to.include.members(['invoke_agent', 'chat', 'execute_tool']);
      const tools = spans.filter((span) => span.attributes['gen_ai.operation.name'] === 'execute_tool');
      expect(tools).to.have.length(8);
      expect(tools.every((span) => span.attributes['loopguard.decision'] === 'allow')).to.equal(true);
      // Eight different queries, one document: only the first result is new.
      expect(tools.map((span) => span.attributes['loopguard.novelty'])).to.deep.equal(['new', 'seen', 'seen', 'seen', 'seen', 'seen', 'seen', 'seen']);
      const agentSpan = spans.find((span) => span.attributes['gen_ai.operation.name'] === 'invoke_agent')!;
      const runId = String(agentSpan.attributes['loopguard.run.id'] ?? `span:${agentSpan.spanContext().spanId}`);
      const run = processor.guard.getRun(runId);
      const verdict = run?.stopped ?? run?.shouldStop();
      expect(verdict?.action).to.equal('stop');
      await provider.shutdown();
    });
  });
});
