/**
 * Arguments an agent harness adds to every call of its own tools to keep its books, written
 * anew by the model each time: Cline's `task_progress` checklist, a `thought` / `reasoning` /
 * `explanation` / `intent` sentence about why the call is made. They say nothing about what
 * the call does, so they are not part of its identity (issue 18 #5): left in, `ls` run five
 * times under five wordings of the checklist is five different calls and never a repeat.
 *
 * Dropped for the well-known tools (world-state/well-known-tools.ts: Claude Code, Cline / Roo
 * Code, gemini-cli, OpenHands, SWE-agent, the MCP filesystem server), where the harness is
 * known to add them. Not for every tool: a user's own `think(thought)` or
 * `create_issue(description)` would collapse into one call. For those, the `bookkeepingArgs`
 * option names the arguments to drop from every tool, and `tools[name].volatileArgs` from one.
 * (`description` is dropped only for the tools that use it as a label: the shell tools of
 * Claude Code, gemini-cli and opencode, Task and Agent, see WELL_KNOWN_LABEL_ARGUMENTS.)
 */
export const WELL_KNOWN_BOOKKEEPING_ARGUMENTS: readonly string[] = [
  'task_progress', 'taskProgress', 'thought', 'thoughts', 'reasoning', 'explanation', 'intent', 'rationale',
];

/**
 * Argument names that select data by time (`since`, `from`, `date`…): semantic even when their
 * value is close to the call's own start (`list_events(since=now-5min)` and the same call an
 * hour later ask different questions), so never treated as a wall-clock stamp.
 */
export const DATA_SELECTING_TIME_ARGS: ReadonlySet<string> = new Set([
  'since', 'until', 'from', 'to', 'date', 'day', 'start', 'end', 'after', 'before', 'at', 'as_of', 'asOf',
  'start_date', 'end_date', 'startDate', 'endDate', 'start_time', 'end_time', 'startTime', 'endTime',
  'time_min', 'time_max', 'timeMin', 'timeMax', 'min_time', 'max_time', 'from_date', 'to_date', 'fromDate', 'toDate',
  'window', 'range', 'period', 'timeframe', 'time_range', 'timeRange', 'deadline', 'due', 'due_date', 'dueDate',
]);
