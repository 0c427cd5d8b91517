/**
 * Simulated time for the demo. The model is scripted and the tools are local, so real time
 * would say nothing about a real run; instead every model call and tool call advances this
 * clock by a realistic latency, and loopguard reads the same clock (its `now` option), so poll
 * deadlines and "time saved" are in the agent's time, not the demo's. The demo itself
 * finishes in well under a second.
 */
export class VirtualClock {
  private current: number;
  private readonly start: number;

  constructor(start = Date.UTC(2026, 10, 30, 9, 0, 0)) {
    this.current = start;
    this.start = start;
  }

  readonly now = (): number => this.current;

  advance(ms: number): void {
    this.current += Math.max(0, Math.round(ms));
  }

  elapsedMs(): number {
    return this.current - this.start;
  }
}
