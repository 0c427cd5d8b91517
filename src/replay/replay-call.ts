// The one shape every input reader produces. The JSONL reader and the OTLP reader both
// translate into ReplayCall so the driver, and therefore the decisions, cannot differ by
// input format.

import type { CallOutcome, ModelUsage, PrehashedOutcome, PrehashedToolCall } from '../core/types.js';

/** Where a call came from, for `file:line` messages and for the report. */
export interface ReplaySourceLocation {
  file: string;
  line: number;
}

/** One recorded tool call, ready to be fed to a RunGuard. */
export interface ReplayCall {
  source: ReplaySourceLocation;
  run: string;
  /** 1-based; calls with the same round came from one model response. */
  round: number;
  tool: string;
  /**
   * Raw arguments (object or JSON text) when recorded. Exactly one of `args` / `argsHash`
   * identifies the call; `argsHash` is used when only the hash survived (span attributes).
   */
  args?: unknown;
  argsHash?: string;
  /**
   * With `argsHash`: what the recording guard read from the arguments it hashed
   * (`loopguard.tool.call_facts`: a shell command's effect, a paged call's listing).
   */
  facts?: Partial<PrehashedToolCall>;
  callId?: string;
  /** The tool span's `traceId/spanId`, for calls read from spans (`loopguard serve` feeds each span once). */
  spanKey?: string;
  /** Epoch ms at call start. */
  startTime?: number;
  durationMs?: number;
  /** Raw outcome (`{result}` / `{error}`) or a fingerprint computed when the run was recorded. */
  outcome: CallOutcome | PrehashedOutcome;
  /** Usage of this round's model call, when the input recorded it. */
  usage?: ModelUsage;
  /**
   * The model's context was compacted before this call (a Claude Code `compact_boundary`, an
   * OpenHands condensation, `"compactedBefore": true` in JSONL): RunGuard.contextCompacted.
   */
  compactedBefore?: boolean;
}

/**
 * A model call that asked for no tools (a JSONL line with `run` and `round` and no `tool`): the
 * run's answer, or a turn of text. It is a round of the run, as the live processor counts it
 * (a model-call span), so a run's trailing answer rounds are counted in replay too.
 */
export interface ReplayModelRound {
  readonly kind: 'model-round';
  readonly source: ReplaySourceLocation;
  readonly run: string;
  readonly round: number;
  /** Usage of this model call, when recorded. */
  readonly usage?: ModelUsage;
  /** Epoch ms of the model call. */
  readonly startTime?: number;
}

export function isPrehashedOutcome(outcome: CallOutcome | PrehashedOutcome): outcome is PrehashedOutcome {
  return 'outcome' in outcome && typeof (outcome as PrehashedOutcome).outcome === 'string';
}
