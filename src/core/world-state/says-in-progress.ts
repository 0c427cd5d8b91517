/**
 * Does a result report a state that is still moving — a job `running`, a deployment
 * `in_progress`, an export `pending`? Then the same answer to the same call a moment later is
 * a wait, not a loop (document 001: "server state can change over time, making identical
 * queries useful"; document 003: repetition is recursion only without a state that advances),
 * and the call is polled like a declared polling tool, until the poll deadline
 * (`shellPollDeadlineMs`) or 2 × `threshold` unchanged answers (checks/polling.ts).
 *
 * Without this, `check_job_status` answering `{"status":"running"}` was refused from its third
 * call unless the user declared it a polling tool, and the run was stopped before the job
 * finished: the "valid polling case" document 001 asks to keep.
 *
 * Narrow on purpose: one status of the result itself, not of items in a list (`{"tickets":
 * [{"status":"pending"}, …]}` is data), and only a word that says "not finished yet". A status
 * answer is short: a result over {@link MAX_STATUS_TEXT} characters is not read.
 */

/** Status answers are short; longer results are not read (no cost on the hot path of large results). */
export const MAX_STATUS_TEXT = 1024;

const MOVING = 'queued|pending|running|in[_ -]?progress|processing|starting|started|creating|provisioning|initiali[sz]ing|waiting|scheduled|building|deploying|updating|submitted';
const STATUS_KEYS = new Set(['status', 'state', 'phase', 'job_status', 'jobStatus', 'run_status', 'runStatus']);
/** One level down: the object a status answer is about (`{"job": {"id": …, "status": "running"}}`). */
const SUBJECT_KEYS = new Set(['job', 'run', 'task', 'deployment', 'build', 'operation', 'workflow_run', 'data', 'result', 'status']);
const MOVING_VALUE = new RegExp(`^(?:${MOVING})$`, 'i');
/** What an envelope says of the request, not of the thing (JSend's `"status": "success"`): read past at the top. */
const ENVELOPE_VALUE = /^(?:ok|success)$/i;
/** `"status": "running"` in JSON text: the gate before the text is parsed. */
const JSON_STATUS = new RegExp(`"(?:status|state|phase|job_?[sS]tatus|run_?[sS]tatus)"\\s*:\\s*"(?:${MOVING})"`, 'i');
/** A line of its own in text: `Status: Running`, `state = pending`. */
const TEXT_STATUS = new RegExp(`(?:^|\\n)[ \\t]*(?:status|state|phase)[ \\t]*[:=][ \\t]*(?:${MOVING})[ \\t]*\\.?[ \\t]*(?:\\r?\\n|$)`, 'i');

export function saysInProgress(result: unknown): boolean {
  if (typeof result === 'string') return textSaysInProgress(result);
  if (typeof result !== 'object' || result === null || Array.isArray(result)) return false;
  return objectSaysInProgress(result as Record<string, unknown>, 0);
}

function textSaysInProgress(text: string): boolean {
  if (text.length > MAX_STATUS_TEXT) return false;
  const trimmed = text.trimStart();
  if (trimmed.startsWith('{')) {
    if (!JSON_STATUS.test(text)) return false;
    try {
      const value: unknown = JSON.parse(text);
      return typeof value === 'object' && value !== null && !Array.isArray(value) && objectSaysInProgress(value as Record<string, unknown>, 0);
    } catch {
      return false;
    }
  }
  return !trimmed.startsWith('[') && TEXT_STATUS.test(text);
}

/** One status that says "moving", no status that says otherwise, no list of things with their own. */
function objectSaysInProgress(value: Record<string, unknown>, depth: number): boolean {
  let moving = false;
  for (const key in value) {
    const member = value[key];
    if (STATUS_KEYS.has(key) && typeof member === 'string') {
      if (MOVING_VALUE.test(member)) moving = true;
      else if (depth > 0 || !ENVELOPE_VALUE.test(member)) return false;
    } else if (Array.isArray(member) && member.length > 0 && typeof member[0] === 'object') {
      return false;
    } else if (depth === 0 && SUBJECT_KEYS.has(key) && typeof member === 'object' && member !== null && !Array.isArray(member)) {
      if (objectSaysInProgress(member as Record<string, unknown>, 1)) moving = true;
      else if (hasStatus(member as Record<string, unknown>)) return false;
    }
  }
  return moving;
}

function hasStatus(value: Record<string, unknown>): boolean {
  for (const key in value) if (STATUS_KEYS.has(key) && typeof value[key] === 'string') return true;
  return false;
}
