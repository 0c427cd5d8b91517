import { createHash } from 'node:crypto';

/**
 * The detector of document 003, as people write it first: every call is stringified and
 * compared against the run's whole history (a list). Kept as strong as it can be while
 * staying naive: it compares stored strings instead of re-hashing each history entry as the
 * document's sketch does, and answers the same questions loopguard does before a call —
 * was this exact call made before in the run, and how many times in a row.
 */
export class NaiveLoopDetector {
  private readonly history: Array<{ call: string; resultHash: string }> = [];

  private static key(tool: string, args: unknown): string {
    return `${tool}|${JSON.stringify(args)}`;
  }

  record(tool: string, args: unknown, result: unknown): void {
    const resultHash = createHash('sha256').update(JSON.stringify(result)).digest('hex');
    this.history.push({ call: NaiveLoopDetector.key(tool, args), resultHash });
  }

  /** Refuse when the same call already ran in the run (run-wide repeat). Linear in history. */
  shouldRefuse(tool: string, args: unknown): boolean {
    const call = NaiveLoopDetector.key(tool, args);
    let previous = 0;
    for (let index = 0; index < this.history.length; index++) if (this.history[index]!.call === call) previous += 1;
    return previous > 0;
  }

  /** Stop when the last five results were identical (stale streak). */
  shouldStop(): boolean {
    const last = this.history.length - 1;
    if (last < 4) return false;
    let same = 0;
    for (let index = last; index >= 0 && this.history[index]!.resultHash === this.history[last]!.resultHash; index--) same += 1;
    return same >= 5;
  }

  get size(): number {
    return this.history.length;
  }
}
