#!/usr/bin/env node
// Rebuilds eval/corpus/<source>/* and eval/corpus/manifest.json from local bare-git snapshots of the sources.
// Usage: node eval/corpus/scripts/build.mjs [--mirrors DIR]
//   DIR holds bare git dirs named <owner>+<name>/repo (default /work/.mirror). Each source is read at the commit
//   pinned below, so the output is reproducible. No dependencies; Node >= 18.
import { mkdirSync, writeFileSync, rmSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import * as webshop from './src-react-webshop.mjs';
import * as fever from './src-react-fever.mjs';
import * as gemini from './src-mini-swe-agent-gemini.mjs';
import * as sweagent from './src-swe-agent-testdata.mjs';
import * as openhandsResolver from './src-openhands-resolver.mjs';
import * as browsergym from './src-browsergym-workarena.mjs';
import * as langgraphSupport from './src-langgraph-customer-support.mjs';
import * as agentdojo from './src-agentdojo.mjs';
import * as openhandsSwebench from './src-openhands-swebench-claude.mjs';
import * as intercodeBash from './src-intercode-bash.mjs';
import * as intercodeCtf from './src-intercode-ctf.mjs';
import * as workbench from './src-workbench.mjs';
import * as intercodeSql from './src-intercode-sql.mjs';
import * as intercodePython from './src-intercode-python.mjs';

const ROOT = join(dirname(fileURLToPath(import.meta.url)), '..');
const argi = process.argv.indexOf('--mirrors');
const MIRRORS = argi > 0 ? process.argv[argi + 1] : '/work/.mirror';
// Where a source is read from a fork's snapshot (same commit, same content), the fork names the mirror directory.
const MIRROR_OF = { 'ethz-spylab/agentdojo': 'sequrity-ai/agentdojo' };
const git = (repo) => join(MIRRORS, (MIRROR_OF[repo] ?? repo).replace('/', '+'), 'repo');

const PINS = {
  'ysymyth/ReAct': '6bdb3a1fd38b8188fc7ba4102969fe483df8fdc9',
  'gruckion/mini-swe-agent': 'd12a71affd95403b036b2bdbd827349b77bfffb9',
  'SWE-agent/SWE-agent': '3ea751c087f32b16e039a2233dd6eefecef325d5',
  'All-Hands-AI/OpenHands': 'ca424ec15d3348618da32bb6b974f3e6fa2e9073',
  // refs/pull/301/head of ServiceNow/BrowserGym (WorkArena runs committed in a pull request from Nid989/BrowserGym).
  'ServiceNow/BrowserGym': 'f9da75984ce200c3f088baed9ca784ebfcd1df84',
  // Parent of b4630d8 ("chore: delete docs"), the last commit with the tutorial notebook.
  'langchain-ai/langgraph': '23961cff61a42b52525f3b20b4094d8d2fba1744',
  // ethz-spylab/agentdojo's main at 2025-08-09 ("add CLAUDE.md and other files", Edoardo Debenedetti), the last
  // upstream commit before a fork deleted `runs/`. No snapshot of ethz-spylab/agentdojo itself is available, so it is
  // read from the sequrity-ai/agentdojo fork, whose history holds this commit unchanged.
  'ethz-spylab/agentdojo': '96046ab54a99f5e5ec86b920ea9a2d8ae24ea6d8',
  // main of 2024-05-05; data/results/ holds the paper's recorded runs (unchanged since 2023).
  'princeton-nlp/intercode': 'c3e46d827cfc9d4c704ec078f7abf9f41e3191d8',
  // main of 2024-07-23 ("add retries when no actions generated" merged); data/results/ holds the paper's runs.
  'olly-styles/WorkBench': workbench.COMMIT,
};

function writer(slugs) {
  for (const s of slugs) rmSync(join(ROOT, s), { recursive: true, force: true });
  return (file, text) => {
    const p = join(ROOT, file);
    mkdirSync(dirname(p), { recursive: true });
    writeFileSync(p, text);
  };
}
const write = writer(['react-webshop', 'react-fever', 'mini-swe-agent-gemini-3-pro', 'swe-agent-testdata', 'openhands-resolver', 'openhands-swebench-claude', 'browsergym-workarena', 'langgraph-customer-support', 'agentdojo', 'intercode-bash', 'intercode-ctf', 'workbench', 'intercode-sql', 'intercode-python']);

// Deterministic selection helpers.
function evenly(arr, n) {
  if (arr.length <= n) return arr;
  const out = [];
  for (let i = 0; i < n; i++) out.push(arr[Math.floor((i * arr.length) / n)]);
  return out;
}
function quota(q) { // first q[label] episodes (in log order) of each label
  const seen = {};
  return (c) => { seen[c.label] = (seen[c.label] || 0) + 1; return seen[c.label] <= (q[c.label] ?? Infinity); };
}

// The agent kind each source's runs belong to; EVAL.md reports per kind. WebShop is a website rendered as text
// (search box, clickable product pages), so its ReAct agent is a web-navigation agent, but not a DOM/browser one.
const KIND = {
  'mini-swe-agent-gemini-3-pro': 'coding',
  'swe-agent-testdata': 'coding',
  'openhands-resolver': 'coding',
  'react-webshop': 'web shopping (text-rendered site)',
  'react-fever': 'QA / research',
};

const browsergymRuns = browsergym.build({ gitDir: git('ServiceNow/BrowserGym'), commit: PINS['ServiceNow/BrowserGym'], write });
for (const line of browsergymRuns.skipped) console.error(`browsergym-workarena: skipped ${line}`);
const supportRuns = langgraphSupport.build({ gitDir: git('langchain-ai/langgraph'), commit: PINS['langchain-ai/langgraph'], write });
for (const line of supportRuns.skipped) console.error(`langgraph-customer-support: skipped ${line}`);
const agentdojoRuns = agentdojo.build({ gitDir: git('ethz-spylab/agentdojo'), commit: PINS['ethz-spylab/agentdojo'], write });
for (const line of agentdojoRuns.left.noToolCall) console.error(`agentdojo: not taken, no tool call: ${line}`);
const intercodeRuns = intercodeBash.build({ gitDir: git('princeton-nlp/intercode'), commit: PINS['princeton-nlp/intercode'], model: 'gpt-4', write,
  // gpt-4 over the four NL2Bash file systems (200 episodes: 97 healthy, 60 looping, 43 failed): 20 looping, 12 healthy
  // and 8 failed, each evenly spaced over the (file system, task id) order.
  select: (cands) => ['looping', 'healthy', 'failed_no_loop'].flatMap((label, i) => evenly(cands.filter((c) => c.label === label), [20, 12, 8][i])) });
for (const line of intercodeRuns.left) console.error(`intercode-bash: left out ${line}`);
const intercodeCtfRuns = intercodeCtf.build({ gitDir: git('princeton-nlp/intercode'), commit: PINS['princeton-nlp/intercode'], write,
  // gpt-4 on the 93 CTF tasks (37 healthy, 11 looping, 45 failed): every loop, 8 healthy and 6 failed evenly spaced.
  select: (cands) => ['looping', 'healthy', 'failed_no_loop'].flatMap((label, i) => evenly(cands.filter((c) => c.label === label), [Infinity, 8, 6][i])) });
for (const line of intercodeCtfRuns.left) console.error(`intercode-ctf: left out ${line}`);
const workbenchRuns = workbench.build({ gitDir: git('olly-styles/WorkBench'), commit: PINS['olly-styles/WorkBench'], write,
  // Every run with a tool call, of every model and tool setting, in (results file, row) order: 1,225 correct, 318
  // looping, 2,654 failed. 40 healthy, 20 looping and 10 failed, each evenly spaced over that order.
  select: (cands) => ['looping', 'healthy', 'failed_no_loop'].flatMap((label, i) => evenly(cands.filter((c) => c.label === label), [20, 40, 10][i])) });
const intercodeSqlRuns = intercodeSql.build({ gitDir: git('princeton-nlp/intercode'), commit: PINS['princeton-nlp/intercode'], model: 'gpt-4', write,
  // gpt-4 on the 1,034 Spider dev tasks (762 healthy, 75 looping, 197 failed): 30 healthy, 20 looping and 10 failed,
  // each evenly spaced over the task ids.
  select: (cands) => ['looping', 'healthy', 'failed_no_loop'].flatMap((label, i) => evenly(cands.filter((c) => c.label === label), [20, 30, 10][i])) });
for (const line of intercodeSqlRuns.left) console.error(`intercode-sql: left out ${line}`);
const intercodePythonRuns = intercodePython.build({ gitDir: git('princeton-nlp/intercode'), commit: PINS['princeton-nlp/intercode'], write,
  // gpt-3.5 and gpt-4 on the 117 MBPP tasks (139 healthy, 49 looping, 48 failed): 20 healthy, 20 looping and 10 failed,
  // each evenly spaced over the (model, task id) order.
  select: (cands) => ['looping', 'healthy', 'failed_no_loop'].flatMap((label, i) => evenly(cands.filter((c) => c.label === label), [20, 20, 10][i])) });
for (const line of intercodePythonRuns.left) console.error(`intercode-python: left out ${line}`);
for (const line of agentdojoRuns.left.healthyWithLoopRule) console.error(`agentdojo: not taken, utility true but a loop rule fires: ${line}`);

const built = [
  ...gemini.build({ gitDir: git('gruckion/mini-swe-agent'), commit: PINS['gruckion/mini-swe-agent'], write,
    // 40 resolved and 22 unresolved instances, evenly spaced over the instance-id-sorted list.
    select: (cands) => [...evenly(cands.filter((c) => c.resolved), 40), ...evenly(cands.filter((c) => !c.resolved), 22)] }),
  ...sweagent.build({ gitDir: git('SWE-agent/SWE-agent'), commit: PINS['SWE-agent/SWE-agent'], write }),
  ...webshop.build({ gitDir: git('ysymyth/ReAct'), commit: PINS['ysymyth/ReAct'], write,
    select: quota({ looping: Infinity, healthy: 15, failed_no_loop: 8 }) }),
  ...fever.build({ gitDir: git('ysymyth/ReAct'), commit: PINS['ysymyth/ReAct'], write,
    select: quota({ looping: Infinity, healthy: 12, failed_no_loop: 4 }) }),
  ...openhandsResolver.build({ gitDir: git('All-Hands-AI/OpenHands'), commit: PINS['All-Hands-AI/OpenHands'], write }),
  // Read at its own commit (openhandsSwebench.COMMIT, a pull-request ref of the same repository), not at the pin above.
  ...openhandsSwebench.build({ gitDir: git('All-Hands-AI/OpenHands'), write,
    // 20 resolved, evenly spaced over the instance-id-sorted list; 20 unresolved: the 5 that hit the 50-iteration
    // limit (the runs nearest to a loop) and 15 evenly spaced over the other 19.
    select: (cands) => {
      const unresolved = cands.filter((c) => !c.resolved);
      const atLimit = unresolved.filter((c) => c.hitLimit);
      const others = evenly(unresolved.filter((c) => !c.hitLimit), 20 - atLimit.length);
      return [...evenly(cands.filter((c) => c.resolved), 20), ...[...atLimit, ...others].sort((a, b) => a.instance.localeCompare(b.instance))];
    } }),
  ...browsergymRuns.entries,
  ...supportRuns.entries,
  ...agentdojoRuns.entries,
  ...intercodeRuns.entries,
  ...intercodeCtfRuns.entries,
  ...workbenchRuns.entries,
  ...intercodeSqlRuns.entries,
  ...intercodePythonRuns.entries,
];
const entries = built.map((e) => {
  const kind = e.kind ?? KIND[e.file.split('/')[0]];
  if (kind === undefined) throw new Error(`no agent kind for ${e.file}`);
  const { file, format, ...rest } = e;
  return { file, format, kind, ...rest };
});
writeFileSync(join(ROOT, 'manifest.json'), JSON.stringify(entries, null, 2) + '\n');
const by = (k) => entries.reduce((a, e) => ((a[k(e)] = (a[k(e)] || 0) + 1), a), {});
console.log(JSON.stringify({ total: entries.length, label: by((e) => e.label), format: by((e) => e.format), model: by((e) => e.model), source: by((e) => e.file.split('/')[0]), kind: by((e) => e.kind) }, null, 1));
