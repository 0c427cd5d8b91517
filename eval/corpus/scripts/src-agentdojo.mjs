// AgentDojo (ethz-spylab/agentdojo) benign runs of the banking and travel suites → loopguard JSONL.
// Each `runs/<pipeline>/<suite>/user_task_N/none/none.json` is one recorded run of a model on a user task with no
// injection attack (`attack_type: null`, `injections: {}`); `utility` is the benchmark's own success check, which
// compares the environment after the run with the task's expected state (and, for questions, the answer).
import { gitShow, gitLsTree, truncate, analyzeLoop, describeLoop } from './lib.mjs';

export const SOURCE = { repo: 'ethz-spylab/agentdojo', licence: 'MIT (LICENSE)' };

// Banking (account, transactions, scheduled payments) and travel (hotel / restaurant / car-rental search and
// booking) are an assistant serving a customer with account and booking tools: the "customer service" kind.
// Slack and workspace (messages, e-mail, calendar, cloud drive) are an office assistant; they are not taken.
export const SUITES = ['banking', 'travel'];

// Every banking and travel user task of these two models (the benchmark's reference gpt-4o and its best-scoring
// Claude of 2024), plus every run of any other undefended model that the loop rules label looping.
export const FULL_MODELS = ['gpt-4o-2024-05-13', 'claude-3-5-sonnet-20241022'];

// Pipelines that run a defence change what the agent sees (a detector replaces tool results with "<Data omitted
// because a prompt injection was detected>", a repeater re-sends the user prompt after every tool result, a filter
// removes tools), so their runs are not the plain agent; none is taken.
const DEFENCE_SUFFIX = /-(repeat_user_prompt|spotlighting_with_delimiting|tool_filter|transformers_pi_detector)$/;

const RUN_PATH = /^runs\/([^/]+)\/(banking|travel)\/(user_task_(\d+))\/none\/none\.json$/;

/** AgentDojo message content is a string (older runs) or a list of {type: "text", content} blocks (newer runs). */
function textOf(content) {
  if (content === null || content === undefined) return '';
  if (typeof content === 'string') return content;
  return content.map((block) => (block.type === 'text' ? block.content : JSON.stringify(block))).join('\n');
}

/** One recorded run → replay lines and the (action, observation) steps the loop rules read. */
function convert(record, run) {
  const lines = [];
  const steps = [];
  let round = 0;
  for (const message of record.messages) {
    if (message.role === 'assistant') { round++; continue; }
    if (message.role !== 'tool') continue;
    const call = message.tool_call;
    const content = textOf(message.content);
    // The runtime puts the exception text in `error` and leaves the content empty: the agent sees the error.
    const outcome = message.error
      ? { error: { type: message.error.match(/^(\w+):/)?.[1] ?? 'ToolError', message: truncate(message.error) } }
      : { result: truncate(content) };
    lines.push(JSON.stringify({ run, round, tool: call.function, args: call.args, ...(call.id ? { callId: call.id } : {}), ...outcome }));
    steps.push({ action: JSON.stringify([call.function, call.args]), observation: message.error ?? content });
  }
  return { lines, steps };
}

// `everyModel` (the wide check, eval/run-wide-check.ts): every benign banking and travel run of every undefended
// model, not only the two full models and the others' loops.
export function build({ gitDir, commit, write, everyModel = false }) {
  const candidates = [];
  for (const path of gitLsTree(gitDir, commit, 'runs')) {
    const m = path.match(RUN_PATH);
    if (!m || DEFENCE_SUFFIX.test(m[1])) continue;
    candidates.push({ path, model: m[1], suite: m[2], task: m[3], taskNumber: Number(m[4]) });
  }
  candidates.sort((a, b) => a.model.localeCompare(b.model) || SUITES.indexOf(a.suite) - SUITES.indexOf(b.suite) || a.taskNumber - b.taskNumber);
  const entries = [];
  const left = { healthyWithLoopRule: [], noToolCall: [] };
  for (const c of candidates) {
    const record = JSON.parse(gitShow(gitDir, commit, c.path));
    if (record.attack_type !== null || Object.keys(record.injections ?? {}).length > 0) throw new Error(`${c.path}: not a benign run`);
    const run = `agentdojo-${c.model}-${c.suite}-${c.task}`;
    const { lines, steps } = convert(record, run);
    const la = analyzeLoop(steps);
    const label = record.utility === true ? 'healthy' : la.looping ? 'looping' : 'failed_no_loop';
    if (!everyModel && !FULL_MODELS.includes(c.model)) {
      if (label === 'healthy' && la.looping) left.healthyWithLoopRule.push(`${c.path} (${la.rule}, ${steps.length} calls)`);
      if (label !== 'looping') continue;
    }
    // A run in which the model answered without calling a tool gives a loop guard nothing to see.
    if (lines.length === 0) { left.noToolCall.push(`${c.path} (utility ${record.utility})`); continue; }
    const prefix = `AgentDojo utility: ${record.utility}`;
    const reason = label === 'healthy'
      ? `${prefix} (the benchmark's success check passed)${la.looping ? `; note: the loop rule "${la.rule}" matches from call #${la.loopStart}` : ''}`
      : label === 'looping' ? describeLoop(prefix, steps, la) : `${prefix}; no loop rule fires`;
    const userPrompt = textOf(record.messages.find((x) => x.role === 'user')?.content).replace(/\s+/g, ' ').trim();
    const file = `agentdojo/${c.model}/${c.suite}-${c.task}.jsonl`;
    write(file, lines.join('\n') + '\n');
    entries.push({
      file, format: 'loopguard-jsonl', kind: 'customer service',
      agent: 'AgentDojo tool-calling pipeline (system prompt + tools, no defence)', model: c.model,
      task: `AgentDojo ${c.suite} ${c.task}: ${userPrompt.length > 160 ? userPrompt.slice(0, 160) + '…' : userPrompt}`,
      label, reason, ...(label === 'looping' ? { loopStart: la.loopStart } : {}), calls: lines.length,
      source: { ...SOURCE, commit, path: c.path },
    });
  }
  return { entries, left };
}
