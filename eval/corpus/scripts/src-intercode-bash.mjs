// InterCode-Bash (princeton-nlp/intercode, MIT, LICENSE.md): the paper's recorded multi-turn runs, committed as
// `data/results/bash/<model>/ic_bash_multiturn_<model>_10_turns_fs_<N>.json` (N = the four NL2Bash file systems).
// An LLM answers a natural-language shell task ("Calculate the md5 sum of …", "Count the lines of …", "Delete …")
// by running one bash command per turn in a Docker container (`experiments/eval_n_turn.py`, chat policy, template
// v2): after each command the harness runs `submit` and scores the container (file changes, answer similarity);
// the model sees the command's output and that reward, and is told to try something different. The episode ends at
// reward 1 or after 10 turns; the agent has no way to give up.
//
// Episodes, labels and left-out episodes as for every InterCode source (intercode-episodes.mjs).
// Written as loopguard JSONL: one line per turn, round = turn (1-based), tool `bash`, args {command}, result = the
// command's output as recorded (the model was shown its first 500 characters, "No output" when empty, plus the
// reward). `valid_action` false on an ordinary output means a non-zero exit code (the model is not shown it): kept as
// the result, as mini-swe-agent's non-zero return codes are. The environment's own two failure texts become errors,
// as mini-swe-agent's timeout message does: "Command timed out" → {type "timeout"}, "Malformed command" (the exec
// call raised) → {type "MalformedCommand"}.
import { gitShow } from './lib.mjs';
import { convertReactTurns, convertTurns, corpusEntry, labelledEpisodes, reasonOf, shortTask } from './intercode-episodes.mjs';

export const SOURCE = { repo: 'princeton-nlp/intercode', licence: 'MIT (LICENSE.md)' };
export const FILE_SYSTEMS = [1, 2, 3, 4];
export const resultPath = (model, fileSystem) => `data/results/bash/${model}/ic_bash_multiturn_${model}_10_turns_fs_${fileSystem}.json`;
/** The paper's ReAct runs (gpt-3.5 only), which end each episode with `submit` (convertReactTurns). */
export const reactPath = (fileSystem) => `data/results/bash/gpt-3.5/ic_bash_react_10_turns_fs_${fileSystem}.json`;
export const REACT_AGENT = 'InterCode ReAct policy (bash, thought + execute[…] or submit, 10 turns)';

/** One episode → replay lines and the (action, observation) steps the loop rules read. */
export function convert(episode, run, react = false) {
  const call = (command) => ({ tool: 'bash', args: { command } });
  return react ? convertReactTurns(episode, run, call) : convertTurns(episode, run, call);
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
    const labelled = labelledEpisodes(Object.values(JSON.parse(text)), {
      where: `${path} `,
      runOf: (episode) => `intercode-bash-${react ? 'react-' : ''}${model}-fs${fileSystem}-task${episode.task_id}`,
      convert: (episode, run) => convert(episode, run, react),
    });
    out.push(...labelled.candidates.map((c) => ({ model, fileSystem, path, ...c })));
    left.push(...labelled.left);
  }
  return { candidates: out, left };
}

export function build({ gitDir, commit, model, react = false, write, select }) {
  const { candidates: all, left } = candidates({ gitDir, commit, model, react });
  const entries = select(all).map((c) => corpusEntry(c, {
    file: `intercode-bash/${react ? 'react-' : ''}${model}/fs${c.fileSystem}-task${c.episode.task_id}.jsonl`,
    kind: 'shell', model, write,
    agent: react ? REACT_AGENT : 'InterCode multi-turn chat policy (bash, 10 turns, "try again" prompting)',
    task: `InterCode-Bash NL2Bash fs_${c.fileSystem} task ${c.episode.task_id}: ${shortTask(c.episode.query)}`,
    reason: reasonOf(c, { passed: "reward 1: the task's check passed" }),
    source: { ...SOURCE, commit, path: c.path },
  }));
  return { entries, left };
}
