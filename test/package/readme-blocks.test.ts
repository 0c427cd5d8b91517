// The docs compile: every ```ts / ```typescript block in README.md and docs/**/*.md, each as its
// own module, type-checked with `tsc --strict` (no skipLibCheck, module nodenext) in a fresh
// consumer project that installed the packed tarball and the packages the blocks use, the way a
// reader who copies a block would. A block may use names the app brings (`model`, `llm`,
// `messages`): they are declared in a `<!-- ts-prelude ... -->` comment right above the block
// (hidden when rendered, so the code shown is what a user types). Errors are reported as
// `file:line` of the Markdown. A planted page with broken blocks is compiled in the same tsc run
// and must fail, so the check is shown to catch what it is for.
// The "ten lines" loop is also run, against a scripted model, to check that it does what the
// README says.
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { expect } from 'chai';
import { Lexer, walkTokens, type Token } from 'marked';
import { REPO_ROOT } from '../cli/cli-test-helpers.js';
import { documentationFiles } from '../docs/markdown-docs.js';
import { installedVersion, IOREDIS_DECLARATION_PEERS, isInstalled, packTarball, run, type Run } from './pack-helpers.js';

const TSC = createRequire(join(REPO_ROOT, 'package.json')).resolve('typescript/bin/tsc');
const TSX_LOADER = import.meta.resolve('tsx/esm');
const PRELUDE = /^<!--\s*ts-prelude\b[^\n]*\n([\s\S]*?)-->\s*$/;

interface Block {
  /** The Markdown file, repository-relative. */
  source: string;
  /** Line of the opening fence in that file. */
  line: number;
  heading: string;
  code: string;
  prelude: string;
  /** The module written for it: `<file as a name>-L<line>.ts`. */
  file: string;
}

/** Every TypeScript fence of a Markdown file, with its prelude (a markdown lexer, not a regex). */
export function typeScriptBlocks(markdown: string, source: string): Block[] {
  const tokens = new Lexer().lex(markdown);
  const isTypeScript = (token: Token): token is Token & { type: 'code'; lang: string; text: string } =>
    token.type === 'code' && /^(ts|typescript)\b/.test((token as { lang?: string }).lang ?? '');
  let nested = 0;
  walkTokens(tokens, (token) => {
    if (isTypeScript(token)) nested += 1;
  });
  const blocks: Block[] = [];
  let line = 1;
  let heading = '(top)';
  tokens.forEach((token, index) => {
    if (token.type === 'heading') heading = (token as { text: string }).text;
    if (isTypeScript(token)) {
      const previous = tokens[index - 1];
      const prelude = previous?.type === 'html' ? PRELUDE.exec(previous.raw)?.[1] ?? '' : '';
      blocks.push({ source, line, heading, code: token.text, prelude, file: `${source.replace(/\.md$/, '').replace(/[^A-Za-z0-9]+/g, '-')}-L${line}.ts` });
    }
    line += token.raw.split('\n').length - 1;
  });
  // A block inside a list or a quote would escape the line bookkeeping above: none may exist.
  if (nested !== blocks.length) throw new Error(`${source} has ${nested - blocks.length} TypeScript block(s) nested in lists or quotes`);
  return blocks;
}

const blocks = documentationFiles(REPO_ROOT).flatMap((file) => typeScriptBlocks(readFileSync(join(REPO_ROOT, file), 'utf8'), file));

/**
 * A planted page: a block with a type error, one using a name nobody declared, one importing a
 * subpath the package does not export. Compiled with the real blocks; each must be reported.
 */
const PLANTED_PAGE = [
  '# Planted defects',
  '',
  '```ts',
  "import { LoopGuard } from 'loopguard';",
  "new LoopGuard({ profile: 'fastest' });",
  '```',
  '',
  '```ts',
  'console.log(undeclaredModel);',
  '```',
  '',
  '```ts',
  "import { LoopGuard } from 'loopguard/core';",
  'new LoopGuard();',
  '```',
  '',
].join('\n');
const planted = typeScriptBlocks(PLANTED_PAGE, 'planted/broken-page.md');
const compiled = [...blocks, ...planted];
const usesOpenAIAgents = (block: Block): boolean => /from '@openai\/agents'/.test(block.code + block.prelude);
const moduleText = (block: Block): string => `${block.prelude}${block.code}\n`;

/** tsc's `file(line,col): error` lines, keyed by block file, with README line numbers. */
function errorsByBlock(output: string): Map<string, string[]> {
  const errors = new Map<string, string[]>();
  for (const [, file, lineText, rest] of output.matchAll(/^([A-Za-z0-9-]+-L\d+\.ts)\((\d+),\d+\): (error .*)$/gm)) {
    const block = compiled.find((candidate) => candidate.file === file)!;
    const codeLine = Number(lineText) - block.prelude.split('\n').length + 1;
    const where = codeLine >= 1 ? `${block.source}:${block.line + codeLine}` : `${block.source}:${block.line} (prelude line ${lineText})`;
    errors.set(file!, [...(errors.get(file!) ?? []), `${where}: ${rest}`]);
  }
  return errors;
}

describe('README and docs TypeScript blocks against the packed tarball (tsc --strict, no skipLibCheck)', function () {
  this.timeout(300_000);
  let work: string;
  let consumer: string;
  let tsc: Run;
  let errors: Map<string, string[]>;
  const agentsInstalled = isInstalled('@openai/agents');

  before(async function () {
    this.timeout(300_000);
    work = mkdtempSync(join(tmpdir(), 'loopguard-readme-'));
    const tarball = await packTarball(work);
    consumer = join(work, 'consumer');
    mkdirSync(consumer);
    const checked = compiled.filter((block) => agentsInstalled || !usesOpenAIAgents(block));
    for (const block of checked) writeFileSync(join(consumer, block.file), moduleText(block));
    writeFileSync(join(consumer, 'package.json'), JSON.stringify({ name: 'readme-consumer', private: true, type: 'module' }));
    writeFileSync(
      join(consumer, 'tsconfig.json'),
      JSON.stringify({
        compilerOptions: { strict: true, skipLibCheck: false, noEmit: true, target: 'es2022', module: 'nodenext', moduleResolution: 'nodenext' },
        files: checked.map((block) => block.file),
      }),
    );
    // What the blocks import, at the versions this checkout is tested with: the AI SDK, OpenAI
    // Agents JS (when installed here), the OpenTelemetry peers loopguard/telemetry declares.
    const peers = Object.keys((JSON.parse(readFileSync(join(REPO_ROOT, 'package.json'), 'utf8')) as { peerDependencies: Record<string, string> }).peerDependencies)
      .filter((name) => name !== '@openai/agents' || agentsInstalled);
    // Plus any other package a block or its prelude imports (`langchain` for createAgent), and the
    // Claude Agent SDK's own peer its declarations need, at this checkout's versions.
    const imported = blocks
      .flatMap((block) => [...moduleText(block).matchAll(/from '((?:@[^/']+\/)?[^/']+)[^']*'/g)].map((match) => match[1]!))
      .filter((name) => !name.startsWith('loopguard') && !name.startsWith('node:') && isInstalled(name));
    const packages = [...new Set([...peers, ...imported, '@anthropic-ai/sdk', 'zod', '@types/node'])].map((name) => `${name}@${installedVersion(name)}`);
    const declarationPeers = packages.some((name) => name.startsWith('ioredis@')) ? IOREDIS_DECLARATION_PEERS : [];
    const install = await run('npm', ['install', '--no-audit', '--no-fund', '--prefer-offline', '--loglevel=error', tarball, ...packages, ...declarationPeers, '@types/json-schema@^7.0.15'], consumer);
    expect(install.code, `npm install failed:\n${install.stdout}\n${install.stderr}`).to.equal(0);
    tsc = await run(process.execPath, [TSC, '-p', 'tsconfig.json'], consumer);
    errors = errorsByBlock(tsc.stdout);
  });

  after(() => {
    if (work !== undefined && process.env.README_BLOCKS_KEEP !== '1') rmSync(work, { recursive: true, force: true });
  });

  it('finds the README and docs blocks, each with a prelude only where it uses app names', () => {
    expect(blocks.length).to.be.at.least(7);
    expect(new Set(blocks.map((block) => block.source)).size, 'files with blocks').to.be.at.least(8);
    expect(blocks.map((block) => block.heading)).to.include.members(['A guarded loop in ten lines', 'OpenAI Agents JS (`@openai/agents`)', 'Wiring it up']);
    // A prelude declares; it never hides code the reader would need to run the block.
    for (const block of blocks) expect(block.prelude, `${block.source}:${block.line}`).not.to.match(/^(?!\s*(declare|import type|type)\b|\s*$).*/m);
  });

  it('each block imports loopguard from a subpath the package exports, with tsc reporting nothing else', () => {
    const exported = Object.keys((JSON.parse(readFileSync(join(REPO_ROOT, 'package.json'), 'utf8')) as { exports: Record<string, unknown> }).exports);
    for (const block of blocks) {
      for (const [, specifier] of block.code.matchAll(/from '(loopguard[^']*)'/g)) {
        expect(exported, `${block.source}:${block.line} imports ${specifier}`).to.include(specifier!.replace(/^loopguard/, '.'));
      }
    }
    // Every tsc error belongs to a block (none in a library's declarations: no skipLibCheck).
    const unattributed = tsc.stdout.split('\n').filter((line) => /error TS/.test(line) && !/^[A-Za-z0-9-]+-L\d+\.ts\(/.test(line));
    expect(unattributed, tsc.stdout).to.deep.equal([]);
  });

  for (const block of blocks) {
    it(`type-checks ${block.source}:${block.line} (${block.heading})`, function () {
      if (usesOpenAIAgents(block) && !agentsInstalled) this.skip();
      expect(errors.get(block.file) ?? [], `\n${moduleText(block)}`).to.deep.equal([]);
    });
  }

  it('fails on a planted page: a type error, an undeclared name and an unexported subpath are each reported at their Markdown line', () => {
    const reported = planted.map((block) => errors.get(block.file) ?? []);
    expect(reported[0]!.join('\n')).to.match(/^planted\/broken-page\.md:5: error TS2322: .*'"fastest"'/);
    expect(reported[1]!.join('\n')).to.match(/^planted\/broken-page\.md:9: error TS2304: Cannot find name 'undeclaredModel'/);
    expect(reported[2]!.join('\n')).to.match(/^planted\/broken-page\.md:13: error TS2307: Cannot find module 'loopguard\/core'/);
  });

  it('"A guarded loop in ten lines": the loop body is ten lines, and it runs', async () => {
    const block = blocks.find((candidate) => candidate.source === 'README.md' && candidate.heading === 'A guarded loop in ten lines')!;
    const lines = block.code.split('\n');
    const start = lines.findIndex((line) => line.startsWith('for ('));
    const end = lines.findIndex((line, index) => index > start && line === '}');
    expect(end - start - 1, block.code).to.equal(10);

    // The same block against a scripted app: one search tool, a model that keeps rewording
    // its query while the same two documents come back, answering only when offered no tools.
    writeFileSync(join(consumer, 'app.ts'), SCRIPTED_APP);
    writeFileSync(join(consumer, 'ten-lines.ts'), `import { execute, llm, messages, toolNames, toolResult, transcript } from './app.js';\n${block.code}\nconsole.log(JSON.stringify({ stop: next.action === 'stop' ? next.reason : undefined, ended: run.isEnded, ...transcript }));\n`);
    const result = await run(process.execPath, ['--import', TSX_LOADER, 'ten-lines.ts'], consumer);
    expect(result.code, `${result.stdout}\n${result.stderr}`).to.equal(0);
    const report = JSON.parse(result.stdout) as { stop?: string; ended: boolean; offered: string[][]; executed: number; userNotes: string[]; refused: number };
    // General profile: the first round is new, five stale rounds stop the run (N = 5).
    expect(report.stop).to.equal('stale_rounds');
    expect(report.executed).to.equal(6);
    expect(report.refused).to.equal(0);
    // Nudged first; the run's only tool is never taken away; the last call offers no tools.
    expect(report.userNotes[0]).to.match(/^Note: in the last round, search returned only results you have already seen/);
    expect(report.offered.slice(0, -1).every((names) => names.join() === 'search')).to.equal(true);
    expect(report.offered.at(-1)).to.deep.equal([]);
    expect(report.userNotes.at(-1)).to.match(/^Tool use has ended for this run/);
    expect(report.ended).to.equal(true);
  });
});

/** The app names the ten-lines block uses, implemented: the prelude's declarations, for real. */
const SCRIPTED_APP = `
import type { CallOutcome } from 'loopguard';
export type Message = { role: 'system' | 'user' | 'assistant' | 'tool'; content: string; toolCallId?: string };
export type Call = { id: string; name: string; args: unknown };
export const messages: Message[] = [{ role: 'user', content: 'How long is EU customer data kept?' }];
export const toolNames = ['search'];
export const transcript = { offered: [] as string[][], executed: 0, refused: 0, userNotes: [] as string[] };
let turn = 0;
export async function llm(history: Message[], offered: string[]): Promise<{ toolCalls: Call[] }> {
  transcript.offered.push([...offered]);
  transcript.userNotes.push(...history.filter((message) => message.role === 'user').slice(1).map((message) => message.content).filter((note) => !transcript.userNotes.includes(note)));
  if (offered.length === 0) {
    history.push({ role: 'assistant', content: 'From what I found: 30 days.' });
    return { toolCalls: [] };
  }
  turn += 1;
  const toolCalls = [{ id: 'call_' + turn, name: 'search', args: { query: 'EU data retention, wording ' + turn } }];
  history.push({ role: 'assistant', content: JSON.stringify(toolCalls) });
  return { toolCalls };
}
export async function execute(_call: Call): Promise<CallOutcome> {
  transcript.executed += 1;
  return { result: { hits: ['data-retention', 'privacy-overview'] } };
}
export function toolResult(call: Call, outcome: CallOutcome): Message {
  if (typeof outcome.result === 'string' && outcome.result.startsWith('Not run:')) transcript.refused += 1;
  return { role: 'tool', toolCallId: call.id, content: JSON.stringify(outcome.result ?? String(outcome.error)) };
}
`;
