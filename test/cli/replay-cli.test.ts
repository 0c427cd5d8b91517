import { expect } from 'chai';
import { execFileSync } from 'node:child_process';
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { EXAMPLE_POLICY, EXAMPLES_DIR, tempDir, writeTempLines } from '../replay/replay-test-helpers.js';
import { REPO_ROOT, runCli } from './cli-test-helpers.js';

const example = (name: string): string => join(EXAMPLES_DIR, `${name}.jsonl`);
const STOPPING = example('reworded-search');
const HEALTHY = [example('pagination'), example('empty-exploration')];
const ANSI = /\u001b\[\d+m/;

describe('loopguard replay (CLI process)', function () {
  this.timeout(60_000);

  it('text (default): timeline, stop and reason, saved work and a summary; exit 0; no colour when not a TTY', async () => {
    const result = await runCli(['replay', '--policy', EXAMPLE_POLICY, STOPPING, example('pagination'), example('exact-repeat')]);
    expect(result.code).to.equal(0);
    expect(result.stderr).to.equal('');
    expect(result.stdout).to.match(/^loopguard replay · profile researcher/);
    expect(result.stdout).to.match(/reworded-search .*reworded-search\.jsonl\n {2}verdict {2}STOP stale_rounds after round \d+ \(call \d+ of 21\)/);
    expect(result.stdout).to.match(/ {2}rounds +1 \+[=x]+\|\.+ {2}21 rounds/);
    expect(result.stdout).to.match(/ {2}why {6}.+/);
    // search_documents is the reworded-search run's only tool, so the ladder never disables it
    // (issue 9, item 6): nothing is refused there and the stale-rounds stop decides.
    expect(result.stdout).to.match(/reworded-search .*\n(?: {2}.*\n)*? {2}calls {4}21 in input: \d+ executed, 0 refused, \d+ skipped\n {2}saved /);
    // The refusals line, from the exact-repeat run: each repeat refused, with its reason and count.
    expect(result.stdout).to.match(/exact-repeat .*\n(?: {2}.*\n)*? {2}refused {2}repeat\.run_wide ×\d+\n/);
    expect(result.stdout).to.match(/ {2}saved {4}\d+ calls, [\d,]+ tokens/);
    expect(result.stdout).to.match(/pagination .*\n {2}verdict {2}finished\n {2}rounds +1 \+{9} {2}9 rounds/);
    expect(result.stdout).to.match(/summary {2}3 runs · 2 stopped \(stale_rounds 1, refused_rounds 1\) · 1 with refusals · .* · saved \d+ calls/);
    expect(result.stdout).to.not.match(ANSI);
  });

  it('text: colour with FORCE_COLOR (as on a TTY), none with NO_COLOR', async () => {
    const colored = await runCli(['replay', STOPPING], { env: { FORCE_COLOR: '1' } });
    expect(colored.stdout).to.match(ANSI);
    const plain = await runCli(['replay', STOPPING], { env: { FORCE_COLOR: '1', NO_COLOR: '1' } });
    expect(plain.stdout).to.not.match(ANSI);
  });

  it('json: one object per run per line, exactly one decision per input call', async () => {
    const files = [STOPPING, example('exact-repeat'), ...HEALTHY];
    const result = await runCli(['replay', '--format', 'json', '--policy', EXAMPLE_POLICY, ...files]);
    expect(result.code).to.equal(0);
    const runs = result.stdout.trim().split('\n').map((line) => JSON.parse(line));
    expect(runs.map((r) => r.run)).to.deep.equal(['reworded-search', 'exact-repeat', 'pagination', 'empty-exploration']);
    for (const [index, run] of runs.entries()) {
      const inputCalls = readFileSync(files[index], 'utf8').trim().split('\n').length;
      expect(Object.keys(run)).to.include.members(['run', 'profile', 'calls', 'executed', 'refused', 'skipped', 'stop', 'decisions', 'saved']);
      expect(run.calls).to.equal(inputCalls);
      expect(run.decisions).to.have.length(inputCalls);
      expect(run.decisions.map((d: { call: number }) => d.call)).to.deep.equal(Array.from({ length: inputCalls }, (_, i) => i + 1));
      expect(run.executed + run.refused + run.skipped).to.equal(inputCalls);
      for (const d of run.decisions) expect(['allow', 'refuse', 'skip']).to.include(d.decision);
    }
    expect(runs[0].stop).to.have.keys(['reason', 'round', 'call']);
    expect(runs[0].stop.reason).to.equal('stale_rounds');
    expect(runs[1].stop.reason).to.equal('refused_rounds');
    expect(runs[1].saved).to.have.keys(['calls', 'tokens']);
    expect(runs[2].stop).to.equal(null);
    expect(runs[2].saved).to.deep.equal({ calls: 0 });
  });

  it('html --out FILE: writes one self-contained page and nothing to stdout', async () => {
    const out = join(tempDir(), 'cli-report.html');
    const result = await runCli(['replay', '--format', 'html', '--out', out, '--policy', EXAMPLE_POLICY, STOPPING, ...HEALTHY]);
    expect(result.code).to.equal(0);
    expect(result.stdout).to.equal('');
    const html = readFileSync(out, 'utf8');
    expect(html).to.match(/^<!doctype html>/);
    expect(html).to.match(/<\/html>\n$/);
    expect(html.match(/<section class="run"/g)).to.have.length(3);
    // Self-contained: no external fetches of any kind.
    expect(html).to.not.match(/(src|href)=["']https?:/);
    expect(html).to.not.match(/<script/);
  });

  it('exit 2 on bad input: every bad line reported as file:line, skipped, and the rest still replayed', async () => {
    const file = writeTempLines('cli-bad.jsonl', [
      { run: 'r', round: 1, tool: 't', args: { a: 1 }, result: 1 },
      '{"run": "r", "round": 2',
      { run: 'r', round: 2, tool: 't', args: { a: 2 } },
      { run: 'r', round: 2, tool: 't', args: { a: 3 }, result: 3 },
    ]);
    const result = await runCli(['replay', '--format', 'json', file]);
    expect(result.code).to.equal(2);
    const problems = result.stderr.trim().split('\n');
    expect(problems).to.have.length(2);
    expect(problems[0]).to.match(new RegExp(`^${escapeRegExp(file)}:2: not valid JSON`));
    expect(problems[1]).to.match(new RegExp(`^${escapeRegExp(file)}:3: needs exactly one of "result"`));
    const run = JSON.parse(result.stdout.trim());
    expect(run.calls).to.equal(2);
  });

  it('--strict: the first bad line aborts with exit 2', async () => {
    const file = writeTempLines('cli-strict.jsonl', [
      { run: 'r', round: 1, tool: 't', args: { a: 1 }, result: 1 },
      { run: 'r', round: 0, tool: 't', args: { a: 2 }, result: 2 },
      { run: 'r', round: 'x', tool: 't', args: { a: 3 }, result: 3 },
    ]);
    const result = await runCli(['replay', '--strict', '--format', 'json', file]);
    expect(result.code).to.equal(2);
    expect(result.stderr.trim().split('\n')).to.have.length(1);
    expect(result.stderr).to.match(/:2: "round" must be an integer >= 1, got 0 \(--strict: stopping at the first bad line\)/);
    expect(result.stdout).to.equal('');
  });

  it('--fail-on-stop: exit 3 when any run would have been stopped, 0 when none would', async () => {
    const stopped = await runCli(['replay', '--fail-on-stop', '--policy', EXAMPLE_POLICY, ...HEALTHY, STOPPING]);
    expect(stopped.code).to.equal(3);
    expect(stopped.stdout).to.match(/STOP stale_rounds/);
    const healthy = await runCli(['replay', '--fail-on-stop', '--policy', EXAMPLE_POLICY, ...HEALTHY, example('polling-to-completion')]);
    expect(healthy.code).to.equal(0);
  });

  it('bad input wins over --fail-on-stop (exit 2, not 3)', async () => {
    const bad = writeTempLines('cli-bad-and-stop.jsonl', ['not json']);
    const result = await runCli(['replay', '--fail-on-stop', STOPPING, bad]);
    expect(result.code).to.equal(2);
  });

  it('reads .gz files, and reports a corrupt one as a bad file (exit 2) without crashing', async () => {
    const { gzipSync } = await import('node:zlib');
    const { writeFileSync } = await import('node:fs');
    const packed = gzipSync(readFileSync(example('pagination')));
    const good = join(tempDir(), 'pagination.jsonl.gz');
    writeFileSync(good, packed);
    const ok = await runCli(['replay', '--format', 'json', good]);
    expect(ok.code).to.equal(0);
    expect(JSON.parse(ok.stdout.trim())).to.include({ run: 'pagination', calls: 9 });
    const corrupt = join(tempDir(), 'truncated.jsonl.gz');
    writeFileSync(corrupt, packed.subarray(0, packed.length - 40));
    const bad = await runCli(['replay', corrupt]);
    expect(bad.code).to.equal(2);
    expect(bad.stderr).to.match(/truncated\.jsonl\.gz: read failed after \d+ lines/);
    expect(bad.stdout).to.match(/summary .* 1 input problem \(see stderr\)/);
  });

  it('ignores a UTF-8 byte order mark on the first line', async () => {
    const { writeFileSync } = await import('node:fs');
    const file = join(tempDir(), 'bom.jsonl');
    writeFileSync(file, '\ufeff' + readFileSync(example('pagination'), 'utf8'));
    const result = await runCli(['replay', '--format', 'json', file]);
    expect(result.code).to.equal(0);
    expect(JSON.parse(result.stdout.trim()).calls).to.equal(9);
  });

  it('exit 2 when --out cannot be written', async () => {
    const result = await runCli(['replay', '--out', join(tempDir(), 'no-such-dir', 'r.txt'), STOPPING]);
    expect(result.code).to.equal(2);
    expect(result.stderr).to.match(/cannot write .*r\.txt \(ENOENT\)/);
  });

  it('reads stdin for -', async () => {
    const result = await runCli(['replay', '--format', 'json', '-'], { stdin: readFileSync(example('pagination'), 'utf8') });
    expect(result.code).to.equal(0);
    const run = JSON.parse(result.stdout.trim());
    expect(run).to.include({ run: 'pagination', file: '<stdin>', calls: 9 });
  });

  it('--policy is validated by the library (exit 2 naming the field); --profile overrides it', async () => {
    const badPolicy = writeTempLines('bad-policy.json', [{ tools: { check_job_status: { poll: { deadlineMs: -5 } } } }]);
    const bad = await runCli(['replay', '--policy', badPolicy, STOPPING]);
    expect(bad.code).to.equal(2);
    expect(bad.stderr).to.match(/tools\.check_job_status\.poll\.deadlineMs/);
    const notJson = writeTempLines('not-json-policy.json', ['{profile:']);
    expect((await runCli(['replay', '--policy', notJson, STOPPING])).stderr).to.match(/policy is not valid JSON/);
    const chat = await runCli(['replay', '--format', 'json', '--policy', EXAMPLE_POLICY, '--profile', 'chat', STOPPING]);
    expect(JSON.parse(chat.stdout.trim()).profile).to.equal('chat');
  });

  it('usage errors and unreadable files exit 2; --help exits 0', async () => {
    expect((await runCli(['replay', '--no-such-flag', STOPPING])).code).to.equal(2);
    expect((await runCli(['replay', '--format', 'xml', STOPPING])).code).to.equal(2);
    expect((await runCli(['replay'])).code).to.equal(2);
    const missing = await runCli(['replay', join(tempDir(), 'does-not-exist.jsonl')]);
    expect(missing.code).to.equal(2);
    expect(missing.stderr).to.match(/does-not-exist\.jsonl: cannot read \(ENOENT\)/);
    const bare = await runCli([]);
    expect(bare.code).to.equal(2);
    expect(bare.stderr).to.match(/Usage: loopguard/);
    expect((await runCli(['frobnicate'])).code).to.equal(2);
    const help = await runCli(['replay', '--help']);
    expect(help.code).to.equal(0);
    expect(help.stdout).to.match(/--fail-on-stop/);
  });

  it('works through bin/loopguard.js on the built dist/ (what npm installs)', async () => {
    if (!existsSync(join(REPO_ROOT, 'dist/src/cli/main.js'))) {
      execFileSync(process.execPath, [join(REPO_ROOT, 'node_modules/typescript/bin/tsc'), '-p', 'tsconfig.build.json'], { cwd: REPO_ROOT });
    }
    const result = await runCli(['replay', '--fail-on-stop', '--policy', EXAMPLE_POLICY, STOPPING], { via: 'bin' });
    expect(result.stderr).to.equal('');
    expect(result.code).to.equal(3);
    expect(result.stdout).to.match(/STOP stale_rounds/);
  });
});

function escapeRegExp(text: string): string {
  return text.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
}
