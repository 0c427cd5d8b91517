import { StringDecoder } from 'node:string_decoder';

/**
 * Splits a stdio stream into MCP messages (one JSON-RPC message per line, stdio transport),
 * keeping each line's text exactly as sent: the proxy forwards what it does not change
 * byte for byte, fields it does not know included.
 */
export class JsonRpcLineReader {
  private readonly decoder = new StringDecoder('utf8');
  private pending = '';

  constructor(private readonly onLine: (line: string) => void) {}

  push(chunk: Buffer | string): void {
    this.pending += typeof chunk === 'string' ? chunk : this.decoder.write(chunk);
    // One slice per line and one for the rest: a chunk of many short lines stays linear.
    let start = 0;
    for (let newline = this.pending.indexOf('\n'); newline >= 0; newline = this.pending.indexOf('\n', start)) {
      const line = this.pending.slice(start, newline).replace(/\r$/, '');
      start = newline + 1;
      if (line.trim() !== '') this.onLine(line);
    }
    if (start > 0) this.pending = this.pending.slice(start);
  }

  /** The stream ended: a last line without a newline is still a message. */
  end(): void {
    this.pending += this.decoder.end();
    const line = this.pending.replace(/\r$/, '');
    this.pending = '';
    if (line.trim() !== '') this.onLine(line);
  }
}
