// Real SWE-agent runs kept as test fixtures in SWE-agent/SWE-agent (tests/test_data/trajectories).
// Only runs whose outcome can be verified from the file are taken (the SWE-agent test repo "missing colon" task:
// the submitted diff adds the colon and the agent's own run of the script then succeeds). Demonstrations under
// trajectories/demonstrations are NOT taken: they are replays / hand-edited (instance_cost 0).
// Trimmed native .traj: {trajectory:[{action, observation, thought}], info:{exit_status, submission, model_stats}, environment}.
import { gitShow, truncate, analyzeLoop } from './lib.mjs';

export const SOURCE = { repo: 'SWE-agent/SWE-agent', licence: 'MIT' };
const RUNS = [
  { path: 'tests/test_data/trajectories/gpt4__swe-agent__test-repo__default_from_url__t-0.00__p-0.95__c-3.00__install-1/swe-agent__test-repo-i1.traj', id: 'swe-agent__test-repo-i1', model: 'gpt-4', agent: 'SWE-agent 0.x' },
  { path: 'tests/test_data/trajectories/gpt4__swe-agent-test-repo__default_from_url__t-0.00__p-0.95__c-3.00__install-1/6e44b9__sweagenttestrepo-1c2844.traj', id: '6e44b9__sweagenttestrepo-1c2844', model: 'gpt-4o', agent: 'SWE-agent 1.x' },
];

export function build({ gitDir, commit, write }) {
  const entries = [];
  for (const r of RUNS) {
    const d = JSON.parse(gitShow(gitDir, commit, r.path));
    const traj = d.trajectory.map((s) => ({ action: s.action, observation: truncate(s.observation), ...(s.thought != null ? { thought: s.thought } : {}) }));
    const out = { trajectory: traj, info: { exit_status: d.info.exit_status, submission: d.info.submission, model_stats: d.info.model_stats }, ...(d.environment != null ? { environment: d.environment } : {}) };
    const ok = /-def division\(a: float, b: float\) -> float\r?\n\+def division\(a: float, b: float\) -> float:/.test(d.info.submission || '');
    const la = analyzeLoop(d.trajectory);
    if (!ok || la.looping) throw new Error(`unexpected outcome for ${r.id}`);
    const file = `swe-agent-testdata/${r.id}.traj`;
    write(file, JSON.stringify(out, null, 1) + '\n');
    entries.push({ file, format: 'swe-agent-traj', agent: r.agent, model: r.model, task: `SWE-agent/test-repo missing_colon (${r.id})`, label: 'healthy', reason: 'exit_status submitted; submitted diff adds the missing colon to tests/missing_colon.py and the agent\'s own run of the script then prints 8.2', calls: d.trajectory.length, source: { ...SOURCE, commit, path: r.path } });
  }
  return entries;
}
