// The package as a new user gets it: `npm pack` of a copy of this repository (so the build that
// `prepack` runs never touches the repo's own dist/), installed into fresh consumer projects in
// temp directories with only the dependencies each kind of user has. Then: strict type-checks
// without skipLibCheck (nodenext and bundler), ESM import and CommonJS require guarding calls,
// the CLI, the missing-peer error of loopguard/telemetry, and the well-kept checkers
// (@arethetypeswrong/cli, publint) on the tarball itself.
import { execFile } from 'node:child_process';
import { cpSync, existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { expect } from 'chai';
import { REPO_ROOT } from '../cli/cli-test-helpers.js';

const requireFromRepo = createRequire(join(REPO_ROOT, 'package.json'));
const TSC = requireFromRepo.resolve('typescript/bin/tsc');
const ATTW = binOf('@arethetypeswrong/cli', 'attw');
const PUBLINT = binOf('publint', 'publint');
const repoPackage = JSON.parse(readFileSync(join(REPO_ROOT, 'package.json'), 'utf8')) as { files: string[]; exports: Record<string, unknown> };

/** The versions this checkout is tested with (OTel 2 + AI SDK 6 on Node 20, 3 + 7 on the Node 24 lane). */
const installed = (name: string): string =>
  (JSON.parse(readFileSync(join(REPO_ROOT, 'node_modules', name, 'package.json'), 'utf8')) as { version: string }).version;

interface Run {
  code: number | null;
  stdout: string;
  stderr: string;
}

function run(command: string, args: string[], cwd: string): Promise<Run> {
  return new Promise((resolve) => {
    execFile(command, args, { cwd, maxBuffer: 64 * 1024 * 1024, env: { ...process.env, NO_COLOR: '1', FORCE_COLOR: '0' } }, (error, stdout, stderr) => {
      const code = error === null ? 0 : typeof error.code === 'number' ? error.code : 1;
      resolve({ code, stdout, stderr });
    });
  });
}

const node = (args: string[], cwd: string): Promise<Run> => run(process.execPath, args, cwd);

function expectSuccess(result: Run, what: string): void {
  expect(result.code, `${what} failed:\n${result.stdout}\n${result.stderr}`).to.equal(0);
}

function binOf(name: string, bin: string): string {
  const manifestPath = join(REPO_ROOT, 'node_modules', name, 'package.json'); // publint exports no ./package.json
  const manifest = JSON.parse(readFileSync(manifestPath, 'utf8')) as { bin: string | Record<string, string> };
  return join(dirname(manifestPath), typeof manifest.bin === 'string' ? manifest.bin : manifest.bin[bin]!);
}

function writeFiles(dir: string, files: Record<string, string>): void {
  mkdirSync(dir, { recursive: true });
  for (const [name, text] of Object.entries(files)) writeFileSync(join(dir, name), text);
}

/** `module: nodenext` and `moduleResolution: bundler`, both strict, skipLibCheck explicitly off. */
function tsconfigs(files: string[], types: string[] | undefined): Record<string, string> {
  const base = { strict: true, skipLibCheck: false, noEmit: true, target: 'es2022', ...(types ? { types } : {}) };
  return {
    'tsconfig.nodenext.json': JSON.stringify({ compilerOptions: { ...base, module: 'nodenext', moduleResolution: 'nodenext' }, files }),
    'tsconfig.bundler.json': JSON.stringify({ compilerOptions: { ...base, module: 'esnext', moduleResolution: 'bundler' }, files }),
  };
}

// Guards a loop that repeats one call: the engine must refuse before the fifth attempt.
const GUARD_LOOP = `
const run = new LoopGuard().startRun('consumer');
const call = { tool: 'search', args: { q: 'loop guard' } };
const decisions = [];
for (let attempt = 0; attempt < 5; attempt++) {
  run.beginRound();
  const decision = run.shouldRefuse(call);
  decisions.push(decision.action);
  if (decision.action === 'refuse') break;
  run.recordCall(call, { result: { hits: [] } });
}
console.log(JSON.stringify(decisions));
`;

const CORE_FILES: Record<string, string> = {
  'package.json': JSON.stringify({ name: 'consumer-core', private: true, type: 'module' }),
  // Every value export of the core entry is used, so each one's declarations are checked.
  'index.ts': `
import * as loopguard from 'loopguard';
import { LoopGuard, LoopGuardSpanProcessor, startAgentRun, instrumentTool, getLoopGuardOutcome, type CallDecision, type LoopGuardOptions } from 'loopguard';
const options: LoopGuardOptions = { profile: 'general' };
const guard = new LoopGuard(options);
const processor = new LoopGuardSpanProcessor({ guard });
const decision: CallDecision = guard.startRun('r').shouldRefuse({ tool: 'search', args: { q: 'x' } });
export const used = [loopguard, processor, decision, startAgentRun, instrumentTool, getLoopGuardOutcome];
`,
  // CommonJS TypeScript (a .cts file): require() of the ESM entry, typed (TypeScript >= 5.8, nodenext).
  'require.cts': `
import { LoopGuard, type CallDecision } from 'loopguard';
const decision: CallDecision = new LoopGuard().startRun('r').shouldRefuse({ tool: 'search', args: {} });
export = decision;
`,
  'guard.mjs': `import { LoopGuard } from 'loopguard';\n${GUARD_LOOP}`,
  'guard.cjs': `const { LoopGuard } = require('loopguard');\n${GUARD_LOOP}`,
  'telemetry.mjs': `import('loopguard/telemetry').then(() => console.log('loaded'), (error) => console.log(JSON.stringify({ code: error.code, message: error.message })));`,
  ...tsconfigs(['index.ts', 'require.cts'], []),
};

const AI_SDK_FILES: Record<string, string> = {
  'package.json': JSON.stringify({ name: 'consumer-ai-sdk', private: true, type: 'module' }),
  'index.ts': `
import { generateText, jsonSchema, stepCountIs, tool, type LanguageModel } from 'ai';
import { LoopGuard } from 'loopguard';
import * as aiSdk from 'loopguard/ai-sdk';
import { createGuardedAgentSettings, getLoopGuardOutcome, type GuardedAgentSettings } from 'loopguard/ai-sdk';

const search = tool({
  description: 'Search the docs',
  inputSchema: jsonSchema<{ q: string }>({ type: 'object', properties: { q: { type: 'string' } }, required: ['q'] }),
  execute: async ({ q }: { q: string }) => ({ hits: [] as string[], q }),
});
const guarded: GuardedAgentSettings<{ search: typeof search }> = createGuardedAgentSettings({ guard: new LoopGuard(), tools: { search } });
declare const model: LanguageModel;
export async function answer(prompt: string): Promise<string> {
  const result = await generateText({ model, prompt, ...guarded, stopWhen: [guarded.stopWhen, stepCountIs(20)] });
  return result.text + (getLoopGuardOutcome(guarded.run).stopReason ?? '');
}
export const used = aiSdk;
`,
  'guard.mjs': `
import { jsonSchema, tool } from 'ai';
import { LoopGuard } from 'loopguard';
import { createGuardedAgentSettings } from 'loopguard/ai-sdk';
let executions = 0;
const search = tool({
  inputSchema: jsonSchema({ type: 'object', properties: { q: { type: 'string' } } }),
  execute: async () => { executions += 1; return { hits: [] }; },
});
const guarded = createGuardedAgentSettings({ guard: new LoopGuard(), tools: { search } });
for (let step = 0; step < 5; step++) {
  await guarded.prepareStep({ steps: [], stepNumber: step, model: undefined, messages: [] });
  await guarded.tools.search.execute({ q: 'x' }, { toolCallId: 'call-' + step, messages: [] });
}
console.log(JSON.stringify({ executions, refusals: guarded.end().refusals.length }));
`,
  // No "types": the AI SDK's own declarations need @types/node and @types/json-schema.
  ...tsconfigs(['index.ts'], undefined),
};

const TELEMETRY_FILES: Record<string, string> = {
  'package.json': JSON.stringify({ name: 'consumer-telemetry', private: true, type: 'module' }),
  'index.ts': `
import { LoopGuard } from 'loopguard';
import * as telemetryEntry from 'loopguard/telemetry';
import { createLoopGuardTelemetry, setupLoopGuardTelemetry, type LoopGuardTelemetrySetup } from 'loopguard/telemetry';
export async function main(): Promise<void> {
  const setup: LoopGuardTelemetrySetup = setupLoopGuardTelemetry({ serviceName: 'consumer', traceExporter: false, metricExporter: false, logExporter: false });
  createLoopGuardTelemetry({ guard: new LoopGuard() }).shutdown();
  await setup.shutdown();
}
export const used = telemetryEntry;
`,
  'guard.mjs': `
import { LoopGuard } from 'loopguard';
import { setupLoopGuardTelemetry } from 'loopguard/telemetry';
const setup = setupLoopGuardTelemetry({ serviceName: 'consumer', traceExporter: false, metricExporter: false, logExporter: false, registerGlobal: false, shutdownOnExit: false });
${GUARD_LOOP.replace("new LoopGuard().startRun('consumer')", "setup.guard.startRun('consumer')")}
await setup.shutdown();
`,
  // @opentelemetry/exporter-prometheus's declarations need @types/node.
  ...tsconfigs(['index.ts'], ['node']),
};

describe('packed tarball in fresh consumer projects (npm pack, npm install, tsc, node, attw, publint)', function () {
  this.timeout(300_000);
  let work: string;
  let tarball: string;
  let core: string;
  let aiSdk: string;
  let telemetry: string;
  const manifest = (): { dependencies: Record<string, string>; peerDependencies: Record<string, string>; peerDependenciesMeta: Record<string, { optional?: boolean }> } =>
    JSON.parse(readFileSync(join(core, 'node_modules/loopguard/package.json'), 'utf8'));

  before(async function () {
    this.timeout(300_000);
    work = mkdtempSync(join(tmpdir(), 'loopguard-pack-'));
    const source = join(work, 'package');
    const copied = ['package.json', 'README.md', 'LICENSE', 'tsconfig.json', 'tsconfig.build.json', 'src', 'bin', ...repoPackage.files.filter((entry) => !entry.startsWith('dist'))];
    for (const entry of new Set(copied)) cpSync(join(REPO_ROOT, entry), join(source, entry), { recursive: true });
    symlinkSync(join(REPO_ROOT, 'node_modules'), join(source, 'node_modules'), 'dir');
    expectSuccess(await run('npm', ['pack', '--pack-destination', work, '--loglevel=error'], source), 'npm pack');
    const packed = readdirSync(work).filter((name) => name.endsWith('.tgz'));
    expect(packed).to.have.length(1);
    tarball = join(work, packed[0]!);

    core = join(work, 'core');
    aiSdk = join(work, 'ai-sdk');
    telemetry = join(work, 'telemetry');
    writeFiles(core, CORE_FILES);
    writeFiles(aiSdk, AI_SDK_FILES);
    writeFiles(telemetry, TELEMETRY_FILES);
    const install = (dir: string, packages: string[]): Promise<Run> =>
      run('npm', ['install', '--no-audit', '--no-fund', '--prefer-offline', '--loglevel=error', tarball, ...packages], dir);
    const api = `@opentelemetry/api@${installed('@opentelemetry/api')}`;
    const types = `@types/node@${installed('@types/node')}`;
    // The telemetry user installs the optional OpenTelemetry peers the package declares.
    const otelPeers = Object.keys(JSON.parse(readFileSync(join(source, 'package.json'), 'utf8')).peerDependenciesMeta as object)
      .filter((name) => name.startsWith('@opentelemetry/'))
      .map((name) => `${name}@${installed(name)}`);
    const [coreInstall, aiInstall, telemetryInstall] = await Promise.all([
      install(core, [api]),
      install(aiSdk, [api, `ai@${installed('ai')}`, types, '@types/json-schema@^7.0.15']),
      install(telemetry, [api, types, ...otelPeers]),
    ]);
    expectSuccess(coreInstall, 'npm install (core consumer)');
    expectSuccess(aiInstall, 'npm install (AI SDK consumer)');
    expectSuccess(telemetryInstall, 'npm install (telemetry consumer)');
  });

  after(() => {
    if (work !== undefined) rmSync(work, { recursive: true, force: true });
  });

  it('installs for a core-only user with @opentelemetry/api as the only OpenTelemetry package', () => {
    const modules = readdirSync(join(core, 'node_modules')).filter((name) => !name.startsWith('.'));
    expect(modules.sort()).to.deep.equal(['@opentelemetry', 'commander', 'loopguard', 'picocolors', 'shell-quote']);
    expect(readdirSync(join(core, 'node_modules/@opentelemetry'))).to.deep.equal(['api']);
  });

  it('ships LICENSE, no source maps and no install-time scripts', async () => {
    const listing = await run('tar', ['-tzf', tarball], work);
    expectSuccess(listing, 'tar -tzf');
    const files = listing.stdout.split('\n').filter(Boolean);
    expect(files).to.include('package/LICENSE');
    expect(files.filter((file) => file.endsWith('.map'))).to.deep.equal([]);
    const manifest = JSON.parse(readFileSync(join(core, 'node_modules/loopguard/package.json'), 'utf8')) as { scripts?: Record<string, string> };
    for (const script of ['preinstall', 'install', 'postinstall', 'prepare']) expect(manifest.scripts ?? {}).not.to.have.property(script);
    expect(readFileSync(join(core, 'node_modules/loopguard/LICENSE'), 'utf8')).to.match(/Apache License\s+Version 2\.0, January 2004/);
  });

  it('imports only its dependencies and declared peers; @opentelemetry/api is the only required peer', () => {
    const { dependencies, peerDependencies, peerDependenciesMeta } = manifest();
    const declared = new Set([...Object.keys(dependencies), ...Object.keys(peerDependencies)]);
    const dist = join(core, 'node_modules/loopguard/dist/src');
    const undeclared: string[] = [];
    for (const file of readdirSync(dist, { recursive: true, encoding: 'utf8' }).filter((name) => /\.(d\.ts|js)$/.test(name))) {
      const code = readFileSync(join(dist, file), 'utf8').replace(/\/\*[\s\S]*?\*\//g, '').replace(/^\s*\/\/.*$/gm, '');
      for (const [, specifier] of code.matchAll(/(?:\bfrom|\bimport\(|^import)\s*'([^'.][^']*)'/gm)) {
        const name = specifier!.split('/').slice(0, specifier!.startsWith('@') ? 2 : 1).join('/');
        if (!specifier!.startsWith('node:') && !declared.has(name)) undeclared.push(`${file}: ${specifier}`);
      }
    }
    expect(undeclared).to.deep.equal([]);
    expect(Object.keys(dependencies).sort()).to.deep.equal(['commander', 'picocolors', 'shell-quote']);
    expect(Object.keys(peerDependencies).filter((name) => peerDependenciesMeta[name]?.optional !== true)).to.deep.equal(['@opentelemetry/api']);
  });

  for (const mode of ['nodenext', 'bundler']) {
    it(`type-checks a core-only consumer (strict, no skipLibCheck, no @types/node) under ${mode}`, async () => {
      expectSuccess(await node([TSC, '-p', `tsconfig.${mode}.json`], core), `tsc (${mode}, core)`);
    });

    it(`type-checks an AI-SDK-only consumer (no @openai/agents, no OTel SDK) under ${mode}`, async () => {
      expect(existsSync(join(aiSdk, 'node_modules/@openai/agents'))).to.equal(false);
      expect(readdirSync(join(aiSdk, 'node_modules/@opentelemetry'))).to.deep.equal(['api']);
      expectSuccess(await node([TSC, '-p', `tsconfig.${mode}.json`], aiSdk), `tsc (${mode}, AI SDK)`);
    });

    it(`type-checks loopguard/telemetry with the declared optional peers installed under ${mode}`, async () => {
      expectSuccess(await node([TSC, '-p', `tsconfig.${mode}.json`], telemetry), `tsc (${mode}, telemetry)`);
    });
  }

  it('guards a repeated call from an ES module and from CommonJS require()', async () => {
    for (const script of ['guard.mjs', 'guard.cjs']) {
      const result = await node([script], core);
      expectSuccess(result, `node ${script}`);
      expect(result.stderr, script).to.equal('');
      const decisions = JSON.parse(result.stdout) as string[];
      expect(decisions.at(-1), script).to.equal('refuse');
      expect(decisions.slice(0, -1), script).to.satisfy((allowed: string[]) => allowed.length > 0 && allowed.every((action) => action === 'allow'));
    }
  });

  it('guards a run set up by setupLoopGuardTelemetry with the declared peers installed', async () => {
    const result = await node(['guard.mjs'], telemetry);
    expectSuccess(result, 'node guard.mjs (telemetry)');
    expect((JSON.parse(result.stdout) as string[]).at(-1)).to.equal('refuse');
  });

  it('guards an AI SDK tool through loopguard/ai-sdk at runtime', async () => {
    const result = await node(['guard.mjs'], aiSdk);
    expectSuccess(result, 'node guard.mjs (AI SDK)');
    const { executions, refusals } = JSON.parse(result.stdout) as { executions: number; refusals: number };
    expect(executions).to.be.within(1, 4);
    expect(refusals).to.equal(5 - executions);
  });

  it('runs the loopguard CLI from the installed package', async () => {
    const transcripts = join(REPO_ROOT, 'examples/transcripts');
    const result = await node([join(core, 'node_modules/.bin/loopguard'), 'replay', '--fail-on-stop', '--policy', join(transcripts, 'policy.json'), join(transcripts, 'reworded-search.jsonl')], core);
    expect(result.code, result.stderr).to.equal(3);
    expect(result.stdout).to.match(/STOP stale_rounds/);
  });

  it('loopguard/telemetry without the SDK peers fails naming the missing @opentelemetry package', async () => {
    const result = await node(['telemetry.mjs'], core);
    expectSuccess(result, 'node telemetry.mjs');
    const failure = JSON.parse(result.stdout) as { code: string; message: string };
    expect(failure.code).to.equal('ERR_MODULE_NOT_FOUND');
    expect(failure.message).to.match(/Cannot find package '@opentelemetry\/[a-z-]+'/);
  });

  it('passes @arethetypeswrong/cli on every entry point', async () => {
    // attw's bundled TypeScript predates require(esm) (TS 5.8, Node 20.19): it would report that
    // a CommonJS require resolves to ESM, which Node >= 20.19 and TS nodenext accept. The test
    // above requires the package from CommonJS and type-checks a .cts file instead.
    const result = await node([ATTW, tarball, '--ignore-rules', 'cjs-resolves-to-esm', '--no-emoji', '--no-color'], work);
    expectSuccess(result, 'attw');
    expect(result.stdout).to.match(/No problems found/);
    const analysed = new Set([...result.stdout.matchAll(/"(loopguard[^"]*)"/g)].map((match) => match[1]!.replace(/^loopguard/, '.')));
    expect([...analysed].sort()).to.deep.equal(Object.keys(repoPackage.exports).sort());
  });

  it('passes publint (warnings as errors)', async () => {
    const result = await node([PUBLINT, 'run', tarball, '--strict'], work);
    expectSuccess(result, 'publint');
    expect(result.stdout).to.match(/All good!/);
  });
});
