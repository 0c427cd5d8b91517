// Real OpenHands runs: the two recorded OpenHands-resolver runs kept as test fixtures in All-Hands-AI/OpenHands
// (tests/unit/resolver/mock_output/output.jsonl; CodeActAgent fixing GitHub issues #1 and #5 of neubig/pr-viewer,
// each line {issue, history, success, result_explanation, metrics}). `history` is OpenHands' event stream in its
// 2024 flat form: an action event ({action: run|run_ipython|finish|message, command|code|outputs, thought}) followed
// by its observation ({observation: run|run_ipython, content, exit_code}).
// Written natively (format `openhands`, read by src/replay/formats/read-openhands-trajectory.ts): one file per run
// holding that run's output.jsonl line, trimmed to {instance_id, issue: {owner, repo, number, title}, success,
// result_explanation, history}, observation `content` cut like every corpus observation (lib.mjs truncate).
// Outcome: `success` is the resolver's own verdict (its success check over the final diff, explained in
// `result_explanation`); both runs have success: true.
import { gitShow, truncate, analyzeLoop, describeLoop } from './lib.mjs';

export const SOURCE = { repo: 'All-Hands-AI/OpenHands', path: 'tests/unit/resolver/mock_output/output.jsonl', licence: 'MIT' };

function steps(history) {
  const out = [];
  for (let i = 0; i < history.length; i++) {
    const e = history[i];
    if (e.action !== 'run' && e.action !== 'run_ipython') continue;
    const o = history[i + 1];
    if (!o || o.observation !== e.action) continue;
    out.push({ tool: e.action === 'run' ? 'bash' : 'ipython', args: e.action === 'run' ? { command: e.command } : { code: e.code }, observation: o.content, exitCode: o.exit_code });
  }
  return out;
}

export function build({ gitDir, commit, write }) {
  const lines = gitShow(gitDir, commit, SOURCE.path).split('\n').filter(Boolean);
  const entries = [];
  for (const line of lines) {
    const d = JSON.parse(line);
    const issue = `${d.issue.owner}/${d.issue.repo}#${d.issue.number}`;
    const run = `openhands-resolver-${d.issue.repo}-${d.issue.number}`;
    const st = steps(d.history);
    const la = analyzeLoop(st.map((s) => ({ action: JSON.stringify(s.args), observation: s.observation })));
    let label, reason;
    if (d.success === true) { label = 'healthy'; reason = `${issue} "${d.issue.title}": resolver success: true (${String(d.result_explanation).slice(0, 120).replace(/\s+/g, ' ')}…)`; }
    else if (la.looping) { label = 'looping'; reason = describeLoop(`${issue}: resolver success: false`, st.map((s) => ({ action: JSON.stringify(s.args), observation: s.observation })), la); }
    else { label = 'failed_no_loop'; reason = `${issue}: resolver success: false; tail does not repeat`; }
    const history = d.history.map((e) => (typeof e.content === 'string' && e.observation !== undefined ? { ...e, content: truncate(e.content) } : e));
    const trimmed = { instance_id: run, issue: { owner: d.issue.owner, repo: d.issue.repo, number: d.issue.number, title: d.issue.title }, success: d.success, result_explanation: d.result_explanation, history };
    const file = `openhands-resolver/${run}.jsonl`;
    write(file, JSON.stringify(trimmed) + '\n');
    entries.push({ file, format: 'openhands', kind: 'coding', agent: 'OpenHands resolver (CodeActAgent)', model: 'unrecorded (OpenHands resolver test fixture)', task: `${issue} ${d.issue.title}`, label, reason, ...(label === 'looping' ? { loopStart: la.loopStart } : {}), calls: st.length, source: { ...SOURCE, commit } });
  }
  return entries;
}
