// InterCode-CTF (princeton-nlp/intercode, MIT, LICENSE.md): the paper's recorded multi-turn runs of gpt-4 on its
// picoCTF capture-the-flag tasks, `data/results/ctf/ic_ctf_multiturn_gpt-4_10_turns.json` (`experiments/eval_n_turn.py`,
// chat policy, template `ctf`, 10 turns). The agent works in a Docker container (CTFEnv is InterCode's BashEnv with
// the task's files) by bash commands, and answers with `submit <flag>`; a wrong flag gets "Submitted flag is
// incorrect. Keep trying!", the right one reward 1, which ends the episode. The agent has no way to give up.
// Outcome: healthy iff `summary.max_reward == 1`; otherwise the corpus's loop rules decide. Episodes whose policy call
// failed ("blocked", no observation) are left out, as for InterCode-Bash.
// Written as loopguard JSONL like InterCode-Bash (src-intercode-bash.mjs): one line per turn; `submit <flag>` →
// tool `submit` {flag}, any other action → tool `bash` {command}; result = the recorded observation; the bash
// environment's own failure texts ("Command timed out", "Malformed command") → errors.
import { gitShow, analyzeLoop, describeLoop } from './lib.mjs';
import { convertTurns } from './src-intercode-bash.mjs';

export const SOURCE = { repo: 'princeton-nlp/intercode', licence: 'MIT (LICENSE.md)', path: 'data/results/ctf/ic_ctf_multiturn_gpt-4_10_turns.json' };

/** One episode → replay lines and the (action, observation) steps the loop rules read. */
export function convert(episode, run) {
  return convertTurns(episode, run, (action) => {
    const submit = /^submit\s+(.*)$/s.exec(action.trim());
    return submit ? { tool: 'submit', args: { flag: submit[1] } } : { tool: 'bash', args: { command: action } };
  });
}

export function build({ gitDir, commit, write, select }) {
  const episodes = Object.values(JSON.parse(gitShow(gitDir, commit, SOURCE.path))).sort((a, b) => a.task_id - b.task_id);
  const all = [];
  const left = [];
  for (const episode of episodes) {
    const { actions, observations } = episode.turn_history;
    if (actions.includes('blocked') || observations.length !== actions.length) {
      left.push(`task ${episode.task_id}: policy call failed ("blocked"), harness stopped the episode`);
      continue;
    }
    const run = `intercode-ctf-gpt-4-task${episode.task_id}`;
    const { lines, steps } = convert(episode, run);
    const la = analyzeLoop(steps);
    const label = episode.summary.max_reward === 1 ? 'healthy' : la.looping ? 'looping' : 'failed_no_loop';
    all.push({ episode, run, lines, steps, la, label });
  }
  const entries = [];
  for (const c of select(all)) {
    const { summary, query, task_id: taskId } = c.episode;
    const prefix = `InterCode-CTF max_reward ${summary.max_reward} after ${summary.turns_taken} of ${summary.turns_max} turns`;
    const reason = c.label === 'healthy'
      ? `${prefix} (the submitted flag is the task's flag)${c.la.looping ? `; note: the loop rule "${c.la.rule}" matches from call #${c.la.loopStart}` : ''}`
      : c.label === 'looping' ? describeLoop(prefix, c.steps, c.la)
        : `${prefix}; no loop rule fires (longest final repeated stretch ${c.la.repeatTail}, final identical results ${c.la.sameObsTail})`;
    const file = `intercode-ctf/gpt-4/task${taskId}.jsonl`;
    write(file, c.lines.join('\n') + '\n');
    const task = query.replace(/\s+/g, ' ').trim();
    entries.push({
      file, format: 'loopguard-jsonl', kind: 'shell',
      agent: 'InterCode multi-turn chat policy (CTF: bash + submit, 10 turns)', model: 'gpt-4',
      task: `InterCode-CTF task ${taskId}: ${task.length > 160 ? task.slice(0, 160) + '…' : task}`,
      label: c.label, reason, ...(c.label === 'looping' ? { loopStart: c.la.loopStart } : {}), calls: c.lines.length,
      source: { ...SOURCE, commit },
    });
  }
  return { entries, left };
}
