// InterCode-Python (princeton-nlp/intercode, MIT, LICENSE.md): the paper's recorded multi-turn runs on MBPP, committed
// as `data/results/python/gpt-3.5/ic_python_multiturn_<model>_7_turns.json` (gpt-3.5 and gpt-4; both files sit in the
// gpt-3.5 directory). An LLM writes the Python function a task asks for ("Write a python function to find the minimum
// length of sublist.") in a Python interpreter (`experiments/eval_n_turn.py`, chat policy, 7 turns). A `def` is run
// and then submitted: the harness runs the task's hidden tests and answers "Test case did not pass. Please try
// again." when one fails (reward 1 ends the episode); other code is only run, and its output comes back. The model
// cannot give up.
//
// Each episode: {task_id, query, turn_history: {actions, observations, rewards, valid_action}, summary: {max_reward,
// turns_taken, turns_max}}. Outcome: healthy iff `summary.max_reward == 1`; otherwise the corpus's loop rules decide
// between looping and failed_no_loop. Episodes whose policy call failed ("blocked", no observation) are left out.
//
// Written as loopguard JSONL: one line per turn, tool `execute_ipython_cell` {code} (OpenHands' name for a cell run in
// an IPython kernel, a write in loopguard's well-known tools), result = the observation as recorded.
//
// Labelling rule (SOURCES.md): every call here writes — it (re)defines the function — so the loop rules read each
// observation together with its action, as for WorkBench's side-effect tools. A new implementation failing the same
// hidden tests is a re-run after an edit, not a loop (document 003: repetition of an outcome without state change);
// the same code submitted again and failing again is one.
import { gitShow, analyzeLoop, describeLoop } from './lib.mjs';
import { convertTurns } from './src-intercode-bash.mjs';

export const SOURCE = { repo: 'princeton-nlp/intercode', licence: 'MIT (LICENSE.md)' };
export const KIND = 'code interpreter (Python)';
export const AGENT = 'InterCode multi-turn chat policy (Python interpreter, MBPP, 7 turns, "try again" prompting)';
export const MODELS = ['gpt-3.5', 'gpt-4'];
export const resultPath = (model) => `data/results/python/gpt-3.5/ic_python_multiturn_${model}_7_turns.json`;

/** One episode → replay lines and the (action, observation) steps the loop rules read. */
export function convert(episode, run) {
  const converted = convertTurns(episode, run, (code) => ({ tool: 'execute_ipython_cell', args: { code } }));
  // Every call writes: its observation is read with its action (the labelling rule above).
  const steps = converted.steps.map((step) => ({ action: step.action, observation: `${step.action}\u0000${step.observation}` }));
  return { lines: converted.lines, steps, recorded: converted.steps };
}

/** Every episode of every model, in (model, task id) order, labelled. */
export function candidates({ gitDir, commit }) {
  const out = [];
  const left = [];
  for (const model of MODELS) {
    const path = resultPath(model);
    const episodes = Object.values(JSON.parse(gitShow(gitDir, commit, path))).sort((a, b) => a.task_id - b.task_id);
    for (const episode of episodes) {
      const { actions, observations } = episode.turn_history;
      if (actions.length === 0 || actions.includes('blocked') || observations.length !== actions.length) {
        left.push(`${path} task ${episode.task_id}: no code, or the policy call failed ("blocked") and the harness stopped the episode`);
        continue;
      }
      const run = `intercode-python-${model}-task${episode.task_id}`;
      const { lines, steps, recorded } = convert(episode, run);
      const la = analyzeLoop(steps);
      const label = episode.summary.max_reward === 1 ? 'healthy' : la.looping ? 'looping' : 'failed_no_loop';
      out.push({ model, path, episode, run, lines, steps: recorded, la, label });
    }
  }
  return { candidates: out, left };
}

export function build({ gitDir, commit, write, select = (all) => all }) {
  const { candidates: all, left } = candidates({ gitDir, commit });
  const entries = [];
  for (const c of select(all)) {
    const { summary, query, task_id: taskId } = c.episode;
    const prefix = `InterCode max_reward ${summary.max_reward} after ${summary.turns_taken} of ${summary.turns_max} turns`;
    const reason = c.label === 'healthy'
      ? `${prefix} (reward 1: the function passes the task's tests)`
      : c.label === 'looping' ? describeLoop(prefix, c.steps, c.la)
        : `${prefix}; no loop rule fires on (code, observation) pairs (final identical pairs ${c.la.sameObsTail})`;
    const file = `intercode-python/${c.model}/task${taskId}.jsonl`;
    write(file, c.lines.join('\n') + '\n');
    entries.push({
      file, format: 'loopguard-jsonl', kind: KIND, agent: AGENT, model: c.model,
      task: `InterCode-Python MBPP task ${taskId}: ${query.length > 160 ? query.slice(0, 160) + '…' : query}`,
      label: c.label, reason, ...(c.label === 'looping' ? { loopStart: c.la.loopStart } : {}), calls: c.lines.length,
      source: { ...SOURCE, commit, path: c.path },
    });
  }
  return { entries, left };
}
