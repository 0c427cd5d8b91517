/**
 * Does a result report a state that is still moving — a job `running`, a deployment
 * `in_progress`, an export `pending`? Then the same answer to the same call a moment later is
 * a wait, not a loop (document 001: "server state can change over time, making identical
 * queries useful"; document 003: repetition is recursion only without a state that advances),
 * and the call is polled like a declared polling tool, until the poll deadline
 * (`shellPollDeadlineMs`), or 2 × `threshold` unchanged answers while looks come faster than
 * one per PACED_POLL_MS on average (checks/polling.ts).
 *
 * Without this, `check_job_status` answering `{"status":"running"}` was refused from its third
 * call unless the user declared it a polling tool, and the run was stopped before the job
 * finished: the "valid polling case" document 001 asks to keep.
 *
 * Narrow on purpose: one status of the result itself, not of items in a list (`{"tickets":
 * [{"status":"pending"}, …]}` is data), and only a word that says "not finished yet".
 *
 * A JSON answer is judged by its structure, at any size, and alike whether the tool returned
 * an object, JSON text or an MCP text part: result-fingerprint.ts asks {@link objectSaysInProgress}
 * of the value it parsed or was given, and of JSON text it read without parsing only when the
 * scan saw such a status member say "moving" ({@link STATUS_KEY_TOKENS}). Plain text is read
 * for a status line only up to {@link MAX_STATUS_TEXT} characters.
 */

/**
 * A status line is looked for in plain text this short: a status answer is short, and a long
 * log that mentions `status: running` on one of its lines is a log (and the regex stays off
 * the hot path of large text results).
 */
export const MAX_STATUS_TEXT = 1024;

const MOVING = 'queued|pending|running|in[_ -]?progress|processing|starting|started|creating|provisioning|initiali[sz]ing|waiting|scheduled|building|deploying|updating|submitted';
// Azure's `provisioningState` (`Updating`), Vercel's deployment `readyState` (`BUILDING`).
const STATUS_KEYS: ReadonlySet<string> = new Set(['status', 'state', 'phase', 'job_status', 'jobStatus', 'run_status', 'runStatus', 'provisioningState', 'readyState']);
/** One level down: the object a status answer is about (`{"job": {"id": …, "status": "running"}}`; Azure's `properties`). */
const SUBJECT_KEYS: ReadonlySet<string> = new Set(['job', 'run', 'task', 'deployment', 'build', 'operation', 'workflow_run', 'data', 'result', 'status', 'properties']);
/**
 * Lists of the parts of the one thing whose status the answer gives, not of other things:
 * GitHub's combined status (`{"state": "pending", "statuses": [...]}`) and check runs, a
 * pipeline's steps or stages, Kubernetes' conditions.
 */
const PART_LIST_KEYS: ReadonlySet<string> = new Set(['statuses', 'check_runs', 'checks', 'steps', 'stages', 'conditions']);

/** Is this the key of a list of the parts of the thing whose status an answer gives ({@link PART_LIST_KEYS})? */
export function isPartListKey(key: string): boolean {
  return PART_LIST_KEYS.has(key);
}
/** The keys above as JSON tokens, for the JSON text scan (json-text-shape.ts) to flag a text worth parsing. */
export const STATUS_KEY_TOKENS: ReadonlySet<string> = new Set([...STATUS_KEYS].map((key) => `"${key}"`));
export const SUBJECT_KEY_TOKENS: ReadonlySet<string> = new Set([...SUBJECT_KEYS].map((key) => `"${key}"`));
export const MOVING_VALUE = new RegExp(`^(?:${MOVING})$`, 'i');
/** What an envelope says of the request, not of the thing (JSend's `"status": "success"`): read past at the top. */
const ENVELOPE_VALUE = /^(?:ok|success)$/i;
/** A line of its own in text: `Status: Running`, `state = pending`. */
const TEXT_STATUS = new RegExp(`(?:^|\\n)[ \\t]*(?:status|state|phase)[ \\t]*[:=][ \\t]*(?:${MOVING})[ \\t]*\\.?[ \\t]*(?:\\r?\\n|$)`, 'i');

/**
 * A sentence that says the thing is not finished yet: "Build #42 is still running", "Your
 * export is being processed", "The report is queued". Not "is running" alone: a dev server
 * that "is running on port 3000" has finished starting.
 */
const TEXT_STILL_MOVING = /\bstill (?:running|processing|pending|building|deploying|in progress|queued|waiting)\b|\b(?:is|are) (?:being processed|in progress|queued|pending)\b/i;

/** Plain text (not JSON) that is short and has a status line saying "moving", or says so in a sentence. */
export function textSaysInProgress(text: string): boolean {
  return text.length <= MAX_STATUS_TEXT && (TEXT_STATUS.test(text) || TEXT_STILL_MOVING.test(text));
}

/** A JSON value (parsed or given) with one status that says "moving", no status that says otherwise, no list of things with their own. */
export function objectSaysInProgress(value: unknown): boolean {
  return typeof value === 'object' && value !== null && !Array.isArray(value) && recordSaysInProgress(value as Record<string, unknown>, 0);
}

function recordSaysInProgress(value: Record<string, unknown>, depth: number): boolean {
  let moving = false;
  for (const key in value) {
    const member = value[key];
    if (STATUS_KEYS.has(key) && typeof member === 'string') {
      if (MOVING_VALUE.test(member)) moving = true;
      else if (depth > 0 || !ENVELOPE_VALUE.test(member)) return false;
    } else if (Array.isArray(member) && member.length > 0 && typeof member[0] === 'object') {
      if (!PART_LIST_KEYS.has(key)) return false;
    } else if (depth === 0 && SUBJECT_KEYS.has(key) && typeof member === 'object' && member !== null && !Array.isArray(member)) {
      if (recordSaysInProgress(member as Record<string, unknown>, 1)) moving = true;
      else if (hasStatus(member as Record<string, unknown>)) return false;
    }
  }
  return moving;
}

function hasStatus(value: Record<string, unknown>): boolean {
  for (const key in value) if (STATUS_KEYS.has(key) && typeof value[key] === 'string') return true;
  return false;
}
