// The API reference builds with warnings as errors: every exported symbol of every entry point in
// package.json's `exports` has a doc comment, every {@link} resolves, every type the API refers to
// is exported or listed as intentionally internal (typedoc.json). The same options are then run
// on a small planted project with one undocumented export, which must fail, so the check is
// shown to catch what it is for.
import { spawn } from 'node:child_process';
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { expect } from 'chai';
import { REPO_ROOT } from '../cli/cli-test-helpers.js';

const TYPEDOC = join(createRequire(join(REPO_ROOT, 'package.json')).resolve('typedoc/package.json'), '..', 'bin', 'typedoc');

interface TypedocConfig {
  entryPoints: string[];
  tsconfig: string;
  treatWarningsAsErrors: boolean;
  validation: Record<string, boolean>;
  [option: string]: unknown;
}

const config = JSON.parse(readFileSync(join(REPO_ROOT, 'typedoc.json'), 'utf8')) as TypedocConfig;

function typedoc(args: string[], cwd: string): Promise<{ code: number | null; output: string }> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [TYPEDOC, ...args], { cwd, env: { ...process.env, NO_COLOR: '1', FORCE_COLOR: '0' } });
    let output = '';
    child.stdout.on('data', (chunk: Buffer) => (output += chunk.toString('utf8')));
    child.stderr.on('data', (chunk: Buffer) => (output += chunk.toString('utf8')));
    child.on('error', reject);
    child.on('close', (code) => resolve({ code, output }));
  });
}

describe('API reference (TypeDoc, warnings as errors)', function () {
  this.timeout(300_000);

  it('documents every entry point package.json exports, with validation on and warnings as errors', () => {
    const exported = Object.entries((JSON.parse(readFileSync(join(REPO_ROOT, 'package.json'), 'utf8')) as { exports: Record<string, { default?: string }> }).exports)
      .filter(([subpath]) => subpath !== './package.json')
      .map(([, target]) => target.default!.replace(/^\.\/dist\//, '').replace(/\.js$/, '.ts'));
    expect(config.entryPoints).to.have.members(exported);
    expect(config.treatWarningsAsErrors).to.equal(true);
    expect(config.validation).to.deep.equal({ notExported: true, invalidLink: true, notDocumented: true });
  });

  it('builds with no warning (npm run docs:api)', async () => {
    const { code, output } = await typedoc(['--emit', 'none'], REPO_ROOT);
    expect(output.trim(), output).to.equal('');
    expect(code).to.equal(0);
  });

  it('fails on an undocumented export and on a broken {@link}, with the same options', async () => {
    const work = mkdtempSync(join(tmpdir(), 'loopguard-typedoc-'));
    try {
      mkdirSync(join(work, 'src'));
      writeFileSync(
        join(work, 'src', 'index.ts'),
        [
          '/** Documented: passes. */',
          'export function documented(): number {',
          '  return 1;',
          '}',
          '',
          'export function undocumentedExport(): number {',
          '  return 2;',
          '}',
          '',
          '/** Points at {@link NoSuchSymbol}. */',
          'export const brokenLink = 3;',
          '',
        ].join('\n'),
      );
      writeFileSync(join(work, 'tsconfig.json'), JSON.stringify({ compilerOptions: { strict: true, target: 'es2022', module: 'nodenext', moduleResolution: 'nodenext', types: [] }, include: ['src'] }));
      const { entryPoints: _entryPoints, tsconfig: _tsconfig, out: _out, $schema: _schema, intentionallyNotExported: _internal, ...options } = config;
      writeFileSync(join(work, 'typedoc.json'), JSON.stringify({ ...options, entryPoints: ['src/index.ts'], tsconfig: 'tsconfig.json' }));
      const { code, output } = await typedoc(['--emit', 'none'], work);
      expect(code, output).to.not.equal(0);
      expect(output).to.match(/undocumentedExport \((Function|CallSignature)\), defined in .*does not have any documentation/);
      expect(output).to.match(/Failed to resolve link to "NoSuchSymbol" in comment for brokenLink/);
      expect(output).to.not.match(/\bdocumented \((Function|CallSignature)\)/);
    } finally {
      rmSync(work, { recursive: true, force: true });
    }
  });
});
