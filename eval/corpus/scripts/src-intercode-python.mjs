// InterCode-Python (princeton-nlp/intercode, MIT, LICENSE.md): the paper's recorded multi-turn runs on MBPP, committed
// as `data/results/python/gpt-3.5/ic_python_multiturn_<model>_7_turns.json` (gpt-3.5 and gpt-4; both files sit in the
// gpt-3.5 directory). An LLM writes the Python function a task asks for ("Write a python function to find the minimum
// length of sublist.") in a Python interpreter (`experiments/eval_n_turn.py`, chat policy, 7 turns). A `def` is run
// and then submitted: the harness runs the task's hidden tests and answers "Test case did not pass. Please try
// again." when one fails (reward 1 ends the episode); other code is only run, and its output comes back. The model
// cannot give up.
//
// Episodes, labels and left-out episodes as for every InterCode source (intercode-episodes.mjs); an episode with no
// code is left out too.
//
// Written as loopguard JSONL: one line per turn, tool `execute_ipython_cell` {code} (OpenHands' name for a cell run in
// an IPython kernel, a write in loopguard's well-known tools), result = the observation as recorded.
//
// Labelling rule (SOURCES.md): every call here writes — it (re)defines the function — so the loop rules read each
// observation together with its action, as for WorkBench's side-effect tools. A new implementation failing the same
// hidden tests is a re-run after an edit, not a loop (document 003: repetition of an outcome without state change);
// the same code submitted again and failing again is one.
import { gitShow } from './lib.mjs';
import { convertTurns, corpusEntry, labelledEpisodes, reasonOf, shortTask } from './intercode-episodes.mjs';

export const SOURCE = { repo: 'princeton-nlp/intercode', licence: 'MIT (LICENSE.md)' };
export const KIND = 'code interpreter (Python)';
export const AGENT = 'InterCode multi-turn chat policy (Python interpreter, MBPP, 7 turns, "try again" prompting)';
export const MODELS = ['gpt-3.5', 'gpt-4'];
export const resultPath = (model) => `data/results/python/gpt-3.5/ic_python_multiturn_${model}_7_turns.json`;

/** One episode → replay lines, the recorded steps and the (action, observation) steps the loop rules read. */
export function convert(episode, run) {
  const converted = convertTurns(episode, run, (code) => ({ tool: 'execute_ipython_cell', args: { code } }));
  // Every call writes: its observation is read with its action (the labelling rule above).
  const ruleSteps = converted.steps.map((step) => ({ action: step.action, observation: `${step.action}\u0000${step.observation}` }));
  return { lines: converted.lines, steps: converted.steps, ruleSteps };
}

/** Every episode of every model, in (model, task id) order, labelled. */
export function candidates({ gitDir, commit }) {
  const out = [];
  const left = [];
  for (const model of MODELS) {
    const path = resultPath(model);
    const labelled = labelledEpisodes(Object.values(JSON.parse(gitShow(gitDir, commit, path))), {
      where: `${path} `,
      noActionIsLeftOut: 'code',
      runOf: (episode) => `intercode-python-${model}-task${episode.task_id}`,
      convert,
    });
    out.push(...labelled.candidates.map((c) => ({ model, path, ...c })));
    left.push(...labelled.left);
  }
  return { candidates: out, left };
}

export function build({ gitDir, commit, write, select = (all) => all }) {
  const { candidates: all, left } = candidates({ gitDir, commit });
  const entries = select(all).map((c) => corpusEntry(c, {
    file: `intercode-python/${c.model}/task${c.episode.task_id}.jsonl`,
    kind: KIND, agent: AGENT, model: c.model, write,
    task: `InterCode-Python MBPP task ${c.episode.task_id}: ${shortTask(c.episode.query)}`,
    reason: reasonOf(c, {
      passed: "reward 1: the function passes the task's tests", noteRule: false,
      noRuleFires: `no loop rule fires on (code, observation) pairs (final identical pairs ${c.la.sameObsTail})`,
    }),
    source: { ...SOURCE, commit, path: c.path },
  }));
  return { entries, left };
}
