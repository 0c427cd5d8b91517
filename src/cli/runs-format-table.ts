/**
 * A plain-text table for `loopguard runs`: columns padded to their widest cell, `numeric`
 * columns right-aligned, the last column left ragged (no trailing spaces). Cells must already
 * be escaped (escapeControl): their length is then what the terminal shows.
 */
export function formatRunsTable(header: readonly string[], rows: readonly string[][], numeric: readonly boolean[], indent = ''): string[] {
  const widths = header.map((title, column) => Math.max(title.length, ...rows.map((row) => row[column]!.length)));
  const line = (cells: readonly string[]): string =>
    indent +
    cells
      .map((cell, column) => {
        if (numeric[column]) return cell.padStart(widths[column]!);
        return column === cells.length - 1 ? cell : cell.padEnd(widths[column]!);
      })
      .join('  ');
  return [line(header), ...rows.map(line)];
}
