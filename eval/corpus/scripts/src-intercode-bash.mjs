// InterCode-Bash (princeton-nlp/intercode, MIT, LICENSE.md): the paper's recorded multi-turn runs, committed as
// `data/results/bash/<model>/ic_bash_multiturn_<model>_10_turns_fs_<N>.json` (N = the four NL2Bash file systems).
// An LLM answers a natural-language shell task ("Calculate the md5 sum of …", "Count the lines of …", "Delete …")
// by running one bash command per turn in a Docker container (`experiments/eval_n_turn.py`, chat policy, template
// v2): after each command the harness runs `submit` and scores the container (file changes, answer similarity);
// the model sees the command's output and that reward, and is told to try something different. The episode ends at
// reward 1 or after 10 turns; the agent has no way to give up.
//
// Each episode: {task_id, query, turn_history: {actions, observations, rewards, valid_action}, summary: {max_reward,
// turns_taken, turns_max}}. Outcome: healthy iff `summary.max_reward == 1` (InterCode's success: reward 1, which also
// ends the episode); otherwise the corpus's loop rules decide between looping and failed_no_loop. An episode whose
// policy call failed (the harness logs the action "blocked" with no observation and stops) is a harness failure,
// not an agent run, and is left out.
// Written as loopguard JSONL: one line per turn, round = turn (1-based), tool `bash`, args {command}, result = the
// command's output as recorded (the model was shown its first 500 characters, "No output" when empty, plus the
// reward). `valid_action` false on an ordinary output means a non-zero exit code (the model is not shown it): kept as
// the result, as mini-swe-agent's non-zero return codes are. The environment's own two failure texts become errors,
// as mini-swe-agent's timeout message does: "Command timed out" → {type "timeout"}, "Malformed command" (the exec
// call raised) → {type "MalformedCommand"}.
import { gitShow, truncate, analyzeLoop, describeLoop } from './lib.mjs';

export const SOURCE = { repo: 'princeton-nlp/intercode', licence: 'MIT (LICENSE.md)' };
export const FILE_SYSTEMS = [1, 2, 3, 4];
// intercode/envs/bash/bash_env.py exec_action: the observation it writes when the command could not run.
export const ENVIRONMENT_FAILURES = { 'Command timed out': 'timeout', 'Malformed command': 'MalformedCommand' };
export const resultPath = (model, fileSystem) => `data/results/bash/${model}/ic_bash_multiturn_${model}_10_turns_fs_${fileSystem}.json`;
/** The paper's ReAct runs (gpt-3.5 only), which end each episode with `submit` (convertReactTurns). */
export const reactPath = (fileSystem) => `data/results/bash/gpt-3.5/ic_bash_react_10_turns_fs_${fileSystem}.json`;
export const REACT_AGENT = 'InterCode ReAct policy (bash, thought + execute[…] or submit, 10 turns)';

/** One episode → replay lines and the (action, observation) steps the loop rules read. */
export function convert(episode, run, react = false) {
  const call = (command) => ({ tool: 'bash', args: { command } });
  return react ? convertReactTurns(episode, run, call) : convertTurns(episode, run, call);
}

/**
 * One episode of the paper's ReAct policy: the agent thinks, then writes `execute[<action>]` or `submit`, and ends the
 * episode itself with `submit`, an answer tool whose observation is the last one again — the answer, not another
 * result, so the loop rules skip it. `callOf` maps an executed action to its call; anything else the model wrote went
 * to the environment as it was.
 */
export function convertReactTurns(episode, run, callOf) {
  const converted = convertTurns(episode, run, (action) => {
    if (action.trim() === 'submit') return { tool: 'submit', args: {} };
    const execute = /^execute\[(.*)\]$/s.exec(action.trim());
    return callOf(execute ? execute[1] : action);
  });
  return { lines: converted.lines, steps: converted.steps.filter((step) => step.action.trim() !== 'submit') };
}

/**
 * One InterCode episode → replay lines, one per turn, and the steps the loop rules read.
 * `callOf` maps an action to its call (InterCode-CTF makes `submit <flag>` a `submit` call); a
 * bash call the environment rejected with its own failure text becomes an error.
 */
export function convertTurns(episode, run, callOf) {
  const { actions, observations, valid_action: valid } = episode.turn_history;
  const lines = [];
  const steps = [];
  actions.forEach((action, index) => {
    const text = observations[index];
    const call = callOf(action);
    const failure = call.tool === 'bash' && valid[index] === false ? ENVIRONMENT_FAILURES[text] : undefined;
    const outcome = failure ? { error: { type: failure, message: text } } : { result: truncate(text) };
    lines.push(JSON.stringify({ run, round: index + 1, ...call, ...outcome }));
    steps.push({ action, observation: text });
  });
  return { lines, steps };
}

/** Every episode of `model` over the four file systems, in (file system, task id) order, labelled. */
export function candidates({ gitDir, commit, model, react = false }) {
  const out = [];
  const left = [];
  for (const fileSystem of FILE_SYSTEMS) {
    const path = react ? reactPath(fileSystem) : resultPath(model, fileSystem);
    let text;
    try { text = gitShow(gitDir, commit, path); } catch { left.push(`${path}: not in the snapshot`); continue; }
    if (text.trim() === '') { left.push(`${path}: empty file`); continue; }
    const episodes = Object.values(JSON.parse(text)).sort((a, b) => a.task_id - b.task_id);
    for (const episode of episodes) {
      const { actions, observations } = episode.turn_history;
      if (actions.includes('blocked') || observations.length !== actions.length) {
        left.push(`${path} task ${episode.task_id}: policy call failed ("blocked"), harness stopped the episode`);
        continue;
      }
      const run = `intercode-bash-${react ? 'react-' : ''}${model}-fs${fileSystem}-task${episode.task_id}`;
      const { lines, steps } = convert(episode, run, react);
      const la = analyzeLoop(steps);
      const success = episode.summary.max_reward === 1;
      const label = success ? 'healthy' : la.looping ? 'looping' : 'failed_no_loop';
      out.push({ model, fileSystem, path, episode, run, lines, steps, la, label });
    }
  }
  return { candidates: out, left };
}

export function build({ gitDir, commit, model, react = false, write, select }) {
  const { candidates: all, left } = candidates({ gitDir, commit, model, react });
  const entries = [];
  for (const c of select(all)) {
    const { summary, query, task_id: taskId } = c.episode;
    const prefix = `InterCode max_reward ${summary.max_reward} after ${summary.turns_taken} of ${summary.turns_max} turns`;
    const reason = c.label === 'healthy'
      ? `${prefix} (reward 1: the task's check passed)${c.la.looping ? `; note: the loop rule "${c.la.rule}" matches from call #${c.la.loopStart}` : ''}`
      : c.label === 'looping' ? describeLoop(prefix, c.steps, c.la)
        : `${prefix}; no loop rule fires (longest final repeated stretch ${c.la.repeatTail}, final identical results ${c.la.sameObsTail})`;
    const file = `intercode-bash/${react ? 'react-' : ''}${model}/fs${c.fileSystem}-task${taskId}.jsonl`;
    write(file, c.lines.join('\n') + '\n');
    entries.push({
      file, format: 'loopguard-jsonl', kind: 'shell',
      agent: react ? REACT_AGENT : 'InterCode multi-turn chat policy (bash, 10 turns, "try again" prompting)', model,
      task: `InterCode-Bash NL2Bash fs_${c.fileSystem} task ${taskId}: ${query.length > 160 ? query.slice(0, 160) + '…' : query}`,
      label: c.label, reason, ...(c.label === 'looping' ? { loopStart: c.la.loopStart } : {}), calls: c.lines.length,
      source: { ...SOURCE, commit, path: c.path },
    });
  }
  return { entries, left };
}
