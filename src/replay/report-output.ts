import type { Writable } from 'node:stream';
import { ReportOutputError } from './report-output-error.js';
import type { ReplaySummary } from './replay-inputs.js';
import type { RunReport } from './run-report.js';

/**
 * Writes report text and waits for the stream to drain when its buffer is full, so a report
 * for millions of calls streams out instead of piling up in memory. A write that fails (a
 * full disk: ENOSPC, EIO) rejects with a {@link ReportOutputError} naming `where`; a reader
 * that went away (`loopguard replay ... | head`, EPIPE) only stops the output, quietly.
 */
export class ReportOutput {
  /** Set when the reader went away: output stops, quietly. */
  private closedByReader = false;
  private failure: ReportOutputError | undefined;

  /** @param where names the destination in errors (`stdout`, the --out path). Default `the output`. */
  constructor(
    private readonly stream: Writable,
    private readonly where = 'the output',
  ) {
    stream.on('error', (error: NodeJS.ErrnoException) => {
      if (error.code === 'EPIPE') this.closedByReader = true;
      else this.failure ??= new ReportOutputError(this.where, error);
    });
  }

  async write(text: string): Promise<void> {
    if (this.failure) throw this.failure;
    if (text.length === 0 || this.closedByReader) return;
    if (!this.stream.write(text)) {
      await new Promise<void>((resolve, reject) => {
        const onDrain = (): void => {
          this.stream.off('error', onError);
          resolve();
        };
        const onError = (error: NodeJS.ErrnoException): void => {
          this.stream.off('drain', onDrain);
          if (error.code === 'EPIPE') resolve();
          else reject(new ReportOutputError(this.where, error));
        };
        this.stream.once('drain', onDrain);
        this.stream.once('error', onError);
      });
    }
    // A synchronous stream (stdout on a file or a device) reports a failed write on the next tick.
    if (this.failure) throw this.failure;
  }

  /**
   * Resolves once everything written so far has been handed to the system, or rejects with the
   * {@link ReportOutputError} of a write that failed: the last lines of a report must not be
   * lost without a word (and a non-zero exit).
   */
  async flushed(): Promise<void> {
    if (this.failure) throw this.failure;
    if (this.closedByReader || this.stream.destroyed || this.stream.writableEnded) return;
    await new Promise<void>((resolve) => {
      // An empty write's callback runs after every earlier write completed (or failed).
      this.stream.write('', () => resolve());
    });
    // The 'error' event follows a failed write's callback on the same tick at the latest.
    await new Promise<void>((resolve) => setImmediate(resolve));
    if (this.failure) throw this.failure;
  }
}

/** A renderer receives runs as they end and the totals at the very end. */
export interface ReplayReportRenderer {
  begin(): Promise<void>;
  run(report: RunReport): Promise<void>;
  end(summary: ReplaySummary, problems: readonly string[]): Promise<void>;
}
