/**
 * A remote run-store operation failed: the server could not be reached, took longer than
 * `timeoutMs`, refused the token, or answered an error. The engine never lets it reach the
 * host: it becomes one warning and the documented `storeFailure` behaviour.
 */
export class RemoteRunStoreError extends Error {
  override readonly name = 'RemoteRunStoreError';
  /** The ledger operation (`append-run-events`, `claim-business-key`, …). */
  readonly operation: string;
  /** The HTTP status the server answered, or undefined when no answer came (unreachable, timeout). */
  readonly status: number | undefined;
  /** The server's error code (`unauthorized`, `bad_request`, `store_unavailable`, …), `timeout`, or `unreachable`. */
  readonly code: string;

  constructor(options: { operation: string; status?: number; code: string; message: string }) {
    super(`loopguard/client: ${options.operation}: ${options.message}`);
    this.operation = options.operation;
    this.status = options.status;
    this.code = options.code;
  }
}
