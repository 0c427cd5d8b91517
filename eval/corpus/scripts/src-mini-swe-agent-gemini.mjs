// mini-swe-agent v1.15.0 + Gemini 3 Pro Preview on SWE-bench Verified, as committed in gruckion/mini-swe-agent
// (swebench_results/20251118_gemini-3-pro-74pct). Outcome per instance from results_summary.json (`resolved`).
// Kept in native mini-swe-agent format, trimmed: info {exit_status, submission, model_stats, mini_version},
// messages [{role, content}] with user/system contents over 2000 chars truncated (assistant messages kept whole
// so the ```bash block can still be parsed).
import { gitShow, gitLsTree, truncate, analyzeLoop, describeLoop } from './lib.mjs';

const DIR = 'swebench_results/20251118_gemini-3-pro-74pct';
export const SOURCE = { repo: 'gruckion/mini-swe-agent', licence: 'MIT' };
const ACTION_RE = /```bash\s*\n(.*?)\n```/gs;

export function stepsOf(messages) {
  const steps = [];
  for (let i = 0; i < messages.length; i++) {
    const m = messages[i];
    if (m.role !== 'assistant') continue;
    const content = typeof m.content === 'string' ? m.content : JSON.stringify(m.content);
    const acts = [...content.matchAll(ACTION_RE)].map((x) => x[1]);
    const next = messages[i + 1];
    const obs = next && next.role !== 'assistant' ? (typeof next.content === 'string' ? next.content : JSON.stringify(next.content)) : '';
    steps.push({ action: acts.length === 1 ? acts[0] : content, observation: obs });
  }
  return steps;
}

export function build({ gitDir, commit, write, select }) {
  const results = JSON.parse(gitShow(gitDir, commit, `${DIR}/results_summary.json`));
  const resolved = new Map(results.instances.map((x) => [x.instance_id, x.resolved]));
  const files = gitLsTree(gitDir, commit, `${DIR}/trajs`).filter((f) => f.endsWith('.traj.json')).sort();
  const cands = [];
  for (const path of files) {
    const iid = path.split('/').at(-2);
    if (!resolved.has(iid)) continue;
    cands.push({ path, iid, resolved: resolved.get(iid) });
  }
  const chosen = select(cands);
  const entries = [];
  for (const c of chosen) {
    const d = JSON.parse(gitShow(gitDir, commit, c.path));
    const steps = stepsOf(d.messages);
    const la = analyzeLoop(steps);
    let label, reason;
    if (c.resolved) { label = 'healthy'; reason = `resolved: true in ${DIR}/results_summary.json (exit_status ${d.info.exit_status})`; }
    else if (la.looping) { label = 'looping'; reason = describeLoop(`not resolved (exit_status ${d.info.exit_status})`, steps, la); }
    else { label = 'failed_no_loop'; reason = `resolved: false in results_summary.json; exit_status ${d.info.exit_status} after ${steps.length} steps; tail has no repeated (action, observation) stretch (longest final repeat stretch ${la.repeatTail})`; }
    const out = {
      info: { exit_status: d.info.exit_status, submission: truncate(d.info.submission ?? ''), model_stats: d.info.model_stats, mini_version: d.info.mini_version, model_name: d.info.config?.model?.model_name },
      messages: d.messages.map((m) => ({ role: m.role, content: m.role === 'assistant' ? m.content : truncate(m.content) })),
      trajectory_format: d.trajectory_format,
      instance_id: d.instance_id ?? c.iid,
    };
    const file = `mini-swe-agent-gemini-3-pro/${c.iid}.traj.json`;
    write(file, JSON.stringify(out, null, 1) + '\n');
    entries.push({ file, format: 'mini-swe-agent', agent: `mini-swe-agent ${d.info.mini_version}`, model: 'gemini-3-pro-preview', task: c.iid, label, reason, ...(label === 'looping' ? { loopStart: la.loopStart } : {}), calls: steps.length, source: { ...SOURCE, commit, path: c.path } });
  }
  return entries;
}
