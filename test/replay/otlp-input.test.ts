import { expect } from 'chai';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { LoopGuard } from '../../src/core/loop-guard.js';
import type { LoopGuardOptions } from '../../src/core/types.js';
import { detectInputFormat } from '../../src/replay/replay-inputs.js';
import { otlpLines, shuffled, transcriptToSpans, type SpanSpec } from './otlp-test-helpers.js';
import { EXAMPLE_POLICY, EXAMPLES_DIR, replayFiles, runNamed, writeTempLines, type CollectedRun, readTranscript, loadExamplePolicy, EXAMPLE_NAMES } from './replay-test-helpers.js';

const policy = loadExamplePolicy();
const EXAMPLES = EXAMPLE_NAMES;

function comparable(run: CollectedRun): unknown {
  return { calls: run.calls, stop: run.stop && { reason: run.stop.reason, round: run.stop.round, call: run.stop.call }, saved: run.saved, decisions: run.decisions };
}

describe('OTLP JSON input', () => {
  it('detects the format from the first line', () => {
    expect(detectInputFormat('{"resourceSpans":[]}')).to.equal('otlp');
    expect(detectInputFormat('{"run":"r","round":1}')).to.equal('jsonl');
    expect(detectInputFormat('not json')).to.equal('jsonl');
    expect(detectInputFormat('{  ')).to.equal('otlp-document');
  });

  it('reads a pretty-printed request (a saved OTLP/HTTP JSON body) like the same request on one line', async () => {
    const lines = readTranscript(join(EXAMPLES_DIR, 'exact-repeat.jsonl'));
    const oneLine = otlpLines(transcriptToSpans(lines, 'genai'), 10_000);
    expect(oneLine).to.have.length(1);
    const pretty = JSON.stringify(JSON.parse(oneLine[0]), null, 2);
    const fromLine = await replayFiles([writeTempLines('one-line.otlp.json', oneLine)], policy);
    const fromPretty = await replayFiles([writeTempLines('pretty.otlp.json', ['', pretty])], policy);
    expect(fromPretty.problems).to.deep.equal([]);
    expect(comparable(fromPretty.runs[0])).to.deep.equal(comparable(fromLine.runs[0]));
    const notOtlp = await replayFiles([writeTempLines('pretty-transcript.json', [JSON.stringify({ run: 'r', round: 1 }, null, 2)])]);
    expect(notOtlp.problems).to.have.length(1);
    expect(notOtlp.problems[0]).to.match(/pretty-transcript\.json:1: expected an OTLP ExportTraceServiceRequest.*JSONL transcripts need one call per line/);
  });

  for (const flavor of ['genai', 'vercel'] as const) {
    it(`${flavor} spans, shuffled across requests, replay to the same decisions as the JSONL transcripts`, async () => {
      for (const name of EXAMPLES) {
        const jsonlFile = join(EXAMPLES_DIR, `${name}.jsonl`);
        const lines = readTranscript(jsonlFile);
        const otlpFile = writeTempLines(`${name}.${flavor}.otlp.json`, otlpLines(shuffled(transcriptToSpans(lines, flavor)), 3));
        const fromJsonl = await replayFiles([jsonlFile], policy);
        const fromOtlp = await replayFiles([otlpFile], policy);
        expect(fromOtlp.problems, name).to.deep.equal([]);
        expect(fromOtlp.runs.map((r) => r.run), name).to.deep.equal([name]);
        expect(comparable(fromOtlp.runs[0]), name).to.deep.equal(comparable(fromJsonl.runs[0]));
      }
    });
  }

  const trace = 'a'.repeat(32);
  const root: SpanSpec = { traceId: trace, spanId: '0000000000000001', name: 'invoke_agent a', startMs: 0, endMs: 100, attributes: { 'gen_ai.operation.name': 'invoke_agent', 'gen_ai.conversation.id': 'conv-1' } };
  const toolSpan = (id: number, start: number, attributes: Record<string, string | number | boolean>, status?: SpanSpec['status']): SpanSpec => ({
    traceId: trace, spanId: id.toString(16).padStart(16, '0'), parentSpanId: root.spanId, name: 'execute_tool search', startMs: start, endMs: start + 1,
    attributes: { 'gen_ai.operation.name': 'execute_tool', 'gen_ai.tool.name': 'search', ...attributes }, status,
  });

  it('replays spans that carry only loopguard hashes (prehashed calls and outcomes)', async () => {
    const guard = new LoopGuard({ profile: 'researcher' });
    const hashOf = (args: unknown) => guard.argsHash('search', args);
    const resultOf = (result: unknown) => guard.fingerprint('search', { result });
    const r1 = resultOf({ docs: [1] });
    const spans = [
      root,
      toolSpan(2, 10, { 'loopguard.tool.args_hash': hashOf({ q: 'a' }), 'loopguard.tool.outcome': r1.outcome, 'loopguard.tool.result_hash': r1.resultHash!, 'loopguard.round': 1 }),
      toolSpan(3, 20, { 'loopguard.tool.args_hash': hashOf({ q: 'b' }), 'loopguard.tool.outcome': r1.outcome, 'loopguard.tool.result_hash': r1.resultHash!, 'loopguard.round': 2 }),
      toolSpan(4, 30, { 'loopguard.tool.args_hash': hashOf({ q: 'a' }), 'loopguard.tool.outcome': r1.outcome, 'loopguard.tool.result_hash': r1.resultHash!, 'loopguard.round': 3 }),
    ];
    // Document 000's researcher: the exact repeat in round 3 is refused at the first repeat.
    const { runs, problems } = await replayFiles([writeTempLines('prehashed.otlp.json', otlpLines(spans))], { profile: 'researcher' });
    expect(problems).to.deep.equal([]);
    const run = runNamed(runs, 'conv-1');
    expect(run.decisions.map((d) => [d.round, d.decision, d.novelty ?? d.reason])).to.deep.equal([
      [1, 'allow', 'new'],
      [2, 'allow', 'seen'],
      [3, 'refuse', 'repeat.run_wide'],
    ]);
  });

  it('reads ERROR status with error.type as a typed failure, and a call refused when recorded as not run', async () => {
    const spans = [
      root,
      toolSpan(2, 10, { 'gen_ai.tool.call.arguments': '{"q":"a"}', 'error.type': 'overloaded' }, { code: 2, message: '429' }),
      // Refused by the recording guard: what the span holds is the refusal, never a result.
      toolSpan(3, 20, { 'gen_ai.tool.call.arguments': '{"q":"b"}', 'gen_ai.tool.call.result': '{"docs":[1]}', 'loopguard.decision': 'refuse' }),
      toolSpan(4, 30, { 'gen_ai.tool.call.arguments': '{"q":"c"}', 'gen_ai.tool.call.result': '{"docs":[1]}' }),
    ];
    const { runs } = await replayFiles([writeTempLines('errors.otlp.json', otlpLines(spans))]);
    const run = runNamed(runs, 'conv-1');
    expect(run.decisions.map((d) => d.decision)).to.deep.equal(['allow', 'allow', 'allow']);
    // {docs:[1]} was never learned from the refused span, so the third call is new.
    expect(run.decisions[2].novelty).to.equal('new');
    // Without model-call spans, calls that do not overlap are separate rounds.
    expect(run.decisions.map((d) => d.round)).to.deep.equal([1, 2, 3]);
  });

  it('counts a Vercel ai.toolCall that wraps loopguard\'s execute_tool span once', async () => {
    const vercelRoot: SpanSpec = { traceId: trace, spanId: '00000000000000f0', name: 'ai.generateText', startMs: 0, endMs: 100, attributes: { 'ai.operationId': 'ai.generateText', 'loopguard.run.id': 'wrapped' } };
    const step: SpanSpec = { traceId: trace, spanId: '00000000000000f1', parentSpanId: vercelRoot.spanId, name: 'ai.generateText.doGenerate', startMs: 1, endMs: 5, attributes: { 'ai.operationId': 'ai.generateText.doGenerate' } };
    const outer: SpanSpec = { traceId: trace, spanId: '00000000000000f2', parentSpanId: vercelRoot.spanId, name: 'ai.toolCall', startMs: 6, endMs: 9, attributes: { 'ai.operationId': 'ai.toolCall', 'ai.toolCall.name': 'search', 'ai.toolCall.args': '{"q":"x"}', 'ai.toolCall.result': '1' } };
    const inner: SpanSpec = { traceId: trace, spanId: '00000000000000f3', parentSpanId: outer.spanId, name: 'execute_tool search', startMs: 7, endMs: 8, attributes: { 'gen_ai.operation.name': 'execute_tool', 'gen_ai.tool.name': 'search', 'gen_ai.tool.call.arguments': '{"q":"x"}', 'gen_ai.tool.call.result': '1' } };
    const { runs } = await replayFiles([writeTempLines('wrapped.otlp.json', otlpLines([inner, outer, step, vercelRoot]))]);
    expect(runNamed(runs, 'wrapped').calls).to.equal(1);
  });

  it('reports bad requests and bad spans as file:line naming the field, and keeps going', async () => {
    const good = toolSpan(2, 10, { 'gen_ai.tool.call.arguments': '{}', 'gen_ai.tool.call.result': '1' });
    const noStart = { ...JSON.parse(otlpLines([toolSpan(3, 20, { 'gen_ai.tool.call.arguments': '{}' })])[0]) };
    delete noStart.resourceSpans[0].scopeSpans[0].spans[0].startTimeUnixNano;
    const noArgs = toolSpan(4, 30, {});
    const file = writeTempLines('bad.otlp.json', [otlpLines([root, good])[0], '{"resourceSpans": [', JSON.stringify(noStart), otlpLines([noArgs])[0], '{"hello": 1}']);
    const { runs, problems } = await replayFiles([file]);
    expect(problems).to.have.length(4);
    expect(problems[0]).to.match(/bad\.otlp\.json:2: not valid JSON/);
    expect(problems[1]).to.match(/bad\.otlp\.json:3: resourceSpans\[0\]\.scopeSpans\[0\]\.spans\[0\]\.startTimeUnixNano must be epoch nanoseconds/);
    expect(problems[2]).to.match(/bad\.otlp\.json:5: expected an OTLP ExportTraceServiceRequest/);
    expect(problems[3]).to.match(/bad\.otlp\.json:4: .*no call identity: attribute gen_ai\.tool\.call\.arguments or loopguard\.tool\.args_hash is missing/);
    expect(runNamed(runs, 'conv-1').calls).to.equal(1);
  });

  it('reads the facts a recording guard wrote beside its hashes, and names a bad facts attribute as file:line', async () => {
    // A shell read known only by its hash: with its facts it is a read, so the same command again with
    // the same output is a repeat refused; without them it is a call of unknown effect, run again.
    const grep = { 'loopguard.tool.args_hash': 'H1', 'loopguard.tool.outcome': 'success', 'loopguard.tool.result_hash': 'R1' };
    const facts = { ...grep, 'loopguard.tool.call_facts': '{"effect":"read","family":"grep"}' };
    const shell = (id: number, at: number, attributes: Record<string, string>): SpanSpec => ({ ...toolSpan(id, at, attributes), name: 'execute_tool bash', attributes: { ...toolSpan(id, at, attributes).attributes, 'gen_ai.tool.name': 'bash' } });
    const read = await replayFiles([writeTempLines('facts.otlp.json', otlpLines([root, shell(2, 10, facts), shell(3, 20, facts)]))]);
    expect(read.problems).to.deep.equal([]);
    expect(runNamed(read.runs, 'conv-1').decisions.map((d) => d.reason ?? d.decision)).to.deep.equal(['allow', 'repeat.run_wide']);
    const bare = await replayFiles([writeTempLines('no-facts.otlp.json', otlpLines([root, shell(2, 10, grep), shell(3, 20, grep)]))]);
    expect(runNamed(bare.runs, 'conv-1').decisions.map((d) => d.decision)).to.deep.equal(['allow', 'allow']);

    const bad = await replayFiles([writeTempLines('bad-facts.otlp.json', otlpLines([root, shell(2, 10, { ...grep, 'loopguard.tool.call_facts': '{"effect":"delete"}' }), shell(3, 20, { ...grep, 'loopguard.tool.outcome_facts': '{"items":"x"}' })], 1))]);
    expect(bad.problems).to.have.length(2);
    expect(bad.problems[0]).to.match(/bad-facts\.otlp\.json:2: .*loopguard\.tool\.call_facts: effect must be "read", "write" or "unknown", got "delete"/);
    expect(bad.problems[1]).to.match(/bad-facts\.otlp\.json:3: .*loopguard\.tool\.outcome_facts: items must be item fingerprints/);
  });

  it('keeps run spans that share a conversation id apart (each chat turn is a run), named #2, #3', async () => {
    const turn = (n: number): SpanSpec[] => {
      const id = (k: number) => (n * 16 + k).toString(16).padStart(16, '0');
      return [
        { traceId: `${n}`.repeat(32), spanId: id(0), name: 'invoke_agent chat', startMs: n * 1000, endMs: n * 1000 + 100, attributes: { 'gen_ai.operation.name': 'invoke_agent', 'gen_ai.conversation.id': 'conv-9' } },
        { traceId: `${n}`.repeat(32), spanId: id(1), parentSpanId: id(0), name: 'execute_tool search', startMs: n * 1000 + 10, endMs: n * 1000 + 20, attributes: { 'gen_ai.operation.name': 'execute_tool', 'gen_ai.tool.name': 'search', 'gen_ai.tool.call.arguments': '{"q":"same"}', 'gen_ai.tool.call.result': '"x"' } },
      ];
    };
    const { runs } = await replayFiles([writeTempLines('turns.otlp.json', otlpLines([...turn(3), ...turn(1), ...turn(2)]))]);
    expect(runs.map((r) => r.run)).to.deep.equal(['conv-9', 'conv-9#2', 'conv-9#3']);
    // The same call in the next turn is not a repeat within one run.
    expect(runs.map((r) => r.decisions[0].decision)).to.deep.equal(['allow', 'allow', 'allow']);
  });

  it('falls back to one run per trace for tool spans without a run span, and reads numeric intValue', async () => {
    const orphan = (id: number, start: number, q: string): SpanSpec => ({
      traceId: 'b'.repeat(32), spanId: id.toString(16).padStart(16, '0'), name: 'execute_tool search', startMs: start, endMs: start + 1,
      attributes: { 'gen_ai.operation.name': 'execute_tool', 'gen_ai.tool.call.arguments': JSON.stringify({ q }), 'gen_ai.tool.call.result': '"same"' },
    });
    const line = JSON.parse(otlpLines([orphan(1, 10, 'a'), orphan(2, 20, 'a')])[0]);
    // Some hand-written exporters send intValue as a JSON number rather than a string.
    line.resourceSpans[0].scopeSpans[0].spans[0].attributes.push({ key: 'loopguard.round', value: { intValue: 1 } });
    line.resourceSpans[0].scopeSpans[0].spans[1].attributes.push({ key: 'loopguard.round', value: { intValue: '2' } });
    // Researcher: the identical second call is refused at the first repeat.
    const { runs } = await replayFiles([writeTempLines('orphans.otlp.json', [JSON.stringify(line)])], { profile: 'researcher' });
    const run = runNamed(runs, `trace:${'b'.repeat(32)}`);
    // The tool name comes from the span name when gen_ai.tool.name is absent.
    expect(run.decisions.map((d) => [d.tool, d.round, d.decision])).to.deep.equal([
      ['search', 1, 'allow'],
      ['search', 2, 'refuse'],
    ]);
  });
});
