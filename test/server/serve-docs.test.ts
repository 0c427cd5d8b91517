import { expect } from 'chai';
import { readFileSync } from 'node:fs';
import { main } from '../../src/cli/main.js';
import { PassThrough } from 'node:stream';

describe('docs/serve.md', () => {
  it('lists exactly the flags `loopguard serve --help` prints', async () => {
    const stdout = new PassThrough();
    let help = '';
    stdout.on('data', (chunk: Buffer) => (help += chunk.toString()));
    const code = await main(['serve', '--help'], { stdin: new PassThrough(), stdout, stderr: new PassThrough(), env: {} });
    expect(code).to.equal(0);
    const fromHelp = [...help.matchAll(/^\s+(?:-\w, )?(--[a-z-]+)/gm)].map((match) => match[1]!).sort();
    const docs = readFileSync(new URL('../../docs/serve.md', import.meta.url), 'utf8');
    const table = docs.slice(docs.indexOf('## Every flag of `loopguard serve`'));
    const fromDocs = [...table.matchAll(/^\| `(?:-\w, )?(--[a-z-]+)/gm)].map((match) => match[1]!).sort();
    expect(fromDocs).to.deep.equal(fromHelp);
  });

  it('the Python agent on its first screen is under ten lines', () => {
    const docs = readFileSync(new URL('../../docs/serve.md', import.meta.url), 'utf8');
    const block = /## A Python agent, guarded in under ten lines[\s\S]*?```python\n([\s\S]*?)```/.exec(docs)![1]!;
    expect(block.trim().split('\n').length).to.be.below(10);
  });
});
