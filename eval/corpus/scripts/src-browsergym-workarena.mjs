// Real browser-agent runs: BrowserGym's DemoAgent (accessibility-tree observations, gpt-4o) on WorkArena ServiceNow
// tasks (service-catalog orders, menu navigation, knowledge-base search), recorded in ServiceNow/BrowserGym pull request
// #301 (refs/pull/301/head, from the Nid989/BrowserGym fork; the repository and the PR tree are Apache-2.0).
// Each run directory under results/ holds summary_info.json (n_steps, cum_reward from WorkArena's own validator,
// err_msg, terminated, truncated) and experiment_analysis.md, a per-step dump of the run: for every step the open tabs
// and the page's accessibility tree, the history of actions taken so far (each "Selected Action in the BrowserGym
// format" with its "Outcome including errors"), and the model's next action; the last step has the final page and
// "No next action available". (The raw experiment.log says the same; step_*.pkl.gz are pickles.)
//
// Converted to loopguard replay JSONL, one line per executed action: tool = the BrowserGym action's function name
// (click, fill, select_option, scroll, goto, send_msg_to_user, ...), args = {args: [positional...], ...keyword}
// parsed from the Python call; result = the page the action led to ("Tab i (active): title / URL" lines, a blank line,
// the accessibility tree), cut to 2,000 chars + length/sha256 of the full text (lib.mjs truncate). An action whose
// outcome names an error is written as {error: {type: 'ActionError', message}} (message = the error, then the page).
import { gitShow, gitLsTree, truncate, analyzeLoop, describeLoop } from './lib.mjs';

export const SOURCE = { repo: 'ServiceNow/BrowserGym', ref: 'refs/pull/301/head', licence: 'Apache-2.0' };

/** Python call `name(arg, ..., key=value)` with literal arguments -> {tool, args}. */
export function parseAction(text) {
  const m = text.trim().match(/^([A-Za-z_]\w*)\(([\s\S]*)\)$/);
  if (!m) return { tool: 'unparsed_action', args: { action: text.trim() } };
  const src = m[2];
  let i = 0;
  const ws = () => { while (i < src.length && /\s/.test(src[i])) i++; };
  function value() {
    ws();
    const c = src[i];
    if (c === '"' || c === "'") {
      const triple = src.startsWith(c.repeat(3), i);
      const q = triple ? c.repeat(3) : c;
      i += q.length;
      let s = '';
      while (i < src.length && !src.startsWith(q, i)) {
        if (src[i] === '\\' && i + 1 < src.length) {
          const n = src[i + 1];
          s += n === 'n' ? '\n' : n === 't' ? '\t' : n;
          i += 2;
        } else s += src[i++];
      }
      if (i >= src.length) throw new Error('unterminated string');
      i += q.length;
      return s;
    }
    if (c === '[' || c === '(') {
      const close = c === '[' ? ']' : ')';
      i++;
      const out = [];
      ws();
      while (src[i] !== close) {
        out.push(value());
        ws();
        if (src[i] === ',') { i++; ws(); } else if (src[i] !== close) throw new Error('bad list');
      }
      i++;
      return out;
    }
    const w = src.slice(i).match(/^(-?\d+(?:\.\d+)?|True|False|None)/);
    if (!w) throw new Error(`bad literal at ${i}`);
    i += w[0].length;
    return w[0] === 'True' ? true : w[0] === 'False' ? false : w[0] === 'None' ? null : Number(w[0]);
  }
  try {
    const args = { args: [] };
    ws();
    while (i < src.length) {
      const kw = src.slice(i).match(/^([A-Za-z_]\w*)\s*=(?!=)/);
      if (kw) { i += kw[0].length; args[kw[1]] = value(); } else args.args.push(value());
      ws();
      if (src[i] === ',') { i++; ws(); } else if (i < src.length) throw new Error(`unexpected ${src[i]}`);
    }
    return { tool: m[1], args };
  } catch {
    return { tool: m[1], args: { action: text.trim() } };
  }
}

function between(text, start, end) {
  const a = text.indexOf(start);
  if (a < 0) return undefined;
  const b = text.indexOf(end, a + start.length);
  return text.slice(a + start.length, b < 0 ? undefined : b);
}

/** experiment_analysis.md -> {model, goal, pages: [state text per step], actions: [{text, outcome}]}. */
export function parseAnalysis(md) {
  const model = (md.match(/\*\*model_name\*\*: (\S+)/) || [])[1] ?? 'unknown';
  const goal = (between(md, '* **Derived Goal**:\n', '\n## ') ?? '').trim();
  const body = md.slice(0, md.indexOf('\n# 3 - Templates') >= 0 ? md.indexOf('\n# 3 - Templates') : undefined);
  const steps = body.split(/\n## InstanceStep\d+\n/).slice(1);
  const pages = steps.map((s) => {
    const tabs = (between(s, '#### Currently Open Tabs\n', '#### Current Page Accessibility Tree') ?? '').trim();
    const tree = (between(s, '#### Current Page Accessibility Tree\n\n```\n', '\n```\n') ?? '').replace(/\s+$/, '');
    return `${tabs}\n\n${tree}`;
  });
  const last = steps[steps.length - 1] ?? '';
  const actions = [];
  for (const part of last.split(/\n#### PastAction\d+\n/).slice(1)) {
    const text = (between(part, '##### Selected Action in the BrowserGym format\n\n```\n', '\n```') ?? '').trim();
    const outcome = (between(part, '##### Outcome including errors\n\n', '\n\n') ?? '').trim();
    actions.push({ text, outcome });
  }
  return { model, goal, pages, actions };
}

/** A BrowserGym run's label by the validator's verdict (`cum_reward == 1`), else by the loop rules, and why. */
export function labelRun(name, summary, end, steps, la) {
  if (summary.cum_reward === 1) return { label: 'healthy', reason: `${name}: cum_reward 1 in summary_info.json (task validated), ${end}` };
  if (la.looping) return { label: 'looping', reason: describeLoop(`${name}: cum_reward ${summary.cum_reward}, ${end}`, steps, la) };
  return { label: 'failed_no_loop', reason: `${name}: cum_reward ${summary.cum_reward}, ${end}; tail does not repeat` };
}

/** Replay JSONL lines of a run's steps: the executed action as a tool call, the page (or the action's error) as its outcome. */
export function replayLines(run, steps) {
  return steps.map((s, k) => {
    const { tool, args } = parseAction(s.action);
    const outcome = s.failed ? { error: { type: 'ActionError', message: truncate(s.observation) } } : { result: truncate(s.observation) };
    return JSON.stringify({ run, round: k + 1, tool, args, ...outcome });
  });
}

export function build({ gitDir, commit, write }) {
  const summaries = gitLsTree(gitDir, commit, 'results').filter((p) => p.endsWith('/summary_info.json'));
  const entries = [];
  const skipped = [];
  for (const summaryPath of summaries.sort()) {
    const dir = summaryPath.slice(0, -'/summary_info.json'.length);
    const summary = JSON.parse(gitShow(gitDir, commit, summaryPath));
    const files = new Set(gitLsTree(gitDir, commit, dir));
    if (!files.has(`${dir}/experiment_analysis.md`)) { skipped.push(`${dir}: no experiment_analysis.md at this commit`); continue; }
    let md;
    try { md = gitShow(gitDir, commit, `${dir}/experiment_analysis.md`); } catch { skipped.push(`${dir}: experiment_analysis.md listed but its blob is absent from the snapshot`); continue; }
    if (summary.err_msg != null || !(summary.n_steps > 0)) { skipped.push(`${dir}: harness error (${String(summary.err_msg).slice(0, 60)})`); continue; }
    const a = parseAnalysis(md);
    if (a.actions.length !== summary.n_steps || a.pages.length !== summary.n_steps + 1) {
      skipped.push(`${dir}: ${a.actions.length} actions / ${a.pages.length} pages for n_steps ${summary.n_steps}`);
      continue;
    }
    const steps = a.actions.map((act, k) => {
      const page = a.pages[k + 1];
      const failed = act.outcome !== '' && act.outcome !== 'No errors reported';
      return { action: act.text, observation: failed ? `${act.outcome}\n\n${page}` : page, failed, error: act.outcome };
    });
    const task = dir.split('/').pop().replace(/^.*DemoAgentArgs_on_/, '');
    const la = analyzeLoop(steps);
    const end = summary.truncated ? `truncated at the ${summary.n_steps}-step limit` : `ended after ${summary.n_steps} steps`;
    const { label, reason } = labelRun(`WorkArena ${task}`, summary, end, steps, la);
    const run = `browsergym-${dir.split('/').pop().replace(/[^A-Za-z0-9._-]+/g, '_')}`;
    const lines = replayLines(run, steps);
    const file = `browsergym-workarena/${run}.jsonl`;
    write(file, lines.join('\n') + '\n');
    entries.push({ file, format: 'loopguard-jsonl', kind: 'browser', agent: 'BrowserGym DemoAgent (AXTree)', model: a.model, task: `${task}: ${a.goal.replace(/\s+/g, ' ').slice(0, 160)}`, label, reason, ...(label === 'looping' ? { loopStart: la.loopStart } : {}), calls: steps.length, source: { repo: SOURCE.repo, licence: SOURCE.licence, commit, path: `${dir}/experiment_analysis.md (+ summary_info.json), ${SOURCE.ref}` } });
  }
  return { entries, skipped };
}
