// InterCode-CTF (princeton-nlp/intercode, MIT, LICENSE.md): the paper's recorded multi-turn runs of gpt-4 on its
// picoCTF capture-the-flag tasks, `data/results/ctf/ic_ctf_multiturn_gpt-4_10_turns.json` (`experiments/eval_n_turn.py`,
// chat policy, template `ctf`, 10 turns). The agent works in a Docker container (CTFEnv is InterCode's BashEnv with
// the task's files) by bash commands, and answers with `submit <flag>`; a wrong flag gets "Submitted flag is
// incorrect. Keep trying!", the right one reward 1, which ends the episode. The agent has no way to give up.
// Episodes, labels and left-out episodes as for every InterCode source (intercode-episodes.mjs).
// Written as loopguard JSONL like InterCode-Bash (src-intercode-bash.mjs): one line per turn; `submit <flag>` →
// tool `submit` {flag}, any other action → tool `bash` {command}; result = the recorded observation; the bash
// environment's own failure texts ("Command timed out", "Malformed command") → errors.
import { gitShow } from './lib.mjs';
import { convertTurns, corpusEntry, labelledEpisodes, reasonOf, shortTask } from './intercode-episodes.mjs';

export const SOURCE = { repo: 'princeton-nlp/intercode', licence: 'MIT (LICENSE.md)', path: 'data/results/ctf/ic_ctf_multiturn_gpt-4_10_turns.json' };

/** One episode → replay lines and the (action, observation) steps the loop rules read. */
export function convert(episode, run) {
  return convertTurns(episode, run, (action) => {
    const submit = /^submit\s+(.*)$/s.exec(action.trim());
    return submit ? { tool: 'submit', args: { flag: submit[1] } } : { tool: 'bash', args: { command: action } };
  });
}

export function build({ gitDir, commit, write, select }) {
  const { candidates: all, left } = labelledEpisodes(Object.values(JSON.parse(gitShow(gitDir, commit, SOURCE.path))), {
    where: '',
    runOf: (episode) => `intercode-ctf-gpt-4-task${episode.task_id}`,
    convert,
  });
  const entries = select(all).map((c) => corpusEntry(c, {
    file: `intercode-ctf/gpt-4/task${c.episode.task_id}.jsonl`,
    kind: 'shell', agent: 'InterCode multi-turn chat policy (CTF: bash + submit, 10 turns)', model: 'gpt-4', write,
    task: `InterCode-CTF task ${c.episode.task_id}: ${shortTask(c.episode.query.replace(/\s+/g, ' ').trim())}`,
    reason: reasonOf(c, { benchmark: 'InterCode-CTF', passed: "the submitted flag is the task's flag" }),
    source: { ...SOURCE, commit },
  }));
  return { entries, left };
}
