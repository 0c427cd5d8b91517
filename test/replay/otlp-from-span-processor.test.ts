import { expect } from 'chai';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { JsonTraceSerializer } from '@opentelemetry/otlp-transformer';
import { TracerProvider, InMemorySpanExporter, SimpleSpanProcessor, type ReadableSpan } from '../helpers/otel-sdk.js';
import type { LoopGuardOptions } from '../../src/core/types.js';
import { trace } from '@opentelemetry/api';
import { useContextManager } from '../otel/otel-test-helpers.js';
import { LoopGuardSpanProcessor } from '../../src/otel/loop-guard-span-processor.js';
import { startAgentRun } from '../../src/otel/start-agent-run.js';
import { EXAMPLE_POLICY, EXAMPLES_DIR, replayFiles, writeTempLines, type CollectedRun, readTranscript, type TranscriptLine, loadExamplePolicy, EXAMPLE_NAMES } from './replay-test-helpers.js';

const policy = loadExamplePolicy();
const EXAMPLES = EXAMPLE_NAMES;


/**
 * Plays a recorded transcript through the library's own front: startAgentRun opens the
 * invoke_agent span, modelCall a chat span per round, and each tool is an instrumented
 * execute_tool span decided by the real LoopGuardSpanProcessor. The agent does not stop on
 * its own (it calls every recorded call), so calls after a stop are refused live and still
 * appear in the trace, as they would from an agent that ignores shouldStop.
 */
async function recordThroughSpanProcessor(lines: TranscriptLine[], record: boolean): Promise<ReadableSpan[]> {
  const exporter = new InMemorySpanExporter();
  const processor = new LoopGuardSpanProcessor({ ...policy });
  const provider = new TracerProvider({ spanProcessors: [processor, new SimpleSpanProcessor({ exporter: exporter })] });
  const tracer = provider.getTracer('replay-test');
  const run = startAgentRun({ processor, tracer, runId: lines[0].run, agentName: 'researcher', toolOptions: { recordArguments: record, recordResult: record } });
  let current: TranscriptLine | undefined;
  const tools = new Map<string, (args: Record<string, unknown>) => Promise<unknown>>();
  const toolFor = (name: string) => {
    let tool = tools.get(name);
    if (!tool) {
      tool = run.tool(name, async () => {
        if (current!.error) throw Object.assign(new Error(current!.error.message ?? ''), { type: current!.error.type });
        return current!.result;
      });
      tools.set(name, tool);
    }
    return tool;
  };
  // The SDK stamps spans at millisecond resolution; steps a few ms apart keep start times
  // distinct, so the file can be shuffled and still be put back in order by time.
  const tick = () => new Promise((resolve) => setTimeout(resolve, 2));
  let round = 0;
  for (const line of lines) {
    if (line.round !== round) {
      round = line.round;
      await tick();
      await run.modelCall('gpt-test', () => ({ usage: line.usage }), { contextCompacted: line.compactedBefore === true });
    }
    current = line;
    await tick();
    await toolFor(line.tool)(line.args as Record<string, unknown>).catch(() => undefined);
  }
  run.end();
  await provider.forceFlush();
  const spans = exporter.getFinishedSpans();
  await provider.shutdown();
  return spans;
}

function comparable(run: CollectedRun): unknown {
  return { run: run.run, calls: run.calls, stop: run.stop && { reason: run.stop.reason, round: run.stop.round, call: run.stop.call }, saved: run.saved, decisions: run.decisions };
}

describe('OTLP written by loopguard\'s own span processor replays like the JSONL transcript', function () {
  this.timeout(30_000);

  for (const record of [true, false]) {
    const variant = record ? 'raw arguments and results on spans' : 'hashes only (the default: no raw content on spans)';
    it(`same decisions for every example transcript: ${variant}`, async () => {
      for (const name of EXAMPLES) {
        const jsonlFile = join(EXAMPLES_DIR, `${name}.jsonl`);
        const lines = readTranscript(jsonlFile);
        const spans = await recordThroughSpanProcessor(lines, record);
        // One request per few spans, newest first: the file exporter's lines need not be in order.
        const requests: string[] = [];
        for (let i = spans.length; i > 0; i -= 5) {
          requests.push(new TextDecoder().decode(JsonTraceSerializer.serializeRequest(spans.slice(Math.max(0, i - 5), i))));
        }
        const otlpFile = writeTempLines(`${name}.processor-${record ? 'raw' : 'hashed'}.otlp.json`, requests);

        const fromJsonl = await replayFiles([jsonlFile], policy);
        const fromOtlp = await replayFiles([otlpFile], policy);
        expect(fromOtlp.problems, name).to.deep.equal([]);
        expect(fromOtlp.runs, name).to.have.length(1);
        expect(comparable(fromOtlp.runs[0]), name).to.deep.equal(comparable(fromJsonl.runs[0]));
      }
    });
  }

  it('a compacted prompt on the chat span replays as the live run decided it, from JSONL and from OTLP alike', async () => {
    // Round 3's prompt was trimmed: its re-read of app.ts runs; round 4's is refused again.
    const lines: TranscriptLine[] = [
      { run: 'trimmed', round: 1, tool: 'read_file', args: { path: 'src/app.ts' }, result: 'export const port = 8080;' },
      { run: 'trimmed', round: 2, tool: 'read_file', args: { path: 'src/routes.ts' }, result: 'export const routes = [];' },
      { run: 'trimmed', round: 3, tool: 'read_file', args: { path: 'src/app.ts' }, result: 'export const port = 8080;', compactedBefore: true },
      { run: 'trimmed', round: 4, tool: 'read_file', args: { path: 'src/app.ts' }, result: 'export const port = 8080;' },
    ];
    const jsonlFile = writeTempLines('compacted.jsonl', lines);
    const fromJsonl = await replayFiles([jsonlFile], policy);
    expect(fromJsonl.runs[0].decisions.map((decision) => `${decision.decision}/${decision.novelty ?? decision.reason}`)).to.deep.equal([
      'allow/new',
      'allow/new',
      'allow/neutral',
      'refuse/repeat.run_wide',
    ]);
    for (const record of [true, false]) {
      const spans = await recordThroughSpanProcessor(lines, record);
      // Live, the processor ran the re-read of round 3 and refused round 4's.
      const live = spans.filter((span) => span.attributes['gen_ai.tool.name'] === 'read_file').map((span) => span.attributes['loopguard.decision']);
      expect(live, `live, record ${record}`).to.deep.equal(['allow', 'allow', 'allow', 'refuse']);
      const otlpFile = writeTempLines(`compacted.${record}.otlp.json`, [new TextDecoder().decode(JsonTraceSerializer.serializeRequest(spans))]);
      const fromOtlp = await replayFiles([otlpFile], policy);
      expect(fromOtlp.problems).to.deep.equal([]);
      expect(comparable(fromOtlp.runs[0]), `record ${record}`).to.deep.equal(comparable(fromJsonl.runs[0]));
    }
  });

  describe('layered model-call spans', () => {
  useContextManager();
  it('a framework span around the provider SDK\'s is one round, as live: the compaction the inner layer carries lands in its round', async () => {
    const exporter = new InMemorySpanExporter();
    const processor = new LoopGuardSpanProcessor({ ...policy });
    const provider = new TracerProvider({ spanProcessors: [processor, new SimpleSpanProcessor({ exporter: exporter })] });
    const tracer = provider.getTracer('replay-test');
    const run = startAgentRun({ processor, tracer, runId: 'layered', toolOptions: { recordArguments: true, recordResult: true } });
    const files: Record<string, string> = { 'src/app.ts': 'export const port = 8080;', 'src/routes.ts': 'export const routes = [];' };
    const read = run.tool('read_file', (args: { path: string }) => files[args.path]);
    const tick = () => new Promise((resolve) => setTimeout(resolve, 2));
    const paths = ['src/app.ts', 'src/routes.ts', 'src/app.ts', 'src/app.ts', 'src/routes.ts'];
    for (const [index, path] of paths.entries()) {
      await tick();
      await run.modelCall('framework', () => {
        // The provider SDK's instrumentation: its own chat span inside the framework's, and
        // the one that says the prompt was trimmed (round 3).
        const attributes: Record<string, string | number | boolean> = { 'gen_ai.operation.name': 'chat', 'gen_ai.usage.input_tokens': 800, 'gen_ai.usage.output_tokens': 40 };
        if (index === 2) attributes['loopguard.context.compacted'] = true;
        tracer.startSpan('chat gpt-4o', { attributes }, trace.setSpan(run.context, trace.getActiveSpan()!)).end();
        return {};
      });
      await tick();
      await read({ path });
    }
    run.end();
    await provider.forceFlush();
    const spans = exporter.getFinishedSpans();
    await provider.shutdown();
    const live = spans.filter((span) => span.attributes['gen_ai.tool.name'] === 'read_file').map((span) => span.attributes['loopguard.decision']);
    // Round 3's prompt was trimmed (said on the provider's layer): app.ts is read again, then it is
    // in the conversation (round 4 refused) while routes.ts, read before the trim, is read again too.
    expect(live).to.deep.equal(['allow', 'allow', 'allow', 'refuse', 'allow']);
    const otlpFile = writeTempLines('layered.otlp.json', [new TextDecoder().decode(JsonTraceSerializer.serializeRequest(spans))]);
    const replayed = await replayFiles([otlpFile], policy);
    expect(replayed.problems).to.deep.equal([]);
    expect(replayed.runs[0]!.decisions.map((decision) => decision.decision)).to.deep.equal(live);
    expect(replayed.runs[0]!.rounds).to.equal(paths.length);
  });
  });
});
