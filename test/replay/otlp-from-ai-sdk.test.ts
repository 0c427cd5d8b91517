import { expect } from 'chai';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { context } from '@opentelemetry/api';
import { AsyncLocalStorageContextManager } from '@opentelemetry/context-async-hooks';
import { JsonTraceSerializer } from '@opentelemetry/otlp-transformer';
import { TracerProvider, InMemorySpanExporter, SimpleSpanProcessor } from '../helpers/otel-sdk.js';
import { generateText, jsonSchema, stepCountIs, tool } from 'ai';
import { MockLanguageModelV3 } from 'ai/test';
import type { LoopGuardOptions } from '../../src/core/types.js';
import { EXAMPLE_POLICY, EXAMPLES_DIR, replayFiles, writeTempLines, type CollectedRun, readTranscript, type TranscriptLine, loadExamplePolicy, EXAMPLE_NAMES } from './replay-test-helpers.js';
import { aiSdkTracing } from '../integrations/helpers/ai-sdk-telemetry.js';

const policy = loadExamplePolicy();
const EXAMPLES = EXAMPLE_NAMES;


/**
 * Plays a transcript through the real Vercel AI SDK with telemetry on and no guard, as a
 * production app would have recorded it: a scripted model asks, round by round, for the
 * recorded calls; each tool returns (or throws) what was recorded.
 */
async function recordWithAiSdk(lines: TranscriptLine[]): Promise<Uint8Array> {
  const exporter = new InMemorySpanExporter();
  const provider = new TracerProvider({ spanProcessors: [new SimpleSpanProcessor({ exporter: exporter })] });
  const rounds: TranscriptLine[][] = [];
  for (const line of lines) (rounds[line.round - 1] ??= []).push(line);
  let step = 0;
  let callNumber = 0;
  const model = new MockLanguageModelV3({
    doGenerate: async () => {
      const calls = rounds[step] ?? [];
      const usageLine = calls.find((c) => c.usage)?.usage ?? { inputTokens: undefined, outputTokens: undefined };
      step += 1;
      const usage = {
        inputTokens: { total: usageLine.inputTokens, noCache: usageLine.inputTokens, cacheRead: undefined, cacheWrite: undefined },
        outputTokens: { total: usageLine.outputTokens, text: usageLine.outputTokens, reasoning: undefined },
      };
      if (calls.length === 0) return { content: [{ type: 'text', text: 'done' }], finishReason: { unified: 'stop', raw: undefined }, usage, warnings: [] };
      return {
        content: calls.map((call) => ({ type: 'tool-call' as const, toolCallId: `call-${(callNumber += 1)}`, toolName: call.tool, input: JSON.stringify(call.args) })),
        finishReason: { unified: 'tool-calls', raw: undefined },
        usage,
        warnings: [],
      };
    },
  } as ConstructorParameters<typeof MockLanguageModelV3>[0]);

  // Each call's recorded outcome, in the order the SDK executes them.
  const queue = [...lines];
  const tools = Object.fromEntries(
    [...new Set(lines.map((l) => l.tool))].map((name) => [
      name,
      tool({
        inputSchema: jsonSchema<Record<string, unknown>>({ type: 'object' }),
        execute: async () => {
          const line = queue.shift()!;
          if (line.error) throw Object.assign(new Error(line.error.message ?? ''), { name: line.error.type ?? 'Error' });
          return line.result;
        },
      }),
    ]),
  );
  await generateText({
    model,
    prompt: 'replay',
    tools,
    stopWhen: stepCountIs(rounds.length + 1),
    ...aiSdkTracing(provider.getTracer('ai'), { runId: lines[0].run }),
  });
  await provider.forceFlush();
  const serialized = JsonTraceSerializer.serializeRequest(exporter.getFinishedSpans())!;
  await provider.shutdown();
  return serialized;
}

function comparable(run: CollectedRun): unknown {
  return { run: run.run, calls: run.calls, stop: run.stop && { reason: run.stop.reason, round: run.stop.round, call: run.stop.call }, saved: run.saved, decisions: run.decisions };
}

describe('OTLP from the real Vercel AI SDK telemetry replays like the JSONL transcript', function () {
  this.timeout(30_000);
  let manager: AsyncLocalStorageContextManager | undefined;

  before(() => {
    // The AI SDK nests its spans through the active context, which needs a context manager.
    manager = new AsyncLocalStorageContextManager().enable();
    if (!context.setGlobalContextManager(manager)) {
      manager.disable();
      manager = undefined;
    }
  });
  after(() => {
    if (manager) context.disable();
  });

  it('ai.generateText / doGenerate / ai.toolCall spans give the same decisions for every example transcript', async () => {
    for (const name of EXAMPLES) {
      const jsonlFile = join(EXAMPLES_DIR, `${name}.jsonl`);
      const lines = readTranscript(jsonlFile);
      const request = new TextDecoder().decode(await recordWithAiSdk(lines));
      const otlpFile = writeTempLines(`${name}.ai-sdk.otlp.json`, [request]);
      const fromJsonl = await replayFiles([jsonlFile], policy);
      const fromOtlp = await replayFiles([otlpFile], policy);
      expect(fromOtlp.problems, name).to.deep.equal([]);
      expect(fromOtlp.runs, name).to.have.length(1);
      expect(comparable(fromOtlp.runs[0]), name).to.deep.equal(comparable(fromJsonl.runs[0]));

      // Without ai.response.toolCalls (dropped by an attribute limit, or an older SDK), rounds
      // come from timing and export order, and must still agree.
      const stripped = JSON.parse(request);
      for (const span of stripped.resourceSpans[0].scopeSpans[0].spans) {
        span.attributes = span.attributes.filter((a: { key: string }) => a.key !== 'ai.response.toolCalls');
      }
      const fromTiming = await replayFiles([writeTempLines(`${name}.ai-sdk-timing.otlp.json`, [JSON.stringify(stripped)])], policy);
      expect(comparable(fromTiming.runs[0]), `${name} by timing`).to.deep.equal(comparable(fromJsonl.runs[0]));
    }
  });
});
