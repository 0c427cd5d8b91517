// Shared helpers for building the loopguard evaluation corpus. No dependencies.
import { createHash } from 'node:crypto';
import { execFileSync } from 'node:child_process';

export const MAX_OBS = 2000;

/** Truncate long observation text: first 2000 chars + marker with full length and sha256. */
export function truncate(text) {
  if (typeof text !== 'string') return text;
  if (text.length <= MAX_OBS) return text;
  const sha = createHash('sha256').update(text, 'utf8').digest('hex');
  return `${text.slice(0, MAX_OBS)}\n[truncated: ${text.length} chars, sha256=${sha}]`;
}

/** Run a git command against a bare mirror; its output as text. */
export function git(gitDir, args) {
  return execFileSync('git', ['--git-dir', gitDir, ...args], { maxBuffer: 1024 * 1024 * 1024, encoding: 'utf8', stdio: ['ignore', 'pipe', 'pipe'] });
}

/** Read a file from a bare git mirror (as brought by the search tool's fetch). */
export function gitShow(gitDir, rev, path, maxBuffer = 256 * 1024 * 1024) {
  return execFileSync('git', ['--git-dir', gitDir, 'show', `${rev}:${path}`], { maxBuffer, encoding: 'utf8', stdio: ['ignore', 'pipe', 'pipe'] });
}
export function gitLsTree(gitDir, rev, path) {
  const out = execFileSync('git', ['--git-dir', gitDir, 'ls-tree', '-r', '--name-only', rev, '--', path], { maxBuffer: 64 * 1024 * 1024, encoding: 'utf8' });
  return out.split('\n').filter(Boolean);
}
export function gitHead(gitDir) {
  return execFileSync('git', ['--git-dir', gitDir, 'rev-parse', 'HEAD'], { encoding: 'utf8' }).trim();
}

const norm = (s) => (typeof s === 'string' ? s : JSON.stringify(s ?? null)).trim();

/**
 * Mechanical loop analysis over a run's list of {action, observation} steps.
 * - repeatTail: length of the maximal final stretch in which every (action, observation)
 *   pair (whitespace-trimmed) already occurred earlier in the run; tailStart = its first index.
 * - sameObsTail: length of the final run of consecutive identical observations; sameObsStart.
 * - stretch: the longest stretch of consecutive identical observations anywhere in the run.
 * A run that did NOT succeed is "looping" if repeatTail >= 8 (loopStart = tailStart), or
 * sameObsTail >= 4 (loopStart = sameObsStart), or a stretch >= 8 (loopStart = its first call);
 * otherwise "failed_no_loop".
 */
export function analyzeLoop(steps, { minRepeatTail = 8, minSameObs = 4, minStretch = 8 } = {}) {
  const seen = new Set();
  const isRepeat = steps.map((s) => {
    const key = norm(s.action) + '\u0000' + norm(s.observation);
    const r = seen.has(key);
    seen.add(key);
    return r;
  });
  let tailStart = steps.length;
  while (tailStart > 0 && isRepeat[tailStart - 1]) tailStart--;
  const repeatTail = steps.length - tailStart;
  let sameObsStart = steps.length - 1;
  if (steps.length === 0) sameObsStart = 0;
  else {
    const last = norm(steps[steps.length - 1].observation);
    while (sameObsStart > 0 && norm(steps[sameObsStart - 1].observation) === last) sameObsStart--;
  }
  const sameObsTail = steps.length - sameObsStart;
  // Longest stretch of consecutive identical observations anywhere in the run: an agent can sit in a loop for
  // dozens of calls and still do something new in its last few (a browser agent scrolling an unchanged page 85 times,
  // then clicking away), which the two tail rules cannot see.
  let stretchStart = 0, stretchLength = 0;
  for (let i = 0, start = 0; i < steps.length; i++) {
    if (i > 0 && norm(steps[i].observation) !== norm(steps[i - 1].observation)) start = i;
    if (i - start + 1 > stretchLength) { stretchLength = i - start + 1; stretchStart = start; }
  }
  let looping = false, loopStart, rule;
  if (repeatTail >= minRepeatTail) { looping = true; loopStart = tailStart; rule = 'repeat-tail'; }
  else if (steps.length > 0 && sameObsTail >= minSameObs) { looping = true; loopStart = sameObsStart; rule = 'same-observation'; }
  else if (stretchLength >= minStretch) { looping = true; loopStart = stretchStart; rule = 'same-observation-stretch'; }
  const loopEnd = rule === 'same-observation-stretch' ? stretchStart + stretchLength : steps.length;
  const distinctTailActions = new Set(steps.slice(looping ? loopStart : steps.length, loopEnd).map((s) => norm(s.action)));
  return { looping, loopStart, rule, repeatTail, tailStart, sameObsTail, sameObsStart, stretchStart, stretchLength, distinctTailActions: [...distinctTailActions] };
}

export function shortAct(a, n = 60) {
  // Control characters are escaped: an InterCode observation of a binary file is NUL bytes, which made EVAL.md binary.
  const s = norm(a).replace(/\s+/g, ' ').replace(/[\u0000-\u001f\u007f]/g, (c) => `\\x${c.charCodeAt(0).toString(16).padStart(2, '0')}`);
  return s.length > n ? s.slice(0, n) + '…' : s;
}

/** One-sentence description of a detected loop. */
export function describeLoop(prefix, steps, la) {
  const tail = steps.slice(la.loopStart);
  const acts = la.distinctTailActions.slice(0, 3).map((a) => '`' + shortAct(a) + '`').join(', ');
  if (la.rule === 'repeat-tail') {
    return `${prefix}; last ${tail.length} of ${steps.length} calls (from #${la.loopStart}) repeat earlier (action, observation) pairs, cycling over ${la.distinctTailActions.length} distinct action(s): ${acts}${la.distinctTailActions.length > 3 ? ', …' : ''}`;
  }
  if (la.rule === 'same-observation-stretch') {
    return `${prefix}; calls #${la.stretchStart}–#${la.stretchStart + la.stretchLength - 1} (${la.stretchLength} in a row, of ${steps.length}) all got the identical observation \`${shortAct(steps[la.stretchStart].observation, 50)}\`; actions: ${acts}${la.distinctTailActions.length > 3 ? ', …' : ''}`;
  }
  return `${prefix}; last ${tail.length} calls (from #${la.loopStart}) all got the identical observation \`${shortAct(steps[la.loopStart].observation, 50)}\`; actions: ${acts}${la.distinctTailActions.length > 3 ? ', …' : ''}`;
}
