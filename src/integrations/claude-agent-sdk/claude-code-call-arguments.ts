/**
 * Arguments of Claude Code's own tools that are labels for the person watching, not part of
 * what the call does: Bash's `description` ("List files in current directory", written anew
 * by the model on every call) and the Task / Agent tool's short `description` of the prompt it
 * carries. Left in, `ls` run five times under five wordings would be five different calls and
 * never a repeat.
 */
const LABEL_ARGUMENTS: ReadonlyMap<string, readonly string[]> = new Map([
  ['Bash', ['description']],
  ['Task', ['description']],
  ['Agent', ['description']],
]);

/**
 * The arguments loopguard identifies a Claude Code tool call by: the hook's `tool_input`
 * without the tool's label arguments. Everything else (the command line, file paths, patterns,
 * MCP arguments) is kept as the model wrote it.
 */
export function claudeCodeCallArguments(toolName: string, toolInput: unknown): unknown {
  const labels = LABEL_ARGUMENTS.get(toolName);
  if (labels === undefined || typeof toolInput !== 'object' || toolInput === null || Array.isArray(toolInput)) return toolInput;
  const args: Record<string, unknown> = { ...(toolInput as Record<string, unknown>) };
  for (const label of labels) delete args[label];
  return args;
}
