/**
 * Argument fields that carry no meaning for "is this the same call?" by construction
 * (document 003, condition 1): nonces, cache busters, attempt/retry counters, request, trace
 * and idempotency ids. The 340-iteration incident was a `search_docs` retry whose only change
 * was an `attempt` counter. Matched by exact field name at every depth; replace with
 * `volatileArgs`, extend per tool with `tools[name].volatileArgs`.
 *
 * Time fields (`timestamp`, `ts`, `time`, `now`, `sent_at`…) are deliberately absent (issue
 * 10 #7): `get_price(AAPL, timestamp)` on two dates or `check_slot(time)` at 10:00 and 14:00
 * are different calls, and stripping them by name made them one. Only the tool's author knows
 * whether a time field is the clock of the call or a question, so a tool that stamps its
 * calls opts in with `tools[name].volatileArgs: ['timestamp']` ({@link OPT_IN_TIME_ARGS}).
 */
export const DEFAULT_VOLATILE_ARGS: readonly string[] = [
  'nonce', 'cache_buster', 'cacheBuster', '_',
  'attempt', 'attempts', 'retry', 'retries', 'retry_count', 'retryCount', 'attempt_number', 'attemptNumber',
  'request_id', 'requestId', 'trace_id', 'traceId', 'span_id', 'spanId', 'idempotency_key', 'idempotencyKey',
];

/**
 * The time fields that were volatile by default before issue 10 #7, for a tool whose time
 * arguments are only the wall-clock stamp of the call: `tools[name].volatileArgs: [...OPT_IN_TIME_ARGS]`.
 */
export const OPT_IN_TIME_ARGS: readonly string[] = ['timestamp', 'ts', 'time', 'now', 'requested_at', 'requestedAt', 'sent_at', 'sentAt'];

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
