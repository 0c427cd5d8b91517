/**
 * Does a tool of unknown effect read, by its name, like a look at a state (`check_job_status`,
 * `get_workflow_run`, `deploymentState`, `poll_export`)? Then its answer saying `running` makes
 * the same call again a poll (world-state/says-in-progress.ts, run-guard.ts policyOf).
 *
 * A tool of unknown effect may be an action: `process_refund` answering `{"status":
 * "processing"}`, read as a poll, processed the same refund again until the poll ran out — a
 * write run ten times, the worst thing loopguard can do. Before the status reading, the third
 * identical call with the same answer was refused, and an action still is: a status poll is
 * inferred for an unknown tool only from a name that says it looks. Tools known to read (a
 * well-known read, MCP `readOnlyHint`, `readOnly: true`) poll whatever their name; tools known
 * to write never do.
 */
const LOOK_VERB = /^(?:get|check|describe|fetch|poll|wait|watch|view|show|read|query|inspect|lookup|look|find|list|search|monitor|track|retrieve|peek|await)(?:[_\-.A-Z0-9]|$)/;
const STATE_WORD = /status|state|progress|health/i;

/** `name`: the tool's own name (without an MCP client's `mcp__server__` prefix). */
export function namesAStatusLook(name: string): boolean {
  return LOOK_VERB.test(name) || STATE_WORD.test(name);
}
