/**
 * `loopguard runs` could not reach or read Redis (refused, timed out, wrong password, not a
 * Redis). The message is the whole story for an SRE: printed as is, never with a stack.
 */
export class RunsRedisError extends Error {
  override readonly name = 'RunsRedisError';
}
