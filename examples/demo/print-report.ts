// Terminal output of the demo: a progress line per round while a run goes, then its ledger,
// then a summary table. picocolors only; colours switch off by themselves when piped.
import pc from 'picocolors';

import type { RoundLine, ScenarioResult } from './run-scenario.js';
import type { Scenario } from './scenarios.js';

const write = (line = ''): void => {
  process.stdout.write(`${line}\n`);
};

export function printIntro(): void {
  write(pc.bold('loopguard demo') + pc.dim(' — offline, no API key'));
  write(pc.dim('A scripted model (the AI SDK’s MockLanguageModelV3) drives the real generateText loop against'));
  write(pc.dim('local tools: a search over examples/demo/corpus, a connector, a billing service, an export job'));
  write(pc.dim('and an audit log. Each scenario runs twice, without and with loopguard. Times are the agent’s'));
  write(pc.dim('simulated time (model and tool latency), not the demo’s.'));
}

export function printScenarioHeader(scenario: Scenario, position: number, total: number): void {
  write();
  write(pc.bold(pc.cyan(`${position}/${total}  ${scenario.title}`)));
  for (const line of wrap(scenario.story, 95)) write(pc.dim(`     ${line}`));
}

/** One line per closed round, printed as the run goes. */
export function printRound(line: RoundLine): void {
  const { summary } = line;
  const round = pc.dim(`round ${String(summary.round).padStart(2)}`);
  if (summary.calls === 0) {
    write(`     ${round}  ${pc.dim('answer')}`);
    return;
  }
  const tools = line.tools.map((tool, index) => (index < line.tools.length - line.refusals.length ? tool : `${tool} ${pc.red('✗')}`)).join(', ');
  const verdict = verdictText(summary.verdict, line.refusals);
  const next: string[] = [];
  if (line.next.stop) next.push(pc.red('tool use ends'));
  else {
    if (line.next.nudge) next.push(pc.yellow('nudge'));
    for (const tool of line.next.disabled) next.push(pc.yellow(`${tool} taken away`));
  }
  const arrow = next.length > 0 ? `  ${pc.dim('→')} ${next.join(', ')}` : '';
  write(`     ${round}  ${pad(tools, 30)} ${verdict}${arrow}`);
}

function verdictText(verdict: string, refusals: string[]): string {
  switch (verdict) {
    case 'new':
      return pc.green(pad('new facts', 32));
    case 'stale':
      return pc.yellow(pad('only results seen before', 32));
    case 'refused':
      return pc.red(pad(`refused: ${[...new Set(refusals)].join(', ')}`, 32));
    case 'neutral':
      return pc.dim(pad('waiting (poll)', 32));
    default:
      return pc.dim(pad(verdict, 32));
  }
}

export function printLedger(result: ScenarioResult, verdict: Verdict): void {
  const { outcome, guarded, unguarded } = result;
  write(pc.bold('   ledger'));
  const grouped = new Map<string, { rounds: number[]; message: string }>();
  for (const refusal of outcome.refusals) {
    const key = `${refusal.tool}  ${refusal.reason}`;
    const entry = grouped.get(key) ?? { rounds: [], message: refusal.message };
    entry.rounds.push(refusal.round);
    grouped.set(key, entry);
  }
  if (grouped.size === 0) write(`     ${label('refused')}${pc.dim('nothing')}`);
  for (const [key, entry] of grouped) {
    write(`     ${label('refused')}${pc.red(key)} ${pc.dim(`(round ${entry.rounds.join(', ')})`)}`);
    write(`     ${label('')}${pc.dim(`told: “${truncate(entry.message, 110)}”`)}`);
  }
  if (outcome.stop) write(`     ${label('stopped')}${pc.red(outcome.stop.reason)} ${pc.dim(`after round ${outcome.stop.round}: ${outcome.stop.detail}`)}`);
  else write(`     ${label('stopped')}${pc.dim('no — the model finished on its own')}`);
  write(`     ${label('answer')}“${truncate(guarded.answer, 110)}”`);
  write(`     ${label('without')}${costText(unguarded)}  ${pc.dim(`“${truncate(unguarded.answer, 60)}”`)}`);
  write(`     ${label('with')}${costText(guarded)}`);
  write(`     ${label('saved')}${savedText(result)}`);
  write(`   ${verdict.ok ? pc.green('✔') : pc.red('✘')} ${verdict.ok ? verdict.text : pc.red(verdict.text)}`);
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
  if (outcome.stopReason !== expected.stopReason || missing.length > 0) {
    return { ok: false, text: `expected ${expected.stopReason ?? 'no stop'} with refusals [${expected.refusals.join(', ')}], got ${outcome.stopReason ?? 'no stop'} with [${[...reasons].join(', ')}]` };
  }
  if (outcome.stop) return { ok: true, text: `loop caught: ${outcome.stop.reason} at round ${outcome.stop.round}, answered from what it had` };
  return { ok: true, text: `loop caught: ${[...reasons].join(', ')} — the model used the result it already had` };
}

export function printSummary(results: ScenarioResult[], verdicts: Verdict[], wallMs: number): void {
  write();
  write(pc.bold('summary'));
  write(pc.dim(`  ${pad('scenario', 34)}${pad('verdict', 34)}${pad('calls saved', 13)}${pad('tokens saved', 14)}time saved`));
  results.forEach((result, index) => {
    const verdict = verdicts[index];
    const caught = result.scenario.expect.kind === 'caught';
    const reason = result.outcome.stopReason ?? result.outcome.refusals[0]?.reason ?? '';
    const status = verdict.ok ? pc.green(pad(caught ? `✔ caught: ${reason}` : '✔ left alone', 34)) : pc.red(pad('✘ unexpected', 34));
    const { unguarded, guarded } = result;
    write(
      `  ${pad(result.scenario.title, 34)}${status}${pad(savedAmount(unguarded.toolCalls, guarded.toolCalls), 13)}${pad(savedAmount(unguarded.tokens, guarded.tokens), 14)}${seconds(unguarded.elapsedMs - guarded.elapsedMs)}`,
    );
  });
  const saved = results.reduce(
    (sum, { unguarded, guarded }) => ({
      calls: sum.calls + unguarded.toolCalls - guarded.toolCalls,
      tokens: sum.tokens + unguarded.tokens - guarded.tokens,
      ms: sum.ms + unguarded.elapsedMs - guarded.elapsedMs,
    }),
    { calls: 0, tokens: 0, ms: 0 },
  );
  write(pc.dim('  saved = the same scripted run without loopguard minus with it; negative = loopguard cost something'));
  write(`  ${pc.bold('total saved')}  ${saved.calls} tool calls, ${saved.tokens.toLocaleString('en-US')} tokens, ${seconds(saved.ms)} of agent time`);
  const failed = verdicts.filter((verdict) => !verdict.ok).length;
  write(failed === 0 ? pc.green(`  all ${verdicts.length} scenario${verdicts.length === 1 ? '' : 's'} behaved as expected`) : pc.red(`  ${failed} scenario(s) did not behave as expected`));
  write(pc.dim(`  demo finished in ${(wallMs / 1000).toFixed(1)} s`));
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
