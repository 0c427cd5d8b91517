import { expect } from 'chai';
import { inTestRunnerOrder } from '../../../src/core/noise/in-test-runner-order.js';
import { resolveOptions } from '../../../src/core/policy.js';
import { fingerprintResult } from '../../../src/core/result-fingerprint.js';
import { kinds, newRun, playRounds, type ScriptedCall } from '../play.js';

const options = resolveOptions({});
const hashAs = (tool: string, text: string) => fingerprintResult(text, options.tool(tool), options.maxFingerprintBytes).resultHash;

/** libtest's output (cargo test), its per-test lines in the order the threads finished. */
function cargoTest(order: string[], seconds: string): string {
  const status: Record<string, string> = { 'tests::adds': 'ok', 'tests::parses': 'FAILED', 'tests::formats': 'ok', 'tests::rounds': 'ok' };
  return [
    '   Compiling calc v0.1.0 (/repo)',
    `    Finished \`test\` profile [unoptimized + debuginfo] target(s) in ${seconds}s`,
    '     Running unittests src/lib.rs (target/debug/deps/calc-3f2a1b9c8d7e)',
    '',
    `running ${order.length} tests`,
    ...order.map((name) => `test ${name} ... ${status[name]}`),
    '',
    'failures:',
    '',
    '---- tests::parses stdout ----',
    "thread 'tests::parses' panicked at src/lib.rs:42:9:",
    'assertion `left == right` failed',
    '',
    'failures:',
    '    tests::parses',
    '',
    `test result: FAILED. 3 passed; 1 failed; 0 ignored; 0 measured; 0 filtered out; finished in 0.0${seconds.length}s`,
  ].join('\n');
}

/** jest's output: a block per test file, in the order the workers finished them. */
function jest(order: string[], failure = 'expected 1, received 2'): string {
  const blocks: Record<string, string> = {
    a: 'PASS src/a.test.ts',
    b: 'PASS src/b.test.ts (5.1 s)',
    c: `FAIL src/c.test.ts\n  ● parses dates\n\n    ${failure}\n\n      at Object.<anonymous> (src/c.test.ts:4:17)`,
  };
  return `${order.map((key) => blocks[key]).join('\n')}\n\nTest Suites: 1 failed, 2 passed, 3 total\nTests:       1 failed, 7 passed, 8 total\nTime:        6.2 s\nRan all test suites.`;
}

describe('noise/in-test-runner-order: a parallel test runner prints results in the order they finish', () => {
  it("cargo test's per-test lines are compared in a fixed order; another status is still another answer", () => {
    const first = cargoTest(['tests::adds', 'tests::parses', 'tests::formats', 'tests::rounds'], '0.52');
    const second = cargoTest(['tests::rounds', 'tests::adds', 'tests::formats', 'tests::parses'], '0.61');
    expect(hashAs('bash', first)).to.equal(hashAs('bash', second));
    expect(hashAs('bash', first)).to.not.equal(hashAs('bash', first.replace('tests::formats ... ok', 'tests::formats ... FAILED')));
  });

  it("jest's file blocks, with their failure details and blank lines, are compared in a fixed order", () => {
    expect(hashAs('bash', jest(['a', 'c', 'b']))).to.equal(hashAs('bash', jest(['c', 'b', 'a'])));
    expect(hashAs('bash', jest(['b', 'a', 'c']))).to.equal(hashAs('bash', jest(['a', 'b', 'c'])));
    expect(hashAs('bash', jest(['a', 'c', 'b']))).to.not.equal(hashAs('bash', jest(['a', 'c', 'b'], 'expected 1, received 3')));
  });

  it("vitest's per-file lines are compared in a fixed order", () => {
    const vitest = (lines: string[]) => `\n RUN  v2.1.8 /repo\n\n${lines.join('\n')}\n\n Test Files  1 failed | 2 passed (3)\n      Tests  1 failed | 7 passed (8)`;
    const a = ' ✓ src/a.test.ts (3 tests) 5ms';
    const b = ' ✓ src/b.test.ts (4 tests) 12ms';
    const c = ' ❯ src/c.test.ts (1 test | 1 failed) 8ms';
    expect(hashAs('run_shell_command', vitest([a, c, b]))).to.equal(hashAs('run_shell_command', vitest([c, b, a])));
  });

  it('leaves everything else as it is: text without a runner summary (the same string back), and other tools\' output', () => {
    const listing = 'test b ... ok\ntest a ... ok';
    expect(inTestRunnerOrder(listing)).to.equal(listing);
    // A search tool's ranking is a fact: its lines are not reordered.
    const ranked = (lines: string[]) => `${lines.join('\n')}\ntest result: 2 hits`;
    expect(hashAs('search_docs', ranked(['test b ... ok', 'test a ... ok']))).to.not.equal(hashAs('search_docs', ranked(['test a ... ok', 'test b ... ok'])));
  });

  it('the same failing cargo test re-run with nothing edited is a repeat whatever the order; after an edit it is new', () => {
    const orders = [
      ['tests::adds', 'tests::parses', 'tests::formats', 'tests::rounds'],
      ['tests::parses', 'tests::rounds', 'tests::adds', 'tests::formats'],
      ['tests::formats', 'tests::adds', 'tests::rounds', 'tests::parses'],
    ];
    const run = (order: string[]): ScriptedCall[] => [{ tool: 'bash', args: { command: 'cargo test' }, outcome: { result: cargoTest(order, '0.5') } }];
    expect(kinds(playRounds(newRun(), orders.map(run)).flatMap((round) => round.decisions))).to.deep.equal(['allow:new', 'allow:repeat', 'refuse:repeat.unchanged']);
    const edit = (oldText: string, newText: string): ScriptedCall => ({ tool: 'str_replace_editor', args: { command: 'str_replace', path: '/repo/src/lib.rs', old_str: oldText, new_str: newText }, outcome: { result: 'The file /repo/src/lib.rs has been edited.' } });
    const withEdits = playRounds(newRun(), [run(orders[0]!), [edit('a - b', 'a + b')], run(orders[1]!), [edit('x', 'y')], run(orders[2]!)]);
    expect(kinds(withEdits.flatMap((round) => round.decisions)).every((kind) => kind.startsWith('allow'))).to.equal(true);
  });
});
