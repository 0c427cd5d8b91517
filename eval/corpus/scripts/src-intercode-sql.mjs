// InterCode-SQL (princeton-nlp/intercode, MIT, LICENSE.md): the paper's recorded multi-turn runs, committed as
// `data/results/sql/<model>/ic_sql_multiturn_<model>_10_turns.json`. An LLM answers a Spider question ("What are the
// names of poker players, ordered ascending by the number of final tables they have made?") by running one SQL
// statement per turn against the question's MySQL database (`experiments/eval_n_turn.py`, chat policy, 10 turns):
// it can list and describe tables, and each SELECT's rows are scored against the gold query's (reward 1 ends the
// episode). The model sees the statement's output and that reward and is told to try again; it cannot give up.
// This is a data agent: every statement it writes in these runs reads (SHOW, DESCRIBE, SELECT), and a loop is the
// same rows coming back for statement after statement — the reworded-search loop of the seed documents.
//
// Episodes (with Spider's `hardness`), labels and left-out episodes as for every InterCode source
// (intercode-episodes.mjs); an episode with no statement is left out too.
// Written as loopguard JSONL: one line per turn, tool `execute_sql` (the Supabase MCP server's name for the same
// tool: one SQL statement in, its rows or its error out), args {query}, result = the observation as recorded (the
// rows as Python's repr of a list of tuples, or the environment's "Error executing query: …" text, which the model
// saw as the turn's output, not as a failed call).
import { gitShow } from './lib.mjs';
import { convertReactTurns, convertTurns, corpusEntry, labelledEpisodes, reasonOf, shortTask } from './intercode-episodes.mjs';

export const SOURCE = { repo: 'princeton-nlp/intercode', licence: 'MIT (LICENSE.md)' };
export const KIND = 'data (SQL)';
export const AGENT = 'InterCode multi-turn chat policy (SQL on Spider databases, 10 turns, "try again" prompting)';
/** The paper's models with a 10-turn multi-turn SQL file (data/results/sql/<model>/). */
export const MODELS = ['gpt-4', 'gpt-3.5', 'text-davinci-003', 'text-bison-001', 'chat-bison-001', 'starchat', 'vicuna'];
export const resultPath = (model) => `data/results/sql/${model}/ic_sql_multiturn_${model}_10_turns.json`;
/**
 * The paper's ReAct runs (gpt-3.5 only): the agent thinks, then writes `execute[<statement>]` or `submit`, and ends
 * the episode itself with `submit` (an answer tool; its observation is the last one again). Same tools otherwise.
 */
export const REACT_PATH = 'data/results/sql/gpt-3.5/ic_sql_react_10_turns.json';
export const REACT_AGENT = 'InterCode ReAct policy (SQL on Spider databases, thought + execute[…] or submit, 10 turns)';

/** One episode → replay lines and the (action, observation) steps the loop rules read. */
export function convert(episode, run, react = false) {
  const call = (statement) => ({ tool: 'execute_sql', args: { query: statement } });
  // ReAct: `execute[…]` or `submit` (4 actions of "Observation: …" went to the database as they were).
  return react ? convertReactTurns(episode, run, call) : convertTurns(episode, run, call);
}

/** Every episode of `model` (or of the ReAct runs), in task-id order, labelled. */
export function candidates({ gitDir, commit, model, react = false }) {
  const path = react ? REACT_PATH : resultPath(model);
  const labelled = labelledEpisodes(Object.values(JSON.parse(gitShow(gitDir, commit, path))), {
    where: `${path} `,
    noActionIsLeftOut: 'statement',
    runOf: (episode) => `intercode-sql-${react ? 'react-' : ''}${model}-task${episode.task_id}`,
    convert: (episode, run) => convert(episode, run, react),
  });
  return { candidates: labelled.candidates.map((c) => ({ model, path, ...c })), left: labelled.left };
}

export function build({ gitDir, commit, model, react = false, write, select = (all) => all }) {
  const { candidates: all, left } = candidates({ gitDir, commit, model, react });
  const entries = select(all).map((c) => corpusEntry(c, {
    file: `intercode-sql/${react ? 'react-' : ''}${model}/task${c.episode.task_id}.jsonl`,
    kind: KIND, agent: react ? REACT_AGENT : AGENT, model, write,
    task: `InterCode-SQL Spider dev task ${c.episode.task_id} (${c.episode.hardness}): ${shortTask(c.episode.query)}`,
    reason: reasonOf(c, { passed: "reward 1: the rows match the gold query's" }),
    source: { ...SOURCE, commit, path: c.path },
  }));
  return { entries, left };
}
