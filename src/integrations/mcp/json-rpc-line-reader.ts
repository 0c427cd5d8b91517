const NEWLINE = 0x0a;
const CARRIAGE_RETURN = 0x0d;

/**
 * Splits a stdio stream into MCP messages (one JSON-RPC message per line, stdio transport) and
 * hands each line over as the bytes that came, without its `\n` (or `\r\n`): the proxy
 * forwards what it does not change byte for byte, invalid UTF-8 and fields it does not know
 * included, and decodes only what it inspects.
 *
 * Linear in the bytes read: each chunk is searched once for a newline, and the chunks of a
 * long line are kept as they are and joined once when its newline comes. Searching the whole
 * buffered text on each chunk made a 20 MB line take 11.7 s (64 KiB chunks; 5 MB 0.7 s);
 * this way it takes tens of milliseconds.
 */
export class JsonRpcLineReader {
  /** Chunks of the line not yet ended. */
  private readonly partial: Buffer[] = [];
  private partialLength = 0;
  private scanned = 0;

  constructor(private readonly onLine: (line: Buffer) => void) {}

  /** Bytes searched for a newline so far: each byte once (tests hold the reader to that). */
  get bytesScanned(): number {
    return this.scanned;
  }

  push(chunk: Buffer | string): void {
    const bytes = typeof chunk === 'string' ? Buffer.from(chunk, 'utf8') : chunk;
    let start = 0;
    for (let newline = bytes.indexOf(NEWLINE); newline >= 0; newline = bytes.indexOf(NEWLINE, start)) {
      this.scanned += newline + 1 - start;
      let line = bytes.subarray(start, newline);
      if (this.partial.length > 0) {
        this.partial.push(line);
        line = Buffer.concat(this.partial, this.partialLength + line.length);
        this.partial.length = 0;
        this.partialLength = 0;
      }
      start = newline + 1;
      this.emit(line);
    }
    this.scanned += bytes.length - start;
    if (start < bytes.length) {
      this.partial.push(bytes.subarray(start));
      this.partialLength += bytes.length - start;
    }
  }

  /** The stream ended: a last line without a newline is still a message. */
  end(): void {
    if (this.partial.length === 0) return;
    const line = Buffer.concat(this.partial, this.partialLength);
    this.partial.length = 0;
    this.partialLength = 0;
    this.emit(line);
  }

  private emit(line: Buffer): void {
    const end = line.length > 0 && line[line.length - 1] === CARRIAGE_RETURN ? line.length - 1 : line.length;
    // Blank lines carry no message (the SDK's reader would fail on them); skip them cheaply.
    for (let index = 0; index < end; index++) {
      const byte = line[index];
      if (byte !== 0x20 && byte !== 0x09 && byte !== CARRIAGE_RETURN) return this.onLine(end === line.length ? line : line.subarray(0, end));
    }
  }
}
