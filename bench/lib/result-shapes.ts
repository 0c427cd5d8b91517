import type { Timing } from './harness.js';
import type { SizeName } from './fixtures.js';

// The shapes each suite writes (writeResult) and the report reads back: one definition for
// both sides of the process boundary.

export interface OverheadCase {
  name: string;
  argsName: string;
  argsBytes: number;
  resultName: string;
  resultBytes: number;
  resultKind: 'object' | 'string';
  bare: Timing;
  loopguard: Timing;
  /** Bare span + canonical arguments + result text + SHA-256: what any detector must pay. */
  floor: Timing;
  ratio: number;
  /** loopguard / floor, per round then median (issue 20's ≤ 1.25× target). */
  floorRatio: number;
}

export interface HashCase {
  name: string;
  size: SizeName;
  kind: 'object' | 'JSON text' | 'plain text';
  bytes: number;
  baselineName: string;
  baseline: Timing;
  loopguard: Timing;
  /** loopguard throughput / baseline throughput = baseline time / loopguard time. */
  throughputRatio: number;
  loopguardMBps: number;
  baselineMBps: number;
}

export interface QueryCase {
  calls: number;
  timings: Record<string, Timing>;
}

export interface MemoryVariant {
  name: string;
  runs: number;
  callsPerRun: number;
  bytesPerIdleRun: number;
  bytesPerCall: number;
  heapBaseline?: number;
  heapIdle?: number;
  heapFull?: number;
}

export interface ScaleCase {
  openRuns: number;
  callsPerRun: number;
  calls: number;
  /** Calls (decision + outcome) per second over the whole pass, inputs built outside the timing. */
  callsPerSecond: number;
  decisionMedianNs: number;
  decisionP99Ns: number;
  /** Heap (after gc) the open runs and their calls hold. */
  heapBytes: number;
  bytesPerOpenRun: number;
}
