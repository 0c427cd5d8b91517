// The documentation's shape and links: README.md is a landing page (≤ 25 KB, the two commands),
// no docs page is over 30 KB, every page is reachable from the README in at most two links, and
// every relative link and anchor in README.md, CHANGELOG.md, CONTRIBUTING.md and docs/**/*.md
// resolves. The link check is run on a temporary copy with planted defects to show it fails.
import { cpSync, mkdtempSync, readdirSync, readFileSync, rmSync, statSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { expect } from 'chai';
import { REPO_ROOT } from '../cli/cli-test-helpers.js';
import { checkLinks, documentationFiles, githubSlug, linkDistances, parseMarkdown } from './markdown-docs.js';

const KB = 1024;

describe('documentation: shape and links', () => {
  const files = documentationFiles(REPO_ROOT);

  it('README.md is a landing page: at most 25 KB and 250 lines, the two commands near the top', () => {
    const readme = readFileSync(join(REPO_ROOT, 'README.md'), 'utf8');
    expect(Buffer.byteLength(readme), 'README.md bytes').to.be.at.most(25 * KB);
    expect(readme.split('\n').length, 'README.md lines').to.be.at.most(250);
    const top = readme.split('\n').slice(0, 30).join('\n');
    expect(top).to.match(/^npm ci && npm run demo\b/m);
    expect(top).to.match(/^npm test\b/m);
  });

  it('every docs page is at most 30 KB', () => {
    const large = files.filter((file) => statSync(join(REPO_ROOT, file)).size > 30 * KB).map((file) => `${file}: ${statSync(join(REPO_ROOT, file)).size} B`);
    expect(large).to.deep.equal([]);
  });

  it('every docs page is reachable from README.md in at most two links', () => {
    const distances = linkDistances(REPO_ROOT);
    const far = files.filter((file) => !((distances.get(file) ?? Infinity) <= 2)).map((file) => `${file}: ${distances.get(file) ?? 'unreachable'}`);
    expect(far).to.deep.equal([]);
  });

  it('the README links every integration page, the docs index and docs/serve.md', () => {
    const links = parseMarkdown(readFileSync(join(REPO_ROOT, 'README.md'), 'utf8')).links.map((link) => link.href.split('#')[0]);
    for (const page of ['ai-sdk', 'openai-agents', 'mcp', 'claude-agent-sdk', 'langchain']) expect(links).to.include(`docs/integrations/${page}.md`);
    expect(links).to.include.members(['docs/README.md', 'docs/serve.md', 'docs/images/replay-report.png']);
  });

  it('every relative link and anchor resolves', () => {
    const problems = checkLinks(REPO_ROOT).map((p) => `${p.where}: ${p.href}: ${p.problem}`);
    expect(problems).to.deep.equal([]);
  });

  it('anchors are GitHub\'s: code spans, punctuation and repeated headings', () => {
    const { anchors } = parseMarkdown('# MCP (`loopguard mcp-proxy`, `@modelcontextprotocol/sdk`)\n\n## Runs — and rounds\n\n## Runs — and rounds\n\n<a id="custom"></a>\n');
    expect([...anchors]).to.deep.equal(['mcp-loopguard-mcp-proxy-modelcontextprotocolsdk', 'runs--and-rounds', 'runs--and-rounds-1', 'custom']);
    expect(githubSlug('What `npm run demo` shows')).to.equal('what-npm-run-demo-shows');
  });

  describe('on a copy of the repository with planted defects', () => {
    let root: string;
    beforeEach(() => {
      // README.md and docs/ copied (they get the defects); everything else linked in place.
      root = mkdtempSync(join(tmpdir(), 'loopguard-links-'));
      for (const entry of readdirSync(REPO_ROOT)) {
        if (entry === 'README.md' || entry === 'docs') cpSync(join(REPO_ROOT, entry), join(root, entry), { recursive: true });
        else if (entry !== '.git' && entry !== 'node_modules') symlinkSync(join(REPO_ROOT, entry), join(root, entry));
      }
    });
    afterEach(() => rmSync(root, { recursive: true, force: true }));

    const plant = (file: string, edit: (text: string) => string): void => {
      const path = join(root, file);
      const before = readFileSync(path, 'utf8');
      const after = edit(before);
      expect(after, 'the defect was planted').to.not.equal(before);
      writeFileSync(path, after);
    };
    const problems = () => checkLinks(root).map((p) => `${p.where}: ${p.href}: ${p.problem}`);

    it('the unchanged copy passes', () => {
      expect(problems()).to.deep.equal([]);
    });

    it('fails on a link to a page that does not exist', () => {
      plant('docs/getting-started.md', (text) => text.replace('(integrations/README.md)', '(integrations/index.md)'));
      expect(problems()).to.deep.equal(['docs/getting-started.md:5: integrations/index.md: docs/integrations/index.md does not exist']);
    });

    it('fails on an anchor no heading has, in another page and in the same page', () => {
      plant('docs/troubleshooting.md', (text) => text.replace('(getting-started.md#install-and-import)', '(getting-started.md#installing)'));
      plant('docs/README.md', (text) => `${text}\nSee [above](#start-here).\n`);
      const lastLine = readFileSync(join(root, 'docs/README.md'), 'utf8').split('\n').length - 1;
      const found = problems();
      expect(found).to.have.length(2);
      expect(found).to.include(`docs/README.md:${lastLine}: #start-here: docs/README.md has no heading with the anchor #start-here`);
      expect(found.join('\n')).to.match(/^docs\/troubleshooting\.md:\d+: getting-started\.md#installing: docs\/getting-started\.md has no heading with the anchor #installing$/m);
    });

    it('fails on a renamed heading that README links to', () => {
      plant('docs/replay-and-evaluation.md', (text) => text.replace('## Evaluation on real runs', '## Evaluating on real runs'));
      expect(problems().join('\n')).to.match(/^README\.md:\d+: docs\/replay-and-evaluation\.md#evaluation-on-real-runs: .* no heading with the anchor #evaluation-on-real-runs$/m);
    });

    it('fails on a link to a page that does not exist', () => {
      plant('docs/README.md', (text) => `${text}\n[a page nobody writes](not-planned.md)\n`);
      expect(problems()).to.have.length(1);
      expect(problems()[0]).to.match(/not-planned\.md: docs\/not-planned\.md does not exist$/);
    });
  });
});
