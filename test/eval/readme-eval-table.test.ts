import { expect } from 'chai';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';

/**
 * The README quotes EVAL.md's headline; `npm run eval` rewrites EVAL.md. A change to the
 * detection that moves a number must move the README with it, or this fails.
 */
const root = join(import.meta.dirname, '..', '..');

function tableAfter(text: string, marker: string): string[][] {
  const lines = text.slice(text.indexOf(marker)).split('\n');
  const start = lines.findIndex((line) => line.startsWith('|'));
  const rows: string[][] = [];
  for (const line of lines.slice(start)) {
    if (!line.startsWith('|')) break;
    rows.push(line.split('|').slice(1, -1).map((cell) => cell.trim()));
  }
  return rows;
}

describe('README evaluation table', () => {
  it('quotes EVAL.md: each configuration row has the same healthy-stopped, loops and withheld cells', () => {
    const readme = tableAfter(readFileSync(join(root, 'README.md'), 'utf8'), '<!-- eval-table');
    const evalRows = tableAfter(readFileSync(join(root, 'EVAL.md'), 'utf8'), '## Headline');
    const column = (rows: string[][], name: string) => {
      const index = rows[0]!.indexOf(name);
      expect(index, `column "${name}"`).to.be.at.least(0);
      return index;
    };
    const columns = ['healthy runs stopped', 'loops stopped', 'loops halted, not stopped', 'refusals withholding a new result (share of healthy calls)'];
    const byConfiguration = new Map(evalRows.slice(2).map((row) => [row[0], row]));
    expect(readme.length - 2, 'rows').to.equal(byConfiguration.size);
    for (const row of readme.slice(2)) {
      const evalRow = byConfiguration.get(row[0]);
      expect(evalRow, `EVAL.md has a row "${row[0]}"`).to.not.equal(undefined);
      for (const name of columns) {
        expect(row[column(readme, name)], `${row[0]} / ${name}`).to.equal(evalRow![column(evalRows, name)]);
      }
    }
  });
});
