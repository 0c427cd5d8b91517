// Every BrowserGym DemoAgent run in the history of the Nid989/BrowserGym fork (the fork ServiceNow/BrowserGym pull
// request #301 came from; Apache-2.0, LICENSE at its root), read from each run's experiment.log: WorkArena ServiceNow
// tasks and — not in the PR — WebArena tasks (Magento admin, GitLab, Reddit), November 2024 to February 2025. Used by
// the wide check (eval/run-wide-check.ts), not by the corpus.
//
// Runs were committed, moved between folders and deleted over the fork's history, so the whole history reachable from
// the pinned commit is read: a run is a results/**/<run dir> holding summary_info.json and experiment.log, taken at
// the newest commit that has both (the blobs present in the snapshot). Runs with a harness err_msg or 0 steps are left
// out, as in the corpus's WorkArena converter. Outcome: cum_reward == 1 (WorkArena's / WebArena's own validator) →
// healthy; otherwise the corpus's loop rules (lib.mjs analyzeLoop) decide looping / failed_no_loop.
//
// experiment.log interleaves, per step, the agent's prompt (logger `agent`: "# Goal", "# Currently open tabs",
// "# Current page Accessibility Tree", "# Error message from last action", …) and the loop's "action:" line followed
// by the model's whole answer. The page an action led to, and its error, are the NEXT step's prompt; the run's last
// action has no next prompt, so its outcome is not recorded and it is left out (one call per run). The executed
// action is the answer's first ``` code block (BrowserGym runs the code, and rejects an answer with none or several:
// "Received an empty action." / "Received a multi-action…", recorded as the next prompt's error). Calls are written
// as in the corpus's browsergym-workarena converter: tool = the action's function, args parsed from the Python call,
// result = tab lines, blank line, accessibility tree; an error → {error: {type 'ActionError', message: 'Error: ' +
// the error, blank line, the page}}.
import { analyzeLoop, git } from './lib.mjs';
import { labelRun, replayLines } from './src-browsergym-workarena.mjs';

export const SOURCE = { repo: 'Nid989/BrowserGym', licence: 'Apache-2.0' };


/** Newest (summary_info.json, experiment.log) blob pair of every run directory in the history reachable from commit. */
export function findRuns(gitDir, commit) {
  const runs = new Map();
  for (const rev of git(gitDir, ['rev-list', commit]).split('\n').filter(Boolean)) {
    const byDir = new Map();
    for (const line of git(gitDir, ['ls-tree', '-r', rev, '--', 'results']).split('\n').filter(Boolean)) {
      const [meta, path] = line.split('\t');
      const slash = path.lastIndexOf('/');
      const name = path.slice(slash + 1);
      if (name !== 'summary_info.json' && name !== 'experiment.log') continue;
      const dir = path.slice(0, slash);
      if (!byDir.has(dir)) byDir.set(dir, {});
      byDir.get(dir)[name] = meta.split(' ')[2];
    }
    for (const [dir, blobs] of byDir) {
      const run = dir.split('/').pop();
      if (runs.has(run) || !blobs['summary_info.json'] || !blobs['experiment.log']) continue;
      try { git(gitDir, ['cat-file', '-e', blobs['experiment.log']]); } catch { continue; }
      runs.set(run, { commit: rev, dir, summaryBlob: blobs['summary_info.json'], logBlob: blobs['experiment.log'] });
    }
  }
  return [...runs.entries()].sort((a, b) => a[0].localeCompare(b[0])).map(([run, found]) => ({ run, ...found }));
}

const RECORD = /^\d{4}-\d\d-\d\d \d\d:\d\d:\d\d,\d+ - \d+ - (\S+) - [A-Z]+ - /;

/** A prompt's "# Heading" section, up to the next top-level heading. */
function section(prompt, heading) {
  const lines = prompt.split('\n');
  const start = lines.findIndex((line) => line === `# ${heading}`);
  if (start < 0) return undefined;
  let end = start + 1;
  while (end < lines.length && !/^# [A-Z]/.test(lines[end])) end++;
  return lines.slice(start + 1, end).join('\n').trim();
}

/** experiment.log → {goal, prompts: [{page, error}], answers: [model answer text]}. */
export function parseLog(log) {
  const records = [];
  for (const line of log.split('\n')) {
    const m = line.match(RECORD);
    if (m) records.push({ logger: m[1], text: line.slice(m[0].length) });
    else if (records.length > 0) records[records.length - 1].text += `\n${line}`;
  }
  const prompts = [];
  const answers = [];
  for (const r of records) {
    if (r.logger === 'agent' && r.text.startsWith('# Instructions')) {
      const tabs = section(r.text, 'Currently open tabs') ?? '';
      const tree = section(r.text, 'Current page Accessibility Tree') ?? '';
      prompts.push({ goal: section(r.text, 'Goal') ?? '', page: `${tabs}\n\n${tree}`, error: section(r.text, 'Error message from last action') });
    } else if (r.logger === 'browsergym.experiments.loop' && r.text.startsWith('action:')) {
      answers.push(r.text.slice('action:'.length).trim());
    }
  }
  return { goal: prompts[0]?.goal ?? '', prompts, answers };
}

/** The code BrowserGym would run: the answer's first ``` block (the whole answer when it has none). */
export function actionOf(answer) {
  const block = answer.match(/```(?:python)?\s*([\s\S]*?)```/);
  return block ? block[1].trim() : answer;
}

/** Steps {action, observation, failed} of a parsed log: action k's outcome is prompt k+1; the last action's is not logged. */
export function stepsOf({ prompts, answers }) {
  return answers.slice(0, prompts.length - 1).map((answer, k) => {
    const next = prompts[k + 1];
    const failed = next.error !== undefined && next.error !== '';
    return { action: actionOf(answer), observation: failed ? `Error: ${next.error}\n\n${next.page}` : next.page, failed };
  });
}

export function build({ gitDir, commit, write, onSkip = () => {} }) {
  const entries = [];
  for (const found of findRuns(gitDir, commit)) {
    const summary = JSON.parse(git(gitDir, ['cat-file', '-p', found.summaryBlob]));
    if (summary.err_msg != null || !(summary.n_steps > 0)) { onSkip(`${found.run}: harness error or no step (${String(summary.err_msg).slice(0, 50)})`); continue; }
    const log = parseLog(git(gitDir, ['cat-file', '-p', found.logBlob]));
    if (log.answers.length !== summary.n_steps || log.prompts.length !== summary.n_steps) {
      onSkip(`${found.run}: ${log.prompts.length} prompts / ${log.answers.length} actions logged for n_steps ${summary.n_steps}`);
      continue;
    }
    const steps = stepsOf(log);
    if (steps.length === 0) { onSkip(`${found.run}: one step, its outcome not logged`); continue; }
    const task = found.run.replace(/^.*DemoAgentArgs_on_/, '');
    const benchmark = task.startsWith('webarena.') ? 'WebArena' : 'WorkArena';
    const la = analyzeLoop(steps);
    const end = `${summary.n_steps} steps${summary.truncated ? ' (truncated at the step limit)' : ''}, the last one's outcome not logged`;
    const { label, reason } = labelRun(`${benchmark} ${task}`, summary, end, steps, la);
    const run = `browsergym-fork-${found.run.replace(/[^A-Za-z0-9._-]+/g, '_')}`;
    const lines = replayLines(run, steps);
    const file = `browsergym-fork/${run}.jsonl`;
    write(file, lines.join('\n') + '\n');
    entries.push({ file, format: 'loopguard-jsonl', kind: 'browser', agent: 'BrowserGym DemoAgent (AXTree)', task: `${task}: ${log.goal.replace(/\s+/g, ' ').slice(0, 160)}`, label, reason, ...(label === 'looping' ? { loopStart: la.loopStart } : {}), calls: steps.length, source: { repo: SOURCE.repo, licence: SOURCE.licence, commit: found.commit, path: `${found.dir}/experiment.log (+ summary_info.json)` } });
  }
  return entries;
}
