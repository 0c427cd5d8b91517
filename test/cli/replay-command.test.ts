// `loopguard replay --out` writes into what it is given (issue 23 #18) and says one line when
// the report cannot be written (issue 23 #19), through the real CLI process.
//
// Device nodes: as root the old code renamed its temporary file over whatever --out named, so
// these tests never name a node under /dev that way. As root they make their own node (mknod)
// in a temporary directory; otherwise /dev/null and /dev/full, which a non-root process cannot
// replace.
import { expect } from 'chai';
import { execFileSync, spawn } from 'node:child_process';
import { chmodSync, closeSync, lstatSync, mkdtempSync, openSync, readFileSync, statSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { EXAMPLES_DIR } from '../replay/replay-test-helpers.js';
import { runCli } from './cli-test-helpers.js';

const STOPPING = join(EXAMPLES_DIR, 'reworded-search.jsonl');
const ONE_LINE = /^[^\n]+\n$/;

function scratch(): string {
  return mkdtempSync(join(tmpdir(), 'loopguard-out-'));
}

/** A character device like /dev/`name` that the test may write through without risk (see above). */
function deviceLike(name: 'null' | 'full', dir: string): string {
  if (process.getuid?.() !== 0) return `/dev/${name}`;
  const path = join(dir, name);
  execFileSync('mknod', ['-m', '666', path, 'c', '1', name === 'null' ? '3' : '7']);
  return path;
}

describe('issue 23: loopguard replay --out writes into what it names; a full disk is one line', function () {
  this.timeout(120_000);
  let expected: string;
  before(async () => {
    const reference = await runCli(['replay', '--format', 'json', STOPPING]);
    expect(reference.code).to.equal(0);
    expected = reference.stdout;
    expect(expected).to.match(/"reworded-search"/);
  });

  it('issue 23 #18: --out FIFO writes into the pipe (the reader gets the report) and the FIFO stays a FIFO', async () => {
    const dir = scratch();
    const fifo = join(dir, 'report.pipe');
    execFileSync('mkfifo', [fifo]);
    const reader = spawn('cat', [fifo], { stdio: ['ignore', 'pipe', 'ignore'] });
    let read = '';
    reader.stdout.setEncoding('utf8').on('data', (chunk: string) => (read += chunk));
    const readerDone = new Promise<void>((resolve) => reader.on('close', () => resolve()));
    try {
      const result = await runCli(['replay', '--format', 'json', '--out', fifo, STOPPING]);
      expect(result.stderr).to.equal('');
      expect(result.code).to.equal(0);
      expect(lstatSync(fifo).isFIFO(), 'still a FIFO').to.equal(true);
      // The old code renamed a regular file over the FIFO: the reader would still be waiting.
      await Promise.race([readerDone, new Promise((resolve) => setTimeout(resolve, 5000))]);
      expect(read).to.equal(expected);
    } finally {
      reader.kill();
    }
  });

  it('issue 23 #18: --out SYMLINK writes the file it points to (kept, its mode too); a dangling link creates its target', async () => {
    const dir = scratch();
    const target = join(dir, 'reports-2026-12-02.json');
    writeFileSync(target, 'the previous report\n');
    chmodSync(target, 0o640);
    const link = join(dir, 'latest.json');
    symlinkSync('reports-2026-12-02.json', link);
    const result = await runCli(['replay', '--format', 'json', '--out', link, STOPPING]);
    expect(result.stderr).to.equal('');
    expect(result.code).to.equal(0);
    expect(lstatSync(link).isSymbolicLink(), 'the link stays a link').to.equal(true);
    expect(readFileSync(target, 'utf8')).to.equal(expected);
    expect(statSync(target).mode & 0o777).to.equal(0o640);

    const dangling = join(dir, 'next.json');
    symlinkSync(join(dir, 'not-yet.json'), dangling);
    const created = await runCli(['replay', '--format', 'json', '--out', dangling, STOPPING]);
    expect(created.code, created.stderr).to.equal(0);
    expect(lstatSync(dangling).isSymbolicLink()).to.equal(true);
    expect(readFileSync(join(dir, 'not-yet.json'), 'utf8')).to.equal(expected);
  });

  it('issue 23 #18: --out DEVICE writes through the device, which stays a device', async () => {
    const device = deviceLike('null', scratch());
    const result = await runCli(['replay', '--format', 'json', '--out', device, STOPPING]);
    expect(result.stderr).to.equal('');
    expect(result.code).to.equal(0);
    expect(lstatSync(device).isCharacterDevice(), `${device} is still a character device`).to.equal(true);
  });

  it('issue 23 #18: --out /dev/fd/1, or a link to /proc/self/fd/1 (what /dev/stdout is), writes to stdout', async () => {
    const link = join(scratch(), 'my-stdout');
    symlinkSync('/proc/self/fd/1', link);
    for (const out of ['/dev/fd/1', link]) {
      const result = await runCli(['replay', '--format', 'json', '--out', out, STOPPING]);
      expect(result.stderr, out).to.equal('');
      expect(result.code, out).to.equal(0);
      expect(result.stdout, out).to.equal(expected);
    }
    expect(lstatSync(link).isSymbolicLink()).to.equal(true);
  });

  it('issue 23 #19: stdout on a full disk (/dev/full) is one line naming ENOSPC and exit 1, no stack trace', async () => {
    const full = openSync('/dev/full', 'w');
    try {
      for (const format of ['text', 'json', 'html']) {
        const result = await runCli(['replay', '--format', format, STOPPING], { stdoutFd: full });
        expect(result.stderr, format).to.match(ONE_LINE);
        expect(result.stderr).to.equal('loopguard replay: cannot write the report to stdout (ENOSPC: no space left on device)\n');
        expect(result.code, format).to.equal(1);
      }
    } finally {
      closeSync(full);
    }
  });

  it('issue 23 #19: --out on a full device is one line naming ENOSPC and exit 1; the device stays a device', async () => {
    const device = deviceLike('full', scratch());
    const result = await runCli(['replay', '--format', 'json', '--out', device, STOPPING]);
    expect(result.stderr).to.equal(`loopguard replay: cannot write the report to ${device} (ENOSPC: no space left on device); what reached ${device} is incomplete\n`);
    expect(result.code).to.equal(1);
    expect(lstatSync(device).isCharacterDevice()).to.equal(true);
  });
});
