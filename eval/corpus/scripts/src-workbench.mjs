// WorkBench (olly-styles/WorkBench, MIT, LICENSE: "Copyright (c) 2024 Mindsdb"): the paper's recorded runs of a
// LangChain structured-chat ReAct agent as a workplace assistant (email, calendar, CRM, project board, web analytics,
// and tasks across them) on sandbox databases, for gpt-4, gpt-3.5, claude-2, llama2-70b and mistral-8x7B, each with
// its domain's tools ("domains") and, for three of them, with all 26 tools ("all"). data/results/<domain>/*.csv.
// Outcome: the benchmark's own checker (`is_correct`, src/evals/utils.py: the run's actions replayed on the sandbox
// give the ground truth's end state), run by workbench-extract.py, which needs Python with pandas (WORKBENCH_PYTHON,
// default python3). healthy iff correct; otherwise the corpus's loop rules decide. Runs with no tool call (the model
// answered, or the row holds no trace: "Context window exceeded") give a loop guard nothing to see and are left out.
// Written as loopguard JSONL: one line per agent step (structured chat: one action per model call), tool = the
// action's tool name as the agent called it (`email.search_emails`; names it made up stay, and so do their
// "… is not a valid tool" observations), args = its tool_input, result = the observation (pandas values as their
// Python repr text, as the extractor reads them).
import { execFileSync } from 'node:child_process';
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { analyzeLoop, describeLoop, truncate } from './lib.mjs';

export const SOURCE = { repo: 'olly-styles/WorkBench', licence: 'MIT (LICENSE)' };
export const COMMIT = '42f1b6dc18986f47701ca83de2d63dd4f95c59a0';
export const KIND = 'workplace assistant';

const SCRIPT = join(dirname(fileURLToPath(import.meta.url)), 'workbench-extract.py');

/** Runs the extractor; a Python without pandas is named with the way to get one, not as a traceback. */
function runExtractor(args, options = {}) {
  const python = process.env.WORKBENCH_PYTHON ?? 'python3';
  try {
    return execFileSync(python, [SCRIPT, ...args], { maxBuffer: 1024 * 1024 * 1024, encoding: 'utf8', stdio: ['ignore', 'pipe', 'pipe'], ...options });
  } catch (error) {
    const said = String(error.stderr ?? error.message);
    const hint = /No module named 'pandas'/.test(said)
      ? `WorkBench's checker needs pandas, which ${python} lacks: python3 -m venv v && v/bin/pip install pandas, then set WORKBENCH_PYTHON=v/bin/python`
      : said.trim().split('\n').slice(-3).join('\n');
    throw new Error(`workbench-extract.py failed: ${hint}`);
  }
}
const cacheOf = (commit) => join(tmpdir(), `loopguard-workbench-${commit}.jsonl`);

/** The extractor's output, cached per commit (it replays every run on the sandbox: minutes). */
function extractedRuns(gitDir, commit) {
  const cache = cacheOf(commit);
  if (!existsSync(cache)) {
    writeFileSync(cache, runExtractor([gitDir, commit]));
  }
  return readFileSync(cache, 'utf8').split('\n').filter(Boolean).map((line) => JSON.parse(line));
}

const textOf = (value) => (typeof value === 'string' ? value : JSON.stringify(value ?? null));

/**
 * The tools WorkBench itself declares to have side effects (`tools_with_side_effects`, src/tools/toolkits.py). For the
 * loop rules, such a call's observation is read together with its action: "Email sent successfully." after mails to
 * four recipients is four writes acknowledged, not one observation coming back four times (the same-observation
 * rules labelled batches of distinct deletes, updates and mails looping). The same write acknowledged alike again
 * still repeats.
 */
export const WRITE_TOOLS = new Set([
  'calendar.create_event', 'calendar.delete_event', 'calendar.update_event', 'email.send_email', 'email.delete_email',
  'email.forward_email', 'email.reply_email', 'analytics.create_plot', 'project_management.create_task',
  'project_management.delete_task', 'project_management.update_task', 'customer_relationship_manager.update_customer',
  'customer_relationship_manager.add_customer', 'customer_relationship_manager.delete_customer',
]);

/** One recorded run → replay lines and the (action, observation) steps the loop rules read. */
export function convert(record, run) {
  const lines = [];
  const steps = [];
  record.steps.forEach((step, index) => {
    const args = step.args !== null && typeof step.args === 'object' && !Array.isArray(step.args) ? step.args : { input: step.args };
    const result = typeof step.observation === 'string' ? truncate(step.observation) : step.observation;
    lines.push(JSON.stringify({ run, round: index + 1, tool: step.tool ?? '(none)', args, result }));
    const action = JSON.stringify([step.tool, step.args]);
    steps.push({ action, observation: WRITE_TOOLS.has(step.tool) ? `${action} → ${textOf(step.observation)}` : textOf(step.observation) });
  });
  return { lines, steps };
}

/** Every run with a tool call, labelled; `select(all)` picks the ones to write (the wide check: all). */
export function build({ gitDir, commit, write, select }) {
  const all = [];
  for (const record of extractedRuns(gitDir, commit)) {
    if (record.steps.length === 0) continue;
    const run = `workbench-${record.model}-${record.setting}-${record.domain}-${record.row}`;
    const { lines, steps } = convert(record, run);
    const la = analyzeLoop(steps);
    const label = record.correct ? 'healthy' : la.looping ? 'looping' : 'failed_no_loop';
    all.push({ record, run, lines, steps, la, label });
  }
  const chosen = select(all);
  const entries = [];
  for (const c of all.filter((candidate) => chosen === true || chosen.includes(candidate))) {
    const { record } = c;
    const stopped = /iteration limit or time limit/.test(record.output ?? '') ? ', stopped by its iteration limit' : '';
    const prefix = `WorkBench is_correct: ${record.correct}${record.error ? ` (error: ${record.error.slice(0, 60)})` : ''}${stopped}`;
    const reason = c.label === 'healthy'
      ? `${prefix} (the replayed actions reach the ground truth's end state)${c.la.looping ? `; note: the loop rule "${c.la.rule}" matches from call #${c.la.loopStart}` : ''}`
      : c.label === 'looping' ? describeLoop(prefix, c.steps, c.la)
        : `${prefix}; no loop rule fires (longest final repeated stretch ${c.la.repeatTail}, final identical results ${c.la.sameObsTail})`;
    const file = `workbench/${record.model}/${record.setting}-${record.domain}-${record.row}.jsonl`;
    write(file, c.lines.join('\n') + '\n');
    const query = record.query.replace(/\s+/g, ' ').trim();
    entries.push({
      file, format: 'loopguard-jsonl', kind: KIND,
      agent: `LangChain structured-chat ReAct agent (WorkBench, ${record.setting === 'all' ? 'all 26 tools' : "its domain's tools"})`,
      model: record.model,
      task: `WorkBench ${record.domain}: ${query.length > 160 ? query.slice(0, 160) + '…' : query}`,
      label: c.label, reason, ...(c.label === 'looping' ? { loopStart: c.la.loopStart } : {}), calls: c.lines.length,
      source: { ...SOURCE, commit, path: record.path, row: record.row },
    });
  }
  return { entries };
}

/**
 * The benchmark's verdict on what a stop would have left: for each stopped run (`stopped`: {entry, executed}, the
 * indices of the calls loopguard let run before its stop), does WorkBench's checker still pass on those calls alone?
 * The checker compares end states, so a stop after the run's last effective write keeps the run's outcome.
 * Returns a map from corpus file to the verdict.
 */
export function verdictAtStop({ gitDir, commit, stopped }) {
  const verdicts = new Map();
  if (stopped.length === 0) return verdicts;
  extractedRuns(gitDir, commit);
  const stops = join(tmpdir(), `loopguard-workbench-stops-${process.pid}.json`);
  writeFileSync(stops, JSON.stringify(stopped.map(({ entry, executed }) => ({ path: entry.source.path, row: entry.source.row, executed }))));
  const out = runExtractor([gitDir, commit, '--cut-check', cacheOf(commit), stops]);
  const byRun = new Map(out.split('\n').filter(Boolean).map((line) => JSON.parse(line)).map((verdict) => [`${verdict.path}#${verdict.row}`, verdict.passes]));
  for (const { entry } of stopped) verdicts.set(entry.file, byRun.get(`${entry.source.path}#${entry.source.row}`));
  return verdicts;
}
