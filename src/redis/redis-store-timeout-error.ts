/** A Redis store operation took longer than the store's `timeoutMs`. */
export class RedisStoreTimeoutError extends Error {
  override readonly name = 'RedisStoreTimeoutError';
  constructor(
    readonly operation: string,
    readonly timeoutMs: number,
  ) {
    super(`loopguard/redis: ${operation} took longer than ${timeoutMs} ms (the store's timeoutMs); is Redis reachable and not overloaded?`);
  }
}
