// Terminal output of the demo: the summary table first (what a newcomer reads), then per
// scenario a line per round and its ledger. Each part is written to an `Out` (a line sink), so
// main.ts can run every scenario before printing anything. picocolors only; colours switch off
// by themselves when piped.
import pc from 'picocolors';

import type { RoundLine, ScenarioResult } from './run-scenario.js';
import type { Scenario } from './scenarios.js';

/** Where lines go. */
export type Out = (line?: string) => void;

/**
 * A sink writing to a stream, with no trailing whitespace on any line (padding of a last
 * column included, before or inside the colour codes that end it).
 */
export function streamOut(stream: NodeJS.WritableStream): Out {
  return (line = '') => {
    stream.write(`${trimLineEnd(line)}\n`);
  };
}

/** A sink collecting lines, to print later. */
export function bufferOut(): { out: Out; lines: string[] } {
  const lines: string[] = [];
  return { out: (line = '') => void lines.push(trimLineEnd(line)), lines };
}

function trimLineEnd(line: string): string {
  return line.replace(/[ \t]+((?:\x1b\[[0-9;]*m)*)$/, '$1');
}

export function printIntro(out: Out): void {
  out(pc.bold('loopguard demo') + pc.dim(' — offline, no API key'));
  out(pc.dim('A scripted model (the AI SDK’s MockLanguageModelV3) drives the real generateText loop against'));
  out(pc.dim('local tools: a search over examples/demo/corpus, a connector, a billing service, an export job'));
  out(pc.dim('and an audit log. Like a looping model it follows its plan whatever it is told, but like any'));
  out(pc.dim('model it can only call the tools it is offered. Each scenario runs twice, without and with'));
  out(pc.dim('loopguard. Times are the agent’s simulated time (model and tool latency), not the demo’s.'));
}

export function printScenarioHeader(out: Out, scenario: Scenario, position: number, total: number): void {
  out();
  out(pc.bold(pc.cyan(`${position}/${total}  ${scenario.title}`)));
  for (const line of wrap(scenario.story, 95)) out(pc.dim(`     ${line}`));
}

/** One line per closed round. */
export function printRound(out: Out, line: RoundLine): void {
  const { summary } = line;
  const round = pc.dim(`round ${String(summary.round).padStart(2)}`);
  if (summary.calls === 0) {
    out(`     ${round}  ${pc.dim('answer')}`);
    return;
  }
  const tools = line.tools.map((tool, index) => (index < line.tools.length - line.refusals.length ? tool : `${tool} ${pc.red('✗')}`)).join(', ');
  const verdict = verdictText(summary.verdict, line.refusals, line.failures);
  const next: string[] = [];
  if (line.next.stop) next.push(pc.red('tool use ends'));
  else {
    if (line.next.nudge) next.push(pc.yellow('nudge'));
    for (const tool of line.next.disabled) next.push(pc.yellow(`${tool} taken away`));
  }
  const arrow = next.length > 0 ? `  ${pc.dim('→')} ${next.join(', ')}` : '';
  out(`     ${round}  ${pad(tools, 30)} ${verdict}${arrow}`);
}

/**
 * What a round learned. A round whose calls all failed says so: the first failure is a result
 * loopguard had not seen (the round counts as new), but "new facts" would misread a 503.
 */
function verdictText(verdict: string, refusals: string[], failures: string[]): string {
  if (failures.length > 0 && (verdict === 'new' || verdict === 'neutral' || verdict === 'stale')) {
    const failed = `failed (${[...new Set(failures)].join(', ')})`;
    if (verdict === 'new') return pc.red(pad(failed, 36));
    if (verdict === 'neutral') return pc.dim(pad(`${failed}, a retry`, 36));
    return pc.yellow(pad(`${failed}, same error`, 36));
  }
  switch (verdict) {
    case 'new':
      return pc.green(pad('new facts', 36));
    case 'stale':
      return pc.yellow(pad('only results seen before', 36));
    case 'refused':
      return pc.red(pad(`refused: ${[...new Set(refusals)].join(', ')}`, 36));
    case 'neutral':
      return pc.dim(pad('waiting (poll)', 36));
    default:
      return pc.dim(pad(verdict, 36));
  }
}

export function printLedger(out: Out, result: ScenarioResult, verdict: Verdict): void {
  const { outcome, guarded, unguarded } = result;
  out(pc.bold('   ledger'));
  const grouped = new Map<string, { rounds: number[]; message: string }>();
  for (const refusal of outcome.refusals) {
    const key = `${refusal.tool}  ${refusal.reason}`;
    const entry = grouped.get(key) ?? { rounds: [], message: refusal.message };
    entry.rounds.push(refusal.round);
    grouped.set(key, entry);
  }
  if (grouped.size === 0) out(`     ${label('refused')}${pc.dim('nothing')}`);
  for (const [key, entry] of grouped) {
    out(`     ${label('refused')}${pc.red(key)} ${pc.dim(`(round ${entry.rounds.join(', ')})`)}`);
    out(`     ${label('')}${pc.dim(`told: “${truncate(entry.message, 110)}”`)}`);
  }
  for (const [tool, round] of takenAway(result)) out(`     ${label('taken')}${pc.yellow(tool)} ${pc.dim(`after round ${round}: no longer offered to the model`)}`);
  if (outcome.stop) out(`     ${label('stopped')}${pc.red(outcome.stop.reason)} ${pc.dim(`after round ${outcome.stop.round}: ${outcome.stop.detail}`)}`);
  else out(`     ${label('stopped')}${pc.dim('no — the model finished on its own')}`);
  out(`     ${label('answer')}“${truncate(guarded.answer, 110)}”`);
  out(`     ${label('without')}${costText(unguarded)}  ${pc.dim(`“${truncate(unguarded.answer, 60)}”`)}`);
  out(`     ${label('with')}${costText(guarded)}`);
  out(`     ${label('saved')}${savedText(result)}`);
  out(`   ${verdict.ok ? pc.green('✔') : pc.red('✘')} ${verdict.ok ? verdict.text : pc.red(verdict.text)}`);
}

export interface Verdict {
  ok: boolean;
  text: string;
}

/** Did loopguard do what the scenario expects? */
export function judge(result: ScenarioResult): Verdict {
  const { scenario, outcome } = result;
  const reasons = new Set(outcome.refusals.map((refusal) => refusal.reason));
  if (scenario.expect.kind === 'healthy') {
    if (outcome.stopReason === undefined && reasons.size === 0) return { ok: true, text: `healthy run left alone: finished on its own, nothing refused` };
    return { ok: false, text: `expected a healthy run to be left alone, but loopguard ${outcome.stopReason ? `stopped it (${outcome.stopReason})` : `refused ${[...reasons].join(', ')}`}` };
  }
  const expected = scenario.expect;
  const missing = expected.refusals.filter((reason) => !reasons.has(reason));
  const taken = takenAway(result);
  const missingTaken = (expected.takenAway ?? []).filter((tool) => !taken.has(tool));
  if (outcome.stopReason !== expected.stopReason || missing.length > 0 || missingTaken.length > 0) {
    return {
      ok: false,
      text: `expected ${expected.stopReason ?? 'no stop'} with refusals [${expected.refusals.join(', ')}] and [${(expected.takenAway ?? []).join(', ')}] taken away, got ${outcome.stopReason ?? 'no stop'} with [${[...reasons].join(', ')}] and [${[...taken.keys()].join(', ')}]`,
    };
  }
  if (outcome.stop) return { ok: true, text: `loop caught: ${outcome.stop.reason} at round ${outcome.stop.round}, answered from what it had` };
  if (reasons.size > 0) return { ok: true, text: `loop caught: ${[...reasons].join(', ')} — the model used the result it already had` };
  return { ok: true, text: `loop caught: ${[...taken.keys()].join(', ')} taken away after round ${[...taken.values()][0]}; the model answered from what it had` };
}

/** Tools loopguard stopped offering, with the round after which it did (first time). */
function takenAway(result: ScenarioResult): Map<string, number> {
  const taken = new Map<string, number>();
  for (const line of result.rounds) for (const tool of line.next.disabled) if (!taken.has(tool)) taken.set(tool, line.summary.round);
  return taken;
}

/** The summary's verdict cell. */
function caughtBy(result: ScenarioResult): string {
  const { outcome } = result;
  const taken = [...takenAway(result).keys()];
  return outcome.stopReason ?? outcome.refusals[0]?.reason ?? (taken.length > 0 ? `${taken.join(', ')} taken away` : '');
}

/** The table a newcomer reads first: one line per scenario, then the totals. */
export function printSummary(out: Out, results: ScenarioResult[], verdicts: Verdict[]): void {
  out();
  out(pc.bold('summary') + pc.dim(' (each scenario in detail below)'));
  out(pc.dim(`  ${pad('scenario', 34)}${pad('verdict', 42)}${pad('calls saved', 13)}${pad('tokens saved', 14)}time saved`));
  results.forEach((result, index) => {
    const verdict = verdicts[index];
    const caught = result.scenario.expect.kind === 'caught';
    const status = verdict.ok ? pc.green(pad(caught ? `✔ caught: ${caughtBy(result)}` : '✔ left alone', 42)) : pc.red(pad('✘ unexpected', 42));
    const { unguarded, guarded } = result;
    out(
      `  ${pad(result.scenario.title, 34)}${status}${pad(savedAmount(unguarded.toolCalls, guarded.toolCalls), 13)}${pad(savedAmount(unguarded.tokens, guarded.tokens), 14)}${seconds(unguarded.elapsedMs - guarded.elapsedMs)}`,
    );
  });
  out(pc.dim('  saved = the same scripted run without loopguard minus with it; negative = loopguard cost something'));
  printTotals(out, results, verdicts);
}

/** Total saving and whether every scenario behaved: under the table, and again at the very end. */
export function printTotals(out: Out, results: ScenarioResult[], verdicts: Verdict[], wallMs?: number): void {
  const saved = results.reduce(
    (sum, { unguarded, guarded }) => ({
      calls: sum.calls + unguarded.toolCalls - guarded.toolCalls,
      tokens: sum.tokens + unguarded.tokens - guarded.tokens,
      ms: sum.ms + unguarded.elapsedMs - guarded.elapsedMs,
    }),
    { calls: 0, tokens: 0, ms: 0 },
  );
  out(`  ${pc.bold('total saved')}  ${saved.calls} tool calls, ${saved.tokens.toLocaleString('en-US')} tokens, ${seconds(saved.ms)} of agent time`);
  const failed = verdicts.filter((verdict) => !verdict.ok).length;
  out(failed === 0 ? pc.green(`  all ${verdicts.length} scenario${verdicts.length === 1 ? '' : 's'} behaved as expected`) : pc.red(`  ${failed} scenario(s) did not behave as expected`));
  if (wallMs !== undefined) out(pc.dim(`  demo finished in ${(wallMs / 1000).toFixed(1)} s`));
}

function costText(cost: { modelCalls: number; toolCalls: number; tokens: number; elapsedMs: number }): string {
  return `${cost.modelCalls} model calls · ${cost.toolCalls} tool calls · ${cost.tokens.toLocaleString('en-US')} tokens · ${seconds(cost.elapsedMs)}`;
}

function savedText({ unguarded, guarded }: ScenarioResult): string {
  const tokens = unguarded.tokens - guarded.tokens;
  if (unguarded.toolCalls === guarded.toolCalls && Math.abs(tokens) < 200) {
    return pc.dim(`nothing to save — same calls${tokens !== 0 ? ` (${tokens > 0 ? '−' : '+'}${Math.abs(tokens)} tokens: ${tokens < 0 ? 'the nudge' : 'rounding'})` : ''}`);
  }
  const percent = unguarded.tokens > 0 ? Math.round((tokens / unguarded.tokens) * 100) : 0;
  return pc.green(
    `${unguarded.modelCalls - guarded.modelCalls} model calls, ${unguarded.toolCalls - guarded.toolCalls} tool calls, ${tokens.toLocaleString('en-US')} tokens (${percent}%), ${seconds(unguarded.elapsedMs - guarded.elapsedMs)}`,
  );
}

/** Saved = before − after; a negative value means loopguard cost something. */
function savedAmount(before: number, after: number): string {
  const value = before - after;
  return value < 0 ? `−${(-value).toLocaleString('en-US')}` : value.toLocaleString('en-US');
}

function seconds(ms: number): string {
  const total = Math.round(Math.abs(ms) / 1000);
  const sign = ms < 0 && total > 0 ? '−' : '';
  return total >= 60 ? `${sign}${Math.floor(total / 60)} min ${total % 60} s` : `${sign}${total} s`;
}

function label(text: string): string {
  return pc.dim(pad(text, 9));
}

function pad(text: string, width: number): string {
  // Pad by visible length: colour codes take no room on screen.
  const visible = text.replace(/\x1b\[[0-9;]*m/g, '').length;
  return visible >= width ? `${text} ` : text + ' '.repeat(width - visible);
}

function truncate(text: string, max: number): string {
  const flat = text.replace(/\s+/g, ' ');
  return flat.length <= max ? flat : `${flat.slice(0, max - 1)}…`;
}

function wrap(text: string, width: number): string[] {
  const lines: string[] = [];
  let line = '';
  for (const word of text.split(/\s+/)) {
    if (line !== '' && line.length + 1 + word.length > width) {
      lines.push(line);
      line = word;
    } else line = line === '' ? word : `${line} ${word}`;
  }
  if (line !== '') lines.push(line);
  return lines;
}
