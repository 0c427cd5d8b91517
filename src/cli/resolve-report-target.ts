import { lstat, readlink, realpath } from 'node:fs/promises';
import { dirname, resolve } from 'node:path';

/**
 * Where `loopguard replay --out PATH` writes, decided before anything is written:
 * - `stdout` / `stderr`: `-`, `/dev/stdout`, `/dev/fd/1`, `/proc/self/fd/1` (and 2), or a
 *   symlink to one: the command's own stream, so `>> log` keeps appending and colour follows
 *   the terminal as without --out.
 * - `replace`: a regular file, or nothing yet: written beside `path` and renamed over it when
 *   the report is complete, so an abort leaves the previous report whole. `path` is the end of
 *   the symlink chain: `--out latest.html -> reports/today.html` updates today.html and keeps
 *   the link. `mode` is the replaced file's permission bits, kept on the new file.
 * - `through`: anything else that exists and is not a directory (a FIFO, a character or block
 *   device, another process's descriptor): opened and written in place. Renaming a file over
 *   it would replace the pipe a reader waits on, or (as root) /dev/null itself.
 * - `problem`: cannot be written (a directory, a symlink loop): one line for stderr.
 */
export type ReportTarget =
  | { kind: 'stdout' }
  | { kind: 'stderr' }
  | { kind: 'replace'; path: string; mode?: number }
  | { kind: 'through'; path: string }
  | { kind: 'problem'; problem: string };

/** Linux's own limit on symlinks followed in one path (ELOOP beyond it). */
const MAX_SYMLINK_HOPS = 40;

export async function resolveReportTarget(out: string): Promise<ReportTarget> {
  if (out === '-') return { kind: 'stdout' };
  let path = resolve(out);
  for (let hop = 0; hop <= MAX_SYMLINK_HOPS; hop++) {
    const descriptor = descriptorOf(path);
    if (descriptor === 'own-1') return { kind: 'stdout' };
    if (descriptor === 'own-2') return { kind: 'stderr' };
    // A descriptor's link reads `pipe:[…]` or `socket:[…]`, not a path: opening it is the only way in.
    if (descriptor !== undefined) return { kind: 'through', path };
    let info;
    try {
      info = await lstat(path);
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code === 'ENOENT') return { kind: 'replace', path };
      return { kind: 'problem', problem: `cannot write ${out} (${codeOf(error)})` };
    }
    if (info.isSymbolicLink()) {
      // Relative to the directory the link really is in, as the kernel resolves it.
      const link = await readlink(path);
      const base = await realpath(dirname(path)).catch(() => dirname(path));
      path = resolve(base, link);
      continue;
    }
    if (info.isDirectory()) return { kind: 'problem', problem: `cannot write ${out} (it is a directory, expected a file)` };
    if (info.isFile()) return { kind: 'replace', path, mode: info.mode & 0o7777 };
    return { kind: 'through', path };
  }
  return { kind: 'problem', problem: `cannot write ${out} (ELOOP: too many symbolic links)` };
}

/**
 * `own-1` / `own-2` when `path` names this process's stdout / stderr, `other` for any other
 * open descriptor (`/dev/fd/3`, `/proc/PID/fd/N`: a shell's `3>>log`, a `>(gzip > r.gz)`),
 * undefined when it is not a descriptor's name.
 */
function descriptorOf(path: string): 'own-1' | 'own-2' | 'other' | undefined {
  if (path === '/dev/stdout') return 'own-1';
  if (path === '/dev/stderr') return 'own-2';
  if (path === '/dev/stdin') return 'other';
  const match = /^\/(?:dev\/fd|proc\/(?:self|thread-self|(\d+))(?:\/task\/\d+)?\/fd)\/(\d+)$/.exec(path);
  if (match === null) return undefined;
  const own = match[1] === undefined || Number(match[1]) === process.pid;
  if (own && match[2] === '1') return 'own-1';
  if (own && match[2] === '2') return 'own-2';
  return 'other';
}

function codeOf(error: unknown): string {
  return (error as NodeJS.ErrnoException).code ?? (error as Error).message;
}
