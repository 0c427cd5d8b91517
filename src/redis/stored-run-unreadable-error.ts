/**
 * One of a stored run's keys cannot be read because it holds the wrong Redis type (WRONGTYPE):
 * something other than loopguard wrote it. The message starts with the key, so an SRE can
 * `TYPE` / `DEL` it; a connection failure or a timeout is never this error.
 */
export class StoredRunUnreadableError extends Error {
  override readonly name = 'StoredRunUnreadableError';
  constructor(
    readonly runId: string,
    readonly key: string,
    /** The Redis error reply. */
    override readonly cause: Error,
  ) {
    super(`${key}: ${cause.message}`);
  }
}
