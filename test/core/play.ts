import { LoopGuard, type LoopGuardEngineOptions } from '../../src/core/loop-guard.js';
import { createMemoryRunStore } from '../../src/core/shared-ledger/create-memory-run-store.js';
import type { RunGuard } from '../../src/core/run-guard.js';
import type { CallDecision, CallOutcome, Novelty, RunDecision } from '../../src/core/types.js';

/** One call in a scripted round: tool, args and what it returns (omit outcome when it must be refused). */
export interface ScriptedCall {
  tool: string;
  args?: unknown;
  outcome?: CallOutcome;
  callId?: string;
  at?: number;
  /** The model's context was compacted just before this call (RunGuard.contextCompacted). */
  compactedBefore?: boolean;
}

/** Each decision as `allow:<kind>` or `refuse:<reason>`: what a test asserts about a run's calls. */
export function kinds(decisions: CallDecision[]): string[] {
  return decisions.map((decision) => (decision.action === 'allow' ? `allow:${decision.kind}` : `refuse:${decision.reason}`));
}

export interface RoundLog {
  decisions: CallDecision[];
  after: RunDecision;
}

/**
 * Plays rounds through a real engine the way an agent loop does: begin a round, decide and
 * run each call, ask shouldStop. Stops playing at the first stop. Test helper, not a fake:
 * every decision comes from the engine under test.
 */
export function playRounds(run: RunGuard, rounds: ScriptedCall[][]): RoundLog[] {
  const log: RoundLog[] = [];
  for (const calls of rounds) {
    run.beginRound();
    const decisions: CallDecision[] = [];
    for (const call of calls) {
      if (call.compactedBefore === true) run.contextCompacted();
      const ticket = run.startCall({ tool: call.tool, args: call.args, callId: call.callId, startTime: call.at });
      decisions.push(ticket.decision);
      if (ticket.decision.action === 'allow') run.finishCall(ticket, call.outcome ?? { result: { ok: true } });
    }
    const after = run.shouldStop();
    log.push({ decisions, after });
    if (after.action === 'stop') break;
  }
  return log;
}

/**
 * Plays one call per round through a fresh run and says how each result was judged (`new`,
 * `seen`, `neutral`; `refused:<reason>` for a call not run), stopping at the first stop.
 */
export function judgeEachCall(steps: ScriptedCall[], options: LoopGuardEngineOptions = {}): { judged: Array<Novelty | string>; stop: RunDecision | undefined } {
  const run = newRun(options);
  const judged: Array<Novelty | string> = [];
  for (const step of steps) {
    run.beginRound();
    if (step.compactedBefore === true) run.contextCompacted();
    const ticket = run.startCall({ tool: step.tool, args: step.args, startTime: step.at });
    judged.push(ticket.decision.action === 'allow' ? run.finishCall(ticket, step.outcome ?? { result: { ok: true } }) : `refused:${ticket.decision.reason}`);
    const after = run.shouldStop();
    if (after.action === 'stop') return { judged, stop: after };
  }
  return { judged, stop: undefined };
}

export function newRun(options: LoopGuardEngineOptions = {}, id = 'run-1'): RunGuard {
  return new LoopGuard({ logger: { warn: () => {} }, ...options }).startRun(id);
}

export const sameDocuments = { items: [{ id: 'doc-17', title: 'Refund policy' }, { id: 'doc-42', title: 'Returns FAQ' }] };

/**
 * Plays one call per round with two engines sharing the run through a memory store, taking
 * turns, as two processes of one agent would: each step is decided by the next engine in turn,
 * which has read every earlier step from the store. Stops at the first stop. Returns
 * `decision/after` per step (`allow/continue`, `refuse/stop`, …).
 */
export async function playTakingTurns(id: string, steps: ScriptedCall[]): Promise<string[]> {
  const store = createMemoryRunStore();
  const quiet = { warn: () => undefined };
  const engines = [new LoopGuard({ store, logger: quiet }), new LoopGuard({ store, logger: quiet })] as const;
  const first = engines[0].startRun(id);
  await engines[0].flush();
  const runs = [first, await engines[1].resumeRun(id)] as const;
  const log: string[] = [];
  for (const [i, step] of steps.entries()) {
    const run = runs[i % 2]!;
    run.beginRound();
    if (step.compactedBefore === true) run.contextCompacted();
    const ticket = await run.claimCall({ tool: step.tool, args: step.args });
    if (ticket.decision.action === 'allow') run.finishCall(ticket, step.outcome ?? { result: { ok: true } });
    await engines[i % 2]!.flush();
    const after = run.shouldStop().action;
    log.push(`${ticket.decision.action}/${after}`);
    if (after === 'stop') break;
  }
  return log;
}
