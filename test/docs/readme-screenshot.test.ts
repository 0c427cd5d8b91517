// The README's picture is produced here, from the demo's own runs, so it cannot go stale.
//
// Each `npm run demo` scenario is played unguarded through the real AI SDK loop (the demo's
// scripted model and tools), with the AI SDK's own OpenTelemetry spans going to an in-memory
// exporter: the recording a production app would have. Those spans, as OTLP JSON, go through
// `loopguard replay --format html` with the scenarios' tool policies, and headless Chromium
// photographs the report.
//
// "Stale" is judged on what the picture was taken of, not on its pixels (which differ between
// Chromium builds and font sets): the report HTML's SHA-256 is committed next to the picture.
// When the demo, replay or the renderer change the HTML, this test rewrites the picture and the
// hash and fails, so CI fails until they are committed. A missing picture fails the same way.
// UPDATE_README_SCREENSHOT=1 (npm run docs:screenshot) rewrites both and passes.
import { createHash } from 'node:crypto';
import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { PassThrough } from 'node:stream';
import { pathToFileURL } from 'node:url';
import { expect } from 'chai';
import { context } from '@opentelemetry/api';
import { AsyncLocalStorageContextManager } from '@opentelemetry/context-async-hooks';
import { generateText, stepCountIs, type ToolSet } from 'ai';
import { JsonTraceSerializer } from '@opentelemetry/otlp-transformer';
import { chromium } from 'playwright-core';
import { main } from '../../src/cli/main.js';
import { createDemoTools } from '../../examples/demo/demo-tools.js';
import { SCENARIOS } from '../../examples/demo/scenarios.js';
import { scriptedAgentModel } from '../../examples/demo/scripted-agent-model.js';
import { VirtualClock } from '../../examples/demo/virtual-clock.js';
import { REPO_ROOT } from '../cli/cli-test-helpers.js';
import { InMemorySpanExporter, SimpleSpanProcessor, TracerProvider } from '../helpers/otel-sdk.js';
import { AI_SDK_MAJOR, aiSdkTracing } from '../integrations/helpers/ai-sdk-telemetry.js';

const PICTURE = join(REPO_ROOT, 'docs', 'images', 'replay-report.png');
const PICTURE_HASH = `${PICTURE}.sha256`;
// Where the recording and the report are written (.tmp/ is git-ignored). The report names its
// input file, so the path is fixed and repository-relative: the HTML is the same on every machine.
const WORK = '.tmp/demo';
const CHROMIUM = '/usr/bin/chromium';
const CHROMIUM_ARGS = ['--headless', '--no-sandbox', '--disable-gpu', '--disable-background-networking', '--disable-component-update', '--disable-sync', '--no-first-run'];

/** The demo's scenarios, unguarded, recorded as the AI SDK's spans in OTLP JSON (one request). */
async function recordDemoRuns(): Promise<string> {
  // The AI SDK nests its spans through the active context, which needs a context manager.
  const manager = new AsyncLocalStorageContextManager().enable();
  const owned = context.setGlobalContextManager(manager);
  try {
    return await recordWithContext();
  } finally {
    if (owned) context.disable();
    else manager.disable();
  }
}

async function recordWithContext(): Promise<string> {
  const exporter = new InMemorySpanExporter();
  const provider = new TracerProvider({ spanProcessors: [new SimpleSpanProcessor({ exporter })] });
  for (const scenario of SCENARIOS) {
    const clock = new VirtualClock();
    const all = createDemoTools(clock, scenario.billing ?? { failuresBeforeRecovery: 0, failureMessage: '' });
    const tools: ToolSet = {};
    for (const name of scenario.tools) tools[name] = all.tools[name];
    await generateText({
      model: scriptedAgentModel(scenario.script, clock),
      prompt: scenario.prompt,
      tools,
      stopWhen: stepCountIs(40),
      ...aiSdkTracing(provider.getTracer('demo'), { functionId: scenario.id, runId: scenario.id }),
    });
  }
  await provider.forceFlush();
  const request = new TextDecoder().decode(JsonTraceSerializer.serializeRequest(exporter.getFinishedSpans())!);
  await provider.shutdown();
  return request;
}

/** Runs `loopguard replay --format html` in-process from the repository root; returns the HTML. */
async function replayToHtml(otlp: string): Promise<string> {
  mkdirSync(join(REPO_ROOT, WORK), { recursive: true });
  writeFileSync(join(REPO_ROOT, WORK, 'runs.otlp.json'), `${otlp}\n`);
  // The scenarios' own tool policies, under the default profile: what a user replaying these
  // recordings with one policy file would get.
  const policy = { tools: Object.assign({}, ...SCENARIOS.map((scenario) => scenario.policy.tools ?? {})) };
  writeFileSync(join(REPO_ROOT, WORK, 'policy.json'), JSON.stringify(policy));
  const cwd = process.cwd();
  process.chdir(REPO_ROOT);
  try {
    const stderr = new PassThrough();
    let errors = '';
    stderr.on('data', (chunk: Buffer) => (errors += chunk.toString('utf8')));
    const argv = ['replay', '--format', 'html', '--out', `${WORK}/report.html`, '--policy', `${WORK}/policy.json`, `${WORK}/runs.otlp.json`];
    const code = await main(argv, { stdin: new PassThrough(), stdout: new PassThrough(), stderr, env: {} });
    expect(code, errors).to.equal(0);
  } finally {
    process.chdir(cwd);
  }
  return readFileSync(join(REPO_ROOT, WORK, 'report.html'), 'utf8');
}

describe('README picture: the replay report of the demo runs, in headless Chromium', function () {
  this.timeout(120_000);
  let html: string;
  let png: Buffer;

  before(async function () {
    this.timeout(120_000);
    html = await replayToHtml(await recordDemoRuns());
    expect(existsSync(CHROMIUM), `${CHROMIUM} (apt-get install chromium)`).to.equal(true);
    const browser = await chromium.launch({ executablePath: CHROMIUM, args: CHROMIUM_ARGS });
    try {
      const page = await browser.newPage({ viewport: { width: 1280, height: 1180 }, deviceScaleFactor: 1 });
      await page.goto(pathToFileURL(join(REPO_ROOT, WORK, 'report.html')).href);
      png = await page.screenshot({ fullPage: false, type: 'png' });
    } finally {
      await browser.close();
    }
  });

  it('the report shows the demo loops stopped and the healthy runs finished', () => {
    for (const scenario of SCENARIOS) expect(html, scenario.id).to.include(scenario.id);
    expect(html).to.match(/stale_rounds/);
    expect(png.subarray(1, 4).toString('latin1')).to.equal('PNG');
    expect(png.length).to.be.greaterThan(10_000);
  });

  it('the committed picture was taken of today\'s report (else it is rewritten and this fails: commit it)', () => {
    // The sidecar holds the HTML's hash and the AI SDK major the recording was made with: the
    // Node 24 lane records through AI SDK 7, whose spans may differ in detail (usage), so there
    // the picture is only checked to exist; `npm test` (AI SDK 6) owns it.
    const hash = createHash('sha256').update(html).digest('hex');
    const [committedHash, committedSdk] = existsSync(PICTURE_HASH) ? readFileSync(PICTURE_HASH, 'utf8').trim().split(/\s+/) : [];
    const sdk = `ai@${AI_SDK_MAJOR}`;
    if (existsSync(PICTURE) && committedSdk !== undefined && committedSdk !== sdk && process.env.UPDATE_README_SCREENSHOT !== '1') return;
    const fresh = existsSync(PICTURE) && committedHash === hash;
    if (!fresh || process.env.UPDATE_README_SCREENSHOT === '1') {
      mkdirSync(join(REPO_ROOT, 'docs', 'images'), { recursive: true });
      writeFileSync(PICTURE, png);
      writeFileSync(PICTURE_HASH, `${hash} ${sdk}\n`);
    }
    expect(fresh || process.env.UPDATE_README_SCREENSHOT === '1', `docs/images/replay-report.png ${existsSync(PICTURE) && committedHash !== undefined ? 'was taken of an older report' : 'was missing'}: rewritten now; commit docs/images/replay-report.png and its .sha256`).to.equal(true);
  });
});
