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
  ['exec_command', 'cmd'],
  ['local_shell', 'command'],
]);

/** Tools that read and cannot write. */
export const WELL_KNOWN_READ_TOOLS: ReadonlySet<string> = new Set([
  // Claude Code
  // (Not BashOutput: it polls a background shell whose output grows, so an identical poll is
  // not a repeat; it stays unknown and repeats until its own outcomes stop changing.)
  'Read', 'Grep', 'Glob', 'LS', 'WebFetch', 'WebSearch', 'NotebookRead',
  // gemini-cli
  'read_file', 'read_many_files', 'list_directory', 'glob', 'search_file_content', 'google_web_search', 'web_fetch',
  // MCP reference filesystem server
  'read_text_file', 'read_media_file', 'read_multiple_files', 'directory_tree', 'search_files', 'get_file_info',
  'list_allowed_directories', 'list_directory_with_sizes',
  // Cline / Roo Code
  'list_files', 'search_files', 'list_code_definition_names',
]);

/** Tools that write (results that only acknowledge the write are neither new nor seen). */
export const WELL_KNOWN_WRITE_TOOLS: ReadonlySet<string> = new Set([
  // Claude Code
  'Edit', 'MultiEdit', 'Write', 'NotebookEdit', 'TodoWrite',
  // gemini-cli, MCP filesystem, Cline / Roo Code
  'write_file', 'replace', 'edit_file', 'create_directory', 'move_file', 'write_to_file', 'replace_in_file',
  'apply_diff', 'insert_content', 'search_and_replace', 'save_memory',
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
]);

/**
 * Arguments that are labels for the person watching, not part of what the call does: Claude
 * Code's Bash `description` ("List files in current directory", written anew by the model on
 * every call) and the Task / Agent tool's short `description` of the prompt it carries. Left
 * in, `ls` run five times under five wordings would be five different calls and never a
 * repeat. Dropped from call identity in every profile, live (hooks, spans) and in replay alike.
 */
export const WELL_KNOWN_LABEL_ARGUMENTS: ReadonlyMap<string, readonly string[]> = new Map([
  ['Bash', ['description']],
  ['Task', ['description']],
  ['Agent', ['description']],
]);

/** Tools that submit or finish the task; some protocols call them twice by design. */
export const WELL_KNOWN_TERMINAL_TOOLS: ReadonlySet<string> = new Set([
  'submit', 'finish', 'Finish', 'final_answer', 'finalAnswer', 'task_complete', 'attempt_completion', 'complete_task',
]);
