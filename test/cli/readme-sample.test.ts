import { expect } from 'chai';
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { PassThrough } from 'node:stream';
import { main } from '../../src/cli/main.js';
import { REPO_ROOT } from './cli-test-helpers.js';

/** The sample text report in the docs (docs/replay-and-evaluation.md; the README before the split). */
function documentedSample(): { source: string; command: string[]; output: string } {
  for (const source of [join(REPO_ROOT, 'docs', 'replay-and-evaluation.md'), join(REPO_ROOT, 'README.md')]) {
    if (!existsSync(source)) continue;
    const text = readFileSync(source, 'utf8');
    const match = /```text\n\$ npx loopguard (replay(?:[^\n]*\\\n)*[^\n]*)\n([\s\S]*?)```/.exec(text);
    if (!match) continue;
    const command = match[1].replace(/\\\n\s*/g, ' ').trim().split(/\s+/);
    return { source, command, output: match[2] };
  }
  throw new Error('no "$ npx loopguard replay" text sample in docs/replay-and-evaluation.md or README.md');
}

describe('documented replay sample', () => {
  it('is exactly what the command prints today', async () => {
    const { source, command, output } = documentedSample();
    const stdout = new PassThrough();
    let printed = '';
    stdout.on('data', (chunk: Buffer) => (printed += chunk.toString('utf8')));
    const stderr = new PassThrough();
    let stderrText = "";
    stderr.on("data", (chunk: Buffer) => (stderrText += chunk.toString("utf8")));
    const cwd = process.cwd();
    process.chdir(REPO_ROOT);
    try {
      const code = await main(command, { stdin: new PassThrough(), stdout, stderr, env: {} });
      expect(code, `${command.join(" ")}: ${stderrText}`).to.equal(0);
    } finally {
      process.chdir(cwd);
    }
    expect(printed, `${source} is out of date`).to.equal(output);
  });
});
