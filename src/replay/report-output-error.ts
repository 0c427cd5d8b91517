/**
 * The report could not be written (a full disk, an I/O error): the message is the whole
 * story, `cannot write the report to <where> (ENOSPC: no space left on device)`, printed on
 * one line by the CLI, never with a stack. A reader that went away (EPIPE) is not an error.
 */
export class ReportOutputError extends Error {
  override readonly name = 'ReportOutputError';
  readonly code: string | undefined;

  constructor(where: string, cause: unknown) {
    const code = (cause as NodeJS.ErrnoException | undefined)?.code;
    const text = cause instanceof Error ? cause.message : String(cause);
    // Node's errno text is `ENOSPC: no space left on device, write`: the syscall adds nothing.
    const reason = code !== undefined && text.startsWith(`${code}: `) ? text.replace(/, [a-z_]+\b.*$/s, '') : code ?? text;
    super(`cannot write the report to ${where} (${reason})`, { cause });
    this.code = code;
  }
}
