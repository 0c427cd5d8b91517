/**
 * An OTLP protobuf body that cannot be read: `field` is the path of the field being read
 * (`resourceSpans[0].scopeSpans[0].spans[3].attributes[1].value`), `offset` the byte it
 * starts at, `problem` what was wrong (truncated varint, bad wire type, length past the end).
 * The receiver answers it with 400 and this message (not retryable: the same bytes fail again).
 */
export class OtlpProtobufReadError extends Error {
  override readonly name = 'OtlpProtobufReadError';
  readonly field: string;
  readonly offset: number;
  readonly problem: string;

  constructor(options: { field: string; offset: number; problem: string }) {
    super(`${options.field === '' ? 'the request' : options.field} (byte ${options.offset}): ${options.problem}`);
    this.field = options.field;
    this.offset = options.offset;
    this.problem = options.problem;
  }
}
