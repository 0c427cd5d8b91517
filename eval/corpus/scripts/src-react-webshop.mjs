// ReAct (Yao et al.) WebShop run log, recorded as the printed output of WebShop.ipynb in ysymyth/ReAct.
// Converted to loopguard replay JSONL: one line per model-chosen action (the harness's initial `reset` is skipped).
// tool = action verb (`search`, `click`, `think`, or the raw verb); args = {query}|{element}|{thought}|{action};
// `Invalid action!` observations become {error:{type:'InvalidAction',message}}.
import { gitShow, truncate, analyzeLoop, describeLoop } from './lib.mjs';

export const SOURCE = { repo: 'ysymyth/ReAct', path: 'WebShop.ipynb', licence: 'MIT' };

export function parseEpisodes(nbText) {
  const nb = JSON.parse(nbText);
  const cell = nb.cells.find((c) => (Array.isArray(c.source) ? c.source.join('') : c.source).includes('run_episodes(prompt1, 500)'));
  const text = cell.outputs.map((o) => (Array.isArray(o.text) ? o.text.join('') : o.text || '')).join('');
  const chunks = text.split('-----------------\n').slice(1);
  const episodes = [];
  let prevSum = 0;
  for (const chunk of chunks) {
    const m = chunk.match(/^(\d+)\n/);
    if (!m) continue;
    const idx = Number(m[1]);
    const statsM = chunk.match(/\n(\d+) ([0-9.e-]+) ([0-9.e-]+) ([0-9.e-]+)\n-------------/);
    const body = statsM ? chunk.slice(m[0].length, statsM.index + 1) : chunk.slice(m[0].length);
    const blocks = body.split(/^Action: /m).slice(1);
    const steps = blocks.map((b) => {
      const [act, ...rest] = b.split('\nObservation: ');
      let obs = rest.join('\nObservation: ');
      obs = obs.replace(/\n+$/, '');
      return { action: act.trim(), observation: obs };
    });
    let reward = null;
    if (statsM) {
      const n = Number(statsM[1]);
      const sum = Number(statsM[2]) * n;
      reward = Math.round((sum - prevSum) * 1e6) / 1e6;
      prevSum = sum;
    }
    episodes.push({ idx, steps, reward });
  }
  return episodes;
}

function toCall(s) {
  const m = s.action.match(/^(\w+)\[(.*)\]$/s);
  if (!m) return { tool: s.action.split(/\W/)[0] || 'act', args: { action: s.action } };
  const [, verb, inner] = m;
  if (verb === 'search') return { tool: 'search', args: { query: inner } };
  if (verb === 'click') return { tool: 'click', args: { element: inner } };
  if (verb === 'think') return { tool: 'think', args: { thought: inner } };
  return { tool: verb, args: { action: s.action } };
}

// The environment rejects malformed/unavailable actions with the observation 'Invalid action!' (an AssertionError
// caught by the notebook); those calls are written as {error} instead of {result}.
function outcome(obs) {
  if (obs.trim() === 'Invalid action!') return { error: { type: 'InvalidAction', message: obs.trim() } };
  return { result: truncate(obs) };
}

export function classify(ep) {
  const steps = ep.steps.filter((s) => s.action !== 'reset');
  const success = ep.reward === 1;
  const bought = steps.some((s) => /^click\[buy now\]$/i.test(s.action));
  const la = analyzeLoop(steps);
  let label, reason;
  if (success) { label = 'healthy'; reason = `WebShop reward 1.0 (full success) for fixed_${ep.idx} in the notebook's printed run log`; }
  else if (la.looping) {
    const end = bought ? `bought with reward ${ep.reward}` : "hit the notebook's 15-iteration limit (14 model actions) without buying (reward 0)";
    label = 'looping'; reason = describeLoop(`WebShop episode ${end}`, steps, la);
  } else { label = 'failed_no_loop'; reason = `WebShop reward ${ep.reward} (< 1.0), ${bought ? 'bought a wrong/partial item' : 'ended without buying'}; tail does not repeat`; }
  return { steps, label, reason, la };
}

export function build({ gitDir, commit, write, select }) {
  const eps = parseEpisodes(gitShow(gitDir, commit, SOURCE.path));
  const entries = [];
  for (const ep of eps) {
    const c = classify(ep);
    if (!select(c, ep)) continue;
    const run = `react-webshop-fixed_${ep.idx}`;
    const lines = c.steps.map((s, i) => JSON.stringify({ run, round: i + 1, ...toCall(s), ...outcome(s.observation) }));
    const file = `react-webshop/${run}.jsonl`;
    write(file, lines.join('\n') + '\n');
    entries.push({ file, format: 'loopguard-jsonl', agent: 'ReAct (WebShop)', model: 'text-davinci-002', task: `webshop fixed_${ep.idx}`, label: c.label, reason: c.reason, ...(c.label === 'looping' ? { loopStart: c.la.loopStart } : {}), calls: c.steps.length, source: { ...SOURCE, commit } });
  }
  return entries;
}
