/**
 * `npm run eval`: replays every run of the real-run corpus (eval/corpus/manifest.json)
 * through loopguard's profiles with no per-tool policy, next to a plain step ceiling and
 * document 003's naive detector on the same runs, and writes EVAL.md.
 *
 * The numbers decide: healthy (task succeeded) runs stopped, loops stopped by a loop rule
 * and how many stale calls ran first, and refusals that withheld a result the run had never
 * seen. Options: `--out FILE` (default EVAL.md), `--quiet`.
 */
import { readFile, writeFile } from 'node:fs/promises';
import { dirname, join, relative } from 'node:path';
import { fileURLToPath } from 'node:url';
import type { LoopGuardOptions, Profile } from '../src/core/types.js';
import { naiveDetectorStopIndex, stepCeilingStopIndex } from './baselines/naive-detector.js';
import { evaluateFile, type EvalCall, type EvaluatedRun } from './eval-run.js';
import { median, outcomeFromReplay, percent, STALE_CALL_TARGET, total, type Label, type RunOutcome } from './run-outcomes.js';
import { replayNoiseScenarios, type ScenarioOutcome } from './noise-classes/evaluate-noise-scenarios.js';

const here = dirname(fileURLToPath(import.meta.url));
const root = join(here, '..');
const corpusDir = join(here, 'corpus');

interface ManifestEntry {
  file: string;
  format: string;
  /** The kind of agent (coding, QA / research, ...): EVAL.md reports each kind on its own. */
  kind: string;
  agent: string;
  model: string;
  task: string;
  label: Label;
  /** "reading" when the source has no success verdict and the label was read off the transcript (SOURCES.md). */
  labelBasis?: 'reading';
  reason: string;
  loopStart?: number;
  calls: number;
  source: { repo: string; commit: string; path: string; licence: string };
}

const STEP_CEILING = 40;
/**
 * Agent kinds the product must be right on (the brief) that have no run in the corpus yet: EVAL.md
 * names them so a reader does not take a missing row for a clean one.
 */
const REQUIRED_KINDS = ['coding', 'browser', 'customer service'];

interface Configuration {
  name: string;
  describe: string;
  run(entry: ManifestEntry, file: string): Promise<RunOutcome<ManifestEntry>>;
}

function profileConfiguration(profile: Profile | undefined): Configuration {
  const options: LoopGuardOptions = profile === undefined ? {} : { profile };
  return {
    name: profile === undefined ? 'loopguard, default profile (general)' : `loopguard, profile ${profile}`,
    describe: profile === undefined ? 'no options at all' : `{ profile: '${profile}' }`,
    run: async (entry, file) => outcomeFromReplay(entry, single(await evaluateFile(file, options), file)),
  };
}

function single(runs: EvaluatedRun[], file: string): EvaluatedRun {
  if (runs.length !== 1) throw new Error(`${file}: expected one run per corpus file, found ${runs.length}`);
  return runs[0]!;
}

function baselineConfiguration(name: string, describe: string, stopIndex: (calls: EvalCall[]) => number | undefined, inclusive: boolean): Configuration {
  return {
    name,
    describe,
    run: async (entry, file) => {
      const run = single(await evaluateFile(file, {}), file);
      const at = stopIndex(run.calls);
      const outcome: RunOutcome<ManifestEntry> = { entry, calls: run.calls.length, byLoopRule: false, refusals: 0, withheldNew: [], halted: false };
      if (at !== undefined) {
        outcome.stop = name;
        outcome.byLoopRule = inclusive;
      }
      if (entry.label === 'looping') {
        const start = entry.loopStart ?? 0;
        const end = at === undefined ? run.calls.length : inclusive ? at + 1 : at;
        outcome.staleCallsBeforeStop = Math.max(0, end - start - 1);
      }
      return outcome;
    },
  };
}

const CONFIGURATIONS: Configuration[] = [
  profileConfiguration(undefined),
  profileConfiguration('researcher'),
  profileConfiguration('chat'),
  baselineConfiguration(`step ceiling (${STEP_CEILING} calls)`, `cut at call ${STEP_CEILING + 1}`, (calls) => stepCeilingStopIndex(calls, STEP_CEILING), false),
  baselineConfiguration('naive detector (document 003)', 'LoopDetector(max_retries=5, max_iterations=50)', (calls) => naiveDetectorStopIndex(calls), true),
];

function sourceOf(entry: ManifestEntry): string {
  return entry.file.split('/')[0]!;
}

async function main(): Promise<void> {
  const args = process.argv.slice(2);
  const outIndex = args.indexOf('--out');
  const out = outIndex >= 0 ? args[outIndex + 1]! : join(root, 'EVAL.md');
  const quiet = args.includes('--quiet');
  const manifest = JSON.parse(await readFile(join(corpusDir, 'manifest.json'), 'utf8')) as ManifestEntry[];
  for (const entry of manifest) {
    if (typeof entry.kind !== 'string' || entry.kind.length === 0) throw new Error(`eval/corpus/manifest.json: ${entry.file} has no "kind"`);
  }

  const results = new Map<Configuration, RunOutcome<ManifestEntry>[]>();
  for (const configuration of CONFIGURATIONS) {
    const outcomes: RunOutcome<ManifestEntry>[] = [];
    for (const entry of manifest) outcomes.push(await configuration.run(entry, join(corpusDir, entry.file)));
    results.set(configuration, outcomes);
    if (!quiet) {
      const t = total(outcomes);
      console.log(
        `${configuration.name}: healthy stopped ${t.healthyStopped.length}/${t.healthy}, loops stopped ${t.loopsStopped}/${t.loops} ` +
          `(by a loop rule ${t.loopsStoppedByLoopRule}; halted ${t.loopsHalted}; caught within ${STALE_CALL_TARGET} stale calls ${t.loopsWithinTarget}), ` +
          `refusals withholding a new result ${t.withheld.length} (${percent(t.withheld.length, t.healthyCalls)} of healthy calls)`,
      );
    }
  }
  const noise = await replayNoiseScenarios();
  await writeFile(out, renderReport(manifest, results) + renderNoiseSection(noise));
  if (!quiet) console.log(`wrote ${relative(process.cwd(), out)}`);
}

function renderReport(manifest: ManifestEntry[], results: Map<Configuration, RunOutcome<ManifestEntry>[]>): string {
  const lines: string[] = [];
  const labels = { healthy: 0, looping: 0, failed_no_loop: 0 };
  let calls = 0;
  for (const entry of manifest) {
    labels[entry.label]++;
    calls += entry.calls;
  }
  const models = new Set(manifest.map((entry) => entry.model));
  lines.push('# Evaluation on real recorded agent runs');
  lines.push('');
  lines.push('Generated by `npm run eval` (eval/run-eval.ts) — do not edit by hand.');
  lines.push('');
  lines.push(
    `Corpus: ${manifest.length} real runs (${calls} tool calls) from public repositories, ${models.size} models, ` +
      `agent kinds: ${[...new Set(manifest.map((entry) => entry.kind))].join(', ')} — ` +
      `${labels.healthy} healthy (the task succeeded), ${labels.looping} looping, ${labels.failed_no_loop} failed without a loop ` +
      '(reported, not in the headline numbers). Sources, commits, licences and the labelling rules: eval/corpus/SOURCES.md. ' +
      'Every configuration sees the runs exactly as recorded, with no per-tool policy.',
  );
  lines.push('');
  lines.push('## Headline');
  lines.push('');
  lines.push(
    `| configuration | healthy runs stopped | loops stopped | … by a loop rule | loops halted, not stopped | loops caught within ${STALE_CALL_TARGET} stale calls | median stale calls before the catch | refusals withholding a new result (share of healthy calls) | healthy runs with any refusal | failed runs stopped |`,
  );
  lines.push('|---|---|---|---|---|---|---|---|---|---|');
  for (const [configuration, outcomes] of results) {
    const t = total(outcomes);
    lines.push(
      `| ${configuration.name} | ${t.healthyStopped.length} / ${t.healthy} | ${t.loopsStopped} / ${t.loops} | ${t.loopsStoppedByLoopRule} | ${t.loopsHalted} | ${t.loopsWithinTarget} / ${t.loops} | ${median(t.staleCalls)} | ` +
        `${t.withheld.length} (${percent(t.withheld.length, t.healthyCalls)}) | ${t.healthyWithRefusals} / ${t.healthy} | ${t.failedStopped} / ${t.failedRuns} |`,
    );
  }
  lines.push('');
  lines.push(
    'Stale calls: calls that still ran after the first call of the loop (the one whose result the loop then repeats) until the stop or the halt; ' +
      'a loop caught before its labelled start counts 0. A loop is *halted* when it was not stopped but every call from some point to the end of ' +
      'the recording was refused by a loop rule: the recording ends (the agent\'s own step limit) before the refused-rounds stop, which needs ' +
      `5 refused rounds in a row, would have come. *Caught* = stopped by a loop rule, or halted.`,
  );
  lines.push('A refusal "withholds a new result" when the result the agent actually got for that call had not come back earlier in the run.');
  lines.push(`Baselines stop a run; they never refuse a call. The step ceiling (${STEP_CEILING} calls) is document 000's chat round limit.`);
  lines.push('');

  const [general, generalOutcomes] = [...results][0]!;
  lines.push('## By agent kind');
  lines.push('');
  lines.push(
    `| agent kind | configuration | runs (healthy / looping / failed) | healthy runs stopped | loops stopped | loops caught within ${STALE_CALL_TARGET} stale calls | refusals withholding a new result (share of healthy calls) | healthy runs with any refusal | calls |`,
  );
  lines.push('|---|---|---|---|---|---|---|---|---|');
  const kinds = [...new Set(manifest.map((entry) => entry.kind))];
  for (const kind of kinds) {
    for (const [configuration, outcomes] of [...results].slice(0, 3)) {
      const ofKind = outcomes.filter((outcome) => outcome.entry.kind === kind);
      const t = total(ofKind);
      const kindCalls = ofKind.reduce((sum, o) => sum + o.calls, 0);
      lines.push(
        `| ${kind} | ${configuration.name} | ${ofKind.length} (${t.healthy} / ${t.loops} / ${t.failedRuns}) | ${t.healthyStopped.length} / ${t.healthy} | ${t.loopsStopped} / ${t.loops} | ` +
          `${t.loopsWithinTarget} / ${t.loops} | ${t.withheld.length} (${percent(t.withheld.length, t.healthyCalls)}) | ${t.healthyWithRefusals} / ${t.healthy} | ${kindCalls} |`,
      );
    }
  }
  lines.push('');
  const byReading = kinds
    .map((kind) => [kind, manifest.filter((entry) => entry.kind === kind && entry.labelBasis === 'reading').length] as const)
    .filter(([, count]) => count > 0);
  if (byReading.length > 0) {
    lines.push(
      `Labelled by reading, with no benchmark verdict (see SOURCES.md): ${byReading.map(([kind, count]) => `${kind} ${count} of ${manifest.filter((entry) => entry.kind === kind).length} runs`).join(', ')}.`,
    );
    lines.push('');
  }
  const missing = REQUIRED_KINDS.filter((kind) => !kinds.includes(kind));
  if (missing.length > 0) {
    lines.push(`No runs yet for: ${missing.join(', ')} — these kinds are not measured by this file (see eval/corpus/SOURCES.md).`);
    lines.push('');
  }

  lines.push(`## By source — ${general.name}`);
  lines.push('');
  lines.push('| source | agent kind | agent | models | runs | healthy stopped | loops stopped | refusals withholding a new result | calls |');
  lines.push('|---|---|---|---|---|---|---|---|---|');
  const bySource = new Map<string, RunOutcome<ManifestEntry>[]>();
  for (const outcome of generalOutcomes) {
    const source = sourceOf(outcome.entry);
    let list = bySource.get(source);
    if (list === undefined) bySource.set(source, (list = []));
    list.push(outcome);
  }
  for (const [source, outcomes] of bySource) {
    const t = total(outcomes);
    const agents = [...new Set(outcomes.map((o) => o.entry.agent))].join(', ');
    const sourceModels = [...new Set(outcomes.map((o) => o.entry.model))].join(', ');
    const sourceCalls = outcomes.reduce((sum, o) => sum + o.calls, 0);
    lines.push(
      `| ${source} | ${[...new Set(outcomes.map((o) => o.entry.kind))].join(', ')} | ${agents} | ${sourceModels} | ${outcomes.length} | ${t.healthyStopped.length} / ${t.healthy} | ${t.loopsStopped} / ${t.loops} | ${t.withheld.length} | ${sourceCalls} |`,
    );
  }
  lines.push('');

  for (const [configuration, outcomes] of [...results].slice(0, 3)) {
    const t = total(outcomes);
    lines.push(`## Details — ${configuration.name}`);
    lines.push('');
    const stops = new Map<string, number>();
    for (const outcome of outcomes) if (outcome.stop !== undefined) stops.set(outcome.stop, (stops.get(outcome.stop) ?? 0) + 1);
    lines.push(`Stop reasons over all runs: ${[...stops].map(([reason, n]) => `${reason} ${n}`).join(', ') || 'none'}.`);
    const loopStops = new Map<string, number>();
    for (const outcome of outcomes) if (outcome.entry.label === 'looping' && outcome.stop !== undefined) loopStops.set(outcome.stop, (loopStops.get(outcome.stop) ?? 0) + 1);
    lines.push(`Loops stopped, by reason: ${[...loopStops].map(([reason, n]) => `${reason} ${n}`).join(', ') || 'none'}.`);
    lines.push('');
    if (t.healthyStopped.length > 0) {
      lines.push('Healthy runs stopped:');
      lines.push('');
      for (const outcome of t.healthyStopped) lines.push(`- \`${outcome.entry.file}\` (${outcome.entry.kind}) — ${outcome.stop} after round ${outcome.stopRound} of ${outcome.calls} calls`);
      lines.push('');
    }
    if (t.loopsMissed.length > 0) {
      lines.push('Loops not caught:');
      lines.push('');
      for (const outcome of t.loopsMissed) lines.push(`- \`${outcome.entry.file}\` — ${outcome.entry.reason}`);
      lines.push('');
    }
    const halted = outcomes.filter((o) => o.entry.label === 'looping' && o.halted);
    if (halted.length > 0) {
      lines.push('Loops halted, not stopped (every call from some point on refused; the recording ends first):');
      lines.push('');
      for (const outcome of halted) {
        lines.push(`- \`${outcome.entry.file}\` — ${outcome.refusals} refused, ${outcome.staleCallsBeforeStop} stale calls ran; ${outcome.entry.reason}`);
      }
      lines.push('');
    }
    const slow = outcomes.filter((o) => o.entry.label === 'looping' && (o.stop !== undefined || o.halted) && (o.staleCallsBeforeStop ?? 0) > STALE_CALL_TARGET);
    if (slow.length > 0) {
      lines.push(`Loops caught after more than ${STALE_CALL_TARGET} stale calls:`);
      lines.push('');
      for (const outcome of slow) lines.push(`- \`${outcome.entry.file}\` — ${outcome.staleCallsBeforeStop} stale calls, ${outcome.stop ?? 'halted'}`);
      lines.push('');
    }
    if (t.withheld.length > 0) {
      lines.push(`Refusals that withheld a new result (${t.withheld.length}; first 15):`);
      lines.push('');
      for (const withheld of t.withheld.slice(0, 15)) {
        lines.push(`- \`${withheld.outcome.entry.file}\` call ${withheld.call} (${withheld.tool}) — ${withheld.reason}`);
      }
      lines.push('');
    }
  }
  return `${lines.join('\n')}\n`;
}

await main();

/**
 * EVAL.md's section on loops hidden behind noise (issue 24) and failures that teach (issue 18
 * #3, #5): the scenarios of eval/noise-classes/scenarios.ts, replayed with no options. They are
 * built from real tool output but are not recorded runs, so they stay out of the headline.
 */
function renderNoiseSection(outcomes: ScenarioOutcome[]): string {
  const lines: string[] = [];
  const loops = outcomes.filter((o) => o.scenario.label === 'looping');
  const healthy = outcomes.filter((o) => o.scenario.label === 'healthy');
  const caught = loops.filter((o) => o.caught && o.staleCalls <= STALE_CALL_TARGET).length;
  const healthyTouched = healthy.filter((o) => o.stop !== undefined || o.refusals > 0).length;
  lines.push('');
  lines.push('## Loops hidden behind noise, and failures that teach');
  lines.push('');
  lines.push(
    'Not recorded runs: a looping run and its healthy twin per class, built from real tool output (pytest, go test, an ' +
      'Elasticsearch response, GitHub\'s 401, tau-bench\'s retail lookups, Cline\'s task_progress, `gh`, `kubectl`, `docker`, `curl -sI`, curl\'s progress meter, BuildKit\'s plain progress, MSBuild\'s summary, tqdm and jest under Node 22, an IPython traceback as OpenHands\' notebook cell prints it, gemini-cli\'s shell answer, cargo test\'s parallel output, ' +
      'file reads as Claude Code\'s Read, str_replace_editor, SWE-agent\'s viewer and mini-swe-agent\'s shell print them) with only ' +
      'the volatile parts varying, or (window re-reads) the range read (eval/noise-classes/scenarios.ts; issue 24, issue 18 #3 and #5). ' +
      'Replayed with the default profile and no options.',
  );
  lines.push('');
  lines.push(`Loops caught by a loop rule within ${STALE_CALL_TARGET} stale calls: ${caught} / ${loops.length}. Healthy twins stopped or refused: ${healthyTouched} / ${healthy.length}.`);
  lines.push('');
  lines.push('| class | run | label | stop (after call) | refusals | stale calls before the catch |');
  lines.push('|---|---|---|---|---|---|');
  for (const o of outcomes) {
    const stop = o.stop === undefined ? '–' : `${o.stop} (${o.stopCall})`;
    const stale = o.scenario.label === 'looping' ? String(o.staleCalls) : '–';
    lines.push(`| ${o.scenario.noiseClass} | \`${o.scenario.name}\` | ${o.scenario.label} | ${stop} | ${o.refusals} | ${stale} |`);
  }
  return `${lines.join('\n')}\n`;
}
