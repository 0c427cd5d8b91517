// Shared by the package tests that need the package as a user gets it: `npm pack` of a copy of
// this repository (so the build `prepack` runs never touches the repo's own dist/), child
// processes with colour off, and the versions this checkout is tested with.
import { execFile } from 'node:child_process';
import { cpSync, readdirSync, readFileSync, symlinkSync } from 'node:fs';
import { join } from 'node:path';
import { REPO_ROOT } from '../cli/cli-test-helpers.js';

export interface Run {
  code: number | null;
  stdout: string;
  stderr: string;
}

export function run(command: string, args: string[], cwd: string, env: NodeJS.ProcessEnv = {}): Promise<Run> {
  return new Promise((resolve) => {
    execFile(command, args, { cwd, maxBuffer: 64 * 1024 * 1024, env: { ...process.env, NO_COLOR: '1', FORCE_COLOR: '0', ...env } }, (error, stdout, stderr) => {
      const code = error === null ? 0 : typeof error.code === 'number' ? error.code : 1;
      resolve({ code, stdout, stderr });
    });
  });
}

/** The version installed in this checkout (OTel 2 + AI SDK 6 on Node 20, 3 + 7 on the Node 24 lane). */
export function installedVersion(name: string): string {
  // Read from node_modules: several packages export no ./package.json.
  return (JSON.parse(readFileSync(join(REPO_ROOT, 'node_modules', name, 'package.json'), 'utf8')) as { version: string }).version;
}

export function isInstalled(name: string): boolean {
  try {
    installedVersion(name);
    return true;
  } catch {
    return false;
  }
}

/** Packs a copy of the repository into `work`; returns the tarball's path. */
export async function packTarball(work: string): Promise<string> {
  const repoPackage = JSON.parse(readFileSync(join(REPO_ROOT, 'package.json'), 'utf8')) as { files: string[] };
  const source = join(work, 'package');
  const copied = ['package.json', 'README.md', 'LICENSE', 'tsconfig.json', 'tsconfig.build.json', 'src', 'bin', ...repoPackage.files.filter((entry) => !entry.startsWith('dist'))];
  for (const entry of new Set(copied)) cpSync(join(REPO_ROOT, entry), join(source, entry), { recursive: true });
  symlinkSync(join(REPO_ROOT, 'node_modules'), join(source, 'node_modules'), 'dir');
  const packed = await run('npm', ['pack', '--pack-destination', work, '--loglevel=error'], source);
  if (packed.code !== 0) throw new Error(`npm pack failed:\n${packed.stdout}\n${packed.stderr}`);
  const tarballs = readdirSync(work).filter((name) => name.endsWith('.tgz'));
  if (tarballs.length !== 1) throw new Error(`expected one tarball in ${work}, found ${tarballs.join(', ')}`);
  return join(work, tarballs[0]!);
}

/**
 * ioredis 6.1's type declarations import `redis-errors`, which ships no types of its own: a
 * consumer type-checking its dependencies (no skipLibCheck) gets TS7016 from ioredis itself,
 * with or without loopguard, and TypeScript's own hint is to install these types. Consumers
 * that install ioredis install them too, as such a user would (docs/operations/redis.md).
 */
export const IOREDIS_DECLARATION_PEERS: readonly string[] = ['@types/redis-errors@^1.2.3'];
