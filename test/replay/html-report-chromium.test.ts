import { expect } from 'chai';
import { createWriteStream, existsSync } from 'node:fs';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { chromium, type Browser } from 'playwright-core';
import { readFileSync } from 'node:fs';
import type { LoopGuardOptions } from '../../src/core/types.js';
import { replayInputs } from '../../src/replay/replay-inputs.js';
import { createHtmlReportRenderer } from '../../src/replay/render-html-report.js';
import { ReportOutput } from '../../src/replay/report-output.js';
import { EXAMPLE_POLICY, EXAMPLES_DIR, tempDir, writeTempLines, loadExamplePolicy } from './replay-test-helpers.js';

const CHROMIUM = '/usr/bin/chromium';
const CHROMIUM_ARGS = [
  '--headless', '--no-sandbox', '--disable-gpu', '--disable-quic', '--no-first-run',
  '--disable-background-networking', '--disable-component-update', '--disable-sync',
];

async function writeHtmlReport(files: string[], out: string, policy: LoopGuardOptions): Promise<void> {
  const stream = createWriteStream(out);
  const renderer = createHtmlReportRenderer(new ReportOutput(stream));
  await renderer.begin();
  const problems: string[] = [];
  const summary = await replayInputs({ files, engineOptions: policy, onRun: (r) => renderer.run(r), onProblem: (p) => problems.push(p.message) });
  await renderer.end(summary, problems);
  await new Promise<void>((resolve) => stream.end(resolve));
}

describe('HTML report in headless Chromium', function () {
  this.timeout(60_000);
  let browser: Browser;

  before(async function () {
    // .ci/run installs Debian's chromium; the test must run there, so a missing browser fails loudly.
    expect(existsSync(CHROMIUM), `${CHROMIUM} (apt-get install chromium)`).to.equal(true);
    browser = await chromium.launch({ executablePath: CHROMIUM, args: CHROMIUM_ARGS });
  });
  after(async () => {
    await browser?.close();
  });

  it('renders a timeline per run: rounds as columns, calls by decision and novelty, the stop marked with its reason', async () => {
    const policy = loadExamplePolicy();
    const names = ['reworded-search', 'exact-repeat', 'pagination', 'polling-to-completion'];
    const bad = writeTempLines('html-bad.jsonl', ['{"run": 1}']);
    const out = join(tempDir(), 'report.html');
    await writeHtmlReport([...names.map((n) => join(EXAMPLES_DIR, `${n}.jsonl`)), bad], out, policy);

    const page = await browser.newPage();
    const requests: string[] = [];
    page.on('request', (request) => {
      if (!request.url().startsWith('file:')) requests.push(request.url());
    });
    await page.goto(pathToFileURL(out).href);

    const runs = await page.$$eval('section.run', (sections) =>
      sections.map((section) => {
        const svg = section.querySelector('svg.timeline') as SVGSVGElement;
        const box = svg.getBoundingClientRect();
        const cells = [...svg.querySelectorAll('rect.call')] as SVGRectElement[];
        const marker = svg.querySelector('g.stop-marker');
        return {
          run: section.getAttribute('data-run'),
          stopped: section.getAttribute('data-stopped'),
          width: box.width,
          height: box.height,
          cells: cells.length,
          decisions: cells.map((c) => c.getAttribute('data-decision')),
          novelty: cells.map((c) => c.getAttribute('data-novelty')),
          columns: new Set(cells.map((c) => c.getAttribute('x'))).size,
          fills: new Set(cells.map((c) => getComputedStyle(c).fill)).size,
          marker: marker ? marker.getAttribute('data-reason') : null,
          markerText: marker ? (marker.textContent ?? '') : null,
          markerVisible: marker ? (marker as SVGGElement).getBoundingClientRect().height > 0 : false,
        };
      }),
    );
    expect(runs.map((r) => r.run)).to.deep.equal(names);
    for (const run of runs) {
      expect(run.width, run.run!).to.be.greaterThan(100);
      expect(run.height, run.run!).to.be.greaterThan(20);
    }
    const [reworded, repeat, pagination, polling] = runs;
    expect(reworded.cells).to.equal(21);
    expect(reworded.columns).to.equal(21);
    expect(reworded.stopped).to.equal('true');
    expect(reworded.marker).to.equal('stale_rounds');
    expect(reworded.markerText).to.equal('stop: stale_rounds');
    expect(reworded.markerVisible).to.equal(true);
    expect(reworded.novelty).to.include.members(['new', 'seen']);
    expect(reworded.decisions).to.include('skip');
    // New, seen, refused and skipped calls are drawn in different colours.
    expect(reworded.fills).to.be.at.least(3);
    expect(repeat.marker).to.equal('refused_rounds');
    expect(repeat.decisions.filter((d) => d === 'refuse').length).to.be.greaterThan(0);
    expect(await page.textContent('section.run[data-run="exact-repeat"] p.refusals')).to.match(/refused: repeat\.run_wide ×\d+/);
    expect(pagination.marker).to.equal(null);
    expect(pagination.decisions.every((d) => d === 'allow')).to.equal(true);
    expect(polling.stopped).to.equal('false');

    // The summary table is shown first and lists every run; the bad line is listed too.
    const summaryFirst = await page.$eval('body', (body) => {
      const summary = body.querySelector('section.summary') as HTMLElement;
      const firstRun = body.querySelector('section.run') as HTMLElement;
      return summary.getBoundingClientRect().top < firstRun.getBoundingClientRect().top;
    });
    expect(summaryFirst).to.equal(true);
    const rows = await page.$$eval('section.summary tbody tr', (trs) => trs.map((tr) => tr.getAttribute('data-run')));
    expect(rows).to.deep.equal(names);
    expect(await page.textContent('section.summary details.problems')).to.match(/html-bad\.jsonl:1: "run" must be a non-empty string/);
    expect(requests).to.deep.equal([]);
    await page.close();
  });
});
