/**
 * A guarded tool ran past its `timeoutMs`. The call's AbortSignal was aborted; the call is
 * recorded with outcome `timeout` (a failure). Raise `tools[name].timeoutMs` if the tool is
 * legitimately slow, or make the tool honour its AbortSignal so the work stops too.
 */
export class ToolTimeoutError extends Error {
  override readonly name = 'ToolTimeoutError';
  /** Classified as a timeout by classifyError. */
  readonly type = 'timeout';
  readonly tool: string;
  readonly timeoutMs: number;
  constructor(options: { tool: string; timeoutMs: number }) {
    super(`Tool ${options.tool} did not finish within ${options.timeoutMs} ms; its signal was aborted. Raise tools.${options.tool}.timeoutMs if it is legitimately slow.`);
    this.tool = options.tool;
    this.timeoutMs = options.timeoutMs;
  }
}
