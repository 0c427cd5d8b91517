// Every run of the evaluation corpus, played by processes that share its log, gets the
// decisions of one process. A replica is the log applied in order (run-event.ts): a fact the
// writer's ledger keeps and the log drops (a flag left out of an entry, a novelty recomputed
// differently) makes two processes disagree, and then a call refused in one process is allowed
// in the other, or a run one process would stop goes on. That is what `loopguard serve` behind a
// load balancer and queue workers taking turns on a job look like. test/redis/ runs three
// recorded runs through real Redis servers; here every one of the 540 runs, every profile, goes
// through the in-process store, which keeps the same contract.
import { expect } from 'chai';
import { join } from 'node:path';
import { LoopGuard } from '../../../src/core/loop-guard.js';
import type { RunGuard } from '../../../src/core/run-guard.js';
import { createMemoryRunStore } from '../../../src/core/shared-ledger/create-memory-run-store.js';
import type { RunStore } from '../../../src/core/shared-ledger/run-store.js';
import type { CallOutcome, PrehashedOutcome, Profile } from '../../../src/core/types.js';
import type { ReplayCall } from '../../../src/replay/replay-call.js';
import { toEngineCall } from '../../../src/replay/replay-session.js';
import { CORPUS_DIR, CORPUS_FILES, recordedRun } from '../../helpers/recorded-corpus-runs.js';

const quiet = { warn: () => undefined };

interface Played {
  decisions: string[];
  stop?: string;
}

function withEndTime(call: ReplayCall): CallOutcome | PrehashedOutcome {
  if (call.startTime === undefined || call.durationMs === undefined) return call.outcome;
  return { ...call.outcome, endTime: call.startTime + call.durationMs } as CallOutcome;
}

/**
 * Plays the rounds as an agent loop would (the replay's own order: the stop asked before each
 * new round and at the end; time from the recording). `processFor(round, call)` says which
 * process handles a call; a process that takes over a run resumes it from the log first, and a
 * process hands a run on only once its changes are in the store.
 */
async function play(
  profile: Profile,
  rounds: ReplayCall[][],
  processes: number,
  processFor: (round: number, call: number) => number,
  ownedRuns = false,
): Promise<Played> {
  let clock = 0;
  const store: RunStore | undefined = processes > 1 ? createMemoryRunStore() : undefined;
  const guards = Array.from(
    { length: processes },
    () => new LoopGuard({ profile, now: () => clock, maxIdleMs: Infinity, logger: quiet, ...(store === undefined ? {} : { store, ownedRuns }) }),
  );
  const runs: Array<RunGuard | undefined> = [];
  let current = -1;
  const take = async (index: number): Promise<RunGuard> => {
    if (index !== current) {
      if (current >= 0) await guards[current]!.flush();
      current = index;
      runs[index] = store === undefined ? (runs[index] ?? guards[index]!.startRun('recorded')) : await guards[index]!.resumeRun('recorded');
    }
    return runs[index]!;
  };
  const played: Played = { decisions: [] };
  const stopOf = (run: RunGuard): string | undefined => {
    const decision = run.shouldStop();
    return decision.action === 'stop' ? `${decision.reason} at round ${decision.round}` : undefined;
  };
  for (let round = 0; round < rounds.length; round++) {
    if (round > 0) {
      const stop = stopOf(await take(current));
      if (stop !== undefined) return { ...played, stop };
    }
    const calls = rounds[round]!;
    let run = await take(processFor(round, 0));
    const usage = calls.find((call) => call.usage !== undefined)?.usage;
    run.beginRound(usage);
    for (let index = 0; index < calls.length; index++) {
      const call = calls[index]!;
      run = await take(processFor(round, index));
      if (call.startTime !== undefined) clock = call.startTime;
      if (call.compactedBefore === true) run.contextCompacted();
      const ticket = await run.claimCall(toEngineCall(call));
      played.decisions.push(ticket.decision.action === 'allow' ? 'allow' : ticket.decision.reason);
      if (ticket.decision.action !== 'allow') continue;
      if (call.startTime !== undefined && call.durationMs !== undefined) clock = call.startTime + call.durationMs;
      run.finishCall(ticket, withEndTime(call));
    }
  }
  const stop = stopOf(await take(current));
  // The process that did not play last must read the same verdict from the log.
  if (processes > 1) {
    await guards[current]!.flush();
    const other = await guards[(current + 1) % processes]!.resumeRun('recorded');
    expect(stopOf(other), 'the other process, resumed from the log, judges the run alike').to.equal(stop);
  }
  return stop === undefined ? played : { ...played, stop };
}

/** Where two decision lists first differ, for a message that names the call. */
function firstDifference(a: string[], b: string[]): string {
  const index = a.findIndex((decision, at) => decision !== b[at]);
  return index < 0 ? `lengths ${a.length} and ${b.length}` : `call #${index}: ${a[index]} in one process, ${b[index]} shared`;
}

describe('every corpus run, shared between processes, gets the decisions of one process (shared ledger)', function () {
  this.timeout(600_000);

  for (const profile of ['general', 'researcher', 'chat'] as const) {
    for (const [label, processes, processFor, ownedRuns] of [
      ['two processes taking turns round by round', 2, (round: number) => round % 2, false],
      ['three processes taking turns call by call', 3, (round: number, call: number) => (round + call) % 3, false],
      // ownedRuns: reads decided locally and appended behind; the owner changes at every hand-off
      // (sticky routing moved by a deploy), and what the last owner decided must still count.
      ['two processes owning the run in turn, three rounds each (ownedRuns)', 2, (round: number) => Math.floor(round / 3) % 2, true],
    ] as const) {
      it(`${profile} profile, ${label}`, async () => {
        const disagreements: string[] = [];
        for (const file of CORPUS_FILES) {
          const { rounds } = await recordedRun(join(CORPUS_DIR, file), profile);
          const alone = await play(profile, rounds, 1, () => 0);
          const shared = await play(profile, rounds, processes, processFor, ownedRuns);
          if (shared.stop !== alone.stop) disagreements.push(`${file}: stop ${alone.stop ?? 'none'} in one process, ${shared.stop ?? 'none'} shared`);
          else if (shared.decisions.join() !== alone.decisions.join()) disagreements.push(`${file}: ${firstDifference(alone.decisions, shared.decisions)}`);
        }
        expect(disagreements, disagreements.slice(0, 10).join('\n')).to.deep.equal([]);
      });
    }
  }
});
