import type { Writable } from 'node:stream';
import type { ReplaySummary } from './replay-inputs.js';
import type { RunReport } from './run-report.js';

/**
 * Writes report text and waits for the stream to drain when its buffer is full, so a report
 * for millions of calls streams out instead of piling up in memory.
 */
export class ReportOutput {
  /** Set when the reader went away (`loopguard replay ... | head`): output stops, quietly. */
  private closedByReader = false;
  private failure: Error | undefined;

  constructor(private readonly stream: Writable) {
    stream.on('error', (error: NodeJS.ErrnoException) => {
      if (error.code === 'EPIPE') this.closedByReader = true;
      else this.failure = error;
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
          else reject(error);
        };
        this.stream.once('drain', onDrain);
        this.stream.once('error', onError);
      });
    }
  }
}

/** A renderer receives runs as they end and the totals at the very end. */
export interface ReplayReportRenderer {
  begin(): Promise<void>;
  run(report: RunReport): Promise<void>;
  end(summary: ReplaySummary, problems: readonly string[]): Promise<void>;
}
