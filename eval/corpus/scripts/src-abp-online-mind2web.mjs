// Claude Opus 4.6 driving a browser through Agent Browser Protocol's MCP server (ABP) on Online-Mind2Web: live
// websites, screenshots as the tools' answers. Used by the wide check (eval/run-wide-check.ts), not by the corpus: see
// eval/corpus/SOURCES.md, "Wide-check sources", for the licence and the label caveat.
//
// Each task folder abp_run/<task_id>/ holds result.json ({task, result_status, action_history, thoughts}: one entry
// per action, written by the repository's harness/src/trajectory-proxy.ts, which sits between the agent and the MCP
// server) and trajectory/<n>_full_screenshot.png, the image the MCP server answered the n-th action with. The PNGs are
// Git LFS pointers in the repository; a pointer names its image by sha256, which is what a guard hashing the image
// would tell apart, so the image's part of the answer is that sha256 (data `sha256:<oid>`): two answers are alike
// exactly when the images are.
//
// Calls: the proxy records only the page actions (`browser_action`, `browser_navigate`, `browser_scroll`,
// `browser_select_picker`, `browser_slider`), not the screenshots or text reads in between, and one entry per
// sub-action of a `browser_action` call, all with that call's one screenshot. Consecutive `browser_action` entries
// with the same screenshot and the same non-empty thought (the model's text before the call) are read back as one
// call with their `actions`; with an empty thought they stay apart — that reads more repeats than there were, never
// fewer. The action descriptions are parsed back into the arguments the proxy described (`Click at (x, y)` →
// `{type: "mouse_click", x, y}`). One round per call: the proxy does not record model turns.
//
// Labels: the repository's human evaluation (pass / fail / impossible per task) is in a Google Sheet, not committed;
// only its totals are (README: 258 passes of 300). `result_status` "success" means the agent finished with an
// answer; those runs are labelled healthy (at least 258 of the 263 are human passes: a run with no answer cannot
// pass). "error_max_turns" runs are looping when the corpus's loop rules (lib.mjs analyzeLoop) say so over
// (action, screenshot) pairs, else failed.
import { analyzeLoop, describeLoop, git } from './lib.mjs';
import { execFileSync } from 'node:child_process';

export const SOURCE = { repo: 'theredsix/abp-online-mind2web-results', licence: 'MIT' };
export const COMMIT = '46bbf4c7bbc915a86864bfdcb4affc9bdbfa5591';

/** `git cat-file --batch` of many blobs at once: one process, not one per screenshot pointer. */
function readBlobs(gitDir, blobs) {
  const out = execFileSync('git', ['--git-dir', gitDir, 'cat-file', '--batch'], { input: `${blobs.join('\n')}\n`, maxBuffer: 1024 * 1024 * 1024 });
  const texts = new Map();
  for (let at = 0; at < out.length; ) {
    const headerEnd = out.indexOf(10, at);
    const [sha, , size] = out.subarray(at, headerEnd).toString('utf8').split(' ');
    const start = headerEnd + 1;
    texts.set(sha, out.subarray(start, start + Number(size)).toString('utf8'));
    at = start + Number(size) + 1;
  }
  return texts;
}

/** The arguments the proxy's description was made from (harness/src/trajectory-proxy.ts describeSubAction / describeToolCall). */
export function parseAction(description) {
  let m;
  if ((m = description.match(/^Navigate to (.*)$/s))) return { tool: 'browser_navigate', args: { url: m[1] } };
  if ((m = description.match(/^Navigate (\w+)$/))) return { tool: 'browser_navigate', args: { action: m[1] } };
  if ((m = description.match(/^Scroll \(delta_x=(-?[\d.]+), delta_y=(-?[\d.]+)\)$/))) return { tool: 'browser_scroll', args: { delta_x: Number(m[1]), delta_y: Number(m[2]) } };
  if ((m = description.match(/^Select picker (\S+) -> (.*)$/s))) return { tool: 'browser_select_picker', args: { popup_id: m[1], choice: m[2] } };
  if ((m = description.match(/^Slider \((\w+)\) set to (\S+) \[range (\S+)-(\S+)\]$/))) return { tool: 'browser_slider', args: { orientation: m[1], target_value: Number(m[2]), min: Number(m[3]), max: Number(m[4]) } };
  if ((m = description.match(/^(Click|Hover) at \((-?[\d.]+), (-?[\d.]+)\)$/))) return { tool: 'browser_action', action: { type: m[1] === 'Click' ? 'mouse_click' : 'mouse_hover', x: Number(m[2]), y: Number(m[3]) } };
  if ((m = description.match(/^Drag from \((-?[\d.]+), (-?[\d.]+)\) to \((-?[\d.]+), (-?[\d.]+)\)$/))) return { tool: 'browser_action', action: { type: 'mouse_drag', start_x: Number(m[1]), start_y: Number(m[2]), end_x: Number(m[3]), end_y: Number(m[4]) } };
  if ((m = description.match(/^Type "(.*)"$/s))) return { tool: 'browser_action', action: { type: 'keyboard_type', text: m[1] } };
  if ((m = description.match(/^Press (.+)$/s))) return { tool: 'browser_action', action: { type: 'keyboard_press', key: m[1] } };
  return { tool: 'browser_action', action: { type: description } };
}

/** Every task folder with its result.json and screenshot pointers: [{task, result, shots: Map(step → oid)}]. */
function findRuns(gitDir) {
  const folders = new Map();
  for (const line of git(gitDir, ['ls-tree', '-r', COMMIT, '--', 'abp_run']).split('\n').filter(Boolean)) {
    const [meta, path] = line.split('\t');
    const m = path.match(/^abp_run\/([^/]+)\/(?:result\.json|trajectory\/(\d+)_full_screenshot\.png)$/);
    if (!m) continue;
    if (!folders.has(m[1])) folders.set(m[1], { task: m[1], resultBlob: undefined, shotBlobs: new Map() });
    const folder = folders.get(m[1]);
    if (m[2] === undefined) folder.resultBlob = meta.split(' ')[2];
    else folder.shotBlobs.set(Number(m[2]), meta.split(' ')[2]);
  }
  const found = [...folders.values()].filter((folder) => folder.resultBlob !== undefined).sort((a, b) => a.task.localeCompare(b.task));
  const texts = readBlobs(gitDir, found.flatMap((folder) => [folder.resultBlob, ...folder.shotBlobs.values()]));
  return found.map((folder) => {
    const shots = new Map();
    for (const [step, blob] of folder.shotBlobs) {
      const oid = texts.get(blob)?.match(/^oid sha256:([0-9a-f]{64})$/m)?.[1];
      if (oid !== undefined) shots.set(step, oid);
    }
    return { task: folder.task, result: JSON.parse(texts.get(folder.resultBlob)), shots };
  });
}

/** A run's calls: [{tool, args, shot}] (shot: the answer's image sha256, undefined when the proxy saved none). */
export function callsOf(result, shots) {
  const calls = [];
  result.action_history.forEach((description, index) => {
    const parsed = parseAction(description);
    const thought = typeof result.thoughts?.[index] === 'string' ? result.thoughts[index] : '';
    const shot = shots.get(index + 1);
    const previous = calls[calls.length - 1];
    if (parsed.tool === 'browser_action') {
      if (previous?.tool === 'browser_action' && thought !== '' && previous.thought === thought && shot !== undefined && previous.shot === shot) {
        previous.args.actions.push(parsed.action);
        return;
      }
      calls.push({ tool: 'browser_action', args: { actions: [parsed.action] }, thought, shot });
      return;
    }
    calls.push({ tool: parsed.tool, args: parsed.args, thought, shot });
  });
  return calls;
}

/** The MCP answer a guard of the tools saw: the screenshot, named by its sha256 (no image saved: no content). */
function answerOf(shot) {
  return { content: shot === undefined ? [] : [{ type: 'image', mimeType: 'image/png', data: `sha256:${shot}` }] };
}

export function build({ gitDir, write, onSkip = () => {} }) {
  const entries = [];
  for (const { task, result, shots } of findRuns(gitDir)) {
    if (!Array.isArray(result.action_history) || result.action_history.length === 0) { onSkip(`${task}: no action`); continue; }
    const calls = callsOf(result, shots);
    const steps = calls.map((call) => ({ action: `${call.tool} ${JSON.stringify(call.args)}`, observation: call.shot ?? '' }));
    const la = analyzeLoop(steps);
    const name = `ABP + Claude Opus 4.6, Online-Mind2Web ${task}`;
    const end = `${result.action_history.length} actions, ${calls.length} calls`;
    const { label, reason } = result.result_status === 'success'
      ? { label: 'healthy', reason: `${name}: finished with an answer (result_status success), ${end}` }
      : la.looping ? { label: 'looping', reason: describeLoop(`${name}: ${result.result_status}, ${end}`, steps, la) } : { label: 'failed_no_loop', reason: `${name}: ${result.result_status}, ${end}; tail does not repeat` };
    const run = `abp-online-mind2web-${task}`;
    const lines = calls.map((call, index) => JSON.stringify({ run, round: index + 1, tool: call.tool, args: call.args, result: answerOf(call.shot) }));
    const file = `abp-online-mind2web/${run}.jsonl`;
    write(file, `${lines.join('\n')}\n`);
    entries.push({ file, format: 'loopguard-jsonl', kind: 'browser', agent: 'ABP + Claude Opus 4.6', task: `${task}: ${String(result.task ?? '').replace(/\s+/g, ' ').slice(0, 160)}`, label, reason, ...(label === 'looping' ? { loopStart: la.loopStart } : {}), calls: calls.length, source: { repo: SOURCE.repo, licence: SOURCE.licence, commit: COMMIT, path: `abp_run/${task}/result.json (+ trajectory/*_full_screenshot.png pointers)` } });
  }
  return entries;
}
