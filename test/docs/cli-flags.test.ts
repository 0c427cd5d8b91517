import { cpSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { expect } from 'chai';
import { REPO_ROOT } from '../cli/cli-test-helpers.js';
import { checkCliFlags, checkHelpExamples, commandsIn, documentedFlags, flagsInHelp, helpTexts } from './cli-flags.js';

describe('documentation: CLI flags against --help, both ways', () => {
  let help: Map<string, string>;
  before(async () => {
    help = await helpTexts();
  });

  it('reads the commands and their flags from the real --help', () => {
    expect(commandsIn(help.get('')!)).to.include.members(['replay', 'mcp-proxy', 'runs']);
    expect(flagsInHelp(help.get('replay')!)).to.include.members(['--policy', '--profile', '--format', '--out', '--strict', '--fail-on-stop']);
    expect(flagsInHelp(help.get('runs')!)).to.include.members(['--redis', '--timeout-ms']);
    expect(documentedFlags(REPO_ROOT).length).to.be.greaterThan(10);
  });

  it('every flag in the docs exists in --help, and every flag in --help is documented', () => {
    expect(checkCliFlags(REPO_ROOT, help)).to.deep.equal([]);
  });

  it('--help teaches: a one-line purpose per command, examples at the top and two or more per command, each using real flags', () => {
    expect(checkHelpExamples(help)).to.deep.equal([]);
  });

  it('the help check fails on a command without examples, a long purpose, or an example with a flag that does not exist', () => {
    const planted = new Map(help);
    planted.set('runs', help.get('runs')!.replace(/^Examples:[\s\S]*$/m, ''));
    planted.set('replay', help.get('replay')!.replace('--fail-on-stop --policy', '--fail-on-loop --policy'));
    planted.set('', help.get('')!.replace(/^( {2}mcp-proxy \[options\] <command> \[args\.\.\.\] +)(.*)$/m, `$1$2 ${'and more words '.repeat(6)}`));
    expect(checkHelpExamples(planted)).to.deep.equal([
      `loopguard --help: "mcp-proxy" needs a one-line purpose (commander's .summary()), got: ${JSON.stringify(`guard any stdio MCP server: put it in front of the server command in your MCP client ${'and more words '.repeat(6)}`)}`,
      'loopguard runs --help: 0 example(s) of the command, want at least 2 ("  $ loopguard runs …" after Examples:)',
      'loopguard replay --help: example "loopguard replay --fail-on-loop --policy policy.json test/fixtures/agent-runs/*.jsonl" uses --fail-on-loop, not an option of loopguard replay',
    ]);
  });

  describe('with planted defects', () => {
    let root: string;
    beforeEach(() => {
      root = mkdtempSync(join(tmpdir(), 'loopguard-flags-'));
      cpSync(join(REPO_ROOT, 'README.md'), join(root, 'README.md'));
      cpSync(join(REPO_ROOT, 'docs'), join(root, 'docs'), { recursive: true });
    });
    afterEach(() => rmSync(root, { recursive: true, force: true }));

    it('the unchanged copy passes', () => {
      expect(checkCliFlags(root, help)).to.deep.equal([]);
    });

    it('fails on a documented flag the command does not have', () => {
      const page = join(root, 'docs/troubleshooting.md');
      writeFileSync(page, `${readFileSync(page, 'utf8')}\n\`\`\`sh\nnpx loopguard replay --since 2h \\\n  --policy p.json runs.jsonl\n\`\`\`\n`);
      const problems = checkCliFlags(root, help);
      expect(problems).to.have.length(1);
      expect(problems[0]).to.match(/^docs\/troubleshooting\.md:\d+: loopguard replay --since: not an option of loopguard replay/);
    });

    it('fails on a flag --help lists that no page documents', () => {
      const runsPage = join(root, 'docs/operations/runs-cli.md');
      writeFileSync(runsPage, readFileSync(runsPage, 'utf8').replace(/^\| `--timeout-ms <ms>` .*\n/m, ''));
      // The exit-codes page shows the flag in an example command line too: take it out there as well.
      const exitCodesPage = join(root, 'docs/cli-exit-codes-and-output.md');
      writeFileSync(exitCodesPage, readFileSync(exitCodesPage, 'utf8').replaceAll(' --timeout-ms 500', ''));
      expect(checkCliFlags(root, help)).to.deep.equal(['loopguard runs --timeout-ms: listed by --help but documented nowhere (add it to docs/operations/runs-cli.md)']);
    });

    it('fails on a new option or a new command added to the CLI without docs', () => {
      const planted = new Map(help);
      planted.set('runs', help.get('runs')!.replace(/^ {2}-h, --help/m, '  --watch                refresh every second\n  -h, --help'));
      planted.set('', help.get('')!.replace(/^ {2}help \[command\]/m, '  frob [options]   does things\n  help [command]'));
      planted.set('frob', 'Usage: loopguard frob [options]\n\nOptions:\n  --level <n>  how much\n  -h, --help   display help for command\n');
      expect(checkCliFlags(root, planted)).to.deep.equal([
        'loopguard runs --watch: listed by --help but documented nowhere (add it to docs/operations/runs-cli.md)',
        'loopguard frob: no documentation page (COMMAND_PAGES in test/docs/cli-flags.ts names none)',
      ]);
    });
  });
});
