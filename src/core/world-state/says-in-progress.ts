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
 * [{"status":"pending"}, …]}` is data; a list of one at the top is the thing itself), and only
 * a word that says "not finished yet".
 *
 * A JSON answer is judged by its structure, at any size, and alike whether the tool returned
 * an object, JSON text or an MCP text part: result-fingerprint.ts asks {@link objectSaysInProgress}
 * of the value it parsed or was given, and of JSON text it read without parsing only when the
 * scan saw such a status member say "moving" ({@link isStatusKey}). Plain text is read
 * for a status line only up to {@link MAX_STATUS_TEXT} characters.
 */

/**
 * A status line is looked for in plain text this short: a status answer is short, and a long
 * log that mentions `status: running` on one of its lines is a log (and the regex stays off
 * the hot path of large text results).
 */
export const MAX_STATUS_TEXT = 1024;

// AWS writes what is moving before `IN_PROGRESS` (CloudFormation's `UPDATE_ROLLBACK_IN_PROGRESS`);
// RDS and the batch APIs use the verbs (`modifying`, `backing-up`, `validating`, `finalizing`).
// Job queues and crawlers: fal's and RunPod's `IN_QUEUE`, Firecrawl's crawl `scraping`, and the
// work such jobs report (`indexing`, `training`, `transcoding`, …); before, the third identical
// look at a crawl still `scraping` 10 of 50 pages was refused and the run stopped.
const MOVING =
  'queued|pending|running|(?:[a-z]+_)*in[_ -]?progress|processing|starting|started|creating|provisioning|initiali[sz]ing|waiting|scheduled|building|deploying|updating|submitted' +
  '|modifying|deleting|stopping|rebooting|restarting|upgrading|validating|finalizing|cancell?ing|backing[_ -]up' +
  '|in[_ -]?queue|enqueued|scraping|crawling|indexing|training|generating|rendering|transcoding|encoding|uploading|downloading' +
  '|importing|exporting|syncing|migrating|compiling|executing|analy[sz]ing|aborting';
// Azure's `provisioningState` (`Updating`), Vercel's deployment `readyState` (`BUILDING`).
const STATUS_KEYS: ReadonlySet<string> = new Set(['status', 'state', 'phase', 'job_status', 'jobStatus', 'run_status', 'runStatus', 'provisioningState', 'readyState']);
/**
 * A key whose last word is the status or state of what it names: AWS's `StackStatus`,
 * `DBInstanceStatus`, `TrainingJobStatus`, `JobRunState`, CodeBuild's `buildStatus`, ECS's
 * `rolloutState`, the batch APIs' `processing_status`, Databricks' `life_cycle_state`.
 */
const STATUS_KEY_SUFFIX = /^(?:Status|State|[A-Za-z0-9]*[a-z0-9](?:Status|State)|[a-z0-9_]*_(?:status|state))$/;

/** Is `key` the name of a status ({@link STATUS_KEYS}, or a name ending in one: {@link STATUS_KEY_SUFFIX})? */
export function isStatusKey(key: string): boolean {
  if (STATUS_KEYS.has(key)) return true;
  // Most keys never reach the regex: only a name ending in `tatus` or `tate` can match it.
  return (key.endsWith('tatus') || key.endsWith('tate')) && STATUS_KEY_SUFFIX.test(key);
}
/**
 * One level down: the object a status answer is about (`{"job": {"id": …, "status": "running"}}`;
 * Azure's `properties`), and the one member of a wrapper of one (isOnlyMember).
 */
const SUBJECT_KEYS: ReadonlySet<string> = new Set(['job', 'run', 'task', 'deployment', 'build', 'operation', 'workflow_run', 'data', 'result', 'status', 'properties']);
/**
 * Lists of the parts of the one thing whose status the answer gives, not of other things:
 * GitHub's combined status (`{"state": "pending", "statuses": [...]}`) and check runs, a
 * pipeline's steps, stages or phases (CodeBuild), Kubernetes' conditions.
 */
const PART_LIST_KEYS: ReadonlySet<string> = new Set(['statuses', 'check_runs', 'checks', 'steps', 'stages', 'phases', 'conditions']);

/** Is this the key of a list of the parts of the thing whose status an answer gives ({@link PART_LIST_KEYS})? */
export function isPartListKey(key: string): boolean {
  return PART_LIST_KEYS.has(key);
}
export const SUBJECT_KEY_TOKENS: ReadonlySet<string> = new Set([...SUBJECT_KEYS].map((key) => `"${key}"`));
/** A status value longer than this is no state's name (`PIPELINE_STATE_QUEUED` is 21). */
const MAX_STATUS_VALUE = 64;
/**
 * A status value that says so, whole: also behind the enum's own prefix, as Google Cloud writes
 * its states (Vertex AI's and Dataflow's `JOB_STATE_RUNNING`, `PIPELINE_STATE_PENDING`; before,
 * a training job polled every minute answered the same state and the third look was refused),
 * but never `NOT_RUNNING`. At most {@link MAX_STATUS_VALUE} characters, checked first: the enum
 * prefix can be split into words many ways, and a long value of `a_a_a_…` took seconds.
 */
export const MOVING_VALUE = new RegExp(`^(?=[^]{1,${MAX_STATUS_VALUE}}$)(?!not[_ -])(?:[a-z]+_)*(?:${MOVING})$`, 'i');
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

/**
 * A JSON value (parsed or given) with one status that says "moving", no status that says
 * otherwise, no list of things it is about (recordSaysInProgress). A list of one record is that
 * record: a SQL tool's rows for `SELECT status FROM jobs WHERE id = 5` are `[{"status": "running"}]`.
 */
export function objectSaysInProgress(value: unknown): boolean {
  if (typeof value !== 'object' || value === null) return false;
  if (!Array.isArray(value)) return recordSaysInProgress(value as Record<string, unknown>, 0, false);
  const only: unknown = value.length === 1 ? value[0] : undefined;
  return typeof only === 'object' && only !== null && !Array.isArray(only) && recordSaysInProgress(only as Record<string, unknown>, 1, true);
}

/**
 * `inListOfOne`: `value` is the one item of a list at the top. Its own lists are data about it
 * (a stack's `Parameters`, `Outputs`) unless their items have statuses of their own; anywhere
 * else any list of records is data the answer is about (a tau-bench order's `items`, `pending`
 * until it ships: the same order read again is a look, not a poll).
 */
function recordSaysInProgress(value: Record<string, unknown>, depth: number, inListOfOne: boolean): boolean {
  let moving = false;
  for (const key in value) {
    const member = value[key];
    if (typeof member === 'string' && isStatusKey(key)) {
      if (MOVING_VALUE.test(member)) moving = true;
      else if (depth > 0 || !ENVELOPE_VALUE.test(member)) return false;
    } else if (Array.isArray(member) && member.length > 0 && typeof member[0] === 'object') {
      if (PART_LIST_KEYS.has(key)) continue;
      const first = member[0] as Record<string, unknown> | null;
      const record = first !== null && !Array.isArray(first);
      // A list of one at the top is the one thing asked about when it says "moving": AWS
      // answers a describe of one stack with `{"Stacks": [{… "StackStatus": "CREATE_IN_PROGRESS"}]}`.
      if (depth === 0 && member.length === 1 && record) {
        if (recordSaysInProgress(first, 1, true)) moving = true;
        else return false;
      } else if (!inListOfOne || !record || hasStatus(first)) {
        return false;
      }
    } else if (depth === 0 && typeof member === 'object' && member !== null && !Array.isArray(member) && (SUBJECT_KEYS.has(key) || isOnlyMember(value, key))) {
      if (recordSaysInProgress(member as Record<string, unknown>, 1, false)) moving = true;
      else if (hasStatus(member as Record<string, unknown>)) return false;
    }
  }
  return moving;
}

/**
 * Is `key` the one member of `value`? A wrapper of one is its subject, whatever its name: AWS's
 * `{"JobRun": {…}}`, EKS's `{"cluster": {…}}`.
 */
function isOnlyMember(value: Record<string, unknown>, key: string): boolean {
  for (const other in value) if (other !== key) return false;
  return true;
}

function hasStatus(value: Record<string, unknown>): boolean {
  for (const key in value) if (typeof value[key] === 'string' && isStatusKey(key)) return true;
  return false;
}
