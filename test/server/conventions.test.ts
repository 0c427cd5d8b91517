import { expect } from 'chai';
import { LoopGuard } from '../../src/core/loop-guard.js';
import type { LoopGuardListener } from '../../src/core/types.js';
import { OtlpSpanCollector } from '../../src/replay/collect-otlp-spans.js';
import { otlpSpansToReplayRuns } from '../../src/replay/otlp-spans-to-replay-calls.js';
import { ReplaySession } from '../../src/replay/replay-session.js';
import { startLoopGuardServer } from '../../src/server/index.js';
import { ExportTraceServiceRequestType } from '../helpers/otlp-trace-protobuf-schema.js';

/**
 * One looping run per convention, with the attribute names each project documents for it:
 * OpenTelemetry GenAI semconv (gen-ai-spans.md: execute_tool, gen_ai.tool.call.arguments /
 * .result), OpenInference (semantic_conventions: openinference.span.kind TOOL/AGENT/LLM,
 * tool.name, input.value, output.value), OpenLLMetry (traceloop.span.kind, traceloop.entity.*),
 * Pydantic AI under Logfire ("running tool", tool_arguments, tool_response, "agent run"), the
 * Vercel AI SDK (ai.toolCall.*), and loopguard's own hashed attributes.
 */
interface Convention {
  run: { name: string; attributes: Record<string, string> };
  model: { name: string; attributes: Record<string, string | number> };
  tool: (round: number, query: string, result: string) => { name: string; attributes: Record<string, string | number> };
}

const hits = (query: string): string => JSON.stringify({ hits: [`${query}-doc-1`, `${query}-doc-2`] });

const CONVENTIONS: Record<string, Convention> = {
  gen_ai: {
    run: { name: 'invoke_agent researcher', attributes: { 'gen_ai.operation.name': 'invoke_agent', 'gen_ai.agent.name': 'researcher' } },
    model: { name: 'chat gpt-4o', attributes: { 'gen_ai.operation.name': 'chat', 'gen_ai.usage.input_tokens': 1200, 'gen_ai.usage.output_tokens': 40 } },
    tool: (round, query, result) => ({
      name: 'execute_tool web_search',
      attributes: { 'gen_ai.operation.name': 'execute_tool', 'gen_ai.tool.name': 'web_search', 'gen_ai.tool.call.id': `call_${round}`, 'gen_ai.tool.call.arguments': JSON.stringify({ query }), 'gen_ai.tool.call.result': result },
    }),
  },
  openinference: {
    run: { name: 'Agent', attributes: { 'openinference.span.kind': 'AGENT', 'session.id': 'sess-1' } },
    model: { name: 'ChatOpenAI', attributes: { 'openinference.span.kind': 'LLM', 'llm.token_count.prompt': 1200, 'llm.token_count.completion': 40 } },
    tool: (_round, query, result) => ({
      name: 'web_search',
      attributes: { 'openinference.span.kind': 'TOOL', 'tool.name': 'web_search', 'input.value': JSON.stringify({ query }), 'input.mime_type': 'application/json', 'output.value': result },
    }),
  },
  traceloop: {
    run: { name: 'research.workflow', attributes: { 'traceloop.span.kind': 'workflow', 'traceloop.entity.name': 'research' } },
    model: { name: 'openai.chat', attributes: { 'llm.request.type': 'chat', 'gen_ai.usage.prompt_tokens': 1200, 'gen_ai.usage.completion_tokens': 40 } },
    tool: (_round, query, result) => ({
      name: 'web_search.tool',
      attributes: { 'traceloop.span.kind': 'tool', 'traceloop.entity.name': 'web_search', 'traceloop.entity.input': JSON.stringify({ args: [], kwargs: { query } }), 'traceloop.entity.output': result },
    }),
  },
  logfire: {
    run: { name: 'agent run', attributes: { 'logfire.msg': 'research_agent run', 'agent_name': 'research_agent' } },
    model: { name: 'chat gpt-4o', attributes: { 'gen_ai.operation.name': 'chat', 'gen_ai.usage.input_tokens': 1200, 'gen_ai.usage.output_tokens': 40 } },
    tool: (round, query, result) => ({
      name: 'running tool',
      attributes: { 'gen_ai.tool.name': 'web_search', 'gen_ai.tool.call.id': `call_${round}`, 'tool_arguments': JSON.stringify({ query }), 'tool_response': result, 'logfire.msg': 'running tool: web_search' },
    }),
  },
  ai_sdk: {
    run: { name: 'ai.generateText', attributes: { 'ai.operationId': 'ai.generateText' } },
    model: { name: 'ai.generateText.doGenerate', attributes: { 'ai.operationId': 'ai.generateText.doGenerate', 'ai.usage.inputTokens': 1200, 'ai.usage.outputTokens': 40 } },
    tool: (round, query, result) => ({
      name: 'ai.toolCall',
      attributes: { 'ai.operationId': 'ai.toolCall', 'ai.toolCall.name': 'web_search', 'ai.toolCall.id': `call_${round}`, 'ai.toolCall.args': JSON.stringify({ query }), 'ai.toolCall.result': result },
    }),
  },
  loopguard: {
    run: { name: 'invoke_agent', attributes: { 'gen_ai.operation.name': 'invoke_agent', 'loopguard.run.id': 'lg-run' } },
    model: { name: 'chat', attributes: { 'gen_ai.operation.name': 'chat' } },
    tool: (round, query, result) => ({
      name: 'execute_tool web_search',
      attributes: { 'gen_ai.operation.name': 'execute_tool', 'gen_ai.tool.name': 'web_search', 'loopguard.tool.args_hash': `args-${query}`, 'loopguard.tool.result_hash': `result-${result.length}-${query}`, 'loopguard.tool.outcome': 'success', 'loopguard.round': round },
    }),
  },
};

/** Queries of the run, a round each: a new one, then the same one until the run stops. */
const QUERIES = ['refund policy', 'refund window', 'refund window', 'refund window', 'refund window', 'refund window', 'refund window', 'refund window', 'refund window', 'refund window'];
const TRACE_ID = '4bf92f3577b34da6a3ce929d0e0e4736';

/** One ExportTraceServiceRequest per round (as an exporter flushes them), the run span in the last. */
function requestsOf(convention: Convention): unknown[] {
  const base = 1_700_000_000_000_000_000n;
  const span = (id: number, parent: number | undefined, name: string, attributes: Record<string, string | number>, start: bigint, end: bigint) => ({
    traceId: TRACE_ID,
    spanId: id.toString(16).padStart(16, '0'),
    ...(parent !== undefined ? { parentSpanId: parent.toString(16).padStart(16, '0') } : {}),
    name,
    startTimeUnixNano: String(start),
    endTimeUnixNano: String(end),
    attributes: Object.entries(attributes).map(([key, value]) => ({ key, value: typeof value === 'number' ? { intValue: String(value) } : { stringValue: value } })),
  });
  const requests = QUERIES.map((query, index) => {
    const start = base + BigInt(index) * 1_000_000_000n;
    const tool = convention.tool(index + 1, query, hits(query));
    return [
      span(10 + index * 2, 1, convention.model.name, convention.model.attributes, start, start + 400_000_000n),
      span(11 + index * 2, 1, tool.name, tool.attributes, start + 500_000_000n, start + 600_000_000n),
    ];
  });
  requests.at(-1)!.push(span(1, undefined, convention.run.name, convention.run.attributes, base - 1n, base + BigInt(QUERIES.length) * 1_000_000_000n));
  return requests.map((spans) => ({ resourceSpans: [{ resource: { attributes: [] }, scopeSpans: [{ scope: { name: 'fixture' }, spans }] }] }));
}

/** What the engine decided, one line per call and the stop. */
function recorder(): { log: string[]; listener: LoopGuardListener } {
  const log: string[] = [];
  return {
    log,
    listener: {
      callDecided: (_run, call, decision, round) => void log.push(`${round} ${call.tool} ${decision.action === 'refuse' ? `refuse ${decision.reason}` : `allow ${decision.kind}`}`),
      runStopped: (_run, stop) => void log.push(`stop ${stop.reason} at ${stop.round}`),
    },
  };
}

describe('loopguard serve reads every convention as loopguard replay does', function () {
  this.timeout(30_000);
  for (const [name, convention] of Object.entries(CONVENTIONS)) for (const encoding of ['json', 'protobuf'] as const) {
    it(`${name} (${encoding}): the live decisions over OTLP equal the replay of the same spans, and the loop is stopped`, async () => {
      const requests = requestsOf(convention);

      const replayed = recorder();
      const collector = new OtlpSpanCollector();
      requests.forEach((request, index) => expect(collector.addRequest(request, 'fixture', index + 1)).to.deep.equal([]));
      const { runs, problems } = otlpSpansToReplayRuns(collector.spans, 'fixture');
      expect(problems).to.deep.equal([]);
      expect(runs).to.have.length(1);
      const session = new ReplaySession('fixture', {});
      session.guard.addListener(replayed.listener);
      for (const call of runs[0]!.calls) expect(session.feed(call)).to.equal(undefined);
      [...session.finishAllRuns()];

      const live = recorder();
      const guard = new LoopGuard({ listeners: [live.listener] });
      const server = await startLoopGuardServer({ guard, port: 0 });
      try {
        for (const request of requests) {
          // protobuf: encoded by protobufjs from the same JSON, read by the server's own reader.
          const body = encoding === 'json' ? JSON.stringify(request) : Buffer.from(ExportTraceServiceRequestType.encode(ExportTraceServiceRequestType.fromObject(request as Record<string, unknown>)).finish());
          const answer = await fetch(`${server.url}/v1/traces`, { method: 'POST', headers: { 'content-type': encoding === 'json' ? 'application/json' : 'application/x-protobuf' }, body });
          expect(answer.status).to.equal(200);
          if (encoding === 'json') expect(await answer.json()).to.deep.equal({});
          else expect((await answer.arrayBuffer()).byteLength, 'an empty ExportTraceServiceResponse').to.equal(0);
        }
      } finally {
        await server.close();
      }
      expect(live.log).to.deep.equal(replayed.log);
      expect(live.log.some((line) => line.includes(' refuse '))).to.equal(true);
      expect(live.log.at(-1)).to.match(/^stop /);
    });
  }
});
