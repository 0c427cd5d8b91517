import type { ReplaySummary } from './replay-inputs.js';
import type { ReplayReportRenderer, ReportOutput } from './report-output.js';
import { escapeControl } from './escape-terminal.js';
import { explainStop, roundMarks, type RoundMark } from './round-marks.js';
import type { ReplayDecision, RunReport } from './run-report.js';

const CELL = 14;
const GAP = 3;
const PITCH = CELL + GAP;
const TOP = 22;
const VERDICT_BAND = 6;
/** A timeline wider than this many rounds stops drawing; the counts are still in the table. */
const MAX_DRAWN_ROUNDS = 2000;
/** Calls drawn per round column; a round with more shows a "+N" label instead of a tower. */
const MAX_DRAWN_CALLS_PER_ROUND = 40;
/**
 * Rows of the summary table, which is written last and so held until the end: past this many
 * runs the table lists the first ones and counts the rest (each run's section is still there).
 */
const MAX_SUMMARY_ROWS = 10_000;
/** Tools get a one-character key drawn in their calls' squares; past these the square is blank. */
const TOOL_KEYS = 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789';

const CALL_COLORS = {
  'allow-new': '#2e9d4f',
  'allow-seen': '#e0a526',
  'allow-neutral': '#7a8ca3',
  refuse: '#d64541',
  skip: '#e3e6ea',
  failed: '#8e44ad',
} as const;
const VERDICT_COLORS: Record<RoundMark, string> = {
  new: '#2e9d4f',
  error: '#8e44ad',
  stale: '#e0a526',
  refused: '#d64541',
  neutral: '#7a8ca3',
  empty: '#b9c2cc',
  skipped: '#e3e6ea',
};

/**
 * `--format html`: one self-contained page (inline CSS and SVG, no script, no network). Each
 * run is a timeline picture: rounds are columns, each call a square coloured by decision and,
 * when it ran, by whether its result was new or already seen; the stop is a red line labelled
 * with its reason. Runs are written as they end; the summary table comes last in the file and
 * is moved to the top by CSS.
 */
export function createHtmlReportRenderer(output: ReportOutput, options: { title?: string } = {}): ReplayReportRenderer {
  const rows: string[] = [];
  let runsNotInTable = 0;
  return {
    async begin() {
      await output.write(pageHead(options.title ?? 'loopguard replay'));
    },
    async run(report: RunReport) {
      await writeRunSection(report, output);
      if (rows.length < MAX_SUMMARY_ROWS) rows.push(summaryRow(report));
      else runsNotInTable++;
    },
    async end(summary: ReplaySummary, problems: readonly string[]) {
      await output.write('</main>\n');
      if (runsNotInTable > 0) {
        rows.push(`<tr class="more-runs"><td colspan="9">… ${runsNotInTable} more runs, each in its section below</td></tr>`);
      }
      await output.write(summaryTable(summary, rows, problems));
      await output.write('</body>\n</html>\n');
    },
  };
}

async function writeRunSection(report: RunReport, output: ReportOutput): Promise<void> {
  const callsPerRound = new Map<number, number>();
  const refusals = new Map<string, number>();
  const tools = new Map<string, { key: string; calls: number; ran: number; failed: number; refused: number; skipped: number }>();
  for (const decision of report.decisions()) {
    callsPerRound.set(decision.round, (callsPerRound.get(decision.round) ?? 0) + 1);
    let tool = tools.get(decision.tool);
    if (!tool) tools.set(decision.tool, (tool = { key: TOOL_KEYS[tools.size] ?? '', calls: 0, ran: 0, failed: 0, refused: 0, skipped: 0 }));
    tool.calls++;
    if (decision.decision === 'allow') tool.ran++;
    if (decision.failed) tool.failed++;
    if (decision.decision === 'refuse') tool.refused++;
    if (decision.decision === 'skip') tool.skipped++;
    if (decision.decision === 'refuse' && decision.reason) refusals.set(decision.reason, (refusals.get(decision.reason) ?? 0) + 1);
  }
  const refusalText = [...refusals]
    .sort((a, b) => b[1] - a[1] || a[0].localeCompare(b[0]))
    .map(([reason, count]) => `${esc(reason)} ×${count}`)
    .join(', ');
  // Tool names in the page itself, not only in tooltips: each square carries its tool's key.
  const toolText = [...tools]
    .map(
      ([name, t]) =>
        `<span class="tool" data-tool="${esc(name)}">${t.key ? `<b class="tool-key">${t.key}</b> ` : ''}${esc(name)} ×${t.calls}` +
        ` <small>(${t.ran} ran${t.failed > 0 ? `, ${t.failed} failed` : ''}${t.refused > 0 ? `, ${t.refused} refused` : ''}${t.skipped > 0 ? `, ${t.skipped} skipped` : ''})</small></span>`,
    )
    .join(' · ');
  const toolKeys = new Map([...tools].map(([name, t]) => [name, t.key]));
  const marks = roundMarks(report);
  // The page draws squares, not the text report's glyphs.
  const why = explainStop(report, marks, { glyphs: false });
  const drawnRounds = Math.min(report.rounds, MAX_DRAWN_ROUNDS);
  let tallest = 1;
  for (const [round, count] of callsPerRound) if (round <= drawnRounds) tallest = Math.max(tallest, Math.min(count, MAX_DRAWN_CALLS_PER_ROUND));
  const width = Math.max(drawnRounds * PITCH + 160, 320);
  const height = TOP + tallest * PITCH + VERDICT_BAND + 22;
  const stopAttributes = report.stop
    ? ` data-stopped="true" data-stop-reason="${esc(report.stop.reason)}" data-stop-round="${report.stop.round}"`
    : ' data-stopped="false"';
  const status = report.stop
    ? `<span class="badge stop">stop: ${esc(report.stop.reason)}</span> after round ${report.stop.round}, call ${report.stop.call} of ${report.calls}`
    : report.refused > 0
      ? `<span class="badge warn">finished</span> with ${report.refused} refused`
      : '<span class="badge ok">finished</span>';

  await output.write(
    `<section class="run" data-run="${esc(report.run)}" data-calls="${report.calls}"${stopAttributes}>\n` +
      `<h2>${esc(report.run)} <small>${esc(report.file)} · ${esc(report.profile)}</small></h2>\n` +
      `<p class="status">${status}</p>\n` +
      (why !== undefined ? `<p class="why">${esc(why)}</p>\n` : '') +
      (toolText ? `<p class="tools">tools: ${toolText}</p>\n` : '') +
      (refusalText ? `<p class="refusals">refused: ${refusalText}</p>\n` : '') +
      `<p class="counts">${report.calls} calls · ${report.executed} executed · ${report.refused} refused · ${report.skipped} skipped · saved ${report.saved.calls} calls${report.saved.tokens !== undefined ? `, ${report.saved.tokens.toLocaleString('en-US')} tokens` : ''}</p>\n` +
      `<div class="scroll"><svg class="timeline" xmlns="http://www.w3.org/2000/svg" width="${width}" height="${height}" viewBox="0 0 ${width} ${height}" role="img" aria-label="timeline of run ${esc(report.run)}">\n`,
  );

  // Round numbers every 5 columns keep the axis readable at any length.
  let axis = '';
  for (let round = 1; round <= drawnRounds; round++) {
    if (round === 1 || round % 5 === 0) {
      axis += `<text class="axis" x="${(round - 1) * PITCH + CELL / 2}" y="12" text-anchor="middle">${round}</text>`;
    }
  }
  await output.write(axis + '\n');

  let chunk = '';
  let indexInRound = 0;
  let currentRound = 0;
  for (const decision of report.decisions()) {
    if (decision.round !== currentRound) {
      currentRound = decision.round;
      indexInRound = 0;
    }
    if (decision.round > drawnRounds) break;
    if (indexInRound < MAX_DRAWN_CALLS_PER_ROUND) chunk += callCell(decision, indexInRound, toolKeys.get(decision.tool) ?? '');
    else if (indexInRound === MAX_DRAWN_CALLS_PER_ROUND) {
      const more = (callsPerRound.get(decision.round) ?? 0) - MAX_DRAWN_CALLS_PER_ROUND;
      chunk += `<text class="more" x="${(decision.round - 1) * PITCH}" y="${TOP + tallest * PITCH + VERDICT_BAND + 18}">+${more}</text>`;
    }
    indexInRound++;
    if (chunk.length > 64_000) {
      await output.write(chunk);
      chunk = '';
    }
  }
  await output.write(chunk + '\n');

  let band = '';
  for (let round = 1; round <= drawnRounds; round++) {
    const verdict = report.roundVerdicts[round - 1];
    const mark = marks[round - 1];
    if (!verdict || !mark) continue;
    band +=
      `<rect class="verdict" data-round="${round}" data-verdict="${verdict}" data-mark="${mark}" x="${(round - 1) * PITCH}" y="${TOP + tallest * PITCH}" ` +
      `width="${CELL}" height="${VERDICT_BAND}" fill="${VERDICT_COLORS[mark]}"><title>round ${round}: ${mark === 'error' ? 'only errors' : verdict}</title></rect>`;
  }
  await output.write(band + '\n');

  if (report.stop && report.stop.round <= drawnRounds) {
    const x = report.stop.round * PITCH - GAP / 2;
    await output.write(
      `<g class="stop-marker" data-reason="${esc(report.stop.reason)}">` +
        `<line x1="${x}" y1="2" x2="${x}" y2="${height - 2}" stroke="#c0392b" stroke-width="2" stroke-dasharray="4 2"/>` +
        `<text x="${x + 4}" y="${height - 6}" class="stop-label">stop: ${esc(report.stop.reason)}</text></g>\n`,
    );
  }
  if (report.rounds > drawnRounds) {
    await output.write(`<text class="more" x="${drawnRounds * PITCH + 4}" y="${TOP + CELL}">… ${report.rounds - drawnRounds} more rounds</text>\n`);
  }
  await output.write('</svg></div>\n</section>\n');
}

function callCell(decision: ReplayDecision, indexInRound: number, toolKey: string): string {
  const key = decision.failed
    ? 'failed'
    : decision.decision === 'allow'
      ? (`allow-${decision.novelty ?? 'neutral'}` as const)
      : decision.decision;
  const x = (decision.round - 1) * PITCH;
  const y = TOP + indexInRound * PITCH;
  const what = decision.failed
    ? `ran, failed (error${decision.novelty === 'seen' ? ', same as before' : ''})`
    : decision.decision === 'allow'
      ? `ran, ${decision.novelty === 'new' ? 'new result' : decision.novelty === 'seen' ? 'result already seen' : 'neutral result'}`
      : decision.decision === 'refuse'
        ? `refused: ${decision.reason ?? ''}`
        : 'skipped: run already stopped';
  const stroke = key === 'skip' ? ' stroke="#9aa3ad" stroke-dasharray="2 2"' : '';
  const label = toolKey
    ? `<text class="tool-key${key === 'skip' ? ' on-skip' : ''}" x="${x + CELL / 2}" y="${y + CELL - 3.5}" text-anchor="middle" aria-hidden="true">${toolKey}</text>`
    : '';
  return (
    `<rect class="call" data-call="${decision.call}" data-decision="${decision.decision}"${decision.novelty ? ` data-novelty="${decision.novelty}"` : ''}` +
    `${decision.failed ? ' data-outcome="error"' : ''} ` +
    `x="${x}" y="${y}" width="${CELL}" height="${CELL}" rx="2" fill="${CALL_COLORS[key]}"${stroke}>` +
    `<title>call ${decision.call} · round ${decision.round} · ${esc(decision.tool)} · ${esc(what)}</title></rect>${label}`
  );
}

function summaryRow(report: RunReport): string {
  return (
    `<tr data-run="${esc(report.run)}"><td>${esc(report.run)}</td><td>${esc(report.file)}</td><td>${report.calls}</td><td>${report.executed}</td>` +
    `<td>${report.refused}</td><td>${report.skipped}</td><td>${report.stop ? `<b class="stop-text">${esc(report.stop.reason)}</b> (round ${report.stop.round})` : '—'}</td>` +
    `<td>${report.saved.calls}</td><td>${report.saved.tokens !== undefined ? report.saved.tokens.toLocaleString('en-US') : '—'}</td></tr>`
  );
}

function summaryTable(summary: ReplaySummary, rows: readonly string[], problems: readonly string[]): string {
  const problemList =
    problems.length > 0
      ? `<details class="problems"><summary>${Math.max(summary.problems, problems.length)} input problem${Math.max(summary.problems, problems.length) === 1 ? '' : 's'}${summary.problems > problems.length ? ` (the first ${problems.length} listed)` : ''}</summary><ul>${problems
          .slice(0, 200)
          .map((p) => `<li><code>${esc(p)}</code></li>`)
          .join('')}</ul></details>`
      : '';
  return (
    `<section class="summary" id="summary">\n<h1>loopguard replay</h1>\n` +
    `<p>${summary.runs} runs · <b>${summary.stoppedRuns} stopped</b> · ${summary.runsWithRefusals} with refusals · ` +
    `${summary.calls} calls (${summary.executed} executed, ${summary.refused} refused, ${summary.skipped} skipped) · ` +
    `saved ${summary.savedCalls} calls${summary.savedTokens !== undefined ? `, ${summary.savedTokens.toLocaleString('en-US')} tokens` : ''} · profile ${esc(summary.profile)}</p>\n` +
    `<p class="legend">${legendItem(CALL_COLORS['allow-new'], 'ran, new result')}${legendItem(CALL_COLORS['allow-seen'], 'ran, result already seen')}` +
    `${legendItem(CALL_COLORS['allow-neutral'], 'ran, neutral')}${legendItem(CALL_COLORS.failed, 'ran, failed (error)')}${legendItem(CALL_COLORS.refuse, 'refused')}${legendItem(CALL_COLORS.skip, 'skipped after stop')}` +
    `<span class="legend-item"><span class="stop-swatch"></span>stop</span> · letter in a square: the run's tool with that key · thin band under each round: the round's verdict</p>\n` +
    `<table><thead><tr><th>run</th><th>file</th><th>calls</th><th>executed</th><th>refused</th><th>skipped</th><th>stop</th><th>saved calls</th><th>saved tokens</th></tr></thead>\n` +
    `<tbody>${rows.join('\n')}</tbody></table>\n${problemList}\n</section>\n`
  );
}

function legendItem(color: string, text: string): string {
  return `<span class="legend-item"><span class="swatch" style="background:${color}"></span>${esc(text)}</span>`;
}

function pageHead(title: string): string {
  return `<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>${esc(title)}</title>
<style>
body { font: 14px/1.45 system-ui, -apple-system, "Segoe UI", sans-serif; margin: 0; padding: 24px; color: #1d2430; background: #fafbfc; display: flex; flex-direction: column; gap: 16px; }
.summary { order: -1; }
main { display: flex; flex-direction: column; gap: 16px; }
h1 { font-size: 20px; margin: 0 0 8px; }
h2 { font-size: 16px; margin: 0 0 4px; }
h2 small { color: #6b7785; font-weight: normal; }
.run { background: #fff; border: 1px solid #dde2e8; border-radius: 8px; padding: 12px 16px; }
.run[data-stopped="true"] { border-left: 4px solid #c0392b; }
.status, .why, .counts, .refusals { margin: 2px 0; }
.why { color: #4a5563; }
.badge { display: inline-block; padding: 0 6px; border-radius: 4px; font-weight: 600; color: #fff; }
.badge.stop { background: #c0392b; } .badge.ok { background: #2e9d4f; } .badge.warn { background: #c98a12; }
.scroll { overflow-x: auto; margin-top: 8px; }
svg text { font: 10px system-ui, sans-serif; fill: #6b7785; }
svg .stop-label { fill: #c0392b; font-weight: 600; }
svg text.tool-key { font: bold 9px ui-monospace, monospace; fill: #fff; pointer-events: none; }
svg text.tool-key.on-skip { fill: #6b7785; }
.tools b.tool-key { font-family: ui-monospace, monospace; background: #1d2430; color: #fff; border-radius: 3px; padding: 0 3px; }
.tools small { color: #6b7785; }
table { border-collapse: collapse; background: #fff; }
th, td { border: 1px solid #dde2e8; padding: 4px 8px; text-align: left; }
th { background: #f0f3f6; }
.stop-text { color: #c0392b; }
.legend-item { margin-right: 12px; white-space: nowrap; }
.swatch { display: inline-block; width: 11px; height: 11px; border-radius: 2px; margin-right: 4px; vertical-align: -1px; }
.stop-swatch { display: inline-block; width: 0; height: 12px; border-left: 2px dashed #c0392b; margin-right: 4px; vertical-align: -2px; }
</style>
</head>
<body>
<main>
`;
}

function esc(text: string): string {
  return escapeControl(text).replace(/[&<>"']/g, (ch) => ({ '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&#39;' })[ch] as string);
}
