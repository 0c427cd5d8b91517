// Where `replay --out` writes, decided without writing anything (issue 23 #18). The CLI
// process tests in replay-command.test.ts write through FIFOs, devices and links; these name
// the paths a test must not write to as root (/dev/stdout itself, /dev/null).
import { expect } from 'chai';
import { mkdirSync, mkdtempSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { resolveReportTarget } from '../../src/cli/resolve-report-target.js';

describe('resolveReportTarget (replay --out)', () => {
  it('issue 23 #18: stdout and stderr by any of their names; other descriptors and devices are written through', async () => {
    for (const out of ['-', '/dev/stdout', '/dev/fd/1', '/proc/self/fd/1', `/proc/${process.pid}/fd/1`]) {
      expect(await resolveReportTarget(out), out).to.deep.equal({ kind: 'stdout' });
    }
    for (const out of ['/dev/stderr', '/dev/fd/2', '/proc/self/fd/2']) expect(await resolveReportTarget(out), out).to.deep.equal({ kind: 'stderr' });
    expect(await resolveReportTarget('/dev/fd/7')).to.deep.equal({ kind: 'through', path: '/dev/fd/7' });
    expect(await resolveReportTarget('/dev/null')).to.deep.equal({ kind: 'through', path: '/dev/null' });
  });

  it('issue 23 #18: regular files are replaced (mode kept) at the end of the link chain; directories and loops are refused', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'loopguard-target-'));
    writeFileSync(join(dir, 'report.txt'), 'x', { mode: 0o640 });
    mkdirSync(join(dir, 'sub'));
    symlinkSync('../report.txt', join(dir, 'sub', 'up.txt'));
    symlinkSync('sub/up.txt', join(dir, 'chain.txt'));
    symlinkSync('loop-b', join(dir, 'loop-a'));
    symlinkSync('loop-a', join(dir, 'loop-b'));
    expect(await resolveReportTarget(join(dir, 'chain.txt'))).to.deep.equal({ kind: 'replace', path: join(dir, 'report.txt'), mode: 0o640 });
    expect(await resolveReportTarget(join(dir, 'new.txt'))).to.deep.equal({ kind: 'replace', path: join(dir, 'new.txt') });
    expect(await resolveReportTarget(join(dir, 'sub'))).to.deep.include({ kind: 'problem' });
    expect(((await resolveReportTarget(join(dir, 'loop-a'))) as { problem: string }).problem).to.match(/ELOOP/);
  });
});
