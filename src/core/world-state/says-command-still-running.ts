/**
 * The harness's words for "the command is still running; send an empty command to wait for
 * more of its output". OpenHands (CodeActAgent's `execute_bash`) ends a command that has been
 * quiet for 30 seconds, or has run past its timeout, with "[The command has no new output after
 * 30 seconds. You may wait longer to see additional output by sending empty command '', …]".
 */
const INVITATION = "by sending empty command ''";

/** The notice is a suffix: only the tail is searched (bounded work on long outputs). */
const TAIL_LENGTH = 1024;

/** Does this shell result say its command is still running, an empty command waiting on it? */
export function saysCommandStillRunning(result: unknown): boolean {
  return typeof result === 'string' && result.indexOf(INVITATION, Math.max(0, result.length - TAIL_LENGTH)) >= 0;
}
