// The package as a new user gets it: `npm pack` of a copy of this repository (so the build that
// `prepack` runs never touches the repo's own dist/), installed into fresh consumer projects in
// temp directories with only the dependencies each kind of user has. Then: strict type-checks
// without skipLibCheck (nodenext and bundler), ESM import and CommonJS require guarding calls,
// the CLI, the missing-peer error of loopguard/telemetry, and the well-kept checkers
// (@arethetypeswrong/cli, publint) on the tarball itself.
import { execFile, spawn } from 'node:child_process';
import { cpSync, existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { expect } from 'chai';
import { REPO_ROOT } from '../cli/cli-test-helpers.js';
import { IOREDIS_DECLARATION_PEERS } from './pack-helpers.js';

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

/**
 * One consumer per framework entry, each with only its own SDK installed: an entry that
 * imported another SDK (or the OpenTelemetry SDK) would fail to type-check here.
 */
const INTEGRATION_CONSUMERS: Record<string, { packages: string[]; extra?: readonly string[]; code: string }> = {
  redis: {
    packages: ['ioredis', '@types/node'],
    extra: IOREDIS_DECLARATION_PEERS,
    code: `
import { Redis } from 'ioredis';
import { LoopGuard } from 'loopguard';
import * as entry from 'loopguard/redis';
import { createRedisRunStore, type RedisRunStore } from 'loopguard/redis';
export function guardWith(url: string): LoopGuard {
  const store: RedisRunStore = createRedisRunStore({ client: new Redis(url, { enableOfflineQueue: false }) });
  return new LoopGuard({ store, idempotentWrites: { send_email: { key: ['to'] } } });
}
export const used = entry;
`,
  },
  mcp: {
    packages: ['@modelcontextprotocol/sdk', 'zod', '@types/node'],
    code: `
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { LoopGuard } from 'loopguard';
import * as entry from 'loopguard/mcp';
import { guardMcpClient, type GuardedMcpClient } from 'loopguard/mcp';
export function guard(client: Client): GuardedMcpClient<Client> {
  return guardMcpClient(client, { guard: new LoopGuard() });
}
export const used = entry;
`,
  },
  'claude-agent-sdk': {
    packages: ['@anthropic-ai/claude-agent-sdk', '@anthropic-ai/sdk', '@modelcontextprotocol/sdk', 'zod', '@types/node'],
    code: `
import type { Options } from '@anthropic-ai/claude-agent-sdk';
import { LoopGuard } from 'loopguard';
import * as entry from 'loopguard/claude-agent-sdk';
import { createLoopGuardHooks } from 'loopguard/claude-agent-sdk';
const guarded = createLoopGuardHooks({ guard: new LoopGuard() });
export const options: Options = { hooks: guarded.hooks };
export const used = entry;
`,
  },
  server: {
    packages: ['@types/node'],
    code: `
import { LoopGuard } from 'loopguard';
import * as entry from 'loopguard/server';
import { startLoopGuardServer, ServerRequestError, type LoopGuardServer } from 'loopguard/server';
export async function serve(): Promise<LoopGuardServer> {
  const server = await startLoopGuardServer({ guard: new LoopGuard(), port: 0, authToken: 'a-token-of-sixteen-chars' });
  return server;
}
export const failure: ServerRequestError = new ServerRequestError({ status: 400, code: 'bad_request', message: 'x' });
export const used = entry;
`,
  },
  client: {
    // No @types/node and no other package: the client uses only the global fetch, and its
    // declarations must type-check without Node's.
    packages: [],
    code: `
import { LoopGuard } from 'loopguard';
import * as entry from 'loopguard/client';
import { createRemoteRunStore, RemoteRunStoreError, type RemoteRunStoreOptions, type RunStore } from 'loopguard/client';
const options: RemoteRunStoreOptions = { url: 'http://127.0.0.1:4319', token: 'a-token-of-sixteen-chars', timeoutMs: 1000 };
const store: RunStore = createRemoteRunStore(options);
export const guard = new LoopGuard({ store, idempotentWrites: { send_email: { key: ['to'] } } });
export const failure: RemoteRunStoreError = new RemoteRunStoreError({ operation: 'read-run-events', code: 'timeout', message: 'x' });
export const used = entry;
`,
  },
  langchain: {
    packages: ['@langchain/core', 'zod', '@types/node'],
    code: `
import { tool } from '@langchain/core/tools';
import { z } from 'zod';
import { LoopGuard } from 'loopguard';
import * as entry from 'loopguard/langchain';
import { createGuardedAgentRun } from 'loopguard/langchain';
const search = tool(async ({ q }: { q: string }) => q, { name: 'search', description: 'search', schema: z.object({ q: z.string() }) });
export const guarded = createGuardedAgentRun({ guard: new LoopGuard(), tools: [search] });
export const used = entry;
`,
  },
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
    for (const [name, consumer] of Object.entries(INTEGRATION_CONSUMERS)) {
      writeFiles(join(work, name), {
        'package.json': JSON.stringify({ name: `consumer-${name}`, private: true, type: 'module' }),
        'index.ts': consumer.code,
        ...tsconfigs(['index.ts'], undefined),
      });
    }
    const install = (dir: string, packages: string[]): Promise<Run> =>
      run('npm', ['install', '--no-audit', '--no-fund', '--prefer-offline', '--loglevel=error', tarball, ...packages], dir);
    const api = `@opentelemetry/api@${installed('@opentelemetry/api')}`;
    const types = `@types/node@${installed('@types/node')}`;
    // The telemetry user installs the optional OpenTelemetry peers the package declares.
    const otelPeers = Object.keys(JSON.parse(readFileSync(join(source, 'package.json'), 'utf8')).peerDependenciesMeta as object)
      .filter((name) => name.startsWith('@opentelemetry/'))
      .map((name) => `${name}@${installed(name)}`);
    const [coreInstall, aiInstall, telemetryInstall, ...integrationInstalls] = await Promise.all([
      install(core, [api]),
      install(aiSdk, [api, `ai@${installed('ai')}`, types, '@types/json-schema@^7.0.15']),
      install(telemetry, [api, types, ...otelPeers]),
      ...Object.entries(INTEGRATION_CONSUMERS).map(([name, consumer]) => install(join(work, name), [api, ...consumer.packages.map((pkg) => `${pkg}@${installed(pkg)}`), ...(consumer.extra ?? [])])),
    ]);
    integrationInstalls.forEach((result, index) => expectSuccess(result, `npm install (${Object.keys(INTEGRATION_CONSUMERS)[index]} consumer)`));
    expectSuccess(coreInstall, 'npm install (core consumer)');
    expectSuccess(aiInstall, 'npm install (AI SDK consumer)');
    expectSuccess(telemetryInstall, 'npm install (telemetry consumer)');
  });

  after(() => {
    if (work !== undefined) rmSync(work, { recursive: true, force: true });
  });

  it('installs for a core-only user with @opentelemetry/api as the only OpenTelemetry package', () => {
    const modules = readdirSync(join(core, 'node_modules')).filter((name) => !name.startsWith('.'));
    // No protobufjs: `loopguard serve` reads OTLP protobuf with its own reader.
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
      // A specifier has no spaces or commas: `'from', 'to'` in a list of argument names is not an import.
      for (const [, specifier] of code.matchAll(/(?:\bfrom|\bimport\(|^import)\s*'([^'.\s,][^'\s,]*)'/gm)) {
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

  for (const [name, consumer] of Object.entries(INTEGRATION_CONSUMERS)) {
    it(`type-checks loopguard/${name} with only its own SDK installed (nodenext and bundler)`, async () => {
      const dir = join(work, name);
      const others = ['ai', '@openai/agents', 'ioredis', '@modelcontextprotocol/sdk', '@anthropic-ai/claude-agent-sdk', '@langchain/core', '@langchain/langgraph', 'langchain'].filter(
        (other) => !consumer.packages.includes(other),
      );
      for (const other of others) expect(existsSync(join(dir, 'node_modules', other)), `${name} consumer must not have ${other}`).to.equal(false);
      for (const mode of ['nodenext', 'bundler']) expectSuccess(await node([TSC, '-p', `tsconfig.${mode}.json`], dir), `tsc (${mode}, ${name})`);
    });
  }

  it('npx loopguard mcp-proxy from the installed package guards a real MCP server (no MCP package installed)', async () => {
    expect(existsSync(join(core, 'node_modules/@modelcontextprotocol'))).to.equal(false);
    const folder = join(work, 'mcp-folder');
    writeFiles(folder, { 'notes.md': 'refunds: 30 days' });
    const server = join(REPO_ROOT, 'node_modules/@modelcontextprotocol/server-filesystem/dist/index.js');
    const proxy = spawn(process.execPath, [join(core, 'node_modules/.bin/loopguard'), 'mcp-proxy', '--round-gap-ms', '0', '--', process.execPath, server, folder], { cwd: core, stdio: ['pipe', 'pipe', 'pipe'] });
    const replies = new Map<number, { result?: { isError?: boolean; content?: Array<{ text?: string }> } }>();
    let buffered = '';
    proxy.stdout.on('data', (chunk: Buffer) => {
      buffered += chunk.toString();
      for (let newline = buffered.indexOf('\n'); newline >= 0; newline = buffered.indexOf('\n')) {
        const line = buffered.slice(0, newline);
        buffered = buffered.slice(newline + 1);
        const message = JSON.parse(line) as { id?: number; result?: { isError?: boolean; content?: Array<{ text?: string }> } };
        if (typeof message.id === 'number') replies.set(message.id, message);
      }
    });
    const reply = async (id: number, message: object) => {
      proxy.stdin.write(`${JSON.stringify({ jsonrpc: '2.0', id, ...message })}\n`);
      for (let waited = 0; !replies.has(id); waited += 20) {
        if (waited > 20_000 || proxy.exitCode !== null) throw new Error(`no reply to ${id}`);
        await new Promise((resolve) => setTimeout(resolve, 20));
      }
      return replies.get(id)!;
    };
    await reply(1, { method: 'initialize', params: { protocolVersion: '2025-06-18', capabilities: {}, clientInfo: { name: 'consumer', version: '1' } } });
    proxy.stdin.write(`${JSON.stringify({ jsonrpc: '2.0', method: 'notifications/initialized' })}\n`);
    await reply(2, { method: 'tools/list', params: {} });
    const read = { method: 'tools/call', params: { name: 'read_text_file', arguments: { path: join(folder, 'notes.md') } } };
    const first = await reply(3, read);
    const second = await reply(4, read);
    const exited = new Promise<number | null>((resolve) => proxy.once('exit', resolve));
    proxy.stdin.end();
    expect(await exited).to.equal(0);
    expect(first.result?.isError ?? false).to.equal(false);
    expect(first.result?.content?.[0]?.text).to.equal('refunds: 30 days');
    expect(second.result?.isError).to.equal(true);
    expect(second.result?.content?.[0]?.text).to.match(/^Not run: read_text_file was already called with these same arguments/);
  });

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
