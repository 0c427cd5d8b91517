/**
 * The wide check: every run of the corpus's three largest sources, not the sample the corpus
 * keeps — all 500 mini-swe-agent + Gemini 3 Pro SWE-bench Verified runs, and every ReAct
 * episode printed in WebShop.ipynb and FEVER.ipynb — replayed with the default profile and no
 * policy. Too large to commit (about 40 MB trimmed), so the runs are rebuilt from local bare-git
 * snapshots of the sources at the corpus's pinned commits, by the corpus's own converters and
 * labelling rules (eval/corpus/scripts), and the result is written to eval/WIDE.md. One source is
 * the wide check's own: every BrowserGym DemoAgent run in the Nid989/BrowserGym fork's history
 * (WorkArena and WebArena), read from experiment.log (scripts/src-browsergym-fork-logs.mjs), the
 * only browser runs with page observations and validator verdicts found beyond the corpus's; and
 * AgentDojo's benign banking and travel runs are taken for every model, not the corpus's two; all 50 OpenHands +
 * Claude 3.5 Sonnet SWE-bench runs; every InterCode-Bash episode of the paper's seven models and every InterCode-CTF
 * episode of gpt-4; every WorkBench run with a tool call (its checker runs in Python with pandas:
 * WORKBENCH_PYTHON, scripts/workbench-extract.py); every InterCode-SQL episode of the seven models, the ReAct SQL
 * and Bash runs of gpt-3.5, and every InterCode-Python episode of gpt-3.5 and gpt-4; and browser-use + Gemini on
 * WebArena-Infinity's app clones (scripts/src-webarena-infinity.mjs), answered as browser-use answers and with the page; and
 * Claude Opus 4.6 through Agent Browser Protocol's MCP server on Online-Mind2Web (scripts/src-abp-online-mind2web.mjs),
 * answered with screenshots. Not part of
 * `npm test` (CI has no copy of the sources); run it before changing a rule that judges results:
 *
 *   npm run eval:wide -- [--mirrors DIR] [--only NAME]   (DIR holds <owner>+<name>/repo; default /work/.mirror;
 *                                                         NAME: replay the sources whose name holds it, WIDE.md untouched)
 *
 * Why: the corpus's sample had 0 of 40 resolved Gemini runs stopped while the whole set had 7
 * of 371 — a rule's cost on healthy runs shows at this size, not at the sample's.
 */
import { mkdtempSync, mkdirSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { classifyShellCommand } from '../src/core/world-state/classify-shell-command.js';
import { evaluateFile } from './eval-run.js';
import { median, outcomeFromReplay, percent, STALE_CALL_TARGET, total, type Label, type RunOutcome, type Totals } from './run-outcomes.js';
// The corpus scripts are plain ESM without declarations (they run on Node alone, no build step).
// @ts-expect-error: no declaration file
import * as gemini from './corpus/scripts/src-mini-swe-agent-gemini.mjs';
// @ts-expect-error: no declaration file
import * as webshop from './corpus/scripts/src-react-webshop.mjs';
// @ts-expect-error: no declaration file
import * as fever from './corpus/scripts/src-react-fever.mjs';
// @ts-expect-error: no declaration file
import * as browsergymFork from './corpus/scripts/src-browsergym-fork-logs.mjs';
// @ts-expect-error: no declaration file
import * as agentdojo from './corpus/scripts/src-agentdojo.mjs';
// @ts-expect-error: no declaration file
import * as intercodeBash from './corpus/scripts/src-intercode-bash.mjs';
// @ts-expect-error: no declaration file
import * as openhandsSwebench from './corpus/scripts/src-openhands-swebench-claude.mjs';
// @ts-expect-error: no declaration file
import * as intercodeCtf from './corpus/scripts/src-intercode-ctf.mjs';
// @ts-expect-error: no declaration file
import * as workbench from './corpus/scripts/src-workbench.mjs';
// @ts-expect-error: no declaration file
import * as intercodeSql from './corpus/scripts/src-intercode-sql.mjs';
// @ts-expect-error: no declaration file
import * as intercodePython from './corpus/scripts/src-intercode-python.mjs';
// @ts-expect-error: no declaration file
import * as webarenaInfinity from './corpus/scripts/src-webarena-infinity.mjs';
// @ts-expect-error: no declaration file
import * as abpOnlineMind2web from './corpus/scripts/src-abp-online-mind2web.mjs';

/** The InterCode paper's bash models (data/results/bash/<model>/); the corpus takes gpt-4's runs. */
const INTERCODE_BASH_MODELS = ['gpt-4', 'gpt-3.5', 'text-davinci-003', 'text-bison-001', 'chat-bison-001', 'starchat', 'vicuna'];
/** The command of each `bash` call of a converted loopguard-jsonl run, for the classifier census (a CTF `submit` is not one). */
const jsonlBashCommands = (text: string): string[] =>
  text.split('\n').filter(Boolean).map((line) => JSON.parse(line) as { tool: string; args: { command?: string } })
    .filter((call) => call.tool === 'bash').map((call) => call.args.command!);

interface Entry {
  file: string;
  task: string;
  label: Label;
  loopStart?: number;
  calls: number;
}

interface Source {
  name: string;
  kind: string;
  repo: string;
  commit: string;
  build: (options: unknown) => Entry[];
  /** The shell command lines of a converted run file, for the classifier census. */
  commandsOf?: (text: string) => string[];
  /**
   * Where the source's own checker can judge a cut run: does it still pass each stopped healthy run on the calls
   * loopguard let run before the stop? Map from corpus file to the verdict.
   */
  verdictAtStop?: (options: { gitDir: string; commit: string; stopped: Array<{ entry: Entry; executed: number[] }> }) => Map<string, boolean>;
}

/** The corpus's pins (eval/corpus/scripts/build.mjs). */
const SOURCES: Source[] = [
  {
    name: 'mini-swe-agent + Gemini 3 Pro (SWE-bench Verified)',
    kind: 'coding',
    repo: 'gruckion/mini-swe-agent',
    commit: 'd12a71affd95403b036b2bdbd827349b77bfffb9',
    build: gemini.build,
    commandsOf: (text) => (gemini.stepsOf(JSON.parse(text).messages) as Array<{ action: string }>).map((step) => step.action),
  },
  { name: 'ReAct on WebShop (text-davinci-002)', kind: 'web shopping', repo: 'ysymyth/ReAct', commit: '6bdb3a1fd38b8188fc7ba4102969fe483df8fdc9', build: webshop.build },
  { name: 'ReAct on FEVER (text-davinci-002)', kind: 'QA / research', repo: 'ysymyth/ReAct', commit: '6bdb3a1fd38b8188fc7ba4102969fe483df8fdc9', build: fever.build },
  // Not a corpus source: every run in the fork's history (the WorkArena runs of the corpus's PR #301 and more, plus
  // WebArena), from experiment.log; Apache-2.0. See eval/corpus/SOURCES.md, "Wide-check sources".
  {
    name: 'BrowserGym DemoAgent, Nid989/BrowserGym history (WorkArena + WebArena)',
    kind: 'browser',
    repo: 'Nid989/BrowserGym',
    commit: '8f548bc0ac48fc0dee8b1c0d2f680d6e03a323fe',
    build: browsergymFork.build,
  },
  // Not a corpus source: browser-use + Gemini on WebArena-Infinity's app clones, each run judged by the task's verifier,
  // read at the pull-request commits that added the runs (MIT at the repository's head; SOURCES.md, "Wide-check sources").
  // Twice: each action answered as browser-use answers the model ("Clicked button", what a guard of the actions sees),
  // and answered with the page that followed (what a host that returns the page with the answer gives the guard).
  {
    name: 'browser-use + Gemini, WebArena-Infinity (Gmail, Linear, Shopify clones), answers only',
    kind: 'browser',
    repo: webarenaInfinity.SOURCE.repo,
    commit: '1ca77813bf8d8e4011aa3fb1f740f70d78bd522d',
    build: webarenaInfinity.build,
  },
  {
    name: 'browser-use + Gemini, WebArena-Infinity, each answer with the page that followed',
    kind: 'browser',
    repo: webarenaInfinity.SOURCE.repo,
    commit: '1ca77813bf8d8e4011aa3fb1f740f70d78bd522d',
    build: (options) => webarenaInfinity.build({ ...(options as object), withPage: true }),
  },
  // Not a corpus source: Claude Opus 4.6 through Agent Browser Protocol's MCP server on live sites (Online-Mind2Web),
  // each action answered with a screenshot, named by its sha256 (MIT; SOURCES.md, "Wide-check sources": labels are the
  // agent's own finish, the human verdicts are not committed).
  {
    name: 'ABP (MCP) + Claude Opus 4.6, Online-Mind2Web (live sites, screenshots as answers)',
    kind: 'browser',
    repo: abpOnlineMind2web.SOURCE.repo,
    commit: abpOnlineMind2web.COMMIT,
    build: abpOnlineMind2web.build,
  },
  // The corpus samples two models' runs (and the others' loops); here every benign banking and travel run of every
  // undefended model. ethz-spylab/agentdojo's commit, read from the sequrity-ai fork that keeps its history (MIT).
  {
    name: 'AgentDojo banking + travel, every undefended model (benign runs)',
    kind: 'customer service',
    repo: 'sequrity-ai/agentdojo',
    commit: '96046ab54a99f5e5ec86b920ea9a2d8ae24ea6d8',
    build: (options) => agentdojo.build({ ...(options as object), everyModel: true }).entries,
  },
  // All 50 runs the corpus samples 40 of (read at the source's own commit, a pull-request ref; MIT).
  {
    name: 'OpenHands CodeActAgent + Claude 3.5 Sonnet (SWE-bench Verified, 50 instances)',
    kind: 'coding',
    repo: 'All-Hands-AI/OpenHands',
    commit: openhandsSwebench.COMMIT,
    build: openhandsSwebench.build,
  },
  // The corpus samples gpt-4's runs; here every episode of every bash model in the paper's results (MIT). Episodes the
  // harness cut on a failed policy call are left out, as in the corpus (most of chat-bison-001's).
  {
    name: 'InterCode-Bash, every model of the paper (NL2Bash, 10 turns)',
    kind: 'shell',
    repo: 'princeton-nlp/intercode',
    commit: 'c3e46d827cfc9d4c704ec078f7abf9f41e3191d8',
    build: (options) => INTERCODE_BASH_MODELS.flatMap((model) => intercodeBash.build({ ...(options as object), model }).entries),
    commandsOf: jsonlBashCommands,
  },
  // The paper's ReAct bash agent (gpt-3.5), which ends each episode itself with `submit` (not in the corpus; MIT).
  {
    name: 'InterCode-Bash, ReAct agent with submit, gpt-3.5 (NL2Bash, 10 turns)',
    kind: 'shell',
    repo: 'princeton-nlp/intercode',
    commit: 'c3e46d827cfc9d4c704ec078f7abf9f41e3191d8',
    build: (options) => intercodeBash.build({ ...(options as object), model: 'gpt-3.5', react: true }).entries,
    commandsOf: jsonlBashCommands,
  },
  // All 93 CTF episodes of gpt-4 (the corpus takes 25).
  {
    name: 'InterCode-CTF, gpt-4 (picoCTF, 10 turns)',
    kind: 'shell',
    repo: 'princeton-nlp/intercode',
    commit: 'c3e46d827cfc9d4c704ec078f7abf9f41e3191d8',
    build: (options) => intercodeCtf.build(options).entries,
    commandsOf: jsonlBashCommands,
  },
  // Every WorkBench run with a tool call, of every model and tool setting (the corpus takes a sample; MIT).
  {
    name: 'WorkBench, every model and tool setting (LangChain structured-chat agent)',
    kind: workbench.KIND,
    repo: workbench.SOURCE.repo,
    commit: workbench.COMMIT,
    build: (options) => workbench.build(options).entries,
    verdictAtStop: workbench.verdictAtStop,
  },
  // The corpus samples gpt-4's runs; here every episode of every SQL model in the paper's results (MIT).
  {
    name: 'InterCode-SQL, every model of the paper (Spider, 10 turns)',
    kind: intercodeSql.KIND,
    repo: intercodeSql.SOURCE.repo,
    commit: 'c3e46d827cfc9d4c704ec078f7abf9f41e3191d8',
    build: (options) => (intercodeSql.MODELS as string[]).flatMap((model) => intercodeSql.build({ ...(options as object), model }).entries),
  },
  // The paper's ReAct SQL agent (gpt-3.5), which ends each episode itself with `submit` (not in the corpus; MIT).
  {
    name: 'InterCode-SQL, ReAct agent with submit, gpt-3.5 (Spider, 10 turns)',
    kind: intercodeSql.KIND,
    repo: intercodeSql.SOURCE.repo,
    commit: 'c3e46d827cfc9d4c704ec078f7abf9f41e3191d8',
    build: (options) => intercodeSql.build({ ...(options as object), model: 'gpt-3.5', react: true }).entries,
  },
  // Every InterCode-Python episode, gpt-3.5 and gpt-4 (the corpus takes 50; MIT).
  {
    name: 'InterCode-Python, gpt-3.5 and gpt-4 (MBPP, 7 turns)',
    kind: intercodePython.KIND,
    repo: intercodePython.SOURCE.repo,
    commit: 'c3e46d827cfc9d4c704ec078f7abf9f41e3191d8',
    build: (options) => intercodePython.build(options).entries,
  },
];

interface SourceCheck {
  totals: Totals<Entry>;
  /** The source's verdict on each stopped healthy run cut at its stop (Source.verdictAtStop), by corpus file. */
  verdictsAtStop: Map<string, boolean>;
  /** Shell command lines by how the classifier reads them: effect → command family → count. */
  commands: Map<string, Map<string, number>>;
}

async function checkSource(source: Source, mirrors: string, scratch: string): Promise<SourceCheck> {
  const gitDir = join(mirrors, source.repo.replace('/', '+'), 'repo');
  const commands = new Map<string, Map<string, number>>();
  const write = (file: string, text: string) => {
    const path = join(scratch, file);
    mkdirSync(dirname(path), { recursive: true });
    writeFileSync(path, text);
    for (const line of source.commandsOf?.(text) ?? []) {
      const { effect, family } = classifyShellCommand(line);
      let families = commands.get(effect);
      if (families === undefined) commands.set(effect, (families = new Map()));
      const key = family ?? '(none)';
      families.set(key, (families.get(key) ?? 0) + 1);
    }
  };
  let entries: Entry[];
  try {
    entries = source.build({ gitDir, commit: source.commit, write, select: (all: unknown) => (Array.isArray(all) ? all : true) });
  } catch (error) {
    throw new Error(`could not read ${source.repo} at ${source.commit} from ${gitDir} (fetch it, or pass --mirrors DIR): ${(error as Error).message}`);
  }
  const outcomes: RunOutcome<Entry>[] = [];
  const stopped: Array<{ entry: Entry; executed: number[] }> = [];
  for (const entry of entries) {
    const [run] = await evaluateFile(join(scratch, entry.file), {});
    if (run === undefined) throw new Error(`${entry.file}: no run read`);
    outcomes.push(outcomeFromReplay(entry, run));
    if (entry.label === 'healthy' && run.report.stop !== null && source.verdictAtStop !== undefined) {
      const executed: number[] = [];
      let index = 0;
      for (const decision of run.report.decisions()) {
        if (decision.decision === 'allow') executed.push(index);
        index++;
      }
      stopped.push({ entry, executed });
    }
  }
  const verdictsAtStop = source.verdictAtStop?.({ gitDir, commit: source.commit, stopped }) ?? new Map<string, boolean>();
  return { totals: total(outcomes), commands, verdictsAtStop };
}


/**
 * How the shell classifier reads every command line of a source (issue 18 item 6: review it
 * against real commands). Only `read` can lead to a refusal, so that column is the one to check.
 */
function commandCensus(source: Source, commands: Map<string, Map<string, number>>): string[] {
  const total = (families: Map<string, number> | undefined) => [...(families ?? new Map<string, number>()).values()].reduce((sum, count) => sum + count, 0);
  const all = [...commands.values()].reduce((sum, families) => sum + total(families), 0);
  const reads = [...(commands.get('read') ?? new Map<string, number>())].sort((a, b) => b[1] - a[1]);
  const others = [...commands].filter(([effect]) => effect !== 'read').map(([effect, families]) => `${total(families)} ${effect}`);
  return [
    `## Shell commands of ${source.name}, as the classifier reads them`,
    '',
    `${all} command lines: ${total(commands.get('read'))} read, ${others.join(', ')}. The reads by command family (the ladder's unit):`,
    '',
    '| family | read lines |',
    '|---|---|',
    ...reads.map(([family, count]) => `| \`${family}\` | ${count} |`),
    '',
  ];
}

async function main(): Promise<void> {
  const args = process.argv.slice(2);
  const mirrorsIndex = args.indexOf('--mirrors');
  const mirrors = mirrorsIndex >= 0 ? args[mirrorsIndex + 1]! : '/work/.mirror';
  // `--only <text>`: the sources whose name holds it, summary printed and WIDE.md left as it is (to try a rule on one source).
  const onlyIndex = args.indexOf('--only');
  const only = onlyIndex >= 0 ? args[onlyIndex + 1]! : undefined;
  const rows: string[] = [];
  const stops: string[] = [];
  const withholdings: string[] = [];
  const summary: string[] = [];
  const census: string[] = [];
  for (const source of only === undefined ? SOURCES : SOURCES.filter((candidate) => candidate.name.includes(only))) {
    const scratch = mkdtempSync(join(tmpdir(), 'loopguard-wide-'));
    try {
      const { totals: t, commands, verdictsAtStop } = await checkSource(source, mirrors, scratch);
      const runs = `${t.healthy} / ${t.loops} / ${t.failedRuns}`;
      const loops = t.loops === 0 ? ['— (none)', '—', '—', '—'] : [`${t.loopsStopped} / ${t.loops}`, String(t.loopsStoppedByLoopRule), String(t.loopsHalted), `${t.loopsWithinTarget} / ${t.loops}`];
      rows.push(
        `| ${source.name} | ${source.kind} | [${source.repo}](https://github.com/${source.repo}) \`${source.commit.slice(0, 12)}\` | ${runs} | ${t.healthyStopped.length} / ${t.healthy} | ${loops.join(' | ')} | ${median(t.staleCalls)} | ` +
          `${t.withheld.length} (${percent(t.withheld.length, t.healthyCalls)}) | ${t.healthyWithRefusals} / ${t.healthy} | ${t.failedStopped} / ${t.failedRuns} |`,
      );
      for (const outcome of t.healthyStopped) {
        const verdict = verdictsAtStop.get(outcome.entry.file);
        const cut = verdict === undefined ? '—' : verdict ? 'passes' : '**fails**';
        stops.push(`| ${source.name} | ${outcome.entry.task} | ${outcome.stop} | ${outcome.stopRound} of ${outcome.calls} calls | ${cut} |`);
      }
      for (const withheld of t.withheld.slice(0, 15)) withholdings.push(`| ${source.name} | ${withheld.outcome.entry.task} | call ${withheld.call} (${withheld.tool}) | ${withheld.reason} |`);
      if (commands.size > 0) census.push(...commandCensus(source, commands));
      summary.push(
        `${source.name}: healthy stopped ${t.healthyStopped.length}/${t.healthy}, loops stopped by a loop rule ${t.loopsStoppedByLoopRule}/${t.loops} ` +
          `(caught within ${STALE_CALL_TARGET} stale calls ${t.loopsWithinTarget}), withheld ${t.withheld.length}`,
      );
    } finally {
      rmSync(scratch, { recursive: true, force: true });
    }
  }
  const lines = [
    '# The wide check',
    '',
    'Generated by `npm run eval:wide` (eval/run-wide-check.ts) — do not edit by hand. Not run in CI: it rebuilds its runs from',
    'local snapshots of the sources at pinned commits (MIT and Apache-2.0 licences), with the corpus\'s own converters and',
    'labelling rules ([eval/corpus/SOURCES.md](corpus/SOURCES.md)); the corpus keeps a sample of each, and the BrowserGym',
    'fork\'s runs are read from its logs by a wide-check converter (SOURCES.md, "Wide-check sources").',
    '',
    'Every run of each source, replayed with the default profile and no policy. Columns as in [EVAL.md](../EVAL.md).',
    '',
    `| source | agent kind | repository, commit | runs (healthy / looping / failed) | healthy runs stopped | loops stopped | … by a loop rule | loops halted, not stopped | loops caught within ${STALE_CALL_TARGET} stale calls | median stale calls before the catch | refusals withholding a new result (share of healthy calls) | healthy runs with any refusal | failed runs stopped |`,
    '|---|---|---|---|---|---|---|---|---|---|---|---|---|',
    ...rows,
    '',
    '## Healthy runs stopped',
    '',
    'The last column: where the source\'s own checker can judge a cut run (WorkBench), its verdict on the calls loopguard',
    'let run before the stop — "passes" means the stop would have cost the run nothing the benchmark measures.',
    '',
    ...(stops.length === 0 ? ['None.'] : ['| source | run | reason | at round | source\'s verdict, cut at the stop |', '|---|---|---|---|---|', ...stops]),
    '',
    '## Refusals that withheld a new result (first 15 per source)',
    '',
    ...(withholdings.length === 0 ? ['None.'] : ['| source | run | call | reason |', '|---|---|---|---|', ...withholdings]),
    '',
    ...census,
  ];
  if (only !== undefined) {
    process.stdout.write(`${summary.join('\n')}\n${stops.join('\n')}\n${withholdings.join('\n')}\n(--only: WIDE.md not written)\n`);
    return;
  }
  const out = join(dirname(fileURLToPath(import.meta.url)), 'WIDE.md');
  writeFileSync(out, lines.join('\n'));
  process.stdout.write(`${summary.join('\n')}\nwrote ${out}\n`);
}

main().catch((error: unknown) => {
  process.stderr.write(`${error instanceof Error ? error.message : String(error)}\n`);
  process.exitCode = 1;
});
