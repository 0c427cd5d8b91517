/**
 * Argument fields that carry no meaning for "is this the same call?" (document 003,
 * condition 1): timestamps, nonces, attempt/retry counters, request and trace ids. The
 * 340-iteration incident was a `search_docs` retry whose only change was an `attempt`
 * counter. Matched by exact field name at every depth; replace with `volatileArgs`, extend
 * per tool with `tools[name].volatileArgs`.
 */
export const DEFAULT_VOLATILE_ARGS: readonly string[] = [
  'timestamp', 'ts', 'time', 'now', 'requested_at', 'requestedAt', 'sent_at', 'sentAt',
  'nonce', 'cache_buster', 'cacheBuster', '_',
  'attempt', 'attempts', 'retry', 'retries', 'retry_count', 'retryCount', 'attempt_number', 'attemptNumber',
  'request_id', 'requestId', 'trace_id', 'traceId', 'span_id', 'spanId', 'idempotency_key', 'idempotencyKey',
];

/**
 * Result fields that change on every response without changing its content (document 002,
 * "hashing over nondeterministic fields"): latencies, fetch times, request ids. A result
 * carrying one would never repeat, and the stale-round check would silently do nothing.
 */
export const DEFAULT_VOLATILE_RESULT: readonly string[] = [
  'took', 'took_ms', 'tookMs', 'latency', 'latency_ms', 'latencyMs', 'duration_ms', 'durationMs', 'elapsed_ms', 'elapsedMs',
  'fetched_at', 'fetchedAt', 'retrieved_at', 'retrievedAt', 'generated_at', 'generatedAt', 'timestamp', 'server_time', 'serverTime',
  'request_id', 'requestId', 'trace_id', 'traceId', 'span_id', 'spanId', 'etag',
];
