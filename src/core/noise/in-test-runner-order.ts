/**
 * Test runners that run in parallel print each result as it finishes, so the same suite run
 * twice with nothing changed lists them in another order: `cargo test`'s `test parse ... ok`
 * lines (one per test thread), jest's `PASS` / `FAIL` blocks and vitest's `✓` / `❯` / `×` lines
 * (one per test file and worker). Read as text, the same failing suite re-run unedited was a
 * new answer whenever the order moved, and the loop was never a repeat. The order is the
 * scheduler's, not a fact about the code: each run of such lines is put in a fixed order
 * (sorted), everything else stays where it is.
 *
 * Only in a shell's output (result-fingerprint.ts withoutNoise), only with the runner's own
 * summary in the text (`test result: `, `Test Suites: `, `Test Files `): the literal is
 * searched for before any line is split, so other output costs one search per literal. Plain
 * text only: a result that carries the output inside JSON (`{"output": "…\n…"}`) keeps its order.
 */

/** cargo test (libtest): `test tests::parses ... ok`, `... FAILED`, `... ignored`, `... bench:`. */
const CARGO_SUMMARY = 'test result: ';
const CARGO_LINE = /^test \S+(?: - should panic)? \.\.\. (?:ok|FAILED|ignored|bench:)/;

/** jest: a file's `PASS src/a.test.ts (1.2 s)` / `FAIL …` header and the indented lines under it. */
const JEST_SUMMARY = 'Test Suites: ';
const JEST_HEADER = /^(?:PASS|FAIL) \S/;

/** vitest: ` ✓ src/a.test.ts (3 tests) 5ms`, ` ❯ … (3 tests | 1 failed)`, ` × …`, ` ↓ … (skipped)`. */
const VITEST_SUMMARY = 'Test Files ';
const VITEST_LINE = /^ +(?:✓|❯|×|↓) \S/;

export function inTestRunnerOrder(text: string): string {
  const cargo = text.includes(CARGO_SUMMARY);
  const jest = !cargo && text.includes(JEST_SUMMARY);
  const vitest = !cargo && !jest && text.includes(VITEST_SUMMARY);
  if (!cargo && !jest && !vitest) return text;
  const lines = text.split('\n');
  const ordered = jest ? sortBlocks(lines, JEST_HEADER) : sortRuns(lines, cargo ? CARGO_LINE : VITEST_LINE);
  return ordered === undefined ? text : ordered.join('\n');
}

/** Sorts each run of consecutive lines matching `line`; undefined when nothing moved. */
function sortRuns(lines: string[], line: RegExp): string[] | undefined {
  let moved = false;
  for (let start = 0; start < lines.length; ) {
    if (!line.test(lines[start]!)) {
      start += 1;
      continue;
    }
    let end = start + 1;
    while (end < lines.length && line.test(lines[end]!)) end += 1;
    if (end - start > 1) {
      const run = lines.slice(start, end);
      const sorted = [...run].sort();
      if (sorted.some((entry, index) => entry !== run[index])) {
        lines.splice(start, end - start, ...sorted);
        moved = true;
      }
    }
    start = end;
  }
  return moved ? lines : undefined;
}

/**
 * Sorts each run of consecutive blocks, a block being a header line and the lines under it
 * (indented, or blank inside the block). Blank lines between two blocks of a run are left
 * out, since where they fall depends on the order; undefined when nothing moved.
 */
function sortBlocks(lines: string[], header: RegExp): string[] | undefined {
  const out: string[] = [];
  let moved = false;
  for (let at = 0; at < lines.length; ) {
    if (!header.test(lines[at]!)) {
      out.push(lines[at]!);
      at += 1;
      continue;
    }
    const blocks: string[] = [];
    for (;;) {
      let end = at + 1;
      while (end < lines.length && (isIndented(lines[end]!) || (lines[end]!.trim() === '' && nextNonBlankIsIndented(lines, end)))) end += 1;
      blocks.push(lines.slice(at, end).join('\n'));
      let next = end;
      while (next < lines.length && lines[next]!.trim() === '') next += 1;
      if (next < lines.length && header.test(lines[next]!)) {
        at = next;
        continue;
      }
      at = end;
      break;
    }
    const sorted = [...blocks].sort();
    if (sorted.some((block, index) => block !== blocks[index])) moved = true;
    out.push(...sorted);
  }
  return moved ? out : undefined;
}

function isIndented(line: string): boolean {
  return line.startsWith(' ') || line.startsWith('\t');
}

function nextNonBlankIsIndented(lines: string[], from: number): boolean {
  let at = from + 1;
  while (at < lines.length && lines[at]!.trim() === '') at += 1;
  return at < lines.length && isIndented(lines[at]!);
}
