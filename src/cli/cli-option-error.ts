/**
 * A command-line option (or the policy file it names) that cannot be used. `flag` is the
 * option at fault (`--port`, `--policy`); the message already starts with it (or, for a
 * policy file, with `file:`), so `loopguard <command>: <message>` is the whole story for the
 * user: one line, exit 2, never a stack trace (see reportCliOptionError).
 */
export class CliOptionError extends Error {
  override readonly name = 'CliOptionError';
  /** The subcommand whose option this is (`serve`), for the `loopguard serve:` prefix. */
  readonly command: string;
  /** The option at fault, as typed on the command line (`--port`). */
  readonly flag: string;
  constructor(command: string, flag: string, message: string) {
    super(message);
    this.command = command;
    this.flag = flag;
  }
}
