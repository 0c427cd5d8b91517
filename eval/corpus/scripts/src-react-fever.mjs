// ReAct (Yao et al.) on FEVER with a Wikipedia tool (Search[entity] / Lookup[keyword] / Finish[answer]),
// recorded as the printed output of FEVER.ipynb in ysymyth/ReAct (text-davinci-002, max 7 steps).
// Converted to loopguard replay JSONL, one line per model action: tool = search|lookup|finish (lower-cased verb),
// args = {entity}|{keyword}|{answer}; result = observation text. Outcome from the printed info dict (em).
import { gitShow, truncate, analyzeLoop, describeLoop } from './lib.mjs';

export const SOURCE = { repo: 'ysymyth/ReAct', path: 'FEVER.ipynb', licence: 'MIT' };

export function parseEpisodes(nbText) {
  const nb = JSON.parse(nbText);
  const cell = nb.cells.find((c) => (Array.isArray(c.source) ? c.source.join('') : c.source).includes('webthink(i, to_print=True)'));
  const text = cell.outputs.map((o) => (Array.isArray(o.text) ? o.text.join('') : o.text || '')).join('');
  const chunks = text.split(/\n-----------\n/);
  const eps = [];
  for (let chunk of chunks) {
    chunk = chunk.replace(/^\s+/, '');
    const head = chunk.match(/^(\d+) Claim: (.*)\n/);
    if (!head) continue;
    const infoM = chunk.match(/\n(\{'steps'.*\})\s*\n/);
    let em = null, answer = null, gt = null;
    if (infoM) {
      em = Number((infoM[1].match(/'em': (\d)/) || [])[1]);
      answer = (infoM[1].match(/'answer': '([^']*)'/) || [])[1] ?? null;
      gt = (infoM[1].match(/'gt_answer': '([^']*)'/) || [])[1] ?? null;
    }
    const steps = [];
    const re = /^Action (\d+): (.*)\nObservation \1: ([\s\S]*?)(?=\n\nThought \d+:|\n\n\{'steps'|\nohh\.\.\.|$)/gm;
    let m;
    while ((m = re.exec(chunk))) steps.push({ action: m[2].trim(), observation: m[3].replace(/\n+$/, '') });
    eps.push({ idx: Number(head[1]), claim: head[2], steps, em, answer, gt });
  }
  return eps;
}

function toCall(a) {
  const m = a.match(/^(\w+)\[(.*)\]$/s);
  if (!m) return { tool: 'act', args: { action: a } };
  const verb = m[1].toLowerCase();
  const key = verb === 'search' ? 'entity' : verb === 'lookup' ? 'keyword' : verb === 'finish' ? 'answer' : 'action';
  return { tool: verb, args: { [key]: key === 'action' ? a : m[2] } };
}

// 'Invalid action: ...' observations (the wrapper rejected the action) are written as {error}.
function outcome(obs) {
  if (/^Invalid action/.test(obs.trim())) return { error: { type: 'InvalidAction', message: truncate(obs.trim()) } };
  return { result: truncate(obs) };
}

export function classify(ep) {
  const la = analyzeLoop(ep.steps);
  if (ep.em === 1) return { label: 'healthy', reason: `FEVER claim ${ep.idx}: answer ${ep.answer} matches gold (em=1) in the notebook's printed info`, la };
  const finished = ep.steps.some((s) => /^finish\[/i.test(s.action));
  if (la.looping) return { label: 'looping', reason: describeLoop(`FEVER claim ${ep.idx}: wrong/no answer (em=0, gold ${ep.gt})${finished ? '' : ', hit the 7-step limit'}`, ep.steps, la), la };
  return { label: 'failed_no_loop', reason: `FEVER claim ${ep.idx}: em=0 (answered ${ep.answer || 'nothing'}, gold ${ep.gt})${finished ? '' : ' after hitting the 7-step limit'}; tail does not repeat`, la };
}

export function build({ gitDir, commit, write, select }) {
  const eps = parseEpisodes(gitShow(gitDir, commit, SOURCE.path));
  const entries = [];
  for (const ep of eps) {
    const c = classify(ep);
    if (!select(c, ep)) continue;
    const run = `react-fever-${ep.idx}`;
    const lines = ep.steps.map((s, i) => JSON.stringify({ run, round: i + 1, ...toCall(s.action), ...outcome(s.observation) }));
    const file = `react-fever/${run}.jsonl`;
    write(file, lines.join('\n') + '\n');
    entries.push({ file, format: 'loopguard-jsonl', agent: 'ReAct (FEVER, Wikipedia API)', model: 'text-davinci-002', task: `fever claim ${ep.idx}`, label: c.label, reason: c.reason, ...(c.label === 'looping' ? { loopStart: c.la.loopStart } : {}), calls: ep.steps.length, source: { ...SOURCE, commit } });
  }
  return entries;
}
