/**
 * The caller's AbortSignal where a framework puts it among a call's options: LangChain's
 * `_call` config (`['signal']`), its ToolNode's middleware request (`['runtime', 'signal']`),
 * the MCP SDK's request options (`['signal']`). Undefined when there is none, when the value
 * there is no AbortSignal, or when reading it throws (a hostile getter must not replace the
 * tool's own result or error).
 */
export function abortSignalAt(options: unknown, path: readonly string[]): AbortSignal | undefined {
  try {
    let value = options;
    for (const key of path) {
      if (value === null || value === undefined) return undefined;
      value = (value as Record<string, unknown>)[key];
    }
    return value instanceof AbortSignal ? value : undefined;
  } catch {
    return undefined;
  }
}
