// `npm run demo` as a newcomer runs it: a child process, no API key, no network. It must exit
// 0, finish in seconds and print the verdicts the README promises.
import { spawnSync } from 'node:child_process';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { expect } from 'chai';

import { DocumentIndex } from '../../../examples/demo/document-index.js';
import { REWORDED_QUERIES } from '../../../examples/demo/scenarios.js';

const ROOT = join(dirname(fileURLToPath(import.meta.url)), '..', '..', '..');

function runDemo(colour: boolean): { output: string; status: number | null; wallMs: number } {
  const env: NodeJS.ProcessEnv = { ...process.env, ...(colour ? { FORCE_COLOR: '1' } : { NO_COLOR: '1', FORCE_COLOR: '0' }) };
  if (colour) delete env.NO_COLOR;
  delete env.OTEL_EXPORTER_OTLP_ENDPOINT;
  delete env.OPENAI_API_KEY;
  const started = Date.now();
  const result = spawnSync('npm', ['run', '--silent', 'demo'], { cwd: ROOT, env, encoding: 'utf8' });
  return { output: `${result.stdout}${result.stderr}`, status: result.status, wallMs: Date.now() - started };
}

describe('npm run demo', function () {
  this.timeout(60_000);
  let output = '';
  let status: number | null = null;
  let wallMs = 0;

  before(() => {
    ({ output, status, wallMs } = runDemo(false));
  });

  it('exits 0 within seconds, without a key', () => {
    expect(status, output).to.equal(0);
    expect(wallMs).to.be.lessThan(30_000);
    expect(output).to.include('all 6 scenarios behaved as expected');
  });

  it('prints the summary table first, right after the short intro, and the totals again at the end', () => {
    const lines = output.split('\n');
    const summary = lines.findIndex((line) => line.startsWith('summary'));
    const firstScenario = lines.findIndex((line) => line.startsWith('1/6  Reworded search'));
    expect(summary, output).to.be.within(1, 10);
    expect(firstScenario).to.be.greaterThan(summary + 8);
    expect(lines.slice(summary, firstScenario).join('\n')).to.match(/An honest retry\s+✔ left alone[\s\S]*total saved[\s\S]*all 6 scenarios behaved as expected/);
    expect(lines.filter((line) => line.includes('all 6 scenarios behaved as expected'))).to.have.length(2);
    expect(lines.filter(Boolean).at(-1)).to.match(/^ {2}demo finished in [\d.]+ s$/);
  });

  it('has no trailing whitespace on any line, with colours off and on', () => {
    const trailing = (text: string) => text.split('\n').filter((line) => /\s$/.test(line));
    expect(trailing(output)).to.deep.equal([]);
    const coloured = runDemo(true);
    expect(coloured.status, coloured.output).to.equal(0);
    expect(coloured.output).to.match(/\x1b\[/); // colours really were on
    expect(trailing(coloured.output.replace(/\x1b\[[0-9;]*m/g, ''))).to.deep.equal([]);
  });

  it('the scripted model calls only tools it is offered: search taken away, it answers', () => {
    expect(output).to.match(/round {2}5 {2}searchDocuments\s+only results seen before\s+→ nudge, searchDocuments taken away\n\s+round {2}6 {2}answer\n/);
    expect(output).to.include('taken    searchDocuments after round 5: no longer offered to the model');
    // In the AI SDK scenarios a disabled tool is taken away, never refused (the MCP integration,
    // which cannot take a tool away, does refuse `tool.disabled`: its section comes after).
    expect(output.slice(0, output.indexOf('── integration:'))).not.to.include('tool.disabled');
  });

  it('labels failed rounds as failures, not new facts', () => {
    const honest = output.slice(output.indexOf('6/6  An honest retry'));
    expect(honest).to.match(/round {2}1 {2}fetchInvoice\s+failed \(overloaded\)\n/);
    expect(honest).to.match(/round {2}2 {2}fetchInvoice\s+failed \(overloaded\), a retry\n/);
    expect(honest).to.match(/round {2}3 {2}fetchInvoice\s+new facts\n/);
    const counter = output.slice(output.indexOf('3/6  Retry with an attempt counter'), output.indexOf('4/6'));
    expect(counter).to.match(/round {2}1 {2}fetchInvoice\s+failed \(error\)\n/);
    expect(counter).to.match(/round {2}6 {2}fetchInvoice\s+failed \(error\), same error\s+→ tool use ends/);
    expect(counter).not.to.match(/new facts|waiting/);
  });

  it('catches the three loops, each with its reason', () => {
    expect(output).to.match(/Reworded search, same documents\s+✔ caught: searchDocuments taken away/);
    expect(output).to.match(/The exact repeat\s+✔ caught: repeat\.back_to_back/);
    expect(output).to.match(/Retry with an attempt counter\s+✔ caught: consecutive_failures/);
    expect(output).to.include('told: “Not run: this is call 3 in a row to getSiteId with the same arguments.');
    expect(output).to.include('✔ loop caught: searchDocuments taken away after round 5; the model answered from what it had');
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
