/**
 * One bad line (or span) of an input file. The message is the `file:line: what is wrong`
 * text printed to stderr; `field` names the offending field when there is one so tests and
 * callers need not parse the message.
 */
export class ReplayInputError extends Error {
  override readonly name = 'ReplayInputError';
  readonly file: string;
  readonly line: number;
  readonly field: string | undefined;
  readonly problem: string;

  constructor(options: { file: string; line: number; problem: string; field?: string }) {
    super(`${options.file}:${options.line}: ${options.problem}`);
    this.file = options.file;
    this.line = options.line;
    this.field = options.field;
    this.problem = options.problem;
  }
}

/** A whole input that cannot be read at all (missing file, unreadable stdin). */
export class ReplayFileError extends Error {
  override readonly name = 'ReplayFileError';
  readonly file: string;
  constructor(file: string, problem: string) {
    super(`${file}: ${problem}`);
    this.file = file;
  }
}

/** Raised under --strict at the first bad line: the replay stops there. */
export class ReplayStrictAbort extends Error {
  override readonly name = 'ReplayStrictAbort';
  override readonly cause: ReplayInputError;
  constructor(cause: ReplayInputError) {
    super(`${cause.message} (--strict: stopping at the first bad line)`);
    this.cause = cause;
  }
}
