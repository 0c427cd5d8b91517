import { decodeRunEvent } from '../core/shared-ledger/run-event.js';
import type { ModelUsage, PrehashedOutcome } from '../core/types.js';

/** One call of a stored run as its log records it: the decision made, and what it returned. */
export interface TimelineCall {
  /** The call's key in the log (`<process>.<sequence>`): which process made it. */
  readonly key: string;
  readonly tool: string;
  readonly argsHash: string;
  readonly callId: string | undefined;
  readonly time: number;
  readonly decision: 'allow' | 'refuse';
  /** The allow kind (`new`, `repeat`, `retry`, …), for an allowed call. */
  readonly kind: string | undefined;
  /** The refusal reason (`repeat.run_wide`, `write.already_done`, …), for a refused call. */
  readonly reason: string | undefined;
  /** What the model was told, for a refused call. */
  readonly message: string | undefined;
  /** Its outcome; undefined while it runs, or if its process died before reporting it. */
  outcome: TimelineOutcome | undefined;
}

export interface TimelineOutcome {
  readonly outcome: PrehashedOutcome['outcome'];
  readonly resultHash: string | undefined;
  readonly errorType: string | undefined;
  readonly time: number;
  /** The round open when it finished, when that is later than the call's own round. */
  readonly finishedInRound: number | undefined;
}

export interface TimelineRound {
  /** 0 only for entries logged before the first round (a state report, say). */
  readonly round: number;
  /** When the model call began (undefined for a round the first call opened). */
  readonly time: number | undefined;
  usage: ModelUsage | undefined;
  readonly calls: TimelineCall[];
  /** Progress-state digests reported in this round. */
  readonly states: string[];
  /** When the model's context was compacted in this round (RunGuard.contextCompacted). */
  readonly compactions: number[];
  stop: { reason: string; detail: string; round: number } | undefined;
  /** When the run was ended, if in this round. */
  endedAt: number | undefined;
}

export interface RunTimeline {
  readonly rounds: TimelineRound[];
  readonly entries: number;
  /** Entries this version cannot read (written by a newer loopguard, or not by loopguard). */
  readonly unreadable: Array<{ index: number; message: string }>;
}

/**
 * The per-round story of a stored run, from its log entries (in log order, as every replica
 * applies them). Rounds are numbered as the engine numbers them: a round entry after the
 * run ended opens nothing, and a call before any round opens round 1. Novelty is not here:
 * the log keeps result fingerprints, and whether one was new is the ledger's judgement.
 */
export function buildRunTimeline(entries: readonly string[], logKey: string): RunTimeline {
  const rounds: TimelineRound[] = [];
  const unreadable: RunTimeline['unreadable'] = [];
  /** Allowed calls not finished yet, with the round they were made in. */
  const openCalls = new Map<string, { call: TimelineCall; round: number }>();
  let ended = false;
  const push = (number: number, time: number | undefined): TimelineRound => {
    const round: TimelineRound = { round: number, time, usage: undefined, calls: [], states: [], compactions: [], stop: undefined, endedAt: undefined };
    rounds.push(round);
    return round;
  };
  const openRound = (time: number | undefined): TimelineRound => push((rounds[rounds.length - 1]?.round ?? 0) + 1, time);
  /** The round entries now belong to; round 0 holds what was logged before any round. */
  const current = (): TimelineRound => rounds[rounds.length - 1] ?? push(0, undefined);

  for (let index = 0; index < entries.length; index++) {
    let event;
    // Named by the run's real log key (prefix and escaped id, as the store builds it), so an
    // SRE can LINDEX the entry; `{run} log[i]` was no key at all.
    try {
      event = decodeRunEvent(entries[index]!, `${logKey}[${index}]`);
    } catch (error) {
      unreadable.push({ index, message: error instanceof Error ? error.message : String(error) });
      continue;
    }
    switch (event.type) {
      case 'round': {
        if (ended) break;
        const round = openRound(event.time);
        if (event.usage !== undefined) round.usage = { ...event.usage };
        break;
      }
      case 'usage': {
        const round = current();
        round.usage = {
          inputTokens: (round.usage?.inputTokens ?? 0) + (event.usage.inputTokens ?? 0),
          outputTokens: (round.usage?.outputTokens ?? 0) + (event.usage.outputTokens ?? 0),
        };
        break;
      }
      case 'call': {
        const last = rounds[rounds.length - 1];
        const round = last === undefined || last.round === 0 ? openRound(undefined) : last;
        const { decision } = event;
        const call: TimelineCall = {
          key: event.key,
          tool: event.call.tool,
          argsHash: event.call.argsHash,
          callId: event.call.callId,
          time: event.time,
          decision: decision.action,
          kind: decision.action === 'allow' ? decision.kind : undefined,
          reason: decision.action === 'refuse' ? decision.reason : undefined,
          message: decision.action === 'refuse' ? decision.message : undefined,
          outcome: undefined,
        };
        round.calls.push(call);
        if (decision.action === 'allow') openCalls.set(event.key, { call, round: round.round });
        break;
      }
      case 'finish': {
        const open = openCalls.get(event.key);
        // As in the engine: only the first outcome of a call counts (a process that timed
        // out another's abandoned call, and that call's late result, both log one).
        if (open === undefined) break;
        openCalls.delete(event.key);
        const now = current().round;
        open.call.outcome = {
          outcome: event.outcome.outcome,
          resultHash: event.outcome.resultHash,
          errorType: event.outcome.errorType,
          time: event.time,
          finishedInRound: now > open.round ? now : undefined,
        };
        break;
      }
      case 'state':
        current().states.push(event.digest);
        break;
      case 'compacted':
        current().compactions.push(event.time);
        break;
      case 'stop': {
        const round = current();
        // The decoder checked its fields (run-event.ts): a stop with a reason of another type
        // (another writer's) is an unreadable entry, named with the others.
        const { reason, detail, round: stoppedAt } = event.decision;
        round.stop ??= { reason, detail, round: stoppedAt };
        break;
      }
      case 'end':
        if (!ended) current().endedAt = event.time;
        ended = true;
        break;
    }
  }
  return { rounds, entries: entries.length, unreadable };
}
