import type { ResolvedOptions, ResolvedToolPolicy } from '../policy.js';
import type { RunLedger, SignatureRecord } from '../run-ledger.js';
import type { AllowKind, CallEffect, RefusalReason } from '../types.js';

/** Everything a pre-execution check may read about the call being decided. */
export interface CallCheckContext {
  readonly ledger: RunLedger;
  readonly options: ResolvedOptions;
  readonly policy: ResolvedToolPolicy;
  readonly tool: string;
  readonly argsHash: string;
  /** The earlier execution(s) of this exact call, if any. */
  readonly record: SignatureRecord | undefined;
  readonly now: number;
  /** What this call may do to the world (world-state model, world-state/resolve-call-effect.ts). */
  readonly effect: CallEffect;
  /** The call submits or finishes the task. */
  readonly terminal: boolean;
  /**
   * The epoch of the world this call acts on: the page epoch for a browser tool, else the
   * write epoch (run-ledger.ts). A record from an earlier epoch may be out of date.
   */
  readonly epoch: number;
  /** What the escalation ladder switches off: the tool, or `tool(family)` for a shell command family. */
  readonly ladderKey: string;
}

/** A check's verdict: refuse for a reason, or allow as a given kind, or pass (undefined) to the next check. */
export type CallCheckResult =
  | { refuse: RefusalReason; facts?: Readonly<Record<string, number | string>> }
  | { allow: AllowKind }
  | undefined;

export type CallCheck = (context: CallCheckContext) => CallCheckResult;
