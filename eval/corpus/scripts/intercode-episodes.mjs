// What every InterCode source shares (princeton-nlp/intercode, MIT, LICENSE.md): the paper's recorded episodes all
// have one shape, {task_id, query, turn_history: {actions, observations, rewards, valid_action}, summary: {max_reward,
// turns_taken, turns_max}}, one label rule (healthy iff InterCode's reward reached 1, which ends the episode; otherwise
// the corpus's loop rules decide between looping and failed_no_loop) and one corpus entry shape. The source files
// (src-intercode-{bash,ctf,sql,python}.mjs) keep only what differs: the tool a turn becomes, the paths, the texts.
import { truncate, analyzeLoop, describeLoop } from './lib.mjs';

// intercode/envs/bash/bash_env.py exec_action: the observation it writes when the command could not run.
export const ENVIRONMENT_FAILURES = { 'Command timed out': 'timeout', 'Malformed command': 'MalformedCommand' };

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
 * The episodes of one results file, in task-id order, converted and labelled. An episode whose policy call failed (the
 * harness logs the action "blocked" with no observation and stops) is a harness failure, not an agent run, and is left
 * out with the reason; so is one with no action at all when `noActionIsLeftOut` names what the action would have been.
 * `convert(episode, run)` returns the replay lines, the recorded steps and, where a source's labelling rule reads them
 * otherwise, `ruleSteps` for the loop rules.
 */
export function labelledEpisodes(episodes, { where, runOf, convert, noActionIsLeftOut }) {
  const candidates = [];
  const left = [];
  for (const episode of [...episodes].sort((a, b) => a.task_id - b.task_id)) {
    const { actions, observations } = episode.turn_history;
    const noAction = noActionIsLeftOut !== undefined && actions.length === 0;
    if (noAction || actions.includes('blocked') || observations.length !== actions.length) {
      left.push(noActionIsLeftOut !== undefined
        ? `${where}task ${episode.task_id}: no ${noActionIsLeftOut}, or the policy call failed ("blocked") and the harness stopped the episode`
        : `${where}task ${episode.task_id}: policy call failed ("blocked"), harness stopped the episode`);
      continue;
    }
    const run = runOf(episode);
    const { lines, steps, ruleSteps = steps } = convert(episode, run);
    const la = analyzeLoop(ruleSteps);
    const label = episode.summary.max_reward === 1 ? 'healthy' : la.looping ? 'looping' : 'failed_no_loop';
    candidates.push({ episode, run, lines, steps, la, label });
  }
  return { candidates, left };
}

/**
 * Why a labelled episode got its label, in one sentence: `benchmark` names the results ("InterCode",
 * "InterCode-CTF"), `passed` says what reward 1 checked, `noRuleFires` overrides the failed text (where the loop rules
 * read other steps than the recorded ones), and a healthy run's matching loop rule is noted unless `noteRule` is false.
 */
export function reasonOf(c, { benchmark = 'InterCode', passed, noRuleFires, noteRule = true }) {
  const { summary } = c.episode;
  const prefix = `${benchmark} max_reward ${summary.max_reward} after ${summary.turns_taken} of ${summary.turns_max} turns`;
  if (c.label === 'looping') return describeLoop(prefix, c.steps, c.la);
  if (c.label === 'healthy') {
    const note = noteRule && c.la.looping ? `; note: the loop rule "${c.la.rule}" matches from call #${c.la.loopStart}` : '';
    return `${prefix} (${passed})${note}`;
  }
  return `${prefix}; ${noRuleFires ?? `no loop rule fires (longest final repeated stretch ${c.la.repeatTail}, final identical results ${c.la.sameObsTail})`}`;
}

/** The task text of a manifest entry: at most 160 characters of the question. */
export const shortTask = (text) => (text.length > 160 ? text.slice(0, 160) + '…' : text);

/** A labelled episode's manifest entry, its replay file written. */
export function corpusEntry(c, { file, kind, agent, model, task, reason, source, write }) {
  write(file, c.lines.join('\n') + '\n');
  return {
    file, format: 'loopguard-jsonl', kind, agent, model, task,
    label: c.label, reason, ...(c.label === 'looping' ? { loopStart: c.la.loopStart } : {}), calls: c.lines.length,
    source,
  };
}
