// OpenHands CodeActAgent (v0.15.0, no condensation, max 50 iterations) + claude-3-5-sonnet-20241022 on the first 50
// instances of SWE-bench Verified, as committed by an OpenHands developer in "uploading some exp data"
// (All-Hands-AI/OpenHands 4ce8594d, reachable from refs/pull/5306/head; removed again in d74b5f6 "cleaning up
// accidental experimental files"). MIT (LICENSE at the root of that tree).
//
// What the snapshot holds for the run: `llm_completions/<instance>/*.json` (every LLM call: the messages sent, the
// response), `infer_logs/`, the SWE-bench evaluation report `output.swebench_eval.md` and its per-instance logs.
// `output.jsonl` (the event histories) is over the snapshot's 4 MiB limit and absent, so each run is rebuilt from its
// LAST completion: `messages` (the whole conversation so far — no condenser ran) plus `response` (the final action).
// Twelve instances were started twice because the remote runtime failed to start ("Unable to start runtime: 400",
// infer_logs); every completion of the second attempt is later than every one of the first, so the last completion
// belongs to the attempt that produced the evaluated patch.
//
// Outcome: resolved / unresolved from `output.swebench_eval.md` (the SWE-bench harness's report over the final patch).
// Written as loopguard JSONL: one line per tool call, round = index of the assistant message (1-based), tool = the
// function name (`execute_bash`, `str_replace_editor`), args = its parsed arguments, callId = the provider's call id,
// result = the tool message text as the model saw it (cut like every corpus observation). A command's exit code does
// not make an error (as in the native OpenHands reader). Left out: `finish` (no result comes back) and a call whose
// result was never recorded (the 50th action of a run that hit the iteration limit: the agent stopped before the model
// saw it).
import { gitShow, gitLsTree, truncate, analyzeLoop, describeLoop } from './lib.mjs';

export const COMMIT = '4ce8594d56a8a09b6c12d6dfd6fe746e825be644';
export const DIR = 'evaluation/evaluation_outputs/outputs/princeton-nlp__SWE-bench_Verified-test/CodeActAgent/claude-3-5-sonnet-20241022_maxiter_50_N_v0.15.0-no-hint-no-condensation-run_1';
export const SOURCE = { repo: 'All-Hands-AI/OpenHands', licence: 'MIT (LICENSE)' };
const MAX_ITERATIONS = 50;

const textOf = (content) => (typeof content === 'string' ? content : (content ?? []).map((block) => block.text ?? JSON.stringify(block)).join('\n'));

/** Instance ids listed under "## Resolved Instances" and "## Unresolved Instances" of the evaluation report. */
export function readVerdicts(report) {
  const section = (title) => {
    const start = report.indexOf(`## ${title}\n`);
    if (start < 0) throw new Error(`${DIR}/output.swebench_eval.md: no "## ${title}" section`);
    const end = report.indexOf('\n## ', start + 3);
    return [...report.slice(start, end < 0 ? undefined : end).matchAll(/^- \[([^\]]+)\]/gm)].map((m) => m[1]);
  };
  const verdicts = new Map();
  for (const id of section('Resolved Instances')) verdicts.set(id, true);
  for (const id of section('Unresolved Instances')) verdicts.set(id, false);
  return verdicts;
}

/** The completion's conversation + its response → replay lines and the (action, observation) steps the rules read. */
export function convert(completion, run) {
  const messages = [...completion.messages, completion.response.choices[0].message];
  const results = new Map();
  for (const m of messages) if (m.role === 'tool') results.set(m.tool_call_id, textOf(m.content));
  const lines = [];
  const steps = [];
  const leftOut = [];
  let round = 0;
  for (const m of messages) {
    if (m.role !== 'assistant') continue;
    round++;
    for (const call of m.tool_calls ?? []) {
      const tool = call.function.name;
      const args = JSON.parse(call.function.arguments);
      if (!results.has(call.id)) { leftOut.push(`${tool} in round ${round}`); continue; }
      const result = results.get(call.id);
      lines.push(JSON.stringify({ run, round, tool, args, callId: call.id, result: truncate(result) }));
      steps.push({ action: JSON.stringify([tool, args]), observation: result });
    }
  }
  return { lines, steps, leftOut, rounds: round };
}

export function build({ gitDir, write, select }) {
  const verdicts = readVerdicts(gitShow(gitDir, COMMIT, `${DIR}/output.swebench_eval.md`));
  const completions = new Map();
  for (const path of gitLsTree(gitDir, COMMIT, `${DIR}/llm_completions`)) {
    const m = path.match(/llm_completions\/([^/]+)\/[^/]*-(\d+(?:\.\d+)?)\.json$/);
    if (!m) continue;
    const list = completions.get(m[1]) ?? [];
    list.push({ path, time: Number(m[2]) });
    completions.set(m[1], list);
  }
  const candidates = [];
  for (const [instance, resolved] of [...verdicts].sort(([a], [b]) => a.localeCompare(b))) {
    const list = completions.get(instance);
    if (!list) throw new Error(`${instance}: in the report but no llm_completions`);
    const last = list.sort((a, b) => a.time - b.time).at(-1);
    const completion = JSON.parse(gitShow(gitDir, COMMIT, last.path));
    const run = `openhands-claude-3-5-sonnet-${instance}`;
    const converted = convert(completion, run);
    const finish = (completion.response.choices[0].message.tool_calls ?? []).some((c) => c.function.name === 'finish');
    const hitLimit = !finish && converted.rounds >= MAX_ITERATIONS;
    candidates.push({ instance, resolved, path: last.path, completions: list.length, hitLimit, ...converted });
  }
  const entries = [];
  for (const c of select(candidates)) {
    const la = analyzeLoop(c.steps);
    const end = c.hitLimit ? `stopped at the ${MAX_ITERATIONS}-iteration limit` : 'ended with finish';
    let label, reason;
    if (c.resolved) {
      label = 'healthy';
      reason = `resolved in ${DIR.split('/').at(-1)}/output.swebench_eval.md; ${end} after ${c.rounds} model turns${la.looping ? `; note: the loop rule "${la.rule}" matches from call #${la.loopStart}` : ''}`;
    } else if (la.looping) {
      label = 'looping';
      reason = describeLoop(`unresolved (SWE-bench report), ${end}`, c.steps, la);
    } else {
      label = 'failed_no_loop';
      reason = `unresolved in output.swebench_eval.md; ${end} after ${c.rounds} model turns; no loop rule fires (longest final repeated stretch ${la.repeatTail}, longest run of identical results ${la.stretchLength})`;
    }
    const file = `openhands-swebench-claude/${c.instance}.jsonl`;
    write(file, c.lines.join('\n') + '\n');
    entries.push({
      file, format: 'loopguard-jsonl', kind: 'coding',
      agent: 'OpenHands 0.15.0 CodeActAgent (no condenser, max 50 iterations)', model: 'claude-3-5-sonnet-20241022',
      task: `SWE-bench Verified ${c.instance}`,
      label, reason, ...(label === 'looping' ? { loopStart: la.loopStart } : {}), calls: c.lines.length,
      source: { ...SOURCE, commit: COMMIT, path: c.path },
    });
  }
  return entries;
}
