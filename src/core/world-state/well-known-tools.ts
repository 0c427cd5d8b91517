/**
 * Tools whose effect is known without a policy, because the agents people run ship them
 * under these names: Claude Code, gemini-cli, OpenHands and SWE-agent, Cline / Roo Code,
 * the reference MCP filesystem server. Used by the `general` profile only, and only when
 * the per-tool policy and MCP annotations say nothing; a policy entry always wins.
 *
 * Only `read` entries can lead to a refusal (an identical read with nothing written since),
 * so that list is kept to tools that cannot write by construction. A name missing here is
 * `unknown`, which may run again until its own outcomes confirm that nothing changes: the
 * safe direction (document 000: every unclear case leans toward "new fact").
 */

/** Shell tools: each call's command line is classified. Value: the argument holding it. */
export const WELL_KNOWN_SHELL_TOOLS: ReadonlyMap<string, string> = new Map([
  ['bash', 'command'],
  ['Bash', 'command'],
  ['shell', 'command'],
  ['sh', 'command'],
  ['terminal', 'command'],
  ['execute_bash', 'command'],
  ['execute_command', 'command'],
  ['run_command', 'command'],
  ['run_shell_command', 'command'],
  ['run_terminal_cmd', 'command'],
  // VS Code's agent mode (GitHub Copilot)
  ['run_in_terminal', 'command'],
  ['exec_command', 'cmd'],
  ['local_shell', 'command'],
  // Desktop Commander's MCP server (its output read with read_process_output, WELL_KNOWN_POLL_TOOLS)
  ['start_process', 'command'],
]);

/**
 * SQL tools: each call's statement is classified (world-state/classify-sql-statement.ts), a
 * `SELECT` a read, an `INSERT` a write, anything it cannot tell unknown; the statement is read
 * from SQL_STATEMENT_ARGUMENTS. InterCode and Supabase's MCP server call it
 * `execute_sql`; LangChain's SQL toolkit `sql_db_query`; the reference SQLite MCP server
 * `read_query` / `write_query`, the reference Postgres server `query` (with `sql`).
 */
export const WELL_KNOWN_SQL_TOOLS: ReadonlySet<string> = new Set([
  'execute_sql', 'run_sql', 'sql', 'sql_query', 'query_sql', 'execute_sql_query', 'run_sql_query', 'sql_db_query',
  'execute_query', 'run_query', 'query', 'read_query', 'write_query', 'db_query', 'query_database', 'mysql_query',
  'postgres_query', 'pg_query', 'sqlite_query', 'duckdb_query',
]);

/** The arguments a SQL tool's statement is looked for in, in order; else its only string argument. */
export const SQL_STATEMENT_ARGUMENTS: readonly string[] = ['sql', 'query', 'statement', 'sql_query'];

/**
 * Browser tools that read the current page through a model and change nothing: browser-use's
 * `extract_structured_data` (`extract_content` before 0.5), Stagehand's `extract` and `observe`
 * as its MCP servers name them. Their answer is an extraction written anew on every call, so the
 * same extraction of an unchanged page never looked like a repeat (a browser-use agent asking
 * for the same list eight times was never stopped). As reads of the page, the identical call is
 * refused until a page action or a write moves the page (run-guard.ts pageEpoch).
 */
const PAGE_READ_TOOLS = [
  'extract_structured_data', 'extract_content', 'extract_page_content',
  // browser-use 0.7+: text and elements found on the current page
  'search_page', 'find_elements', 'find_text',
  'stagehand_extract', 'stagehand_observe', 'browserbase_stagehand_extract', 'browserbase_stagehand_observe',
  'multi_browserbase_stagehand_extract_session', 'multi_browserbase_stagehand_observe_session', 'browserbase_stagehand_get_url',
];

/** Tools that read and cannot write. */
export const WELL_KNOWN_READ_TOOLS: ReadonlySet<string> = new Set([
  // Claude Code
  // (Not BashOutput: it polls a background shell, WELL_KNOWN_POLL_TOOLS.)
  'Read', 'Grep', 'Glob', 'LS', 'WebFetch', 'WebSearch', 'NotebookRead',
  // gemini-cli
  'read_file', 'read_many_files', 'list_directory', 'glob', 'search_file_content', 'google_web_search', 'web_fetch',
  // MCP reference filesystem server
  'read_text_file', 'read_media_file', 'read_multiple_files', 'directory_tree', 'search_files', 'get_file_info',
  'list_allowed_directories', 'list_directory_with_sizes',
  // Cline / Roo Code
  'list_files', 'search_files', 'list_code_definition_names',
  // SWE-agent's search tools, when a harness names each SWE-agent command as its own tool
  'search_dir', 'search_file', 'find_file', 'filemap',
  // Cursor; VS Code's agent mode (GitHub Copilot)
  'codebase_search', 'grep_search', 'file_search', 'list_dir', 'semantic_search',
  // Page reads (also browser tools, below): an LLM's extraction of the current page, worded anew
  // on every call, so only the call on an unchanged page tells a repeat
  ...PAGE_READ_TOOLS,
]);

/**
 * Tools that only let time pass (`wait(seconds=30)`, `sleep(30)`): an agent without a shell
 * waits with one between looks at something that moves by itself — a reply in a Slack channel,
 * a verification e-mail, a page still loading. The look in the round after the wait is a poll
 * with the shell poll deadline, as after a shell line that only sleeps (run-guard.ts factsOf);
 * before, the third unchanged look was refused and the agent stopped before the reply came.
 * Each is a poll tool too (below): waiting again is no repeat.
 */
export const WELL_KNOWN_WAIT_TOOLS: ReadonlySet<string> = new Set(['wait', 'sleep']);

/**
 * Tools that wait on something that changes by itself. Claude Code's `BashOutput` (a shell
 * started with `run_in_background`) and `TaskOutput`, its later name (a background task;
 * `block: true` waits up to its `timeout`), Codex CLI's `write_stdin` (`chars: ""` waits on a
 * session `exec_command` left running), Windsurf's `command_status` and VS Code's
 * `get_terminal_output`, and Desktop Commander's `read_process_output` (`read_output` in its
 * first releases; "No new output available" while a build runs) read the output of a command still running; a
 * browser agent's wait gives a page time to change (Playwright MCP's `browser_wait_for`,
 * BrowserGym's `noop(wait_ms)`, browser-use's `wait`; computer use's `wait` action is one by
 * its action, resolve-call-effect.ts). Waiting on a build that prints nothing, or a CI page
 * still "in progress", is their job, so they are polls with the shell poll deadline
 * (`shellPollDeadlineMs`, 10 minutes): the same answer is neutral until then, refused after.
 * A policy wins.
 */
export const WELL_KNOWN_POLL_TOOLS: ReadonlySet<string> = new Set([
  'BashOutput', 'TaskOutput', 'write_stdin', 'command_status', 'get_terminal_output', 'read_process_output', 'read_output',
  'browser_wait_for', 'noop', 'do_nothing_tool', ...WELL_KNOWN_WAIT_TOOLS,
]);

/**
 * Code interpreters: a cell runs in a kernel that keeps its state (`df = df.dropna()`), so each
 * call may change what the next one prints — a write, as a shell line that runs a program is.
 * Read as unknown, seven cleaning steps each printing the same `df.shape` were seven seen
 * answers and the analysis was stopped at the sixth. gpt-oss's and ChatGPT's `python`, E2B's
 * `run_code`, smolagents' `python_interpreter`, LangChain's Python REPL tools, Jupyter MCP
 * servers. Matched in any case and without `_`, `-` or spaces (policy.ts): `Python`, CrewAI's
 * `Code Interpreter`, LangChain's `Python_REPL` are the same tools.
 */
export const CODE_INTERPRETER_TOOLS: readonly string[] = [
  'python', 'execute_code', 'run_code', 'code_interpreter', 'code_execution', 'python_interpreter', 'execute_python',
  'run_python', 'python_repl', 'python_repl_ast', 'execute_ipython', 'execute_cell', 'run_cell',
];

/** Tools that write (results that only acknowledge the write are neither new nor seen). */
export const WELL_KNOWN_WRITE_TOOLS: ReadonlySet<string> = new Set([
  // Claude Code
  'Edit', 'MultiEdit', 'Write', 'NotebookEdit',
  // gemini-cli, MCP filesystem, Cline / Roo Code
  'write_file', 'replace', 'edit_file', 'create_directory', 'move_file', 'write_to_file', 'replace_in_file',
  'apply_diff', 'insert_content', 'search_and_replace', 'save_memory',
  // SWE-agent's windowed editing commands named as tools; OpenHands' IPython cell, which runs any code
  'edit', 'create', 'insert', 'execute_ipython_cell',
  // (Code interpreters are writes too: CODE_INTERPRETER_TOOLS, matched folded by policy.ts.)
  // Cursor's edit tool (its name starts with a read verb)
  'search_replace',
]);

/**
 * File editors whose `command` argument says whether the call reads (`view`) or writes
 * (`create`, `str_replace`, `insert`, `undo_edit`): SWE-agent's and OpenHands'
 * `str_replace_editor`, Anthropic's text editor tool.
 */
export const WELL_KNOWN_EDITOR_TOOLS: ReadonlySet<string> = new Set([
  'str_replace_editor',
  'str_replace_based_edit_tool',
  'text_editor',
  // the OpenHands agent SDK's FileEditorTool, and smolagents ports of it
  'file_editor',
]);

/**
 * Arguments that are labels for the person watching, not part of what the call does: Claude
 * Code's Bash `description` ("List files in current directory", written anew by the model on
 * every call), the same argument of gemini-cli's `run_shell_command` and opencode's `bash`,
 * the `justification` Codex asks for beside an escalated command, and the Task / Agent tool's
 * short `description` of the prompt it carries. Left in, `ls` run five times under five
 * wordings would be five different calls and never a repeat. Dropped from call identity in
 * every profile, live (hooks, spans) and in replay alike.
 */
export const WELL_KNOWN_LABEL_ARGUMENTS: ReadonlyMap<string, readonly string[]> = new Map([
  ['Bash', ['description']],
  ['bash', ['description']],
  ['run_shell_command', ['description']],
  ['shell', ['justification']],
  ['exec_command', ['justification']],
  ['Task', ['description']],
  ['Agent', ['description']],
]);

/**
 * Tools the model calls to think out loud: OpenHands' `think` (CodeActAgent; it answers "Your
 * thought has been logged."), Anthropic's think tool, the MCP sequential-thinking server (matched
 * by the tool's own name, as Claude Code's `mcp__<server>__` prefix is dropped). They read nothing and write nothing, and
 * their answer is the same acknowledgement whatever the thought: a new thought is no stale
 * result, the same thought again is a repeat (run-guard.ts judgeNovelty). For these the
 * `thought` argument is what the call does, so it stays in the call's identity although it is
 * a bookkeeping argument of every other well-known tool (noise/bookkeeping-arguments.ts).
 */
export const WELL_KNOWN_THOUGHT_TOOLS: ReadonlyMap<string, readonly string[]> = new Map([
  ['think', ['thought', 'thoughts']],
  // The agent's own plan, written down: Claude Code's TodoWrite, OpenHands' task_tracker, Codex's
  // update_plan, gemini-cli's write_todos, Cursor's todo_write, Roo Code's update_todo_list. They
  // write only the plan no other tool reads, and answer with the same acknowledgement. As writes,
  // each plan update between two identical commands made the second a re-run after a write: a
  // loop that updates its todos before each repeat was never refused (83 corpus loops went on).
  ['TodoWrite', ['todos']],
  ['task_tracker', ['command', 'task_list']],
  ['update_plan', ['plan']],
  ['write_todos', ['todos']],
  ['todo_write', ['todos', 'merge']],
  ['update_todo_list', ['todos']],
  // The MCP reference server's sequential thinking answers each thought with its own counters
  // (`{"thoughtNumber": 3, "thoughtHistoryLength": 3, …}`): new every time, no fact about the world.
  ['sequentialthinking', ['thought']],
  ['sequential_thinking', ['thought']],
]);

/** Tools that submit or finish the task; some protocols call them twice by design. */
export const WELL_KNOWN_TERMINAL_TOOLS: ReadonlySet<string> = new Set([
  'submit', 'finish', 'Finish', 'final_answer', 'finalAnswer', 'task_complete', 'attempt_completion', 'complete_task',
]);

/**
 * Tools that deliver the answer or hand the conversation off, under the names the agents
 * people run ship them: BrowserGym's `send_msg_to_user` and `report_infeasible`, tau-bench's
 * `respond` and `transfer_to_human_agents`, browser-use's `done`, smolagents' `final_answer`,
 * pydantic-ai's `final_result`, Cline / Roo Code's `ask_followup_question`, WebArena's `stop`, the LangGraph
 * customer-support tutorial's `CompleteOrEscalate` (the same hand-off text every time it is
 * used: seen in the corpus, corpus-findings.md 15:16). Treated like the
 * terminal tools above (answer tools are sacred: checks/terminal-tools.ts).
 */
export const WELL_KNOWN_ANSWER_TOOLS: ReadonlySet<string> = new Set([
  'send_msg_to_user', 'report_infeasible', 'respond', 'transfer_to_human_agents', 'transfer_to_human', 'done',
  'final_result', 'submit_answer', 'answer', 'ask_followup_question', 'AskUserQuestion', 'CompleteOrEscalate',
  // a plan handed to the user for approval: Claude Code's ExitPlanMode, Cline's plan_mode_respond
  'ExitPlanMode', 'plan_mode_respond',
  // WebArena's own action space ends a task with `stop [answer]`
  'stop',
  // Notte's agent ends with `completion(success, answer)`; Convergence's proxy-lite with `return_value(value)`;
  // UI-TARS with `finished(content)`, or hands the task to the user with `call_user()`
  'completion', 'return_value', 'finished', 'call_user',
]);

/** Browser tools whose own name is the action: no argument names it (WELL_KNOWN_BROWSER_TOOLS' value undefined). */
function namedActions(names: readonly string[]): [string, undefined][] {
  return names.map((name) => [name, undefined]);
}

/**
 * Browser and GUI tools (world-state/page-state.ts): each action's result is the page it
 * leads to, and what they change is the page, never the workspace — a click cannot make a
 * file listing out of date. Value: the argument naming the action for tools that take one
 * (Roo Code / Cline `browser_action`, Anthropic computer use `computer`; an object's `type`, as in
 * OpenAI's `computer_use_preview`), else undefined.
 * BrowserGym's action set, Playwright MCP, browser-use.
 */
export const WELL_KNOWN_BROWSER_TOOLS: ReadonlyMap<string, string | undefined> = new Map<string, string | undefined>([
  // BrowserGym (WebArena, WorkArena, MiniWoB) high-level actions
  ...namedActions(['click', 'dblclick', 'hover', 'fill', 'clear', 'select_option', 'press', 'focus', 'scroll', 'goto', 'go_back', 'go_forward',
    'new_tab', 'tab_close', 'tab_focus', 'upload_file', 'drag_and_drop', 'mouse_click', 'mouse_move', 'keyboard_type', 'keyboard_press', 'noop']),
  // WebArena's own action space (browser_env/actions.py), where it differs from BrowserGym's
  ...namedActions(['type', 'close_tab']),
  // Playwright MCP
  ...namedActions(['browser_navigate', 'browser_navigate_back', 'browser_navigate_forward', 'browser_click', 'browser_type', 'browser_fill_form',
    'browser_select_option', 'browser_press_key', 'browser_hover', 'browser_drag', 'browser_snapshot', 'browser_take_screenshot',
    'browser_wait_for', 'browser_tabs', 'browser_tab_new', 'browser_tab_select', 'browser_tab_close', 'browser_handle_dialog',
    'browser_file_upload', 'browser_mouse_click_xy', 'browser_mouse_move_xy', 'browser_mouse_drag_xy', 'browser_scroll']),
  // browser-use
  ...namedActions(['go_to_url', 'click_element_by_index', 'input_text', 'scroll_down', 'scroll_up', 'scroll_to_text', 'send_keys', 'switch_tab',
    'open_tab', 'get_dropdown_options', 'select_dropdown_option']),
  // browser-use before 0.2 (the release most published WebVoyager runs used): `click_element` answers
  // "🖱️  Clicked button with index 40: Next" on every page, so paging by it was one call repeated and
  // stopped on page 4; `search_google` opens Google's results for a query in the current tab.
  ...namedActions(['click_element', 'search_google']),
  // Notte's agent (notte_core actions) beside its `goto`, `click`, `fill`, `go_back`, `scroll_down`, `switch_tab`;
  // Convergence's proxy-lite (tools/browser_tool.py) beside its `goto`, `click`, `type`, `scroll`, `wait`.
  // Neither's `scrape` / `google_search`: names that fetching and search-API tools carry too.
  ...namedActions(['goto_new_tab', 'press_key', 'reload', 'fallback_fill', 'multi_factor_fill', 'back', 'do_nothing_tool']),
  // browser-use 0.7 and later renamed its actions (`click`, `scroll`, `go_back` and `send_keys` are above). Its `search`,
  // `extract`, `evaluate`, `switch` and `close` are left out: names that other agents' tools carry too.
  ...namedActions(['navigate', 'input', 'select_dropdown', 'dropdown_options']),
  // Browserbase's MCP server (Stagehand): `act` answers one line about the action ("Action performed successfully: …"),
  // so paging by the same "click the Next page button" was read as one call repeated and stopped on page 3. Its
  // first releases' names, and Stagehand's own MCP server's.
  ...namedActions(['browserbase_stagehand_navigate', 'browserbase_stagehand_act', 'browserbase_screenshot', 'multi_browserbase_stagehand_navigate_session',
    'multi_browserbase_stagehand_act_session', 'browserbase_navigate', 'browserbase_click', 'browserbase_fill', 'browserbase_hover',
    'browserbase_select', 'stagehand_navigate', 'stagehand_act']),
  // UI-TARS's GUI actions beside its `click`, `type`, `scroll`, `wait` (a desktop's screen is its page)
  ...namedActions(['left_double', 'right_single', 'drag', 'hotkey']),
  // Agent Browser Protocol's MCP server, beside its `browser_action`, `browser_navigate` and `browser_scroll`
  ...namedActions(['browser_select_picker', 'browser_slider']),
  // page reads (browser-use, Stagehand): also in WELL_KNOWN_READ_TOOLS
  ...namedActions(PAGE_READ_TOOLS),
  ['browser_action', 'action'],
  ['computer', 'action'],
  // OpenAI's computer tool (Responses API; the Agents SDK's ComputerTool): `{action: {type: "click", …}}`
  ['computer_use_preview', 'action'],
]);
