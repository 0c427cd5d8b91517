// Every run of the evaluation corpus, played live through the real OpenTelemetry SDK — startAgentRun's
// chat span per round, instrumentTool's execute_tool span per call, LoopGuardSpanProcessor keeping
// the ledger — gets the verdict `loopguard replay` gives it (EVAL.md's numbers). The replay feeds
// the engine directly; a user's agent reaches it through spans, where a round is a model span, the
// result is read by the wrapper and the decision is written on the span. A call that path decides
// differently is a refusal or a stop EVAL.md does not show, on the door users actually use.
import { expect } from 'chai';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { JsonTraceSerializer } from '@opentelemetry/otlp-transformer';
import { LoopGuard } from '../../src/core/loop-guard.js';
import type { Profile } from '../../src/core/types.js';
import { ATTR_DECISION, ATTR_REFUSAL_REASON } from '../../src/otel/attributes.js';
import { startAgentRun } from '../../src/otel/start-agent-run.js';
import { OtlpSpanCollector } from '../../src/replay/collect-otlp-spans.js';
import type { ReplayCall } from '../../src/replay/replay-call.js';
import { LiveSpanRuns } from '../../src/server/live-span-runs.js';
import { CORPUS_DIR, CORPUS_FILES, differenceFrom, recordedRun, verdictOf } from '../helpers/recorded-corpus-runs.js';
import { makeHarness, useContextManager } from './otel-test-helpers.js';

/** The same run as an agent loop on startAgentRun: a model call per round, each call through its tool. */
async function playedLive(profile: Profile, rounds: ReplayCall[][], record: boolean): Promise<{ verdict: string; decisions: string[]; export: string[] }> {
  const harness = makeHarness({ profile, logger: { warn: () => undefined } });
  try {
    const run = startAgentRun({ processor: harness.processor, tracer: harness.tracer, runId: 'recorded', toolOptions: { recordArguments: record, recordResult: record } });
    let verdict = 'finished';
    for (let round = 0; round < rounds.length; round++) {
      if (round > 0) {
        const decision = run.shouldStop();
        if (decision.action === 'stop') {
          verdict = verdictOf(decision);
          break;
        }
      }
      const calls = rounds[round]!;
      await run.modelCall('recorded-model', () => ({ usage: calls.find((call) => call.usage !== undefined)?.usage }), { contextCompacted: calls[0]?.compactedBefore === true });
      for (const call of calls) {
        const outcome = call.outcome as { result?: unknown; error?: unknown };
        // The recorded error as the tool threw it, so instrumentTool reads the same type and message.
        const tool = run.tool(call.tool, () => {
          if (outcome.error !== undefined) throw outcome.error;
          return outcome.result;
        });
        await tool(call.args, call.callId === undefined ? {} : { callId: call.callId }).catch(() => undefined);
      }
    }
    if (verdict === 'finished') {
      const decision = run.shouldStop();
      if (decision.action === 'stop') verdict = verdictOf(decision);
    }
    run.end();
    const decisions = harness
      .finished()
      .filter((span) => span.name.startsWith('execute_tool '))
      .sort((a, b) => a.startTime[0] - b.startTime[0] || a.startTime[1] - b.startTime[1])
      .map((span) => (span.attributes[ATTR_DECISION] === 'allow' ? 'allow' : String(span.attributes[ATTR_REFUSAL_REASON])));
    // What the Collector's file exporter would write: hashes only (loopguard's default), or with the raw content.
    const spans = harness.finished();
    const lines: string[] = [];
    for (let index = 0; index < spans.length; index += 16) lines.push(new TextDecoder().decode(JsonTraceSerializer.serializeRequest(spans.slice(index, index + 16))));
    return { verdict, decisions, export: lines };
  } finally {
    await harness.shutdown();
  }
}

/** The export sent to `loopguard serve`'s OTLP receiver a request at a time, as a Collector would. */
async function servedFromExport(profile: Profile, lines: string[]): Promise<{ verdict: string; decisions: string[] }> {
  const decisions: string[] = [];
  let verdict = 'finished';
  const guard = new LoopGuard({
    profile,
    logger: { warn: () => undefined },
    listeners: [
      {
        callDecided: (_run, _call, decision) => decisions.push(decision.action === 'allow' ? 'allow' : decision.reason),
        runStopped: (_run, decision) => {
          verdict = verdictOf(decision);
        },
      },
    ],
  });
  const live = new LiveSpanRuns({ guard });
  for (const [index, line] of lines.entries()) {
    const collector = new OtlpSpanCollector();
    expect(collector.addRequestLine(line, 'export', index + 1)).to.deep.equal([]);
    const answer = await live.ingest(collector.spans);
    expect(answer.problems).to.deep.equal([]);
  }
  live.endAll();
  return { verdict, decisions };
}

describe('every corpus run, played live through the span processor, gets the replay\'s verdict and decisions (real OTel SDK)', function () {
  this.timeout(600_000);
  useContextManager();
  let directory: string;
  before(() => {
    directory = mkdtempSync(join(tmpdir(), 'loopguard-corpus-live-'));
  });
  after(() => rmSync(directory, { recursive: true, force: true }));

  for (const [profile, record] of [['general', false], ['researcher', false], ['chat', false], ['general', true], ['chat', true]] as const) {
    it(`${profile} profile: live as in replay; its ${record ? 'export with arguments and results' : 'hashes-only export'}, replayed or sent to serve, decides as live`, async () => {
      const moved: string[] = [];
      let stopped = 0;
      for (const file of CORPUS_FILES) {
        const replayed = await recordedRun(join(CORPUS_DIR, file), profile);
        const live = await playedLive(profile, replayed.rounds, record);
        if (replayed.verdict !== 'finished') stopped++;
        const exported = join(directory, 'export.otlp.json');
        writeFileSync(exported, `${live.export.join('\n')}\n`);
        const fromExport = await recordedRun(exported, profile);
        const served = await servedFromExport(profile, live.export);
        const moves = [
          differenceFrom(file, replayed, 'in replay', live, 'live'),
          differenceFrom(file, live, 'live', fromExport, 'in the replay of its export'),
          differenceFrom(file, live, 'live', served, 'in serve, fed its export'),
        ];
        for (const move of moves) if (move !== undefined) moved.push(move);
      }
      // The comparison means something only if the replay stops runs in this profile.
      expect(stopped).to.be.above(50);
      expect(moved, moved.slice(0, 10).join('\n')).to.deep.equal([]);
    });
  }
});
