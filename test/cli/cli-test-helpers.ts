import { spawn } from 'node:child_process';
import { fileURLToPath } from 'node:url';

export const REPO_ROOT = fileURLToPath(new URL('../../', import.meta.url));

export interface CliResult {
  code: number | null;
  stdout: string;
  stderr: string;
  /** ms from the last output (stdout or stderr) to the process's exit: what it did after answering. */
  exitAfterOutputMs: number;
}

/**
 * Spawns the real CLI as its own process. `via: 'source'` runs src/cli/main.ts through tsx
 * (always current); `via: 'bin'` runs bin/loopguard.js against dist/ exactly as installed.
 */
export function runCli(
  args: string[],
  options: {
    stdin?: string;
    env?: Record<string, string>;
    via?: 'source' | 'bin';
    /** A file descriptor the child gets as its stdout instead of a pipe (a file, /dev/full…); `stdout` is then ''. */
    stdoutFd?: number;
    /** Kill the child (SIGKILL, code null) if it has not exited by then: a command that should have refused its options may be serving instead. */
    timeoutMs?: number;
  } = {},
): Promise<CliResult> {
  const command =
    options.via === 'bin' ? ['bin/loopguard.js', ...args] : ['--import', 'tsx', 'test/cli/run-cli.ts', ...args];
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, command, {
      cwd: REPO_ROOT,
      env: { ...process.env, NO_COLOR: '', FORCE_COLOR: '', ...options.env },
      stdio: ['pipe', options.stdoutFd ?? 'pipe', 'pipe'],
    });
    let stdout = '';
    let stderr = '';
    let lastOutputAt = Date.now();
    child.stdout?.setEncoding('utf8').on('data', (chunk: string) => ((stdout += chunk), (lastOutputAt = Date.now())));
    child.stderr!.setEncoding('utf8').on('data', (chunk: string) => ((stderr += chunk), (lastOutputAt = Date.now())));
    const timer = options.timeoutMs === undefined ? undefined : setTimeout(() => child.kill('SIGKILL'), options.timeoutMs);
    child.on('error', reject);
    child.on('close', (code) => {
      clearTimeout(timer);
      resolve({ code, stdout, stderr, exitAfterOutputMs: Date.now() - lastOutputAt });
    });
    child.stdin!.end(options.stdin ?? '');
  });
}
