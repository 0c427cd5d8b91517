// browser-use + Gemini on WebArena-Infinity's app clones (Gmail, Linear account settings, Shopify theme editor and web
// performance), each run judged by the task's own verifier (a function that reads the app's state: "settings.theme is
// 'default', expected 'soft'"). Used by the wide check (eval/run-wide-check.ts), not by the corpus: see
// eval/corpus/SOURCES.md, "Wide-check sources", for the licence note.
//
// The runs were committed under apps/<app>/results/<run folder>/task_<id>/ by the repository's pull requests of February
// 2026 and deleted again from main ("remove incompleted result folders", "Clean up old generations"), so they are read
// at the commits that added them (DATA_COMMITS, all reachable from the snapshot's refs/pull/*): history.json (browser-use's
// AgentHistoryList) and result.json ({passed, verifier_message, steps, …}). A task folder found at several of those
// commits is read at the last one listed. Runs with no history.json (the harness crashed or timed out) are left out.
//
// Calls: each history step is one round; each action of the step's model output (`{"click": {"index": 27057}}`) one
// call, in order, as far as the step's results go (browser-use stops a step's actions early when the page changes).
// Outcome: what browser-use answers the model for that action, `extracted_content` ("Clicked button id=settingsBtn
// aria-label=Settings", "🔍 Scrolled down 2.0 pages") — the tool result a guard of the actions sees; the page itself
// reaches the model in the next step's browser state. An action's `error` is its error. A step with no model output
// (the model call failed, 429) has no call.
//
// Labels: `passed` → healthy; otherwise the corpus's loop rules (lib.mjs analyzeLoop), over observations that are each
// action's answer plus the page of the next step's browser state — what the agent actually saw, so a click answered
// alike on another page is not a repeat for the label.
import { analyzeLoop, describeLoop, git } from './lib.mjs';

export const SOURCE = { repo: 'web-arena-x/webarena-infinity', licence: 'MIT' };

/** The commits that added the run folders (oldest first; a folder found at several is read at the last). */
export const DATA_COMMITS = [
  '5a360004c4a2f557913430c8014eaa832eaad534', // linear-account-settings, two runs of 30 tasks
  '6b907f7479a758433881a039c2b06ef109cf92c4', // shopify-theme-editor
  '4b5d0926d3cc301b642177102e6055ee2ed84751', // shopify-web-performance
  '084981999036452124dc855940cb0573e95f75a5', // shopify-theme-editor, second run
  '5ea9c6f0a742ac0c51064b1c3c469cd520465713', // gmail
  '7ddac0affb07cfbda287604e28b3476572c1bdea', // gmail function tests
  '30c6b8c1deb39c72ba64c8413b219bbc3ed073f0', // gmail function tasks
  '5dc9d1ba32523f24c9f4bc4c4c532b18e9746021', // gmail real tasks
  '88de355d371b12a63e315430b3866f6572b0dc46', // gmail real tasks
  'bea8bc8671c3e179a83080cc5ee9773a0bd950a8', // gmail function and real tasks
];


/** Every task folder with both files at the data commits: {dir, commit, historyBlob, resultBlob}, sorted by folder. */
export function findRuns(gitDir) {
  const runs = new Map();
  for (const commit of DATA_COMMITS) {
    const byDir = new Map();
    for (const line of git(gitDir, ['ls-tree', '-r', commit, '--', 'apps']).split('\n').filter(Boolean)) {
      const [meta, path] = line.split('\t');
      const m = path.match(/^(apps\/[^/]+\/results\/[^/]+\/task_[^/]+)\/(history|result)\.json$/);
      if (!m) continue;
      if (!byDir.has(m[1])) byDir.set(m[1], {});
      byDir.get(m[1])[m[2]] = meta.split(' ')[2];
    }
    for (const [dir, blobs] of byDir) if (blobs.history && blobs.result) runs.set(dir, { dir, commit, historyBlob: blobs.history, resultBlob: blobs.result });
  }
  return [...runs.values()].sort((a, b) => a.dir.localeCompare(b.dir));
}

/** The page of a step's prompt: its <browser_state> section ('' when the step has none). */
export function pageOf(step) {
  const text = typeof step?.state_message === 'string' ? step.state_message : '';
  const start = text.indexOf('<browser_state>');
  const end = text.indexOf('</browser_state>');
  return start >= 0 && end > start ? text.slice(start + '<browser_state>'.length, end).trim() : '';
}

/** Calls of a history: [{round, tool, args, answer, error, observation}], observation = answer + the next step's page. */
export function callsOf(history) {
  const calls = [];
  history.forEach((step, k) => {
    const actions = step.model_output?.action ?? [];
    const results = step.result ?? [];
    const nextPage = pageOf(history[k + 1]);
    actions.slice(0, results.length).forEach((action, i) => {
      const tool = Object.keys(action)[0];
      const result = results[i] ?? {};
      const error = typeof result.error === 'string' && result.error !== '' ? result.error : undefined;
      const answer = error ?? (typeof result.extracted_content === 'string' ? result.extracted_content : '');
      calls.push({ round: k + 1, tool, args: action[tool] ?? {}, answer, error, observation: `${answer}\n\n${nextPage}` });
    });
  });
  return calls;
}

/** browser-use's actions that move or change the page (the others read it, run code on it, or write files). */
export const PAGE_ACTIONS = new Set(['navigate', 'search', 'click', 'input', 'scroll', 'send_keys', 'go_back', 'select_dropdown', 'upload_file', 'switch', 'close', 'wait']);

/**
 * withPage: each page action's answer followed by the page of the next step's browser state, what a guard sees when
 * the host returns the page with the answer, as Playwright MCP does for its actions (docs: browser agents). The page is
 * kept whole (it is not committed anywhere). Reads, code (`evaluate`) and the answer keep their own answer.
 */
export function build({ gitDir, write, onSkip = () => {}, withPage = false }) {
  const entries = [];
  for (const found of findRuns(gitDir)) {
    const result = JSON.parse(git(gitDir, ['cat-file', '-p', found.resultBlob]));
    const history = JSON.parse(git(gitDir, ['cat-file', '-p', found.historyBlob])).history ?? [];
    const calls = callsOf(history);
    if (calls.length === 0) { onSkip(`${found.dir}: no call`); continue; }
    const [, app, folder, taskId] = found.dir.match(/^apps\/([^/]+)\/results\/([^/]+)\/(task_[^/]+)$/);
    const name = `WebArena-Infinity ${app} ${folder.replace(/^gemini_/, '').replace(/_parallel$/, '')} ${taskId}`;
    const steps = calls.map((call) => ({ action: `${call.tool} ${JSON.stringify(call.args)}`, observation: call.observation }));
    const la = analyzeLoop(steps);
    const end = `${history.length} steps, ${calls.length} calls`;
    const verdict = `passed ${result.passed} (${String(result.verifier_message ?? '').slice(0, 80)})`;
    const { label, reason } = result.passed === true
      ? { label: 'healthy', reason: `${name}: ${verdict}, ${end}` }
      : la.looping ? { label: 'looping', reason: describeLoop(`${name}: ${verdict}, ${end}`, steps, la) } : { label: 'failed_no_loop', reason: `${name}: ${verdict}, ${end}; tail does not repeat` };
    const run = `webarena-infinity-${app}-${folder}-${taskId}`.replace(/[^A-Za-z0-9._-]+/g, '_');
    const lines = calls.map((call) => JSON.stringify({ run, round: call.round, tool: call.tool, args: call.args, ...(call.error !== undefined ? { error: { type: 'ActionError', message: call.error } } : { result: withPage && PAGE_ACTIONS.has(call.tool) ? call.observation : call.answer }) }));
    const file = `webarena-infinity/${run}.jsonl`;
    write(file, lines.join('\n') + '\n');
    entries.push({ file, format: 'loopguard-jsonl', kind: 'browser', agent: 'browser-use + Gemini', task: `${app} ${taskId}: ${String(result.instruction ?? '').replace(/\s+/g, ' ').slice(0, 160)}`, label, reason, ...(label === 'looping' ? { loopStart: la.loopStart } : {}), calls: calls.length, source: { repo: SOURCE.repo, licence: SOURCE.licence, commit: found.commit, path: `${found.dir}/history.json (+ result.json)` } });
  }
  return entries;
}
