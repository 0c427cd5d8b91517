import { LoopGuard, type LoopGuardEngineOptions } from '../../src/core/loop-guard.js';
import type { RunGuard } from '../../src/core/run-guard.js';
import type { CallDecision, CallOutcome, RunDecision } from '../../src/core/types.js';

/** One call in a scripted round: tool, args and what it returns (omit outcome when it must be refused). */
export interface ScriptedCall {
  tool: string;
  args?: unknown;
  outcome?: CallOutcome;
  callId?: string;
  at?: number;
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

export function newRun(options: LoopGuardEngineOptions = {}, id = 'run-1'): RunGuard {
  return new LoopGuard({ logger: { warn: () => {} }, ...options }).startRun(id);
}

export const sameDocuments = { items: [{ id: 'doc-17', title: 'Refund policy' }, { id: 'doc-42', title: 'Returns FAQ' }] };
