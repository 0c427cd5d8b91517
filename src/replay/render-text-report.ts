import pc from 'picocolors';
import type { ReplaySummary } from './replay-inputs.js';
import type { ReplayReportRenderer, ReportOutput } from './report-output.js';
import { escapeControl } from './escape-terminal.js';
import { explainStop, roundMarks, type RoundMark } from './round-marks.js';
import type { RunReport } from './run-report.js';

type Colors = ReturnType<typeof pc.createColors>;

/** One character per round, so a 40-round run fits on a line and a pattern is visible. */
const ROUND_GLYPHS: Record<RoundMark | 'unknown', string> = {
  new: '+',
  error: '!',
  stale: '=',
  refused: 'x',
  neutral: '~',
  empty: '0',
  skipped: '.',
  unknown: '?',
};
const ROUNDS_PER_LINE = 60;
/** Longer runs show their start and end; the middle is counted, not drawn. */
const MAX_DRAWN_ROUNDS = 600;

/**
 * `--format text`: what a person reads in a terminal. Per run a timeline of rounds (one
 * glyph each), where it stopped and why, and what that saved; one summary line at the end.
 */
export function createTextReportRenderer(output: ReportOutput, options: { color: boolean }): ReplayReportRenderer {
  const c = pc.createColors(options.color);
  let headerWritten = false;
  const writeHeader = async (profile: string): Promise<void> => {
    if (headerWritten) return;
    headerWritten = true;
    await output.write(
      `${c.bold('loopguard replay')} ${c.dim(`· profile ${escapeControl(profile)}`)}\n` +
        c.dim(
          `rounds: ${glyph(c, 'new')} new fact  ${glyph(c, 'stale')} only seen results  ${glyph(c, 'refused')} all refused  ` +
            `${glyph(c, 'error')} only errors  ${glyph(c, 'neutral')} neutral  ${glyph(c, 'empty')} no calls  ${glyph(c, 'skipped')} skipped after stop  ${c.red('|')} stop`,
        ) +
        '\n',
    );
  };

  return {
    async begin() {},
    async run(report: RunReport) {
      await writeHeader(report.profile);
      await output.write('\n' + renderRunBlock(report, c));
    },
    async end(summary: ReplaySummary, problems: readonly string[]) {
      await writeHeader(summary.profile);
      await output.write('\n' + renderSummaryLine(summary, Math.max(summary.problems, problems.length), c) + '\n');
    },
  };
}

export function renderRunBlock(report: RunReport, c: Colors): string {
  const lines: string[] = [];
  const marks = roundMarks(report);
  const verdict = report.stop
    ? c.red(c.bold(`STOP ${escapeControl(report.stop.reason)}`)) +
      (report.skipped > 0
        ? ` after round ${report.stop.round} (call ${report.stop.call} of ${report.calls})`
        : ` at the end (round ${report.stop.round}, nothing left to skip)`)
    : report.refused > 0
      ? c.yellow(c.bold('finished')) + ` with ${report.refused} refused`
      : c.green(c.bold('finished'));
  lines.push(`${c.bold(escapeControl(report.run))}  ${c.dim(escapeControl(report.file))}`);
  lines.push(`  ${label('verdict')}${verdict}`);
  lines.push(...renderRoundTimeline(report, marks, c));
  const why = explainStop(report, marks);
  if (why !== undefined) lines.push(`  ${label('why')}${escapeControl(why)}`);
  lines.push(
    `  ${label('calls')}${report.calls} in input: ${c.green(`${report.executed} executed`)}, ` +
      `${report.refused > 0 ? c.red(`${report.refused} refused`) : '0 refused'}, ` +
      `${report.skipped > 0 ? c.dim(`${report.skipped} skipped`) : '0 skipped'}`,
  );
  if (report.refused > 0) lines.push(`  ${label('refused')}${describeRefusals(report)}`);
  if (report.saved.calls > 0 || (report.saved.tokens ?? 0) > 0) {
    lines.push(`  ${label('saved')}${c.bold(formatSaved(report.saved.calls, report.saved.tokens))}`);
  }
  return lines.join('\n') + '\n';
}

/** Which checks refused, most frequent first: what to look at when tuning a policy. */
function describeRefusals(report: RunReport): string {
  const counts = new Map<string, number>();
  for (const decision of report.decisions()) {
    if (decision.decision === 'refuse' && decision.reason) counts.set(decision.reason, (counts.get(decision.reason) ?? 0) + 1);
  }
  return [...counts]
    .sort((a, b) => b[1] - a[1] || a[0].localeCompare(b[0]))
    .map(([reason, count]) => `${escapeControl(reason)} ×${count}`)
    .join(', ');
}

function renderRoundTimeline(report: RunReport, verdicts: ReadonlyArray<RoundMark | undefined>, c: Colors): string[] {
  const rounds = verdicts.length;
  if (rounds === 0) return [];
  const stopAfter = report.stop && report.skipped > 0 ? report.stop.round : undefined;
  const drawn: Array<number | 'gap'> = [];
  if (rounds <= MAX_DRAWN_ROUNDS) {
    for (let round = 1; round <= rounds; round++) drawn.push(round);
  } else {
    const head = MAX_DRAWN_ROUNDS / 2;
    const tail = MAX_DRAWN_ROUNDS / 2 - ROUNDS_PER_LINE;
    for (let round = 1; round <= head; round++) drawn.push(round);
    drawn.push('gap');
    for (let round = rounds - tail + 1; round <= rounds; round++) drawn.push(round);
  }
  const lines: string[] = [];
  let current = '';
  let currentStart = 0;
  let inLine = 0;
  const width = String(rounds).length;
  const flush = (): void => {
    if (inLine === 0) return;
    const prefix = lines.length === 0 ? label('rounds') : ' '.repeat(label('rounds').length);
    lines.push(`  ${prefix}${c.dim(String(currentStart).padStart(width))} ${current}`);
    current = '';
    inLine = 0;
  };
  for (const entry of drawn) {
    if (entry === 'gap') {
      flush();
      const hidden = rounds - MAX_DRAWN_ROUNDS + ROUNDS_PER_LINE;
      lines.push(`  ${' '.repeat(label('rounds').length)}${c.dim(`${' '.repeat(width)} … ${hidden} rounds not drawn …`)}`);
      continue;
    }
    if (inLine === 0) currentStart = entry;
    current += glyph(c, verdicts[entry - 1] ?? 'unknown');
    inLine++;
    if (stopAfter === entry) current += c.red('|');
    if (inLine === ROUNDS_PER_LINE) flush();
  }
  flush();
  lines[lines.length - 1] += c.dim(`  ${rounds} round${rounds === 1 ? '' : 's'}`);
  return lines;
}

export function renderSummaryLine(summary: ReplaySummary, problems: number, c: Colors): string {
  const parts: string[] = [`${summary.runs} run${summary.runs === 1 ? '' : 's'}`];
  const reasons = Object.entries(summary.stopReasons)
    .map(([reason, count]) => `${escapeControl(reason)} ${count}`)
    .join(', ');
  parts.push(
    summary.stoppedRuns > 0 ? c.red(`${summary.stoppedRuns} stopped`) + (reasons ? ` (${reasons})` : '') : c.green('0 stopped'),
  );
  parts.push(`${summary.runsWithRefusals} with refusals`);
  parts.push(`${summary.calls} calls: ${summary.executed} executed, ${summary.refused} refused, ${summary.skipped} skipped`);
  parts.push(`saved ${formatSaved(summary.savedCalls, summary.savedTokens)}`);
  if (problems > 0) parts.push(c.yellow(`${problems} input problem${problems === 1 ? '' : 's'} (see stderr)`));
  return `${c.bold('summary')}  ${parts.join(' · ')}`;
}

function formatSaved(calls: number, tokens: number | undefined): string {
  const callText = `${calls} call${calls === 1 ? '' : 's'}`;
  return tokens === undefined ? callText : `${callText}, ${tokens.toLocaleString('en-US')} tokens`;
}

function glyph(c: Colors, verdict: RoundMark | 'unknown'): string {
  const text = ROUND_GLYPHS[verdict];
  switch (verdict) {
    case 'new':
      return c.green(text);
    case 'stale':
      return c.yellow(text);
    case 'refused':
      return c.red(text);
    case 'error':
      return c.magenta(text);
    case 'skipped':
      return c.dim(text);
    default:
      return c.cyan(text);
  }
}

function label(name: string): string {
  return name.padEnd(9);
}
