// InterCode-SQL (princeton-nlp/intercode, MIT, LICENSE.md): the paper's recorded multi-turn runs, committed as
// `data/results/sql/<model>/ic_sql_multiturn_<model>_10_turns.json`. An LLM answers a Spider question ("What are the
// names of poker players, ordered ascending by the number of final tables they have made?") by running one SQL
// statement per turn against the question's MySQL database (`experiments/eval_n_turn.py`, chat policy, 10 turns):
// it can list and describe tables, and each SELECT's rows are scored against the gold query's (reward 1 ends the
// episode). The model sees the statement's output and that reward and is told to try again; it cannot give up.
// This is a data agent: every statement it writes in these runs reads (SHOW, DESCRIBE, SELECT), and a loop is the
// same rows coming back for statement after statement — the reworded-search loop of the seed documents.
//
// Each episode: {task_id, query, turn_history: {actions, observations, rewards, valid_action}, summary: {max_reward,
// turns_taken, turns_max}, hardness}. Outcome: healthy iff `summary.max_reward == 1`, as for InterCode-Bash;
// otherwise the corpus's loop rules decide between looping and failed_no_loop. Episodes whose policy call failed
// ("blocked", no observation) are left out, as for InterCode-Bash.
// Written as loopguard JSONL: one line per turn, tool `execute_sql` (the Supabase MCP server's name for the same
// tool: one SQL statement in, its rows or its error out), args {query}, result = the observation as recorded (the
// rows as Python's repr of a list of tuples, or the environment's "Error executing query: …" text, which the model
// saw as the turn's output, not as a failed call).
import { gitShow, analyzeLoop, describeLoop } from './lib.mjs';
import { convertReactTurns, convertTurns } from './src-intercode-bash.mjs';

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
  const episodes = Object.values(JSON.parse(gitShow(gitDir, commit, path))).sort((a, b) => a.task_id - b.task_id);
  const out = [];
  const left = [];
  for (const episode of episodes) {
    const { actions, observations } = episode.turn_history;
    if (actions.length === 0 || actions.includes('blocked') || observations.length !== actions.length) {
      left.push(`${path} task ${episode.task_id}: no statement, or the policy call failed ("blocked") and the harness stopped the episode`);
      continue;
    }
    const run = `intercode-sql-${react ? 'react-' : ''}${model}-task${episode.task_id}`;
    const { lines, steps } = convert(episode, run, react);
    const la = analyzeLoop(steps);
    const label = episode.summary.max_reward === 1 ? 'healthy' : la.looping ? 'looping' : 'failed_no_loop';
    out.push({ model, path, episode, run, lines, steps, la, label });
  }
  return { candidates: out, left };
}

export function build({ gitDir, commit, model, react = false, write, select = (all) => all }) {
  const { candidates: all, left } = candidates({ gitDir, commit, model, react });
  const entries = [];
  for (const c of select(all)) {
    const { summary, query, task_id: taskId, hardness } = c.episode;
    const prefix = `InterCode max_reward ${summary.max_reward} after ${summary.turns_taken} of ${summary.turns_max} turns`;
    const reason = c.label === 'healthy'
      ? `${prefix} (reward 1: the rows match the gold query's)${c.la.looping ? `; note: the loop rule "${c.la.rule}" matches from call #${c.la.loopStart}` : ''}`
      : c.label === 'looping' ? describeLoop(prefix, c.steps, c.la)
        : `${prefix}; no loop rule fires (longest final repeated stretch ${c.la.repeatTail}, final identical results ${c.la.sameObsTail})`;
    const file = `intercode-sql/${react ? 'react-' : ''}${model}/task${taskId}.jsonl`;
    write(file, c.lines.join('\n') + '\n');
    entries.push({
      file, format: 'loopguard-jsonl', kind: KIND, agent: react ? REACT_AGENT : AGENT, model,
      task: `InterCode-SQL Spider dev task ${taskId} (${hardness}): ${query.length > 160 ? query.slice(0, 160) + '…' : query}`,
      label: c.label, reason, ...(c.label === 'looping' ? { loopStart: c.la.loopStart } : {}), calls: c.lines.length,
      source: { ...SOURCE, commit, path: c.path },
    });
  }
  return { entries, left };
}
