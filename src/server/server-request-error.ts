/**
 * A request the server turns away: its status (4xx, or 503/429 under load), a stable
 * machine-readable `code`, and a message that says what was wrong and how to fix it. Thrown
 * inside a handler, it becomes the JSON body `{ error: { code, message, field? } }` (OTLP
 * requests get a google.rpc.Status in their own encoding); it never affects another request.
 */
export class ServerRequestError extends Error {
  readonly status: number;
  readonly code: string;
  readonly field: string | undefined;
  /** Seconds, for 429 / 503. */
  readonly retryAfter: number | undefined;

  constructor(options: { status: number; code: string; message: string; field?: string; retryAfter?: number }) {
    super(options.message);
    this.name = 'ServerRequestError';
    this.status = options.status;
    this.code = options.code;
    this.field = options.field;
    this.retryAfter = options.retryAfter;
  }
}
