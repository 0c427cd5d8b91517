import { expect } from 'chai';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { setFlagsFromString } from 'node:v8';
import { runInNewContext } from 'node:vm';
import { replayInputs } from '../../src/replay/replay-inputs.js';
import { createHtmlReportRenderer } from '../../src/replay/render-html-report.js';
import { createJsonReportRenderer } from '../../src/replay/render-json-report.js';
import { createTextReportRenderer } from '../../src/replay/render-text-report.js';
import { ReportOutput } from '../../src/replay/report-output.js';
import type { ReplayDecision, ReplayRoundVerdict, RunReport } from '../../src/replay/run-report.js';
import { otlpLines, type SpanSpec } from './otlp-test-helpers.js';
import { replayFiles, runNamed, tempDir, writeTempLines } from './replay-test-helpers.js';
import { Writable } from 'node:stream';

const HOUR = 3_600_000;
const T0 = 1_700_000_000_000;

describe('issue 10: replay', () => {
  it('issue 10 #17: interleaved runs do not age each other; each run gets the same verdict alone and interleaved', async () => {
    const a = [1, 2, 3].map((round) => ({ run: 'a', round, tool: 'search', args: { q: `a${round}` }, result: { n: round }, ts: T0 + round * 1000 }));
    const b = { run: 'b', round: 1, tool: 'search', args: { q: 'b' }, result: { n: 1 }, ts: T0 + 2 * HOUR };
    const c = { run: 'c', round: 1, tool: 'search', args: { q: 'c' }, result: { n: 1 }, ts: T0 + 2 * HOUR + 1000 };
    const alone = await replayFiles([writeTempLines('i17-alone.jsonl', a)]);
    const interleaved = await replayFiles([writeTempLines('i17-interleaved.jsonl', [a[0], b, c, a[1], a[2]])]);
    const strip = (run: { decisions: ReplayDecision[]; stop: unknown; refused: number; skipped: number; saved: unknown }) => ({
      decisions: run.decisions,
      stop: run.stop,
      refused: run.refused,
      skipped: run.skipped,
      saved: run.saved,
    });
    const aInterleaved = runNamed(interleaved.runs, 'a');
    expect(aInterleaved.decisions.map((d) => d.decision)).to.deep.equal(['allow', 'allow', 'allow']);
    expect(strip(aInterleaved)).to.deep.equal(strip(runNamed(alone.runs, 'a')));
    expect(interleaved.summary.savedCalls).to.equal(0);
  });

  it('issue 10 #19: a transcript run is reported and freed at its last line, not when the file ends (interleaving stays legal)', async () => {
    const lines = [
      { run: 'a', round: 1, tool: 't', args: { n: 1 }, result: 1 },
      { run: 'b', round: 1, tool: 't', args: { n: 1 }, result: 1 },
      { run: 'a', round: 2, tool: 't', args: { n: 2 }, result: 2 },
      { run: 'c', round: 1, tool: 't', args: { n: 1 }, result: 1 },
      'not json',
      { run: 'c', round: 1, tool: 't', args: { n: 2 } },
    ];
    const events: string[] = [];
    const summary = await replayInputs({
      files: [writeTempLines('i19-order.jsonl', lines)],
      engineOptions: {},
      onCall: (call) => events.push(`call ${call.run}:${call.source.line}`),
      onRun: (report) => void events.push(`run ${report.run} (${report.calls})`),
      onProblem: (problem) => events.push(`problem ${problem.message.split(':').slice(1, 2).join('')}`),
    });
    expect(events).to.deep.equal([
      'call a:1',
      'call b:2',
      'run b (1)',
      'call a:3',
      'run a (2)',
      'call c:4',
      'problem 5',
      // Line 6 is bad (no result), but it is still run c's last line: c ends there.
      'problem 6',
      'run c (1)',
    ]);
    expect(summary.runs).to.equal(3);
  });

  it('issue 10 #19: memory of finished runs is released while the file is read (one-call runs)', async () => {
    setFlagsFromString('--expose-gc');
    const gc = runInNewContext('gc') as () => void;
    const count = 20_000;
    const path = join(tempDir(), 'i19-many.jsonl');
    const text: string[] = [];
    for (let i = 0; i < count; i++) text.push(JSON.stringify({ run: `run-${i}`, round: 1, tool: 'search', args: { q: i }, result: { n: i } }));
    writeFileSync(path, text.join('\n') + '\n');
    const heapAt = new Map<number, number>();
    let calls = 0;
    const summary = await replayInputs({
      files: [path],
      engineOptions: {},
      onCall: () => {
        calls++;
        if (calls === 2_000 || calls === count) {
          gc();
          heapAt.set(calls, process.memoryUsage().heapUsed);
        }
      },
      onRun: () => undefined,
      onProblem: (problem) => {
        throw problem;
      },
    });
    expect(summary.runs).to.equal(count);
    const perRun = ((heapAt.get(count) as number) - (heapAt.get(2_000) as number)) / (count - 2_000);
    // Held open, a run costs several KB; finished and freed, only its index entry remains.
    expect(perRun).to.be.below(1_000);
  });

  it('issue 10 #20: a line over the line-length cap is bad input at file:line, and reading the file stops there', async () => {
    const file = writeTempLines('i20-long.jsonl', [
      { run: 'ok', round: 1, tool: 't', args: {}, result: 1 },
      'x'.repeat(5_000),
      { run: 'after', round: 1, tool: 't', args: {}, result: 1 },
    ]);
    const problems: string[] = [];
    const runs: string[] = [];
    const summary = await replayInputs({
      files: [file],
      engineOptions: {},
      maxLineBytes: 1024,
      onRun: (report) => void runs.push(report.run),
      onProblem: (problem) => problems.push(problem.message),
    });
    expect(problems).to.have.length(1);
    expect(problems[0]).to.match(/i20-long\.jsonl:2: line longer than 1024 bytes .*the rest of the file is skipped/);
    expect(runs).to.deep.equal(['ok']);
    expect(summary.problems).to.equal(1);
  });

  it('issue 10 #21: an empty file and a file of blank lines are file:line errors', async () => {
    const emptyFile = join(tempDir(), 'i21-empty.jsonl');
    writeFileSync(emptyFile, '');
    const blankFile = join(tempDir(), 'i21-blank.jsonl');
    writeFileSync(blankFile, '\n  \n\n');
    const { problems, summary } = await replayFiles([emptyFile, blankFile]);
    expect(problems).to.have.length(2);
    expect(problems[0]).to.match(/i21-empty\.jsonl:1: the input is empty/);
    expect(problems[1]).to.match(/i21-blank\.jsonl:3: the input has only blank lines/);
    expect(summary.problems).to.equal(2);
  });

  it('issue 10 #21: invalid UTF-8 is a file:line error, not silently replaced (two different arguments stay two calls)', async () => {
    const file = join(tempDir(), 'i21-utf8.jsonl');
    const line = (byte: number): Buffer =>
      Buffer.concat([Buffer.from('{"run":"u","round":1,"tool":"t","args":{"q":"'), Buffer.from([byte]), Buffer.from('"},"result":1}\n')]);
    writeFileSync(file, Buffer.concat([line(0xff), line(0xfe), Buffer.from('{"run":"u","round":2,"tool":"t","args":{"q":"ok"},"result":2}\n')]));
    const { problems, runs } = await replayFiles([file]);
    expect(problems).to.have.length(2);
    expect(problems[0]).to.match(/i21-utf8\.jsonl:1: not valid UTF-8/);
    expect(problems[1]).to.match(/i21-utf8\.jsonl:2: not valid UTF-8/);
    expect(runNamed(runs, 'u').calls).to.equal(1);
  });

  const trace = 'b'.repeat(32);
  const tool = (id: string, parent: string, start: number, q: string): SpanSpec => ({
    traceId: trace,
    spanId: id,
    parentSpanId: parent,
    name: 'execute_tool search',
    startMs: start,
    endMs: start + 1,
    attributes: { 'gen_ai.operation.name': 'execute_tool', 'gen_ai.tool.name': 'search', 'gen_ai.tool.call.arguments': JSON.stringify({ q }), 'gen_ai.tool.call.result': '1' },
  });
  const agent = (id: string, conversation: string): SpanSpec => ({
    traceId: trace,
    spanId: id,
    name: 'invoke_agent',
    startMs: 0,
    endMs: 100,
    attributes: { 'gen_ai.operation.name': 'invoke_agent', 'gen_ai.conversation.id': conversation },
  });

  it('issue 10 #21: a cycle in OTLP parent links is a file:line error', async () => {
    const loopA: SpanSpec = { traceId: trace, spanId: '00000000000000a1', parentSpanId: '00000000000000a2', name: 'step', startMs: 0, endMs: 1 };
    const loopB: SpanSpec = { traceId: trace, spanId: '00000000000000a2', parentSpanId: '00000000000000a1', name: 'step', startMs: 0, endMs: 1 };
    const file = writeTempLines('i21-cycle.otlp.json', [...otlpLines([loopA], 1), ...otlpLines([loopB, tool('00000000000000a3', loopA.spanId, 5, 'x')], 2)]);
    const { problems } = await replayFiles([file]);
    expect(problems.some((p) => /i21-cycle\.otlp\.json:[12]: .*cycle/.test(p)), problems.join('\n')).to.equal(true);
  });

  it('issue 10 #21: a duplicate OTLP span id is a file:line error (the later span is skipped, not silently merged)', async () => {
    const first = agent('00000000000000c1', 'first');
    const second = agent('00000000000000c1', 'second');
    const file = writeTempLines('i21-dup.otlp.json', [
      ...otlpLines([first, tool('00000000000000c2', first.spanId, 5, 'a')], 2),
      ...otlpLines([second, tool('00000000000000c3', second.spanId, 6, 'b')], 2),
    ]);
    const { problems } = await replayFiles([file]);
    expect(problems.some((p) => /i21-dup\.otlp\.json:2: .*spanId 00000000000000c1 .*already/.test(p)), problems.join('\n')).to.equal(true);
  });
});

class StringSink extends Writable {
  text = '';
  override _write(chunk: Buffer | string, _encoding: BufferEncoding, callback: () => void): void {
    this.text += chunk.toString();
    callback();
  }
}

function fakeReport(overrides: Partial<RunReport> & { decisionList?: ReplayDecision[] }): RunReport {
  const decisionList = overrides.decisionList ?? [];
  const report: RunReport = {
    run: 'r',
    file: 'f.jsonl',
    profile: 'general',
    calls: decisionList.length,
    executed: decisionList.filter((d) => d.decision === 'allow').length,
    refused: decisionList.filter((d) => d.decision === 'refuse').length,
    skipped: decisionList.filter((d) => d.decision === 'skip').length,
    rounds: 0,
    stop: null,
    saved: { calls: 0 },
    roundVerdicts: [],
    decisions: () => decisionList[Symbol.iterator](),
    ...overrides,
  };
  return report;
}

const emptySummary = {
  profile: 'general' as const,
  files: 1,
  runs: 1,
  stoppedRuns: 0,
  runsWithRefusals: 0,
  calls: 0,
  executed: 0,
  refused: 0,
  skipped: 0,
  savedCalls: 0,
  problems: 0,
  stopReasons: {},
};

async function renderText(report: RunReport, color = false): Promise<string> {
  const sink = new StringSink();
  const renderer = createTextReportRenderer(new ReportOutput(sink), { color });
  await renderer.begin();
  await renderer.run(report);
  await renderer.end(emptySummary, []);
  return sink.text;
}

async function renderHtml(report: RunReport): Promise<string> {
  const sink = new StringSink();
  const renderer = createHtmlReportRenderer(new ReportOutput(sink));
  await renderer.begin();
  await renderer.run(report);
  await renderer.end(emptySummary, []);
  return sink.text;
}

describe('issue 10: replay reports', () => {
  it('issue 10 #23: control characters in run ids, files, tool names and messages are escaped in the text and JSON reports', async () => {
    const evil = 'run\x1b[2J\x1b[32mOK\x9b31m\x07';
    const decisionList: ReplayDecision[] = [{ call: 1, round: 1, tool: 'to\x1bol', decision: 'refuse', reason: 'repeat.run_wide' }];
    const report = fakeReport({
      run: evil,
      file: 'f\x1b]0;title\x07.jsonl',
      rounds: 1,
      roundVerdicts: ['refused'],
      decisionList,
      stop: { reason: 'refused_rounds', round: 1, call: 1, detail: 'detail \x1b[1A' },
    });
    for (const color of [false, true]) {
      const text = await renderText(report, color);
      const withoutColors = text.replace(/\x1b\[[0-9;]*m/g, '');
      expect(withoutColors).to.not.match(/[\x00-\x09\x0b-\x1f\x7f-\x9f]/);
      expect(withoutColors).to.include('run\\x1b[2J\\x1b[32mOK\\x9b31m\\x07');
    }
    const sink = new StringSink();
    const json = createJsonReportRenderer(new ReportOutput(sink));
    await json.run(report);
    expect(sink.text).to.not.match(/[\x00-\x09\x0b-\x1f\x7f-\x9f]/);
    expect(JSON.parse(sink.text).run).to.equal(evil);
  });

  it('issue 10 #25: the "why" line is derived from the same round counts as the timeline', async () => {
    const verdicts: ReplayRoundVerdict[] = ['new', 'stale', 'stale', 'stale', 'refused', 'refused', 'skipped', 'skipped'];
    const decisionList: ReplayDecision[] = verdicts.map((verdict, index) => ({
      call: index + 1,
      round: index + 1,
      tool: 'search',
      ...(verdict === 'new'
        ? { decision: 'allow' as const, novelty: 'new' as const }
        : verdict === 'stale'
          ? { decision: 'allow' as const, novelty: 'seen' as const }
          : verdict === 'refused'
            ? { decision: 'refuse' as const, reason: 'tool.disabled' as const }
            : { decision: 'skip' as const, reason: 'run.stopped' as const }),
    }));
    const report = fakeReport({
      rounds: 8,
      roundVerdicts: verdicts,
      decisionList,
      stop: { reason: 'stale_rounds', round: 6, call: 6, detail: 'the last 5 rounds returned only results already seen' },
    });
    const text = await renderText(report);
    expect(text).to.include('+===xx|..');
    const why = text.split('\n').find((line) => line.trimStart().startsWith('why')) ?? '';
    expect(why).to.not.include('the last 5 rounds returned only results already seen');
    expect(why).to.match(/rounds 2–6/);
    expect(why).to.match(/3 returned only results already seen \(=\)/);
    expect(why).to.match(/2 had every call refused \(x\)/);
  });

  it('issue 10 #25: errors get their own mark (text and HTML), and tool names are visible in the HTML, not only on hover', async () => {
    const decisionList: ReplayDecision[] = [
      { call: 1, round: 1, tool: 'search_docs', decision: 'allow', novelty: 'new' },
      { call: 2, round: 2, tool: 'fetch_page', decision: 'allow', novelty: 'new', failed: true },
    ];
    const report = fakeReport({ rounds: 2, roundVerdicts: ['new', 'new'], decisionList });
    const text = await renderText(report);
    expect(text).to.match(/rounds +1 \+!/);
    expect(text).to.match(/! only errors/);
    const html = await renderHtml(report);
    const errorCell = /<rect class="call" data-call="2"[^>]*>/.exec(html)?.[0] ?? '';
    expect(errorCell).to.include('data-outcome="error"');
    expect(errorCell).to.not.include('#2e9d4f');
    expect(html).to.not.match(/call 2 [^<]*new result/);
    const visible = html.replace(/<title>[\s\S]*?<\/title>/g, '').replace(/<[^>]+>/g, ' ');
    expect(visible).to.include('search_docs');
    expect(visible).to.include('fetch_page');
  });
});
