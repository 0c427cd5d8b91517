import { expect } from 'chai';
import { PassThrough } from 'node:stream';
import pc from 'picocolors';
import { createJsonReportRenderer } from '../../src/replay/render-json-report.js';
import { renderRunBlock } from '../../src/replay/render-text-report.js';
import { ReportOutput } from '../../src/replay/report-output.js';
import { replayFiles, runNamed, writeTempLines, type CollectedRun } from './replay-test-helpers.js';
import type { RunReport } from '../../src/replay/run-report.js';

const plain = pc.createColors(false);

function asReport(run: CollectedRun): RunReport {
  return { ...run, decisions: () => run.decisions[Symbol.iterator]() };
}

describe('report renderers', () => {
  it('json: a run longer than one write chunk is still one valid line with every decision', async () => {
    const lines: object[] = [];
    for (let i = 1; i <= 5000; i++) lines.push({ run: 'long', round: i, tool: 'page', args: { n: i }, result: { n: i } });
    const { runs } = await replayFiles([writeTempLines('long.jsonl', lines)], { maxToolCalls: 1_000_000, maxRounds: 1_000_000 });
    const sink = new PassThrough();
    let text = '';
    sink.on('data', (chunk: Buffer) => (text += chunk.toString('utf8')));
    const renderer = createJsonReportRenderer(new ReportOutput(sink));
    await renderer.run(asReport(runNamed(runs, 'long')));
    expect(text.endsWith('\n')).to.equal(true);
    expect(text.trim().split('\n')).to.have.length(1);
    const parsed = JSON.parse(text);
    expect(parsed.decisions).to.have.length(5000);
    expect(parsed.decisions.at(-1)).to.deep.equal({ call: 5000, round: 5000, tool: 'page', decision: 'allow', novelty: 'new' });
  });

  it('text: a very long run draws its start and end and counts the rounds in between', async () => {
    const lines: object[] = [];
    for (let i = 1; i <= 1500; i++) lines.push({ run: 'very-long', round: i, tool: 'page', args: { n: i }, result: { n: i } });
    const { runs } = await replayFiles([writeTempLines('very-long.jsonl', lines)], { maxToolCalls: 1_000_000, maxRounds: 1_000_000 });
    const block = renderRunBlock(asReport(runNamed(runs, 'very-long')), plain);
    expect(block).to.match(/… 960 rounds not drawn …/);
    const glyphs = (block.match(/\+/g) ?? []).length;
    expect(glyphs).to.equal(540);
    expect(block).to.match(/1500 rounds/);
  });

  it('text: a stop decided after the last round says nothing was left to skip', async () => {
    const lines: object[] = [];
    for (let i = 1; i <= 6; i++) lines.push({ run: 'ends-stale', round: i, tool: 'search', args: { q: i }, result: { same: 'document' } });
    const { runs } = await replayFiles([writeTempLines('ends-stale.jsonl', lines)], { escalation: { enabled: false } });
    const run = runNamed(runs, 'ends-stale');
    expect(run.stop?.reason).to.equal('stale_rounds');
    expect(run.skipped).to.equal(0);
    expect(run.stop!.call).to.equal(6);
    const block = renderRunBlock(asReport(run), plain);
    expect(block).to.match(/STOP stale_rounds at the end \(round 6, nothing left to skip\)/);
    expect(block).to.not.match(/\|/);
  });

  it('text: usage recorded on a later line of a round is counted once for that round', async () => {
    const lines: object[] = [
      { run: 'u', round: 1, tool: 'a', args: { q: 1 }, result: 1 },
      { run: 'u', round: 1, tool: 'b', args: { q: 1 }, result: 2, usage: { inputTokens: 100, outputTokens: 5 } },
      { run: 'u', round: 1, tool: 'c', args: { q: 1 }, result: 3, usage: { inputTokens: 100, outputTokens: 5 } },
      { run: 'u', round: 2, tool: 'a', args: { q: 2 }, result: 4, usage: { inputTokens: 200, outputTokens: 5 } },
    ];
    const run = runNamed((await replayFiles([writeTempLines('usage.jsonl', lines)])).runs, 'u');
    expect(run.usage).to.deep.equal({ inputTokens: 300, outputTokens: 10 });
    expect(run.saved).to.deep.equal({ calls: 0, tokens: 0 });
  });
});
