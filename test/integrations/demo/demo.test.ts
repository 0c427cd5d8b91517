// `npm run demo` as a newcomer runs it: a child process, no API key, no network. It must exit
// 0, finish in seconds and print the verdicts the README promises.
import { spawnSync } from 'node:child_process';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { expect } from 'chai';

import { DocumentIndex } from '../../../examples/demo/document-index.js';
import { REWORDED_QUERIES } from '../../../examples/demo/scenarios.js';

const ROOT = join(dirname(fileURLToPath(import.meta.url)), '..', '..', '..');

describe('npm run demo', function () {
  this.timeout(60_000);
  let output = '';
  let status: number | null = null;
  let wallMs = 0;

  before(() => {
    const env: NodeJS.ProcessEnv = { ...process.env, NO_COLOR: '1', FORCE_COLOR: '0' };
    delete env.OTEL_EXPORTER_OTLP_ENDPOINT;
    delete env.OPENAI_API_KEY;
    const started = Date.now();
    const result = spawnSync('npm', ['run', '--silent', 'demo'], { cwd: ROOT, env, encoding: 'utf8' });
    wallMs = Date.now() - started;
    output = `${result.stdout}${result.stderr}`;
    status = result.status;
  });

  it('exits 0 within seconds, without a key', () => {
    expect(status, output).to.equal(0);
    expect(wallMs).to.be.lessThan(30_000);
    expect(output).to.include('all 6 scenarios behaved as expected');
  });

  it('catches the three loops, each with its reason', () => {
    expect(output).to.match(/Reworded search, same documents\s+✔ caught: stale_rounds/);
    expect(output).to.match(/The exact repeat\s+✔ caught: repeat\.back_to_back/);
    expect(output).to.match(/Retry with an attempt counter\s+✔ caught: consecutive_failures/);
    expect(output).to.include('told: “Not run: this is call 3 in a row to getSiteId with the same arguments.');
    expect(output).to.include('stopped  stale_rounds after round 7: the last 5 rounds returned only results already seen');
    // A transient failure ("unavailable") keeps its retry budget: the first try and 5 retries
    // run, and the failure that spends the budget stops the run (issue 10 #6).
    expect(output).to.include('stopped  consecutive_failures after round 6: fetchInvoice failed 6 times in a row');
  });

  it('leaves polling, pagination and the honest retry alone', () => {
    expect(output).to.match(/Polling an export to completion\s+✔ left alone\s+0\s+0/);
    expect(output).to.match(/Paging through the audit log\s+✔ left alone\s+0\s+0/);
    expect(output).to.match(/An honest retry\s+✔ left alone\s+0/);
  });

  it('prints a progress line per round and the saving against the unguarded run', () => {
    expect(output).to.match(/round {2}3 {2}searchDocuments\s+only results seen before\s+→ nudge/);
    expect(output).to.match(/round {2}5 {2}searchDocuments\s+only results seen before\s+→ nudge, searchDocuments taken away/);
    expect(output).to.match(/round {2}3 {2}getExportStatus\s+waiting \(poll\)/);
    expect(output).to.match(/without\s+19 model calls · 18 tool calls/);
    expect(output).to.match(/total saved {2}24 tool calls, [\d,]+ tokens/);
  });

  it('the reworded queries of scenario 1 really return the same pages from the bundled corpus', () => {
    const index = new DocumentIndex();
    const first = JSON.stringify(index.search(REWORDED_QUERIES[0]));
    for (const query of REWORDED_QUERIES) expect(JSON.stringify(index.search(query)), query).to.equal(first);
  });
});
