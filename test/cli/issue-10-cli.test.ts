import { expect } from 'chai';
import { readdirSync, readFileSync, writeFileSync, mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { gzipSync } from 'node:zlib';
import { otlpLines } from '../replay/otlp-test-helpers.js';
import { EXAMPLES_DIR, writeTempLines } from '../replay/replay-test-helpers.js';
import { runCli } from './cli-test-helpers.js';

const PAGINATION = join(EXAMPLES_DIR, 'pagination.jsonl');
const STACK_TRACE = /^\s+at .+:\d+:\d+\)?$/m;

function freshDir(): string {
  return mkdtempSync(join(tmpdir(), 'loopguard-i10-'));
}

describe('issue 10: loopguard replay (CLI)', () => {
  it('issue 10 #18: --out naming an input is refused and the input is left intact', async () => {
    const dir = freshDir();
    const input = join(dir, 't.jsonl');
    const original = readFileSync(PAGINATION);
    writeFileSync(input, original);
    const result = await runCli(['replay', '--out', input, input]);
    expect(result.code).to.equal(2);
    expect(result.stderr).to.match(/--out .*t\.jsonl.* is also an input/);
    expect(readFileSync(input).equals(original)).to.equal(true);
    // The same file by another spelling is the same file.
    const again = await runCli(['replay', '--out', join(dir, '.', 't.jsonl'), PAGINATION, input]);
    expect(again.code).to.equal(2);
    expect(readFileSync(input).equals(original)).to.equal(true);
  });

  it('issue 10 #18: a --strict abort or a missing input leaves an existing --out untouched; success replaces it whole', async () => {
    const dir = freshDir();
    const out = join(dir, 'report.txt');
    writeFileSync(out, 'GOOD OLD REPORT\n');
    const bad = writeTempLines('i18-bad.jsonl', [readFileSync(PAGINATION, 'utf8').split('\n')[0], 'not json']);
    const aborted = await runCli(['replay', '--strict', '--out', out, bad]);
    expect(aborted.code).to.equal(2);
    expect(readFileSync(out, 'utf8')).to.equal('GOOD OLD REPORT\n');
    const missing = await runCli(['replay', '--strict', '--out', out, join(dir, 'nope.jsonl')]);
    expect(missing.code).to.equal(2);
    expect(readFileSync(out, 'utf8')).to.equal('GOOD OLD REPORT\n');
    const missingLenient = await runCli(['replay', '--out', out, PAGINATION, join(dir, 'nope.jsonl')]);
    expect(missingLenient.code).to.equal(2);
    expect(missingLenient.stderr).to.match(/nope\.jsonl: cannot read \(ENOENT\)/);
    expect(readFileSync(out, 'utf8')).to.equal('GOOD OLD REPORT\n');
    const ok = await runCli(['replay', '--out', out, PAGINATION]);
    expect(ok.code).to.equal(0);
    expect(readFileSync(out, 'utf8')).to.match(/^loopguard replay[\s\S]*summary {2}1 run/);
    // No temporary file is left beside the report.
    expect(readdirSync(dir)).to.deep.equal(['report.txt']);
  });

  it('issue 10 #20: a gzip bomb (no newline) is bad input at file:line, exit 2, no stack trace', async function () {
    this.timeout(60_000);
    const bomb = join(freshDir(), 'bomb.jsonl.gz');
    writeFileSync(bomb, gzipSync(Buffer.alloc(80 * 1024 * 1024, 'a'), { level: 1 }));
    const result = await runCli(['replay', bomb]);
    expect(result.code).to.equal(2);
    expect(result.stderr).to.match(/bomb\.jsonl\.gz:1: line longer than 64 MiB/);
    expect(result.stderr).to.not.match(STACK_TRACE);
    expect(result.stderr).to.not.include('RangeError');
  });

  it('issue 10 #22: an error flood prints the first 100 problems and a count of the rest', async () => {
    const lines = Array.from({ length: 250 }, (_, i) => `bad line ${i}`);
    const file = writeTempLines('i22-flood.jsonl', lines);
    const result = await runCli(['replay', file]);
    expect(result.code).to.equal(2);
    const problemLines = result.stderr.split('\n').filter((line) => /i22-flood\.jsonl:\d+:/.test(line));
    expect(problemLines).to.have.length(100);
    expect(result.stderr).to.match(/150 more input problems not shown \(250 in total\)/);
    expect(result.stdout).to.match(/250 input problems \(see stderr\)/);
  });

  it('issue 10 #23: escape sequences in run ids and OTLP span names never reach the terminal, with or without NO_COLOR', async () => {
    const file = writeTempLines('i23.jsonl', [
      { run: 'evil\x1b[2J\x1b[H\x1b[32mOK', round: 1, tool: 'se\x1barch', args: {}, result: 1 },
    ]);
    const span = {
      traceId: 'c'.repeat(32),
      spanId: '00000000000000d1',
      name: 'evil \x1b[2Jx\x9b2J',
      startMs: 1,
      endMs: 2,
      // No tool name: the span is reported by its name.
      attributes: { 'gen_ai.operation.name': 'execute_tool', 'gen_ai.tool.call.arguments': '{}' },
    };
    const otlp = writeTempLines('i23.otlp.json', otlpLines([span]));
    for (const env of [{ NO_COLOR: '1' }, { FORCE_COLOR: '1' }, {}] as Array<Record<string, string>>) {
      const result = await runCli(['replay', file, otlp], { env });
      const stdoutText = result.stdout.replace(/\x1b\[[0-9;]*m/g, '');
      expect(stdoutText).to.not.match(/[\x00-\x09\x0b-\x1f\x7f-\x9f]/);
      expect(stdoutText).to.include('evil\\x1b[2J');
      expect(result.stderr).to.not.match(/[\x00-\x09\x0b-\x1f\x7f-\x9f]/);
      expect(result.stderr).to.include('\\x1b[2Jx\\x9b2J');
    }
  });

  for (const [policy, field] of [
    ['{"maxIdleMs":1}', 'maxIdleMs'],
    ['{"logger":1,"maxIdleMs":-1}', 'logger'],
    ['{"listeners":5}', 'listeners'],
    ['{"maxOpenRuns":2}', 'maxOpenRuns'],
    ['{"endedRunTtlMs":0}', 'endedRunTtlMs'],
  ] as const) {
    it(`issue 10 #24: a policy file with the engine-only key ${field} is rejected by name, exit 2 (${policy})`, async () => {
      const file = join(freshDir(), 'policy.json');
      writeFileSync(file, policy);
      const result = await runCli(['replay', '--policy', file, PAGINATION]);
      expect(result.code).to.equal(2);
      expect(result.stderr).to.match(new RegExp(`policy\\.json: "${field}" is an engine option`));
      expect(result.stderr).to.not.match(STACK_TRACE);
      expect(result.stdout).to.equal('');
    });
  }
});
