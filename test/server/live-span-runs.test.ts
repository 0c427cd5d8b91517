import { expect } from 'chai';
import { LoopGuard } from '../../src/core/loop-guard.js';
import { createMemoryRunStore } from '../../src/core/shared-ledger/create-memory-run-store.js';
import { OtlpSpanCollector, type CollectedSpan } from '../../src/replay/collect-otlp-spans.js';
import { LiveSpanRuns } from '../../src/server/live-span-runs.js';
import { otlpSpansToReplayRuns } from '../../src/replay/otlp-spans-to-replay-calls.js';
import { ReplaySession } from '../../src/replay/replay-session.js';
import { seededRandom as randomOf } from '../helpers/seeded-random.js';

const TRACE = '4bf92f3577b34da6a3ce929d0e0e4736';
const base = 1_700_000_000_000_000_000n;

/** Tool spans of one trace (no run span: the run is `trace:<id>`), rounds 1..n, collected as the receiver does. */
function toolSpans(first: number, count: number, query: (round: number) => string): CollectedSpan[] {
  const spans = Array.from({ length: count }, (_, index) => {
    const round = first + index;
    return {
      traceId: TRACE,
      spanId: round.toString(16).padStart(16, '0'),
      name: 'execute_tool search',
      startTimeUnixNano: String(base + BigInt(round) * 1_000_000_000n),
      endTimeUnixNano: String(base + BigInt(round) * 1_000_000_000n + 1_000_000n),
      attributes: [
        { key: 'gen_ai.operation.name', value: { stringValue: 'execute_tool' } },
        { key: 'gen_ai.tool.name', value: { stringValue: 'search' } },
        { key: 'loopguard.round', value: { intValue: String(round) } },
        { key: 'gen_ai.tool.call.arguments', value: { stringValue: JSON.stringify({ q: query(round), padding: 'x'.repeat(1000) }) } },
        { key: 'gen_ai.tool.call.result', value: { stringValue: JSON.stringify({ hits: [`doc-${query(round)}`], padding: 'y'.repeat(1000) }) } },
      ],
    };
  });
  const collector = new OtlpSpanCollector();
  expect(collector.addRequest({ resourceSpans: [{ scopeSpans: [{ spans }] }] }, 'request', 1)).to.deep.equal([]);
  return collector.spans;
}

/** The engine's decisions, one line each, as they are made. */
function decisions(guard: LoopGuard): string[] {
  const log: string[] = [];
  guard.addListener({ callDecided: (_run, call, decision, round) => void log.push(`${round} ${call.tool} ${decision.action}`), runStopped: (_run, stop) => void log.push(`stop ${stop.reason}`) });
  return log;
}

/** Two new queries, then the same one: a loop from round 3. */
const query = (round: number) => (round <= 2 ? `q${round}` : 'same');

describe('LiveSpanRuns: tool spans once fed to the engine', () => {
  it('keep neither their arguments nor their result, and later batches of the trace decide as one batch would', async () => {
    const splitGuard = new LoopGuard();
    const split = decisions(splitGuard);
    const live = new LiveSpanRuns({ guard: splitGuard });
    const firstBatch = toolSpans(1, 3, query);
    await live.ingest(firstBatch);
    for (const span of firstBatch) {
      expect(span.settled, span.spanId).to.equal(true);
      expect(span.attributes).not.to.have.property('gen_ai.tool.call.arguments');
      expect(span.attributes).not.to.have.property('gen_ai.tool.call.result');
      // What places the call in its run stays.
      expect(span.attributes['gen_ai.tool.name']).to.equal('search');
      expect(span.attributes['loopguard.round']).to.equal(span === firstBatch[0] ? 1 : span === firstBatch[1] ? 2 : 3);
    }
    for (let round = 4; round <= 8; round++) await live.ingest(toolSpans(round, 1, query));

    const wholeGuard = new LoopGuard();
    const whole = decisions(wholeGuard);
    await new LiveSpanRuns({ guard: wholeGuard }).ingest(toolSpans(1, 8, query));
    expect(split).to.deep.equal(whole);
    expect(whole.some((line) => line.includes('refuse'))).to.equal(true);
  });

  it('a batch delivered again (an exporter retrying after a lost answer) is accepted once: not rejected, not fed again, no whole re-read', async () => {
    const onceGuard = new LoopGuard();
    const once = decisions(onceGuard);
    const onceLive = new LiveSpanRuns({ guard: onceGuard });
    for (const [first, count] of [[1, 3], [4, 3], [7, 2]] as const) await onceLive.ingest(toolSpans(first, count, query));

    const retriedGuard = new LoopGuard();
    const retried = decisions(retriedGuard);
    const live = new LiveSpanRuns({ guard: retriedGuard });
    await live.ingest(toolSpans(1, 3, query));
    await live.ingest(toolSpans(4, 3, query));
    const readsBefore = live.wholeTraceReads;
    // Both earlier batches again, byte for byte, then the next one.
    expect(await live.ingest(toolSpans(1, 3, query))).to.deep.equal({ rejected: 0, problems: [] });
    expect(await live.ingest(toolSpans(4, 3, query))).to.deep.equal({ rejected: 0, problems: [] });
    expect(live.wholeTraceReads, 'a redelivery re-read the trace').to.equal(readsBefore);
    await live.ingest(toolSpans(7, 2, query));
    expect(retried).to.deep.equal(once);
    expect(once.some((line) => line.includes('refuse'))).to.equal(true);
  });

  it('a span id used again by a different span (another start) is still reported and skipped', async () => {
    const live = new LiveSpanRuns({ guard: new LoopGuard() });
    await live.ingest(toolSpans(1, 3, query));
    const impostor = toolSpans(2, 1, query)[0]!;
    impostor.startNanos += 5n;
    const answer = await live.ingest([impostor]);
    expect(answer.rejected).to.equal(1);
    expect(answer.problems.join('\n')).to.match(/spanId 0000000000000002 .* is already used/);
  });

  it('are fed synchronously without a shared store and claimed across processes with one, to the same decisions', async () => {
    const localGuard = new LoopGuard();
    const local = decisions(localGuard);
    const sharedGuard = new LoopGuard({ store: createMemoryRunStore() });
    expect(sharedGuard.isShared).to.equal(true);
    const shared = decisions(sharedGuard);
    for (const [guard, batches] of [[localGuard, [[1, 3], [4, 2], [6, 3]]], [sharedGuard, [[1, 3], [4, 2], [6, 3]]]] as const) {
      const live = new LiveSpanRuns({ guard });
      for (const [first, count] of batches) await live.ingest(toolSpans(first, count, query));
    }
    expect(shared).to.deep.equal(local);
    expect(local.some((line) => line.includes('refuse'))).to.equal(true);
    expect(local.some((line) => line.startsWith('stop'))).to.equal(true);
  });
});


type OtlpSpan = Record<string, unknown>;
const otlpAttributes = (attributes: Record<string, string | number | boolean>) =>
  Object.entries(attributes).map(([key, value]) => ({
    key,
    value: typeof value === 'number' ? { intValue: String(value) } : typeof value === 'boolean' ? { boolValue: value } : { stringValue: value },
  }));

/**
 * One agent run of a trace, in the shape of one convention, spans in the order an exporter sends
 * them (by end time, the run span last). Queries loop after a few rounds so the run is stopped.
 */
function agentRunSpans(options: {
  traceId: string;
  shape: 'gen_ai' | 'tools_under_model' | 'ai_sdk' | 'no_models' | 'recorded_rounds' | 'layered';
  rounds: number;
  toolsPerRound: (round: number) => number;
  query: (round: number, index: number) => string;
  firstId: number;
  start: bigint;
  runSpan: boolean;
  /** Whether a tool span goes without its tool name (a problem the request's answer reports). */
  nameless?: () => boolean;
  /** Rounds whose model span says the prompt was compacted (`loopguard.context.compacted`). */
  compacted?: (round: number) => boolean;
  /** The tool's name. Default `search`. */
  tool?: string;
}): OtlpSpan[] {
  const { traceId, shape } = options;
  const tool = options.tool ?? 'search';
  let nextId = options.firstId;
  const id = () => (nextId++).toString(16).padStart(16, '0');
  const runId = id();
  const spans: Array<OtlpSpan & { end: bigint }> = [];
  const span = (name: string, parent: string | undefined, start: bigint, end: bigint, attributes: Record<string, string | number | boolean>, spanId = id()) => {
    const made = { traceId, spanId, ...(parent ? { parentSpanId: parent } : {}), name, startTimeUnixNano: String(start), endTimeUnixNano: String(end), attributes: otlpAttributes(attributes), end };
    spans.push(made);
    return made;
  };
  const parentOfRun = options.runSpan ? runId : undefined;
  for (let round = 1; round <= options.rounds; round++) {
    const roundStart = options.start + BigInt(round) * 1_000_000_000n;
    const toolCount = options.toolsPerRound(round);
    let modelId: string | undefined;
    const askedIds = Array.from({ length: toolCount }, (_, index) => `call_${options.firstId}_${round}_${index}`);
    if (shape !== 'no_models') {
      const attributes: Record<string, string | number | boolean> =
        shape === 'ai_sdk'
          ? { 'ai.operationId': 'ai.generateText.doGenerate', 'ai.usage.inputTokens': 100 * round, 'ai.usage.outputTokens': 7, 'ai.response.toolCalls': JSON.stringify(askedIds.map((toolCallId) => ({ toolCallId }))) }
          : { 'gen_ai.operation.name': 'chat', 'gen_ai.usage.input_tokens': 100 * round, 'gen_ai.usage.output_tokens': 7 };
      if (options.compacted?.(round)) attributes['loopguard.context.compacted'] = true;
      const name = shape === 'ai_sdk' ? 'ai.generateText.doGenerate' : 'chat gpt-4o';
      // Tools under their model span end before it; otherwise the model call ends before its tools run.
      const end = shape === 'tools_under_model' ? roundStart + 900_000_000n : roundStart + 300_000_000n;
      if (shape === 'layered') {
        // A framework's model-call span around the provider SDK's, which has the usage (and the compaction).
        const outer = span('chat framework', parentOfRun, roundStart, end, { 'gen_ai.operation.name': 'chat' });
        span(name, outer.spanId as string, roundStart + 10_000_000n, end - 10_000_000n, attributes);
        modelId = outer.spanId as string;
      } else {
        modelId = span(name, parentOfRun, roundStart, end, attributes).spanId as string;
      }
    }
    for (let index = 0; index < toolCount; index++) {
      const query = options.query(round, index);
      const start = roundStart + 400_000_000n + BigInt(index) * (shape === 'no_models' && index > 0 ? 10_000_000n : 0n);
      const result = JSON.stringify({ hits: [`${query}-doc`] });
      const attributes: Record<string, string | number> =
        shape === 'ai_sdk'
          ? { 'ai.operationId': 'ai.toolCall', 'ai.toolCall.name': tool, 'ai.toolCall.id': askedIds[index]!, 'ai.toolCall.args': JSON.stringify({ query }), 'ai.toolCall.result': result }
          : { 'gen_ai.operation.name': 'execute_tool', 'gen_ai.tool.name': tool, 'gen_ai.tool.call.arguments': JSON.stringify({ query }), 'gen_ai.tool.call.result': result };
      if (shape === 'recorded_rounds') attributes['loopguard.round'] = round;
      if (options.nameless?.()) delete attributes[shape === 'ai_sdk' ? 'ai.toolCall.name' : 'gen_ai.tool.name'];
      span(shape === 'ai_sdk' ? 'ai.toolCall' : `execute_tool ${tool}`, shape === 'tools_under_model' ? modelId : parentOfRun, start, start + 200_000_000n, attributes);
    }
  }
  if (options.runSpan) {
    const attributes: Record<string, string | number> = shape === 'ai_sdk' ? { 'ai.operationId': 'ai.generateText' } : { 'gen_ai.operation.name': 'invoke_agent' };
    span(shape === 'ai_sdk' ? 'ai.generateText' : 'invoke_agent researcher', undefined, options.start, options.start + BigInt(options.rounds + 2) * 1_000_000_000n, attributes, runId);
  }
  spans.sort((a, b) => (a.end < b.end ? -1 : a.end > b.end ? 1 : 0));
  return spans.map(({ end: _end, ...rest }) => rest);
}

/** The engine's decisions and stops, one line each, with the run they belong to. */
function decisionLog(guard: LoopGuard): string[] {
  const log: string[] = [];
  guard.addListener({
    callDecided: (run, call, decision, round) => void log.push(`${run.id} ${round} ${call.tool} ${call.argsHash ?? ''} ${decision.action === 'refuse' ? `refuse ${decision.reason}` : `allow ${decision.kind}`}`),
    // Wasted tokens: the model usage each round carries, which the first call of a round brings.
    runStopped: (run, stop) => void log.push(`${run.id} stop ${stop.reason} at ${stop.round}, ${stop.partial.wastedTokens} tokens wasted`),
    runEnded: (run) => void log.push(`${run.id} ended`),
  });
  return log;
}

/** Sends batches of spans to a LiveSpanRuns, one request each; returns the log and what was reported. */
async function ingestBatches(batches: OtlpSpan[][], options: { alwaysReadWhole?: boolean } = {}) {
  const guard = new LoopGuard();
  const log = decisionLog(guard);
  const live = new LiveSpanRuns({ guard, alwaysReadWhole: options.alwaysReadWhole });
  const answers: Array<{ rejected: number; problems: string[] }> = [];
  for (const [index, spans] of batches.entries()) {
    const collector = new OtlpSpanCollector();
    collector.addRequest({ resourceSpans: [{ scopeSpans: [{ spans }] }] }, 'request', index + 1);
    answers.push(await live.ingest(collector.spans));
  }
  live.endAll();
  return { log, answers, wholeTraceReads: live.wholeTraceReads };
}

function chunks<T>(items: readonly T[], sizeOf: () => number): T[][] {
  const out: T[][] = [];
  for (let index = 0; index < items.length; ) {
    const size = Math.max(1, sizeOf());
    out.push(items.slice(index, index + size));
    index += size;
  }
  return out;
}

/** Replay of the same spans, as `loopguard replay` reads a file of them. */
function replayLog(spans: OtlpSpan[]): string[] {
  const collector = new OtlpSpanCollector();
  expect(collector.addRequest({ resourceSpans: [{ scopeSpans: [{ spans }] }] }, 'fixture', 1)).to.deep.equal([]);
  const { runs, problems } = otlpSpansToReplayRuns(collector.spans, 'fixture');
  expect(problems).to.deep.equal([]);
  const session = new ReplaySession('fixture', {});
  const log = decisionLog(session.guard);
  for (const run of runs) for (const call of run.calls) expect(session.feed(call)).to.equal(undefined);
  [...session.finishAllRuns()];
  return log;
}

/** The log of one run without its name (the run's end: replay ends runs its own way). */
function withoutRunNames(log: readonly string[]): string[] {
  return log.filter((line) => !line.endsWith(' ended')).map((line) => line.replace(/^\S+ /, ''));
}

describe('LiveSpanRuns: a trace arriving over many requests is read a request at a time', () => {
  const loopingQuery = (round: number) => (round <= 3 ? `q${round}` : 'the same');

  for (const shape of ['gen_ai', 'ai_sdk', 'recorded_rounds'] as const) {
    it(`${shape}: one looping run sent a span per request decides as one request and as replay, without re-reading the trace`, async () => {
      const spans = agentRunSpans({ traceId: TRACE, shape, rounds: 40, toolsPerRound: () => 1, query: loopingQuery, firstId: 1, start: base, runSpan: true });
      const split = await ingestBatches(spans.map((span) => [span]));
      const whole = await ingestBatches([spans]);
      // Run names differ by design: live names a run by the trace (its run span comes last),
      // one request and replay by its run span.
      expect(withoutRunNames(split.log)).to.deep.equal(withoutRunNames(whole.log));
      expect(split.log.some((line) => line.includes(' stop '))).to.equal(true);
      expect(withoutRunNames(split.log)).to.deep.equal(withoutRunNames(replayLog(spans)));
      // Read whole: the first request (no run has calls yet), the second (the run's first call) and the run span.
      expect(split.wholeTraceReads).to.be.at.most(3);
      expect(split.answers.every((answer) => answer.rejected === 0)).to.equal(true);
    });
  }

  it('a model span saying the prompt was compacted: the re-read after it runs, sent a span per request, in one request and in replay', async () => {
    const rereading = (round: number) => (round <= 3 ? `q${round}` : 'q1');
    for (const shape of ['gen_ai', 'ai_sdk', 'layered'] as const) {
      const make = (compacted: boolean) =>
        agentRunSpans({ traceId: TRACE, shape, rounds: 5, toolsPerRound: () => 1, query: rereading, firstId: 1, start: base, runSpan: true, tool: 'read_file', compacted: (round) => compacted && round === 4 });
      const spans = make(true);
      const split = await ingestBatches(spans.map((span) => [span]));
      const whole = await ingestBatches([spans]);
      const decided = withoutRunNames(split.log).map((line) => line.replace(/ \S+ (allow|refuse)/, ' $1'));
      expect(decided, shape).to.deep.equal([
        '1 read_file allow new',
        '2 read_file allow new',
        '3 read_file allow new',
        '4 read_file allow reread',
        '5 read_file refuse repeat.run_wide',
      ]);
      expect(withoutRunNames(split.log), shape).to.deep.equal(withoutRunNames(whole.log));
      expect(withoutRunNames(split.log), shape).to.deep.equal(withoutRunNames(replayLog(spans)));
      // Without the attribute, the re-read of round 4 is refused.
      const kept = (await ingestBatches(make(false).map((span) => [span]))).log;
      expect(kept.some((line) => / 4 read_file \S+ refuse/.test(line)), shape).to.equal(true);
    }
  });

  it('recorded rounds: each round sent in shuffled small requests (tools before their model span) decides as one request and as replay', async () => {
    const random = randomOf(19);
    const spans = agentRunSpans({ traceId: TRACE, shape: 'recorded_rounds', rounds: 30, toolsPerRound: () => 1, query: loopingQuery, firstId: 1, start: base, runSpan: true });
    const runSpan = spans.pop()!;
    // Rounds in order, the spans of each round (model call, tool call) in a random order and
    // requests: the recorded round places each call whatever arrives first.
    const batches: OtlpSpan[][] = [];
    for (let index = 0; index < spans.length; index += 2) {
      const round = spans.slice(index, index + 2);
      if (random() < 0.5) round.reverse();
      if (random() < 0.5) batches.push(round);
      else batches.push([round[0]!], [round[1]!]);
    }
    batches.push([runSpan]);
    const split = await ingestBatches(batches);
    const whole = await ingestBatches([[...spans, runSpan]]);
    expect(withoutRunNames(split.log)).to.deep.equal(withoutRunNames(whole.log));
    expect(split.log.some((line) => line.includes(' stop '))).to.equal(true);
    expect(withoutRunNames(split.log)).to.deep.equal(withoutRunNames(replayLog([...spans, runSpan])));
    // A model span after its tool is read whole; the rest a request at a time.
    expect(split.wholeTraceReads).to.be.below(batches.length);
  });

  it('decides exactly as re-reading the whole trace on every request, for traces of every shape in any order and batching', async () => {
    const shapes = ['gen_ai', 'tools_under_model', 'ai_sdk', 'no_models', 'recorded_rounds', 'layered'] as const;
    let incrementalRequests = 0;
    let requests = 0;
    let problemsReported = 0;
    for (let seed = 1; seed <= 150; seed++) {
      const random = randomOf(seed);
      const pick = <T>(items: readonly T[]): T => items[Math.floor(random() * items.length)]!;
      const spans: OtlpSpan[] = [];
      // One or two runs per trace, some without a run span (named by the trace).
      const runCount = 1 + Math.floor(random() * 2);
      for (let run = 0; run < runCount; run++) {
        const loopFrom = 2 + Math.floor(random() * 6);
        spans.push(
          ...agentRunSpans({
            traceId: TRACE,
            shape: pick(shapes),
            rounds: 4 + Math.floor(random() * 14),
            toolsPerRound: () => 1 + Math.floor(random() * 3),
            query: (round, index) => (round < loopFrom ? `q${round}-${index}` : `same-${index % 2}`),
            firstId: 1 + run * 1000,
            start: base + BigInt(run) * 7_500_000_000n,
            runSpan: random() < 0.7,
            nameless: () => random() < 0.04,
            // Some model calls say the prompt was compacted (on the provider's layer, when layered).
            compacted: () => random() < 0.15,
          }),
        );
      }
      // A span sent twice, now and then (its later copy is a reported problem).
      if (random() < 0.1) spans.splice(Math.floor(random() * spans.length), 0, spans[Math.floor(random() * spans.length)]!);
      const order = pick(['exported', 'exported', 'shuffled', 'swaps'] as const);
      if (order === 'shuffled') {
        for (let index = spans.length - 1; index > 0; index--) {
          const other = Math.floor(random() * (index + 1));
          [spans[index], spans[other]] = [spans[other]!, spans[index]!];
        }
      } else if (order === 'swaps') {
        for (let index = 1; index < spans.length; index++) if (random() < 0.15) [spans[index - 1], spans[index]] = [spans[index]!, spans[index - 1]!];
      }
      const batches = chunks(spans, () => 1 + Math.floor(random() * 4));
      const incremental = await ingestBatches(batches);
      const reference = await ingestBatches(batches, { alwaysReadWhole: true });
      expect(incremental.log, `seed ${seed} (${order})`).to.deep.equal(reference.log);
      expect(incremental.answers, `seed ${seed} (${order})`).to.deep.equal(reference.answers);
      requests += batches.length;
      problemsReported += incremental.answers.reduce((sum, answer) => sum + answer.problems.length, 0);
      incrementalRequests += batches.length - incremental.wholeTraceReads;
    }
    // The comparison means something only if most requests took the incremental read.
    expect(incrementalRequests / requests).to.be.above(0.5);
    // Nameless tool spans and repeated span ids were reported, in the same requests and order.
    expect(problemsReported).to.be.above(10);
  });
});

describe('LiveSpanRuns: a run its agent span ended', () => {
  const RUN_TRACE = '0af7651916cd43dd8448eb211c80319c';
  const RUN_SPAN = 'aaaaaaaaaaaaaaaa';
  const collect = (spans: OtlpSpan[]): CollectedSpan[] => {
    const collector = new OtlpSpanCollector();
    expect(collector.addRequest({ resourceSpans: [{ scopeSpans: [{ spans }] }] }, 'request', 1)).to.deep.equal([]);
    return collector.spans;
  };
  const toolSpan = (traceId: string, parentSpanId: string, spanId: string, round: number, q: string): OtlpSpan => ({
    traceId,
    spanId,
    parentSpanId,
    name: 'execute_tool search',
    startTimeUnixNano: String(base + BigInt(round) * 1_000_000_000n),
    endTimeUnixNano: String(base + BigInt(round) * 1_000_000_000n + 1_000n),
    attributes: otlpAttributes({ 'gen_ai.operation.name': 'execute_tool', 'gen_ai.tool.name': 'search', 'gen_ai.conversation.id': 'conv-1', 'loopguard.round': round, 'gen_ai.tool.call.arguments': JSON.stringify({ q }) }),
  });
  const runSpan = (traceId: string, spanId: string): OtlpSpan => ({
    traceId,
    spanId,
    name: 'invoke_agent',
    startTimeUnixNano: String(base),
    endTimeUnixNano: String(base + 2000n * 1_000_000_000n),
    attributes: otlpAttributes({ 'gen_ai.operation.name': 'invoke_agent', 'gen_ai.conversation.id': 'conv-1' }),
  });

  for (const store of ['no store', 'a shared store'] as const) it(`stays stopped and ended when a late tool span of it arrives in a later batch (a Collector reordering batches), ${store}`, async () => {
    const guard = new LoopGuard({ maxRounds: 3, ...(store === 'no store' ? {} : { store: createMemoryRunStore() }) });
    const live = new LiveSpanRuns({ guard });
    await live.ingest(collect([toolSpan(RUN_TRACE, RUN_SPAN, '0000000000000001', 4, 'a'), runSpan(RUN_TRACE, RUN_SPAN)]));
    const stopped = guard.getRun('conv-1')!;
    expect(stopped.stopped?.reason).to.equal('max_rounds');
    expect(stopped.isEnded).to.equal(true);

    await live.ingest(collect([toolSpan(RUN_TRACE, RUN_SPAN, '0000000000000002', 1, 'b')]));
    const after = guard.getRun('conv-1')!;
    expect(after.isEnded, 'a late span does not start the run again').to.equal(true);
    expect(after.stopped?.reason, 'nor forget its stop').to.equal('max_rounds');
  });

  it('a later agent invocation of the same conversation (a new trace) is a new run, as a run id started again in process is', async () => {
    const guard = new LoopGuard({ maxRounds: 3 });
    const live = new LiveSpanRuns({ guard });
    const fed = decisions(guard);
    await live.ingest(collect([toolSpan(RUN_TRACE, RUN_SPAN, '0000000000000001', 4, 'a'), runSpan(RUN_TRACE, RUN_SPAN)]));
    expect(guard.getRun('conv-1')!.stopped?.reason).to.equal('max_rounds');

    const nextTurn = 'bbf92f3577b34da6a3ce929d0e0e4736';
    await live.ingest(collect([toolSpan(nextTurn, 'cccccccccccccccc', '0000000000000003', 1, 'b'), runSpan(nextTurn, 'cccccccccccccccc')]));
    const run = guard.getRun('conv-1')!;
    expect(run.stopped, 'the new turn is not the stopped run').to.equal(undefined);
    expect(run.round).to.equal(1);
    expect(fed.slice(-1)).to.deep.equal(['1 search allow']);
  });
});

describe('LiveSpanRuns: bytes held (maxHeldSpanBytes)', () => {
  /** One tool span of its own trace whose kept `gen_ai.tool.description` holds `size` characters. */
  const bigSpan = (trace: number, size: number): CollectedSpan[] => {
    const collector = new OtlpSpanCollector();
    const span = {
      traceId: trace.toString(16).padStart(32, '0'),
      spanId: '00000000000000a1',
      name: 'execute_tool search',
      startTimeUnixNano: String(base),
      endTimeUnixNano: String(base + 1_000n),
      attributes: otlpAttributes({ 'gen_ai.operation.name': 'execute_tool', 'gen_ai.tool.name': 'search', 'gen_ai.tool.description': 'd'.repeat(size), 'gen_ai.tool.call.arguments': JSON.stringify({ q: trace }) }),
    };
    expect(collector.addRequest({ resourceSpans: [{ scopeSpans: [{ spans: [span] }] }] }, 'request', 1)).to.deep.equal([]);
    return collector.spans;
  };

  it('lets the idlest traces go to stay under the budget, and rejects a span larger than it by name; before, 300 such requests held 1 GB', async () => {
    const guard = new LoopGuard();
    const live = new LiveSpanRuns({ guard, maxHeldSpanBytes: 1_000_000 });
    for (let trace = 1; trace <= 30; trace++) {
      const answer = await live.ingest(bigSpan(trace, 300_000));
      expect(answer.rejected).to.equal(0);
      expect(live.bytesHeld).to.be.at.most(1_000_000);
    }
    // Three 300 kB spans fit; each new trace let the idlest go (its run ended, as past maxTraces).
    expect(live.traceCount).to.equal(3);
    expect(guard.getRun(`trace:${(1).toString(16).padStart(32, '0')}`)?.isEnded).to.equal(true);

    const tooLarge = await live.ingest(bigSpan(31, 1_200_000));
    expect(tooLarge.rejected).to.equal(1);
    expect(tooLarge.problems.join('\n')).to.match(/span 00000000000000a1 holds \d+ bytes of text, more than the 1000000 .*\(the server's maxHeldSpanBytes\)/);
    expect(live.bytesHeld).to.be.at.most(1_000_000);
  });

  it('counts what a fed span drops (its arguments and result) off the budget, and what a trace held when it goes', async () => {
    const live = new LiveSpanRuns({ guard: new LoopGuard() });
    await live.ingest(toolSpans(1, 5, query));
    const held = live.bytesHeld;
    // Each toolSpans span carries ~2 KB of arguments and result, dropped once fed: what stays is
    // its ids, name and the attributes that place it.
    expect(held).to.be.above(0).and.below(5 * 1_000);
    live.endAll();
    expect(live.bytesHeld).to.equal(0);
  });
});
