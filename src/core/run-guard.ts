import { callSignature } from './call-signature.js';
import { refuseBackToBackRepeat } from './checks/back-to-back-repeat.js';
import { refuseOverBudget, stopOnBudget } from './checks/budgets.js';
import type { CallCheck, CallCheckContext } from './checks/call-check.js';
import { stopOnConsecutiveFailures } from './checks/consecutive-failures.js';
import { stopOnSameCallFailing } from './checks/same-call-failing.js';
import { stopOnSameFailureAcrossTools } from './checks/same-failure-across-tools.js';
import { refuseDisabledTool } from './checks/escalation-ladder.js';
import { allowExemptTool } from './checks/exempt-tools.js';
import { refuseInFlightRepeat } from './checks/in-flight-repeat.js';
import { refuseConfirmedRepeat } from './checks/outcome-confirmed-repeat.js';
import { allowTerminalTool, deliversAnswerAfterStop } from './checks/terminal-tools.js';
import { checkPolling, isInsidePollWindow } from './checks/polling.js';
import { stopOnRefusedRounds } from './checks/refused-rounds.js';
import { checkRetryBudget } from './checks/retry-budget.js';
import { applyRound, isWastedRound, projectRound, type RoundProjection } from './checks/round-verdict.js';
import { refuseRunWideRepeat } from './checks/run-wide-repeat.js';
import { stopOnStaleRounds } from './checks/stale-rounds.js';
import { stopOnStalledProgress } from './checks/stalled-progress.js';
import { refuseBlindRetryOfTimedOutWrite } from './checks/unknown-outcome-write.js';
import type { StopCheck } from './checks/stop-check.js';
import { hashText } from './hash.js';
import { nudgeMessage, refusalMessage, stalledProgressNudgeMessage, stopMessage } from './messages.js';
import type { ResolvedOptions, ResolvedToolPolicy } from './policy.js';
import { ownToolName } from './policy.js';
import { fingerprintOutcome, isTransientErrorType, jsonTextValue } from './result-fingerprint.js';
import { prehashCall } from './prehash-call.js';
import { invalidOutcomeOf, invalidTicketOf, invalidToolCallOf, invalidToolNameOf } from './invalid-tool-call-of.js';
import { isWindowCovered, recordWindow } from './world-state/read-coverage.js';
import { returnedWindowOf } from './world-state/returned-window-of.js';
import { isPageInputAction, isPageLook } from './world-state/page-state.js';
import { namesAStatusLook } from './world-state/names-a-status-look.js';
import { CallState, RoundAccumulator, RunLedger, type SignatureRecord } from './run-ledger.js';
import type { RunEvent } from './shared-ledger/run-event.js';
import type { SharedReplica, SharedRunLink } from './shared-ledger/shared-run-link.js';
import type {
  AllowKind,
  CallEffect,
  CallDecision,
  CallOutcome,
  EvictionCause,
  ModelUsage,
  Novelty,
  OutcomeClass,
  PartialResults,
  PrehashedOutcome,
  PrehashedToolCall,
  Profile,
  RefusalReason,
  RoundSummary,
  RunDecision,
  RunView,
  StopDecision,
  StopReason,
  ToolCall,
  ToolTally,
} from './types.js';

/**
 * Pre-execution checks, in order; the first that refuses or allows decides. Answer tools
 * first (never refused: checks/terminal-tools.ts), then budgets (no other call starts past a
 * limit), the ladder's disabled tools, exemptions, then the repeat family from most to least
 * specific.
 */
const CALL_CHECKS: readonly CallCheck[] = [
  allowTerminalTool,
  refuseOverBudget,
  refuseDisabledTool,
  allowExemptTool,
  refuseInFlightRepeat,
  refuseBlindRetryOfTimedOutWrite,
  checkPolling,
  checkRetryBudget,
  refuseRunWideRepeat,
  refuseConfirmedRepeat,
  refuseBackToBackRepeat,
];

/** Stop checks, in order of how specific the explanation is. */
const STOP_CHECKS: readonly StopCheck[] = [
  stopOnStaleRounds,
  stopOnRefusedRounds,
  stopOnConsecutiveFailures,
  stopOnSameFailureAcrossTools,
  stopOnSameCallFailing,
  stopOnStalledProgress,
  stopOnBudget,
];

/** Refusals of a loop's next repeat: a round of only these, inside a stale streak, continues it (round-verdict.ts). */
const LOOP_REPEAT_REASONS: ReadonlySet<RefusalReason> = new Set<RefusalReason>([
  'repeat.back_to_back',
  'repeat.run_wide',
  'repeat.unchanged',
  'repeat.same_error',
  'pagination.cursor_not_advanced',
]);

/**
 * Refusals that mean "the model insisted on a call": failures of that tool in the chat profile. A
 * loop's repeats, and insisting past a spent retry budget, a poll's deadline or a write of unknown outcome.
 */
const INSISTENCE_REASONS: ReadonlySet<RefusalReason> = new Set<RefusalReason>([
  ...LOOP_REPEAT_REASONS,
  'retry.budget_exhausted',
  'poll.deadline_passed',
  'write.outcome_unknown',
]);

const BUDGET_STOPS: ReadonlySet<StopReason> = new Set<StopReason>(['max_tool_calls', 'max_rounds', 'max_run_ms']);

const FAILURE_OUTCOMES: ReadonlySet<OutcomeClass> = new Set<OutcomeClass>(['error', 'overloaded', 'timeout']);

/** The effect facts the checks and the ledger need about one call. */
interface CallFacts {
  readonly effect: CallEffect;
  readonly terminal: boolean;
  readonly ladderKey: string;
  /** A browser tool: acts on the page epoch, not the write epoch (world-state/page-state.ts). */
  readonly page: boolean;
  /** A shell poll's deadline (issue 24 #4); undefined for every other call. */
  readonly pollDeadlineMs: number | undefined;
  /** A paged call's listing (issue 24 #2); undefined for every other call. */
  readonly listingKey: string | undefined;
  /** A call known to write: a write of a tool that is not a shell, or a shell command on changes-state-elsewhere.ts's list. */
  readonly knownWrite: boolean;
  /** A thought tool (`think`): the model thinking, not a call to the world (checks/round-verdict.ts). */
  readonly thought: boolean;
}

/**
 * A 32-bit tag of an outcome for "did this call return the same as last time?" (FNV-1a over
 * the fingerprint's characters; 0 is reserved for "no outcome yet", and an unfingerprintable
 * outcome gets 0 so it never confirms anything). Tags, not strings, so a distinct call costs
 * one word more in the ledger, not a kept string.
 */
function outcomeTagOf(outcome: PrehashedOutcome, argsHash: string): number {
  const key =
    outcome.resultHash ??
    (outcome.unfingerprintable ? undefined : outcome.outcome === 'empty' ? `empty:${argsHash}` : undefined);
  if (key === undefined) return 0;
  let hash = 0x811c9dc5;
  for (let index = 0; index < key.length; index++) hash = Math.imul(hash ^ key.charCodeAt(index), 0x01000193);
  return hash >>> 0 || 1;
}

/** A started call: pass it back to {@link RunGuard.finishCall}. */
export interface CallTicket {
  readonly decision: CallDecision;
  readonly round: number;
  readonly call: PrehashedToolCall;
  /** @internal set once finished, so a double finish is ignored. */
  finished: boolean;
  /** @internal the call's key in a shared run's log (shared store only). */
  key?: string;
}

/** Hooks the engine gives each run (listener fan-out), so a run never holds the engine. */
export interface RunHooks {
  callDecided(run: RunGuard, call: PrehashedToolCall, decision: CallDecision, round: number): void;
  callFinished(run: RunGuard, call: PrehashedToolCall, outcome: OutcomeClass, novelty: Novelty, round: number): void;
  roundClosed(run: RunGuard, summary: RoundSummary): void;
  runStopped(run: RunGuard, decision: StopDecision): void;
  touched(run: RunGuard): void;
  /** The run ended, however it was ended: the engine unregisters it (issue 10 #4). */
  ended?(run: RunGuard): void;
  /** The first call of an evicted run that is still in use: the engine warns, once per run. */
  unguardedCall?(run: RunGuard): void;
}

function isPrehashed(call: ToolCall | PrehashedToolCall): call is PrehashedToolCall {
  return typeof (call as PrehashedToolCall).argsHash === 'string';
}

function isPrehashedOutcome(outcome: CallOutcome | PrehashedOutcome): outcome is PrehashedOutcome {
  return typeof (outcome as PrehashedOutcome).outcome === 'string';
}

/**
 * One agent run: its ledger and the answers to shouldRefuse / shouldStop. Created by
 * {@link LoopGuard.startRun}; many may be open at once and never share state.
 *
 * Per-call cost is a signature hash, one Map lookup per check and a Set lookup for the
 * result fingerprint; nothing scans the run's history, so decisions stay flat in run length.
 */
export class RunGuard implements RunView, SharedReplica {
  readonly id: string;
  readonly profile: Profile;
  readonly attributes: Readonly<Record<string, string | number | boolean>>;
  private ledger = new RunLedger();
  private stopDecision: StopDecision | undefined;
  private ended = false;
  /** Set when the engine evicted the run before any stop: the guard no longer acts on it. */
  private unguarded = false;
  private evictionCause: EvictionCause | undefined;
  private warnedUnguarded = false;
  /** What shouldStop answers once the run ended without a stop verdict. */
  private endedStop: StopDecision | undefined;
  /** @internal bookkeeping for the engine's eviction. */
  lastActivity: number;
  /**
   * @internal Set by the engine when it has a shared store: every change of this run is also
   * logged there, and the run applies what other processes logged (shared-ledger/).
   */
  shared: SharedRunLink | undefined;
  /** Applying a logged event: record nothing, tell no listener (its maker told its own). */
  private replaying = false;
  /** A call claimed across processes by an async wrapper, for the span processor's startCall of its span. */
  private adopted: CallTicket | undefined;
  /** end() without logging an end (endLocally). */
  private endsLocally = false;

  constructor(
    id: string,
    private readonly options: ResolvedOptions,
    private readonly hooks: RunHooks,
    attributes: Record<string, string | number | boolean> = {},
  ) {
    this.id = id;
    this.profile = options.profile;
    this.attributes = attributes;
    this.lastActivity = options.now();
  }

  get round(): number {
    return this.ledger.round;
  }
  /** Stale rounds in a row, counting the current round once all its calls have finished. */
  get staleRoundStreak(): number {
    return this.projectOpenRound().staleRoundStreak;
  }
  /** Refused rounds in a row, counting the current round once all its calls have finished. */
  get refusedRoundStreak(): number {
    return this.projectOpenRound().refusedRoundStreak;
  }
  get stopped(): StopDecision | undefined {
    return this.stopDecision;
  }
  get isEnded(): boolean {
    return this.ended;
  }
  /** Evicted by the engine (cap or idle) while not stopped: calls are allowed, kind `unguarded`. */
  get isUnguarded(): boolean {
    return this.unguarded;
  }
  /** Why the engine evicted this run, if it did. */
  get evictedBy(): EvictionCause | undefined {
    return this.evictionCause;
  }
  /** Calls started and not finished yet. */
  get inFlight(): number {
    return this.ledger.inFlight;
  }

  /**
   * The tool delivers the answer, hands off or finishes the task (checks/terminal-tools.ts):
   * never refused, never disabled, and still offered after a stop so the model can answer
   * with it. Integrations that filter the tools they offer keep these.
   */
  isAnswerTool(tool: string): boolean {
    return this.options.tool(tool).terminal;
  }

  /**
   * Of the given tools, those a model may still be offered once the run stopped: its answer
   * tools, until one answer has been delivered after the stop (checks/terminal-tools.ts). An
   * agent that answers through a tool (`send_msg_to_user`) can then still answer; one that
   * answers in text is offered nothing, as before.
   */
  toolsOfferedAfterStop<NAME extends string>(tools: readonly NAME[]): NAME[] {
    if (this.ended || this.ledger.answeredAfterStop) return [];
    return tools.filter((tool) => this.options.tool(tool).terminal);
  }

  /**
   * Argument identity of a call under this run's policy (see call-signature.ts): the identity
   * startCall gives the same call, so a wall-clock stamp of the call among its arguments is
   * left out. `startTime` is the call's start (default: the clock).
   */
  argsHash(tool: string, args: unknown, startTime: number = this.options.now()): string {
    const invalid = invalidToolNameOf(tool, 'tool');
    if (invalid !== undefined) throw invalid;
    return callSignature(tool, args, this.options.tool(tool), startTime);
  }

  /**
   * One model call: closes the previous round (counting it toward the streaks) and opens the
   * next. Returns the new round number. Calls made before any round begin round 1.
   */
  beginRound(usage?: ModelUsage): number {
    if (this.ended) return this.ledger.round;
    const shared = this.shared;
    if (shared !== undefined) {
      // Shared runs keep time by the log, so every replica judges time limits alike.
      const time = this.options.now();
      this.observeTime(time);
      shared.record(usage === undefined ? { type: 'round', time } : { type: 'round', time, usage: { ...usage } });
    }
    return this.openRound(usage);
  }

  private openRound(usage: ModelUsage | undefined): number {
    this.closeRound();
    this.ledger.round += 1;
    this.ledger.current = new RoundAccumulator();
    this.ledger.currentClosed = false;
    // The run's clock starts with its first model call, not its first tool call.
    if (this.ledger.startTime === undefined) this.ledger.startTime = this.timeOf(undefined);
    if (usage !== undefined) this.ledger.current.usage = { ...usage };
    this.touch();
    return this.ledger.round;
  }

  /** Token usage of the current round's model call (known when the model call ends). */
  recordUsage(usage: ModelUsage): void {
    if (this.shared !== undefined && !this.replaying) this.shared.record({ type: 'usage', usage: { ...usage } });
    const current = this.ledger.current;
    current.usage = {
      inputTokens: (current.usage?.inputTokens ?? 0) + (usage.inputTokens ?? 0),
      outputTokens: (current.usage?.outputTokens ?? 0) + (usage.outputTokens ?? 0),
    };
  }

  /** Would this call be refused now? Pure: records nothing. */
  shouldRefuse(call: ToolCall | PrehashedToolCall): CallDecision {
    const prehashed = this.prehash(call);
    if (this.unguarded) return unguardedDecision(prehashed);
    const now = this.timeOf(prehashed.startTime);
    return this.decide(prehashed, now);
  }

  /**
   * Decides a call and records it: an allowed call is in flight until {@link finishCall};
   * a refused call is recorded as refused (it counts toward the refused-round streak).
   */
  startCall(call: ToolCall | PrehashedToolCall): CallTicket {
    let prehashed = this.prehash(call);
    const adopted = this.adopted;
    if (adopted !== undefined) {
      this.adopted = undefined;
      // The same call, already decided and recorded by claimCall: the synchronous path takes
      // that decision instead of deciding (and recording) it a second time.
      if (adopted.call.tool === prehashed.tool && adopted.call.argsHash === prehashed.argsHash) return adopted;
    }
    const shared = this.shared;
    if (this.unguarded) {
      const unclaimed = shared?.refusalOfUnclaimedWrite(call);
      if (unclaimed === undefined) return this.startUnguardedCall(prehashed);
      const refusal: CallDecision = { action: 'refuse', reason: unclaimed.reason, tool: prehashed.tool, argsHash: prehashed.argsHash, message: unclaimed.message };
      this.hooks.callDecided(this, prehashed, refusal, this.ledger.round);
      return { decision: refusal, round: this.ledger.round, call: prehashed, finished: false };
    }
    if (shared !== undefined) {
      // The synchronous path also lets a dead process's calls go after their lease.
      shared.expireAbandonedCalls();
      // Here too: 27.7-29.7 -> 25.0-26.3 us per startCall + finishCall with
      // createMemoryRunStore (medians of 60 and 80 interleaved in-process blocks).
      prehashed = this.withStartTime(call, prehashed);
    }
    this.observeTime(prehashed.startTime);
    const now = this.timeOf(prehashed.startTime);
    // Calls before any model call begin round 1 (which also starts the run's clock). Not
    // logged: applying the call to a run at round 0 does the same in every replica.
    if (this.ledger.round === 0) this.openRound(undefined);
    const facts = this.factsOf(prehashed);
    let decision = this.decide(prehashed, now, facts);
    if (decision.action === 'allow' && shared !== undefined) {
      // One door (issue 23 #2): this path cannot wait for the store, so a business-key write
      // it would allow is refused, never run without its key claimed.
      const unclaimed = shared.refusalOfUnclaimedWrite(call);
      if (unclaimed !== undefined) decision = { action: 'refuse', reason: unclaimed.reason, tool: prehashed.tool, argsHash: prehashed.argsHash, message: unclaimed.message };
    }
    const ticket = this.applyStart(prehashed, decision, now, facts);
    if (shared !== undefined) {
      const key = shared.nextKey();
      ticket.key = key;
      if (decision.action === 'allow') shared.tickets.set(key, ticket);
      shared.record({ type: 'call', key, time: now, call: prehashed, decision });
    }
    return ticket;
  }

  /** Records a decided call (startCall's second half; also a logged call of a shared run). */
  private applyStart(prehashed: PrehashedToolCall, decision: CallDecision, now: number, facts: CallFacts): CallTicket {
    const ledger = this.ledger;
    const round = ledger.current;
    round.calls += 1;
    ledger.toolCalls += 1;
    const tally = ledger.tally(prehashed.tool);
    tally.calls += 1;

    if (ledger.lastArgsHash === prehashed.argsHash) ledger.sameCallStreak += 1;
    else {
      ledger.lastArgsHash = prehashed.argsHash;
      ledger.sameCallStreak = 1;
    }

    if (decision.action === 'refuse') {
      round.refused += 1;
      ledger.refused += 1;
      tally.refused += 1;
      if (LOOP_REPEAT_REASONS.has(decision.reason)) round.repeatRefusals += 1;
      if (decision.reason === 'tool.disabled') {
        round.disabledRefusals += 1;
        round.toolProgress.set(facts.ladderKey, round.toolProgress.get(facts.ladderKey) ?? false);
      }
      if (this.profile === 'chat' && INSISTENCE_REASONS.has(decision.reason)) {
        ledger.failureStreakByTool.set(prehashed.tool, (ledger.failureStreakByTool.get(prehashed.tool) ?? 0) + 1);
        tally.failures += 1;
      }
    } else {
      round.executed += 1;
      if (facts.thought) round.thoughts += 1;
      ledger.executed += 1;
      ledger.budgetedCalls += 1;
      ledger.inFlight += 1;
      round.inFlight += 1;
      tally.executed += 1;
      let record = ledger.signatures.get(prehashed.argsHash);
      if (record === undefined) {
        record = ledger.signatures.add(prehashed.argsHash, {
          state: CallState.InFlight,
          callId: prehashed.callId,
          round: ledger.round,
          epoch: ledger.writeEpoch,
          retries: 0,
          firstTime: now,
          lastTime: now,
          inFlight: 0,
          outcomeTag: 0,
          confirmations: 0,
          inProgress: false,
          answeredError: false,
          changeSerial: 0,
        });
      } else {
        if (decision.kind === 'retry') record.retries += 1;
        if (decision.kind === 'reread' || decision.kind === 'repeat') record.retries = 0;
        record.lastTime = now;
        record.round = ledger.round;
        if (prehashed.callId !== undefined) record.callId = prehashed.callId;
      }
      record.inFlight += 1;
    }
    if (!this.replaying) this.hooks.callDecided(this, prehashed, decision, ledger.round);
    this.touch();
    return { decision, round: ledger.round, call: prehashed, finished: false };
  }

  /**
   * {@link startCall} for async callers (tool wrappers, integrations): with a shared store
   * (`loopguard/redis`) the decision is claimed across processes before the call runs;
   * without one it is startCall's. Use it wherever the caller can await.
   */
  claimCall(call: ToolCall | PrehashedToolCall): Promise<CallTicket> {
    const invalid = invalidToolCallOf(call);
    if (invalid !== undefined) return Promise.reject(invalid);
    const shared = this.shared;
    // An evicted run still goes through the store: a business key decides its write.
    if (shared === undefined || (!this.unguarded && (this.ended || this.stopDecision !== undefined))) return Promise.resolve(this.startCall(call));
    return shared.claimCall(call);
  }

  /**
   * Records what an allowed call returned and whether it taught the run anything. Finishing
   * a refused ticket, or the same ticket twice, does nothing (returns 'neutral').
   */
  finishCall(ticket: CallTicket, outcome: CallOutcome | PrehashedOutcome): Novelty {
    const invalid = invalidTicketOf(ticket) ?? invalidOutcomeOf(outcome);
    if (invalid !== undefined) throw invalid;
    if (ticket.finished || ticket.decision.action === 'refuse') return 'neutral';
    ticket.finished = true;
    const shared = this.shared;
    if (ticket.decision.kind === 'unguarded') {
      // An evicted run's write can still hold a business key: settle it.
      if (shared !== undefined && ticket.key !== undefined) shared.settle(ticket, this.fingerprintOf(ticket.call, outcome));
      return 'neutral';
    }
    if (shared === undefined || ticket.key === undefined) return this.applyFinish(ticket, outcome);
    // The replica may have been rebuilt since the call started: its live ticket is the one
    // the log knows. None: the log already finished it (another process timed it out).
    const key = ticket.key;
    let prehashed = this.fingerprintOf(ticket.call, outcome);
    if (prehashed.endTime === undefined) {
      // A fingerprint made here is this call's own object (fingerprintOutcome sets endTime on
      // it too): stamped in place. A copy would read every enumerable property, the lazy
      // item fingerprints of a listed result among them (result-fingerprint.ts): 4.8 us of a
      // Redis guarded call's client CPU (bench/probes/redis-guarded-call.ts, --cpu-prof), for
      // items only a whole result that is new needs. A caller's prehashed outcome is copied.
      if (isPrehashedOutcome(outcome)) prehashed = { ...prehashed, endTime: this.options.now() };
      else prehashed.endTime = this.options.now();
    }
    // Its business key learns the outcome even if the log already finished the call.
    shared.settle(ticket, prehashed);
    const live = shared.tickets.get(key);
    if (live === undefined) return 'neutral';
    shared.tickets.delete(key);
    live.finished = true;
    // Asked before applyFinish adds it: a result seen whole already needs no items in the log.
    const resultSeenBefore = this.hasSeenResult(prehashed.resultHash);
    const novelty = this.applyFinish(live, prehashed);
    shared.record(resultSeenBefore ? { type: 'finish', key, time: prehashed.endTime!, outcome: prehashed, resultSeenBefore } : { type: 'finish', key, time: prehashed.endTime!, outcome: prehashed });
    return novelty;
  }

  /** Records an outcome (finishCall's work; also a logged outcome of a shared run). */
  private applyFinish(ticket: CallTicket, outcome: CallOutcome | PrehashedOutcome): Novelty {
    if (ticket.decision.action === 'refuse') return 'neutral';
    const ledger = this.ledger;
    const { tool, argsHash } = ticket.call;
    const policy = this.options.tool(tool);
    const facts = this.factsOf(ticket.call);
    const prehashed = this.fingerprintOf(ticket.call, outcome);
    this.observeTime(prehashed.endTime);
    const now = this.timeOf(prehashed.endTime);
    const record = ledger.signatures.get(argsHash);
    const failed = FAILURE_OUTCOMES.has(prehashed.outcome);
    const transient =
      failed &&
      (prehashed.outcome !== 'error' ||
        prehashed.transient === true ||
        (prehashed.transient === undefined && prehashed.errorType !== undefined && isTransientErrorType(prehashed.errorType)));
    const tally = ledger.tally(tool);
    ledger.inFlight = Math.max(0, ledger.inFlight - 1);

    // Document 003, condition 3: repetition within a declared retry budget is retry. A failed
    // identical retry that the budget covers (any failure when the tool declares `retries`,
    // a transient one under the default budget) is neither a consecutive failure nor a stale
    // answer until the budget is spent; the failure that spends it counts all of them at
    // once, so the other checks neither cut the budget short nor wait beyond it.
    const budgetedRetry =
      failed &&
      ticket.decision.kind === 'retry' &&
      record !== undefined &&
      (policy.retriesDeclared || record.state === CallState.FailedTransient);
    const retryWithinBudget = budgetedRetry && record.retries < policy.retries;
    const failuresCounted = !failed || retryWithinBudget ? 0 : budgetedRetry ? Math.max(1, record.retries) : 1;

    // Judged before the record learns this outcome: a write's result is an acknowledgement
    // unless it repeats this same call's previous outcome.
    const tag = outcomeTagOf(prehashed, argsHash);
    // A rejection naming what it rejects, word for word as another call already got it ("Table
    // 'shop.teachers' doesn't exist" for a reworded query on the same table): the call still
    // carries the rejected name, so it narrows nothing. Asked before judgeNovelty records it.
    // Measured on every InterCode-SQL run (eval/WIDE.md): loops caught within 5 stale calls
    // 3,082 → 3,598 of 3,672, healthy runs stopped unchanged (6 of 1,812), other sources unchanged.
    const rejectionRepeated = prehashed.namesRejected === true && prehashed.resultHash !== undefined && ledger.fingerprints.has(prehashed.resultHash);
    let judged = this.judgeNovelty(tool, prehashed, ticket.decision.kind, record, now, facts, argsHash, tag);
    if (facts.listingKey !== undefined && (prehashed.lastPage === true || prehashed.outcome === 'empty')) ledger.endedListings.set(facts.listingKey, tool);
    if (prehashed.window !== undefined && !failed) {
      recordWindow(ledger.readCoverage, prehashed.window);
      if (prehashed.window.lastLine !== undefined) (ledger.fileEnds ??= new Map()).set(prehashed.window.resource, prehashed.window.lastLine);
    }
    // A window past the known end of its file, nothing written since, can only come back empty:
    // the same nothing again, not a new question (world-state/windows past the end of a file).
    const askedFrom = prehashed.askedFrom;
    if (judged === 'new' && askedFrom !== undefined && askedFrom.line > (ledger.fileEnds?.get(askedFrom.resource) ?? Infinity)) judged = 'seen';
    if (judged === 'seen' && facts.page && !failed && record !== undefined) {
      const ownName = policy.ownName ?? tool;
      // A form field given a value for the first time, on a page that does not show it, is
      // neither progress nor a loop (world-state/page-state.ts).
      if (record.outcomeTag === 0 && isPageInputAction(ownName, ticket.call.family)) judged = 'neutral';
      // A look at the page a page action has moved since this look last ran: the page that action
      // already answered with, no sign of a loop (world-state/page-state.ts, isPageLook).
      else if ((record.outcomeTag === 0 || record.epoch !== ledger.pageEpoch) && isPageLook(ownName, ticket.call.family)) judged = 'neutral';
    }
    // The same call answering exactly what it answered last time is stale only if nothing known
    // to write has changed anything since (RunLedger.changeSerial): the tests run again after an
    // edit, the build after a config change, the file restored after other edits — "re-runs
    // after an edit" — are neither new nor stale. Measured on all 500 mini-swe-agent + Gemini 3
    // Pro SWE-bench runs (npm run eval:wide, eval/WIDE.md): 7 of 371 resolved runs were stopped
    // by stale_rounds, every one in an edit → re-run cycle; 0 after.
    if (judged === 'seen' && record !== undefined && tag !== 0 && record.outcomeTag === tag && record.changeSerial !== ledger.changeSerial) judged = 'neutral';
    // A failure that teaches (issue 18 #3, general profile): a call failing for the first time
    // saying what its arguments name does not exist — a lookup by another id or name while the
    // agent narrows down. It neither counts toward nor resets the tool's streak; the identical
    // call failing again counts, and so does every other error (a locked ledger, a bad token).
    // Its answer is neutral: "user not found" for the second email is not a stale result.
    // Bounded: past 2 × consecutiveFailures such failures in a row, they count again.
    const narrowing =
      failed &&
      this.profile === 'general' &&
      prehashed.aboutArguments === true &&
      !rejectionRepeated &&
      record !== undefined &&
      record.state !== CallState.Failed &&
      record.state !== CallState.FailedTransient;
    // The same said in a result (result-fingerprint.ts argumentErrorAnswerOf: "Error: user not found"
    // as the tool's text): this call's first answer. Counted with the failures that teach.
    const narrowingAnswer =
      !failed && this.profile === 'general' && prehashed.aboutArguments === true && !rejectionRepeated && record !== undefined && record.outcomeTag === 0;
    const teaches = (narrowing || narrowingAnswer) && ledger.teachingFailures < 2 * this.options.consecutiveFailures;
    // A step the harness rejected before running it (world-state/is-step-rejection.ts: BrowserGym's
    // "Received a multi-action") is no answer from the world: not a seen result, not a failure
    // of the tool, no change to the page or the workspace, and the call's record keeps what it
    // last learned from a run that happened. Bounded like the failures that teach: past
    // 2 × consecutiveFailures rejections in a row the model is stuck writing invalid steps, a
    // loop like any other, and they count again.
    const rejected = failed && prehashed.stepRejected === true && ledger.stepRejections < 2 * this.options.consecutiveFailures;
    ledger.stepRejections = failed && prehashed.stepRejected === true ? ledger.stepRejections + 1 : 0;
    if (rejected) return this.finishRejectedStep(ticket, record, tally, prehashed);
    // Zero results for a new question is exploration (document 000), but not forever (document
    // 002: "reformulates slightly, and tries again, forever"). Bounded like the failures that
    // teach: past 2 × staleRounds rounds in a row whose only news was an empty answer, an empty
    // answer is nothing new, and the stale-round stop follows staleRounds rounds later.
    if (judged === 'new' && prehashed.outcome === 'empty' && this.profile === 'general' && ledger.emptyRoundStreak >= 2 * this.options.staleRounds) judged = 'seen';
    const novelty: Novelty = retryWithinBudget || teaches ? 'neutral' : judged;
    if (failed && !retryWithinBudget) this.countFailureStreaks(ticket.call, prehashed, record, transient);

    // World state (document 001 generalised): a call that may write advances it unless it
    // certainly did nothing — turned away by an overloaded server, or failed
    // deterministically. A timed-out write may well have happened (document 001).
    // A thought (`think`) writes nothing, whatever its effect says: counted as a possible write, a
    // think call between two identical commands made the second a re-run after a write, and a
    // loop that thinks before each repeat was never refused.
    const mayHaveWritten = facts.effect !== 'read' && !facts.thought && prehashed.outcome !== 'overloaded' && !(failed && !transient) && prehashed.wroteNothing !== true;
    // A write the run has not seen answer this way before (its first run, or another answer
    // than last time) is a change the next re-run may reflect. Only calls known to write
    // count (a write tool, a shell command or editor action that writes); a tool of unknown
    // effect, which may be a read, and a browser action, which moves the page (pageEpoch), do
    // not: each of their first runs counting as a change delayed the catch of WebShop's
    // click loops by a whole cycle (EVAL.md: 11 of 23 went from stopped to halted). A write
    // answering as it did last time changes nothing new: a cycle of the same edit and the
    // same test run stays stale.
    if (mayHaveWritten && facts.effect === 'write' && !facts.page && (record === undefined || tag === 0 || record.outcomeTag !== tag)) {
      ledger.changeSerial = (ledger.changeSerial + 1) >>> 0;
    }
    if (record !== undefined) {
      record.inFlight = Math.max(0, record.inFlight - 1);
      record.state = !failed ? CallState.Succeeded : transient ? CallState.FailedTransient : CallState.Failed;
      if (!failed) record.retries = 0;
      // Outcome confirmation (checks/outcome-confirmed-repeat.ts): the same outcome as this
      // call's previous execution, with nothing that may write finished in between.
      const epoch = facts.page ? ledger.pageEpoch : ledger.writeEpoch;
      const confirmed = tag !== 0 && record.outcomeTag === tag && record.epoch === epoch;
      // Nor does such an action, back to back, confirm that it changes nothing (judgeNovelty),
      // nor an action answered with nothing of the page: the same actions judgeNovelty keeps
      // neutral. A page read (an extraction) finding nothing confirms as any read does.
      const unconfirmable =
        facts.page &&
        ((prehashed.describesAction === true && (isBackToBack(ledger, argsHash) || (record.outcomeTag !== 0 && pageNewsSince(ledger, record)))) ||
          (prehashed.outcome === 'empty' && facts.effect !== 'read'));
      record.confirmations = tag === 0 || unconfirmable ? 0 : confirmed ? record.confirmations + 1 : 1;
      record.outcomeTag = tag;
      record.inProgress = !failed && prehashed.inProgress === true;
      record.answeredError = !failed && prehashed.errorAnswer === true;
      record.changeSerial = ledger.changeSerial;
    }
    if (failed) {
      if (failuresCounted > 0 && !teaches) ledger.failureStreakByTool.set(tool, (ledger.failureStreakByTool.get(tool) ?? 0) + failuresCounted);
      ledger.teachingFailures = narrowing ? ledger.teachingFailures + 1 : 0;
      tally.failures += 1;
      if (prehashed.outcome === 'overloaded' && ledger.overloadedExempted < this.options.overloadedExemptMax) {
        // Comes off the budget but is not progress: still a failure, still a seen result.
        ledger.overloadedExempted += 1;
        ledger.budgetedCalls = Math.max(0, ledger.budgetedCalls - 1);
        if (ticket.round === ledger.round) ledger.current.hadOverloadedExemption = true;
      }
    } else {
      ledger.failureStreakByTool.set(tool, 0);
      if (facts.terminal && this.stopDecision !== undefined) ledger.answeredAfterStop = true;
      ledger.sameFailure = undefined;
      ledger.teachingFailures = narrowingAnswer ? ledger.teachingFailures + 1 : 0;
      if (ledger.failingCall?.tool === tool) ledger.failingCall = undefined;
    }
    if (mayHaveWritten) {
      // A write that has just confirmed it changes nothing does not advance the world either.
      if (record === undefined || record.confirmations < 2 || facts.effect === 'unknown' || policy.approval) {
        // A browser action moves the page only; anything else may also change what a page shows.
        if (!facts.page) {
          ledger.writeEpoch += 1;
          if (ledger.endedListings.size > 0) forgetEndedListings(ledger.endedListings, tool, facts.effect);
          // The file may have changed: its lines are news again. A window read that counts as
          // a write (SWE-agent's `open`/`goto` move the viewer's state) changes no file.
          if (ledger.readCoverage.size > 0 && prehashed.window === undefined) ledger.readCoverage.clear();
          if (ledger.fileEnds !== undefined && prehashed.window === undefined) ledger.fileEnds = undefined;
        }
        ledger.pageEpoch += 1;
        if (facts.page && novelty === 'new') ledger.pageNewsMark = 2 * ledger.pageEpoch;
      }
    } else if (facts.page && novelty === 'new' && !failed) {
      // A page read finding something new (the next page's items extracted): the page the last
      // action led to was somewhere new, so that action run again acts on another page.
      ledger.pageNewsMark = 2 * ledger.pageEpoch + 1;
    }
    if (record !== undefined) record.epoch = facts.page ? ledger.pageEpoch : ledger.writeEpoch;
    // The command this shell tool started may still be running: an empty command to it waits (factsOf).
    if (prehashed.commandRunning === true) ledger.commandRunningTool = tool;
    else if (ledger.commandRunningTool === tool) ledger.commandRunningTool = undefined;
    if (ticket.call.sleepsOnly === true) ledger.sleptRound = ledger.round;
    // A write that timed out may have happened (document 001): its identical retry waits
    // until the run has looked (checks/unknown-outcome-write.ts). Any other outcome settles it.
    if (facts.effect === 'write' && prehashed.outcome === 'timeout') {
      (ledger.writesOfUnknownOutcome ??= new Map()).set(argsHash, ledger.executed);
    } else if (ledger.writesOfUnknownOutcome !== undefined) {
      ledger.writesOfUnknownOutcome.delete(argsHash);
    }

    // A result that arrives after its round closed (the loop moved on while a call was still
    // running) counts in the round open now: dropping it would let a stale loop of slow
    // calls never count as stale.
    if (ticket.round === ledger.round || !ledger.currentClosed) {
      const round = ledger.current;
      if (ticket.round === ledger.round) round.inFlight = Math.max(0, round.inFlight - 1);
      round.finished += 1;
      if (facts.thought) round.thoughtsFinished += 1;
      if (novelty === 'new') {
        round.newFacts += 1;
        if (prehashed.outcome === 'empty') round.emptyNewFacts += 1;
      }
      else if (novelty === 'seen') round.seen += 1;
      else round.neutral += 1;
      // The ladder watches successful answers only: a failing retry is governed by the retry
      // budget and consecutive failures, and disabling it would cut document 003's honest
      // retry (503 four times, success on the fifth) before it got there.
      if (novelty !== 'neutral' && !failed) {
        round.toolProgress.set(facts.ladderKey, (round.toolProgress.get(facts.ladderKey) ?? false) || novelty === 'new');
        if (facts.page && novelty === 'new' && prehashed.outcome === 'success' && prehashed.describesAction !== true) round.pageNews = true;
      }
    }
    if (novelty === 'new') {
      ledger.newFacts += 1;
      tally.newFacts += 1;
      ledger.lastNewFactRound = ticket.round;
    } else if (novelty === 'seen') {
      ledger.seenResults += 1;
      tally.seen += 1;
    }
    if (!this.replaying) this.hooks.callFinished(this, ticket.call, prehashed.outcome, novelty, ticket.round);
    this.touch();
    return novelty;
  }

  /** Records a step the harness rejected before running it: a neutral answer, and nothing else learned. */
  private finishRejectedStep(ticket: CallTicket, record: SignatureRecord | undefined, tally: ToolTally, prehashed: PrehashedOutcome): Novelty {
    const ledger = this.ledger;
    if (record !== undefined) {
      record.inFlight = Math.max(0, record.inFlight - 1);
      // The same step written again is a retry of a step that did not go through (retry-budget.ts
      // lets it run), and one that never ran spends none of the tool's retry budget.
      if (record.state === CallState.InFlight) record.state = CallState.Failed;
      if (ticket.decision.action === 'allow' && ticket.decision.kind === 'retry') record.retries = Math.max(0, record.retries - 1);
    }
    tally.failures += 1;
    if (ticket.round === ledger.round || !ledger.currentClosed) {
      const round = ledger.current;
      if (ticket.round === ledger.round) round.inFlight = Math.max(0, round.inFlight - 1);
      round.finished += 1;
      round.neutral += 1;
    }
    if (!this.replaying) this.hooks.callFinished(this, ticket.call, prehashed.outcome, 'neutral', ticket.round);
    this.touch();
    return 'neutral';
  }

  /**
   * Failures counted across calls (issue 24 #3, issue 18 #3): the same error from several
   * tools in a row (checks/same-failure-across-tools.ts), and the identical call failing
   * deterministically again and again whatever its error says (checks/same-call-failing.ts).
   * Runs before the record learns this outcome: its state and epoch are still its previous execution's.
   */
  private countFailureStreaks(call: PrehashedToolCall, outcome: PrehashedOutcome, record: SignatureRecord | undefined, transient: boolean): void {
    const ledger = this.ledger;
    if (outcome.resultHash !== undefined && outcome.argumentIndependent === true) {
      const same = ledger.sameFailure;
      if (same !== undefined && same.resultHash === outcome.resultHash) {
        same.count += 1;
        same.tools.add(call.tool);
      } else {
        ledger.sameFailure = { resultHash: outcome.resultHash, count: 1, tools: new Set([call.tool]) };
      }
    } else {
      ledger.sameFailure = undefined;
    }
    if (transient || record === undefined || this.options.tool(call.tool).retriesDeclared) return;
    // Something that may write finished since this call last failed: the world moved, so this
    // is a first failure again (a test re-run after an edit failing differently is debugging).
    if (record.epoch !== ledger.writeEpoch) record.retries = 0;
    const times = record.state === CallState.Failed ? record.retries + 1 : 1;
    if (times > 1) ledger.failingCall = { tool: call.tool, times };
  }

  /** startCall + finishCall for a call whose outcome is already known (replay, tests). */
  recordCall(call: ToolCall | PrehashedToolCall, outcome: CallOutcome | PrehashedOutcome): { decision: CallDecision; novelty?: Novelty } {
    const ticket = this.startCall(call);
    if (ticket.decision.action === 'refuse') return { decision: ticket.decision };
    return { decision: ticket.decision, novelty: this.finishCall(ticket, outcome) };
  }

  /**
   * Progress state (document 002): a digest of the artifact the task moves (facts gathered,
   * files changed). Report it once per round; `maxStalled` reports in a row without a change
   * stop the run. Strings of up to 64 characters are taken as ready digests (a hex SHA-256 is 64);
   * longer strings and other values are hashed as JSON, so what the ledger keeps and the shared
   * log carries per report stays small whatever the app passes (a 3 MB document was kept whole).
   */
  reportState(state: unknown): void {
    let digest: string;
    try {
      digest = typeof state === 'string' && state.length <= 64 ? state : hashText(JSON.stringify(state) ?? 'undefined');
    } catch {
      return; // A state that cannot be serialized says nothing about progress.
    }
    if (this.shared !== undefined && !this.replaying) this.shared.record({ type: 'state', digest });
    this.applyState(digest);
  }

  /**
   * The model's context was compacted, summarised or trimmed (Claude Code's auto-compact and
   * `/compact`, an OpenHands condenser, a LangGraph `trim_messages`): the results it saw before
   * are no longer in the conversation, so a refusal saying "its result is in the conversation
   * above" would withhold what the model needs. From here, each earlier call may run once more
   * (as after a write), and an answer seen only before is learned again: neither new nor stale,
   * once (learned again after a later compaction too, it is seen: a host reporting a compaction
   * every round cannot keep a loop neutral). Loop streaks and budgets carry on (a loop does not
   * end by forgetting), and a result the run never saw is new as ever. Logged, so every process
   * sharing the run applies it too.
   */
  contextCompacted(): void {
    if (this.ended) return;
    if (this.shared !== undefined && !this.replaying) this.shared.record({ type: 'compacted', time: this.options.now() });
    this.ledger.forgetConversation();
  }

  private applyState(digest: string): void {
    if (digest === this.ledger.lastStateDigest) this.ledger.stalledRounds += 1;
    else {
      this.ledger.lastStateDigest = digest;
      this.ledger.stalledRounds = 0;
    }
  }

  /**
   * Should the agent loop stop? Counts the current round if all its calls have finished.
   * The first stop is latched (and reported to listeners once); from then on every call is
   * refused and this keeps returning the same decision.
   */
  shouldStop(): RunDecision {
    if (this.stopDecision !== undefined) return this.stopDecision;
    // An evicted run is no longer judged: a verdict now (a budget running out on the clock
    // alone) would turn the eviction into refusals after all.
    if (this.unguarded) return { action: 'continue', disabledTools: [] };
    const ledger = this.ledger;
    const projection = this.projectOpenRound();
    const now = this.timeOf(undefined);
    const context = { ledger, options: this.options, projection, now };
    for (const check of STOP_CHECKS) {
      const verdict = check(context);
      if (verdict === undefined) continue;
      const partial = this.partialWith(projection);
      const decision: StopDecision = {
        action: 'stop',
        reason: verdict.reason,
        detail: verdict.detail,
        message: stopMessage(verdict.detail, partial, BUDGET_STOPS.has(verdict.reason)),
        round: ledger.round,
        partial,
      };
      this.stopDecision = decision;
      if (this.shared !== undefined) {
        // Latched for every process: each sees it at its next decision.
        this.shared.record({ type: 'stop', decision });
        this.shared.noteSummary({ stopReason: decision.reason });
      }
      this.hooks.runStopped(this, decision);
      return decision;
    }
    // Calls of an ended run are refused `run.stopped`: shouldStop must say stop too, or a loop
    // that asks it keeps going against refusals forever (issue 10 #1).
    if (this.ended) return (this.endedStop ??= this.runEndedStop(projection));
    const ladder = this.options.escalation;
    // The nudge is about answers repeating; a round of repeated *errors* is a retry, which
    // the retry budget and consecutive failures judge — telling an honest 503 retry "try a
    // different approach" only costs tokens (seen in the demo's honest-retry scenario).
    // Stalled progress takes the same first step (document 002: nudge before the stop): the
    // calls may each look new while the reported state stands still.
    const nudge = !ladder.enabled
      ? undefined
      : projection.staleRoundStreak >= ladder.nudgeAfter && projection.repeatingTools.length > 0
        ? nudgeMessage(projection.repeatingTools, projection.staleRoundStreak)
        : ledger.stalledRounds >= ladder.nudgeAfter
          ? stalledProgressNudgeMessage(ledger.stalledRounds)
          : undefined;
    const disabledTools = this.wholeTools(projection.disabledTools);
    return nudge === undefined
      ? { action: 'continue', disabledTools }
      : { action: 'continue', nudge, disabledTools };
  }

  /**
   * Tools the next model call should not be offered (escalation ladder step 2). A disabled
   * shell command family (`bash(grep)`) is not listed: the tool stays offered, and calls of
   * that family are refused with the reason.
   */
  disabledTools(): string[] {
    return this.wholeTools(this.projectOpenRound().disabledTools);
  }

  private wholeTools(keys: readonly string[]): string[] {
    const families = this.ledger.ladderFamilies;
    return families.size === 0 ? [...keys] : keys.filter((key) => !families.has(key));
  }

  /** What the run has learned so far, with counts. */
  partial(): PartialResults {
    return this.partialWith(this.projectOpenRound());
  }

  /**
   * Ends the run: closes its last round and unregisters it from the engine, exactly as
   * `guard.endRun(id)` does, so `startRun(id)` then opens a fresh run. Later calls of this
   * run are refused `run.stopped` and shouldStop answers stop (`run_ended`). Idempotent.
   */
  end(): void {
    if (this.ended) return;
    if (this.shared !== undefined && !this.replaying && !this.unguarded && this.evictionCause === undefined && !this.endsLocally) {
      this.shared.noteSummary({ ended: true });
      this.shared.record({ type: 'end', time: this.options.now() });
    }
    this.closeRound();
    this.ended = true;
    this.hooks.ended?.(this);
  }

  /**
   * @internal The engine lets go of a run nobody ended (cap or idle). A run already stopped
   * keeps its stop; any other fails open: housekeeping must never turn a live agent's calls
   * into refusals (issue 10 #2).
   */
  evict(cause: EvictionCause): void {
    if (this.ended) {
      // Ended elsewhere (a shared run's end arrived through its log): let the engine drop it.
      this.hooks.ended?.(this);
      return;
    }
    this.unguarded = this.stopDecision === undefined;
    this.evictionCause = cause;
    // Eviction frees this process's memory; the run itself goes on (in the store too).
    this.end();
  }

  /**
   * @internal Has the run seen this result whole before? Asked before the outcome is applied: a
   * result seen whole needs no items in the shared log, nor on its span (the span processor).
   */
  hasSeenResult(resultHash: string | undefined): boolean {
    return resultHash !== undefined && this.ledger.fingerprints.has(resultHash);
  }

  /**
   * @internal An async wrapper (instrumentTool) claimed a call with claimCall and is about to
   * start its span: the next startCall of the same call (the span processor's, synchronous)
   * returns this ticket. `undefined` clears a claim nobody took.
   */
  adoptClaim(ticket: CallTicket | undefined): void {
    this.adopted = ticket;
  }

  // --- SharedReplica (shared-ledger/shared-run-link.ts) -----------------------------------

  /** @internal Applies an event from the run's shared log (see RunEvent). */
  applyLogged(event: RunEvent): CallTicket | undefined {
    this.replaying = true;
    try {
      switch (event.type) {
        case 'round':
          if (this.ended) return undefined;
          this.observeTime(event.time);
          this.openRound(event.usage);
          return undefined;
        case 'usage':
          this.recordUsage(event.usage);
          return undefined;
        case 'call': {
          const call = event.call;
          this.observeTime(event.time);
          if (this.ledger.round === 0) this.openRound(undefined);
          const ticket = this.applyStart(call, event.decision, event.time, this.factsOf(call));
          ticket.key = event.key;
          return ticket;
        }
        case 'finish': {
          const ticket = this.shared?.tickets.get(event.key);
          this.shared?.tickets.delete(event.key);
          if (ticket === undefined || ticket.finished) return undefined;
          ticket.finished = true;
          this.applyFinish(ticket, { ...event.outcome, endTime: event.time });
          return ticket;
        }
        case 'state':
          this.applyState(event.digest);
          return undefined;
        case 'compacted':
          if (!this.ended) this.ledger.forgetConversation();
          return undefined;
        case 'stop':
          this.stopDecision ??= event.decision;
          return undefined;
        case 'end':
          // Another process ended the run: it is over here too (at its next decision).
          if (!this.ended) {
            this.closeRound();
            this.ended = true;
            // The engine lets go of it (it is idempotent): otherwise a run ended by another
            // process would stay among the open runs and could never be evicted.
            this.hooks.ended?.(this);
          }
          return undefined;
      }
    } finally {
      this.replaying = false;
    }
  }

  /** @internal An empty ledger, before the whole shared log is applied again. */
  resetReplica(): void {
    this.ledger = new RunLedger();
    this.stopDecision = undefined;
    this.endedStop = undefined;
    this.ended = false;
  }

  /** @internal The decision a call would get now, unrecorded (a claim proposes it to the store). */
  decideForClaim(
    call: ToolCall | PrehashedToolCall,
    forced?: { reason: RefusalReason; message: string },
  ): { call: PrehashedToolCall; decision: CallDecision; time: number; effect: CallEffect } {
    const prehashed = this.prehashWithStart(call);
    const time = Math.max(prehashed.startTime!, this.ledger.lastObservedTime ?? -Infinity);
    const facts = this.factsOf(prehashed);
    const decision: CallDecision =
      forced === undefined || this.stopDecision !== undefined || this.ended
        ? this.decide(prehashed, time, facts)
        : { action: 'refuse', reason: forced.reason, tool: prehashed.tool, argsHash: prehashed.argsHash, message: forced.message };
    return { call: prehashed, decision, time, effect: facts.effect };
  }

  /** @internal A call prehashed (with its start time) and its effect, undecided (an owned run's claim). */
  effectOfClaim(call: ToolCall | PrehashedToolCall): { call: PrehashedToolCall; effect: CallEffect } {
    const prehashed = this.prehashWithStart(call);
    return { call: prehashed, effect: this.factsOf(prehashed).effect };
  }

  /**
   * The call prehashed with its start time (a claim logs it): stamped in place on a call
   * hashed here, which nothing else holds yet; a caller's prehashed call is copied. Copying
   * every call cost a guarded call through createMemoryRunStore ~3 us (25.1-26.0 -> 21.8-22.9
   * us, medians of 80 interleaved in-process blocks of 500, twice; the same build against
   * itself: 25.8 / 25.7 us), more than a copy costs: probably the copies' other object shape
   * met by everything downstream of the decision.
   */
  private prehashWithStart(call: ToolCall | PrehashedToolCall): PrehashedToolCall {
    return this.withStartTime(call, this.prehash(call));
  }

  /** `prehashed` (this.prehash(call)) with a start time: stamped in place when hashed here, a copy of a caller's. */
  private withStartTime(call: ToolCall | PrehashedToolCall, prehashed: PrehashedToolCall): PrehashedToolCall {
    if (prehashed.startTime !== undefined) return prehashed;
    if (isPrehashed(call)) return { ...prehashed, startTime: this.options.now() };
    prehashed.startTime = this.options.now();
    return prehashed;
  }

  /**
   * @internal Applies a claimed call now, telling no listener yet (the claim may be taken
   * back): exactly what applying its log entry does.
   */
  applyClaim(call: PrehashedToolCall, decision: CallDecision, time: number, key: string): CallTicket {
    return this.applyLogged({ type: 'call', key, time, call, decision })!;
  }

  /** @internal The claim stands: the listeners hear its decision (or the one given), once. */
  announceClaim(ticket: CallTicket, decision: CallDecision = ticket.decision): void {
    this.hooks.callDecided(this, ticket.call, decision, ticket.round);
  }

  /**
   * @internal Ends the run in this process only (a span processor shutting down, a redeploy):
   * with a shared store the run goes on in the others, so no end is logged.
   */
  endLocally(): void {
    this.endsLocally = true;
    this.end();
  }

  /** @internal An evicted run's call whose business key the claim already settled. */
  startUnguarded(call: ToolCall | PrehashedToolCall): CallTicket {
    return this.startUnguardedCall(this.prehash(call));
  }

  private startUnguardedCall(call: PrehashedToolCall): CallTicket {
    const decision = unguardedDecision(call);
    if (!this.warnedUnguarded) {
      this.warnedUnguarded = true;
      this.hooks.unguardedCall?.(this);
    }
    this.hooks.callDecided(this, call, decision, this.ledger.round);
    return { decision, round: this.ledger.round, call, finished: false };
  }

  private runEndedStop(projection: RoundProjection): StopDecision {
    const partial = this.partialWith(projection);
    const detail = 'the run has ended';
    // Worded like a budget stop: ending says nothing about whether the run was learning.
    return { action: 'stop', reason: 'run_ended', detail, message: stopMessage(detail, partial, true), round: this.ledger.round, partial };
  }

  // -------------------------------------------------------------------------------------

  private decide(call: PrehashedToolCall, now: number, facts: CallFacts = this.factsOf(call)): CallDecision {
    const { tool, argsHash } = call;
    if (this.stopDecision !== undefined && !this.ended && deliversAnswerAfterStop(this.ledger, facts.terminal)) {
      return { action: 'allow', kind: 'terminal', tool, argsHash };
    }
    if (this.stopDecision !== undefined || this.ended) {
      return {
        action: 'refuse',
        reason: 'run.stopped',
        tool,
        argsHash,
        message: refusalMessage('run.stopped', { tool, stopReason: this.stopDecision?.detail ?? 'the run has ended' }),
      };
    }
    const record = this.ledger.signatures.get(argsHash);
    const context: CallCheckContext = {
      ledger: this.ledger,
      options: this.options,
      policy: this.policyOf(tool, facts, record),
      tool,
      argsHash,
      record,
      now,
      effect: facts.effect,
      terminal: facts.terminal,
      ladderKey: facts.ladderKey,
      epoch: facts.page ? this.ledger.pageEpoch : this.ledger.writeEpoch,
    };
    for (const check of CALL_CHECKS) {
      const result = check(context);
      if (result === undefined) continue;
      if ('allow' in result) return { action: 'allow', kind: result.allow, tool, argsHash };
      const decision: CallDecision = {
        action: 'refuse',
        reason: result.refuse,
        tool,
        argsHash,
        message: refusalMessage(result.refuse, {
          tool,
          previousCallId: record?.callId,
          previousRound: record?.round,
          facts: result.facts,
        }),
      };
      if (record?.callId !== undefined) decision.previousCallId = record.callId;
      if (record !== undefined) decision.previousRound = record.round;
      return decision;
    }
    return { action: 'allow', kind: record === undefined ? 'new' : 'repeat', tool, argsHash };
  }

  /**
   * Did this result teach the run something? Every unclear case leans to "new" unless
   * `failClosed` (document 003) is set: a wrongly continued run is still bounded by the
   * other checks and budgets; a healthy run cut off cannot be brought back (document 000).
   */
  private judgeNovelty(
    tool: string,
    outcome: PrehashedOutcome,
    kind: AllowKind,
    record: SignatureRecord | undefined,
    now: number,
    facts: CallFacts,
    argsHash: string,
    tag: number,
  ): Novelty {
    const { effect, terminal } = facts;
    const policy = this.policyOf(tool, facts, record);
    const failClosed = this.options.failClosed;
    const failed = FAILURE_OUTCOMES.has(outcome.outcome);
    const fingerprints = this.ledger.fingerprints;
    let fingerprint = outcome.resultHash;
    if (fingerprint === undefined) {
      // Unfingerprintable results: the first use of an unknown tool must not cut a run.
      if (outcome.unfingerprintable) {
        if (!failClosed) return 'new';
        fingerprint = `unfingerprintable:${tool}`;
      } else if (policy.page && effect !== 'read' && !failClosed) {
        // A browser action answered with nothing of the page: a screenshot the recording or the
        // span did not keep (world-state/page-state.ts, showsNoPage). Where the page went is
        // unknown, so it is neither new nor a repeat (document 000): eight such screenshots
        // stopped a healthy computer-use run. A page read (an extraction) finding nothing is
        // an empty answer like any other.
        return 'neutral';
      } else if (effect === 'write' && !failClosed) {
        // A write that answers with nothing (`cp a b`, a silent `cat > f`) only acknowledges
        // itself: no fact about the world, and no sign of a loop either — the first time.
        // The same write answering nothing again is a repeat, like any write answering the
        // same again (below); finishCall makes it neutral when anything wrote in between.
        const repeated = record !== undefined && record.outcomeTag === tag;
        if (!repeated || policy.exempt || terminal || policy.approval || policy.thought) return 'neutral';
        // A poll that still answers nothing (`sleep 5 && curl -s …/health` while the server starts) waits, as below.
        if (kind === 'poll' && policy.poll !== undefined && isInsidePollWindow(policy.poll.deadlineMs, record.firstTime, now)) return 'neutral';
        return 'seen';
      } else if (facts.listingKey !== undefined && this.ledger.endedListings.has(facts.listingKey)) {
        // Another page of a listing that said it has no more (`has_more: false`, an empty
        // page): nothing past the end can be new (issue 24 #2).
        return 'seen';
      } else {
        // Zero results for a new query is normal exploration (document 000); the same query
        // finding nothing again confirms nothing. failClosed: every empty result is alike.
        fingerprint = failClosed ? `empty:${tool}` : `empty:${argsHash}`;
      }
    }
    const ledger = this.ledger;
    let seen = fingerprints.has(fingerprint);
    // Seen only before the model's context was compacted (contextCompacted): learned again,
    // once; a second time it is seen.
    let relearned = false;
    if (!seen) {
      fingerprints.add(fingerprint);
      if (ledger.forgotten !== undefined) {
        const recalled = ledger.recall(fingerprint);
        relearned = recalled === 'first';
        seen = recalled === 'again';
      }
    }
    // Item-level novelty: the same documents in another order or subset are already seen.
    let itemsAllSeen = false;
    let itemsRelearned = false;
    // A result seen whole had its items added when it was first seen: nothing to look up
    // (and, items being computed on first read, nothing to hash).
    const items = seen || relearned ? undefined : outcome.items;
    if (items !== undefined && items.length > 0) {
      const seenItems = ledger.seenItems;
      itemsAllSeen = true;
      for (const item of items) {
        if (seenItems.has(item)) continue;
        seenItems.add(item);
        const recalled = ledger.forgotten === undefined ? 'never' : ledger.recallItem(item);
        if (recalled === 'first') itemsRelearned = true;
        else if (recalled === 'never') itemsAllSeen = false;
      }
    }
    // A thought's answer ("Your thought has been logged.") is the same for every thought: a new
    // thought is neither a new fact about the world nor a stale result; the same thought
    // acknowledged again is a repeat (world-state/well-known-tools.ts, WELL_KNOWN_THOUGHT_TOOLS).
    if (policy.thought && !failed) return seen && record !== undefined && record.outcomeTag === tag ? 'seen' : 'neutral';
    // Side effects happened again with every call, even when the response is the same.
    if (policy.approval && !failed) return 'new';
    // A window of a file whose every line was already shown, nothing written since: reading
    // it whole and then again in offset/limit windows learns nothing (issue 24 #6).
    if (outcome.window !== undefined && !failed && !policy.exempt && !terminal && isWindowCovered(this.ledger.readCoverage, outcome.window)) return 'seen';
    // A browser action that answers with a line about itself, run again straight after itself:
    // the same "More" click is the next page, the same scroll further down, and the answer
    // cannot say (world-state/page-state.ts, describesAction). Neither new nor a repeat. Nor
    // when another action has since gone somewhere new (a click on the next search result):
    // the same scroll or "Navigated back" then acted on another page. Otherwise — WebShop's
    // option clicks cycling "You have clicked red.", "… 3 foot.", nothing new between two turns —
    // it is judged as any answer, and the cycle is the loop it is.
    if (outcome.describesAction === true && policy.page && !failed) {
      const answeredSoBefore = record !== undefined && record.outcomeTag === tag;
      if (isBackToBack(this.ledger, argsHash) || (answeredSoBefore && pageNewsSince(this.ledger, record))) return 'neutral';
      // The line another action got (browser-use answers "Clicked button" for any button, "Sent
      // keys: Enter" on any page): it says nothing of where this action went, as an
      // acknowledgement says nothing (below). Judged seen, a healthy Gmail run that ticks one
      // checkbox per sender was stopped after its last verifying searches.
      if (seen && !answeredSoBefore) return 'neutral';
    }
    if (!seen && !itemsAllSeen && !relearned) return 'new';
    // What the model saw before its context was compacted, and sees again: it had forgotten it,
    // so reading it again is no loop, and it is nothing new either (contextCompacted).
    if (!seen && (relearned || itemsRelearned)) return 'neutral';
    // An answer tool's acknowledgement ("message sent") repeating is no sign of a loop: the
    // answer is the run's output, not a lookup (checks/terminal-tools.ts).
    if (policy.exempt || terminal) return 'neutral';
    // The same acknowledgement ("ok") for another call — the next issue of a batch relabel —
    // says nothing, neither new nor stale (issue 24 #5): whatever the tool's declared effect.
    // The same call acknowledged the same again is a repeat.
    if (outcome.acknowledgement === true && !failed && (record === undefined || record.outcomeTag !== tag)) return 'neutral';
    // Only a repeated poll may return the same answer harmlessly; a reworded poll that
    // returns what was already seen is judged like any other call.
    if (kind === 'poll' && policy.poll !== undefined && record !== undefined && isInsidePollWindow(policy.poll.deadlineMs, record.firstTime, now)) {
      return 'neutral';
    }
    // A write whose answer matches another call's ("File created successfully", exit code 0)
    // is an acknowledgement; only the same write answering the same again is a repeat.
    // A browser tool's answer is the page it leads to, never an acknowledgement, whatever its
    // annotations say (Playwright MCP marks its clicks destructive).
    if (effect === 'write' && !failed && !policy.page && (record === undefined || record.outcomeTag !== tag)) return 'neutral';
    return 'seen';
  }

  /** The counters with the open round counted — unless calls are still running: their results are not in. */
  private projectOpenRound(): RoundProjection {
    return projectRound(this.ledger, this.options, this.ledger.current.inFlight === 0);
  }

  private closeRound(): void {
    const ledger = this.ledger;
    if (ledger.round === 0 || ledger.currentClosed) return;
    const projection = projectRound(ledger, this.options);
    applyRound(ledger, projection);
    const round = ledger.current;
    const summary: RoundSummary = {
      round: ledger.round,
      verdict: projection.verdict,
      calls: round.calls,
      executed: round.executed,
      refused: round.refused,
      newFacts: round.newFacts,
      seen: round.seen,
    };
    if (round.usage !== undefined) summary.usage = round.usage;
    if (!this.replaying) this.hooks.roundClosed(this, summary);
  }

  private partialWith(projection: RoundProjection): PartialResults {
    const ledger = this.ledger;
    // Null prototype: a tool named `__proto__` is an own key like any other (issue 10 #15).
    const tools: Record<string, ToolTally> = Object.create(null) as Record<string, ToolTally>;
    for (const [name, tally] of ledger.tallies) tools[name] = { ...tally };
    let wastedTokens = ledger.wastedTokens;
    if (!ledger.currentClosed && isWastedRound(projection.verdict) && ledger.current.usage !== undefined) {
      wastedTokens += (ledger.current.usage.inputTokens ?? 0) + (ledger.current.usage.outputTokens ?? 0);
    }
    return {
      rounds: ledger.round,
      toolCalls: ledger.toolCalls,
      executed: ledger.executed,
      refused: ledger.refused,
      newFacts: ledger.newFacts,
      seenResults: ledger.seenResults,
      staleRoundStreak: projection.staleRoundStreak,
      refusedRoundStreak: projection.refusedRoundStreak,
      lastNewFactRound: ledger.lastNewFactRound,
      wastedTokens,
      tools,
    };
  }

  private prehash(call: ToolCall | PrehashedToolCall): PrehashedToolCall {
    // Every call method's first step (startCall, shouldRefuse, claimCall, recordCall): a call
    // with no tool name is rejected here, before anything is recorded.
    const invalid = invalidToolCallOf(call);
    if (invalid !== undefined) throw invalid;
    if (isPrehashed(call)) return call;
    return prehashCall(call, this.options.tool(call.tool), this.options.shellPolls, this.options.now);
  }

  /**
   * The outcome as its tool's policy fingerprints it (a prehashed outcome as it is), with the
   * lines of a file it returned when the call is a window read (issue 24 #6): read here, where
   * the output is still at hand, and carried in the run log from then on.
   */
  private fingerprintOf(call: PrehashedToolCall, outcome: CallOutcome | PrehashedOutcome): PrehashedOutcome {
    if (isPrehashedOutcome(outcome)) return outcome;
    return fingerprintCallOutcome(call, outcome, this.options.tool(call.tool), this.options.maxFingerprintBytes);
  }

  /**
   * The tool's policy, with the poll rule for a shell poll: a Bash user has one tool, so a
   * poll is told by its command line, not by the tool (issue 24 #4). And for a call whose last
   * answer said its state is still moving (`{"status": "running"}`, world-state/says-in-progress.ts):
   * the same call again is a poll, until the shell-poll deadline, and past 2 × threshold
   * unchanged answers only while looks are paced (checks/polling.ts PACED_POLL_MS; a replay
   * without times has no deadline and no pace, so the count bounds it). Never for a call
   * known to write: `create_deployment` answers `"pending"`, and the same create again makes
   * another deployment, not a look at the first (it is judged by its outcomes, as any write).
   * A shell command's "write" only says it may write (`kubectl get`, `gh run view` do not): it is
   * a known write when changes-state-elsewhere.ts lists it (`curl -X POST`). A tool of unknown
   * effect polls only when its name says it looks (world-state/names-a-status-look.ts:
   * `process_refund` answering "processing" is an action). A tool's own `poll` wins. The copy is made only for such polls.
   */
  private policyOf(tool: string, facts: CallFacts, record: SignatureRecord | undefined): ResolvedToolPolicy {
    const policy = this.options.tool(tool);
    if (policy.poll !== undefined || policy.exempt) return policy;
    if (facts.pollDeadlineMs !== undefined) return { ...policy, poll: { deadlineMs: facts.pollDeadlineMs, minIntervalMs: 0 } };
    if (record?.inProgress !== true || facts.knownWrite) return policy;
    if (facts.effect === 'unknown' && !namesAStatusLook(ownToolName(tool))) return policy;
    return { ...policy, poll: { deadlineMs: this.options.shellPolls.defaultDeadlineMs, minIntervalMs: 0, maxUnchanged: 2 * this.options.threshold } };
  }

  /** Effect, terminal flag and ladder key of a call (arguments were classified in prehash). */
  private factsOf(call: PrehashedToolCall): CallFacts {
    const policy = this.options.tool(call.tool);
    // A prehashed shell call (span attributes carry no command) may write: the safe side.
    const effect = call.effect ?? (policy.shellArg !== undefined || policy.editor ? 'write' : policy.effect);
    const terminal = call.terminal ?? policy.terminal;
    const page = policy.page;
    // An empty command waits on a command only while one runs; otherwise it is a read of nothing.
    let pollDeadlineMs = call.waitsOnCommand === true && this.ledger.commandRunningTool !== call.tool ? undefined : call.pollDeadlineMs;
    const listingKey = call.listingKey;
    const knownWrite = effect === 'write' && (policy.shellArg === undefined || call.changesStateElsewhere === true);
    // The look in the round after a wait (`sleep 5`, then `curl …/health`) is a poll, as `sleep 5 &&
    // curl …` is: time has passed, and a server starting or a job running moves on its own. A shell
    // line only when nothing on it writes (pollsAfterSleep); another tool unless it writes.
    if (pollDeadlineMs === undefined && this.ledger.sleptRound > 0 && this.ledger.round === this.ledger.sleptRound + 1) {
      if (policy.shellArg !== undefined ? call.pollsAfterSleep === true : effect !== 'write') pollDeadlineMs = this.options.shellPolls.defaultDeadlineMs;
    }
    const thought = policy.thought === true;
    if (call.family === undefined) return { effect, terminal, ladderKey: call.tool, page, pollDeadlineMs, listingKey, knownWrite, thought };
    const ladderKey = `${call.tool}(${call.family})`;
    if (!this.ledger.ladderFamilies.has(ladderKey)) this.ledger.ladderFamilies.set(ladderKey, call.tool);
    return { effect, terminal, ladderKey, page, pollDeadlineMs, listingKey, knownWrite, thought };
  }

  /**
   * Time for checks: a recorded time when the caller supplies one (replay), else the latest
   * recorded time if the run is fed recorded times, else the clock.
   */
  private timeOf(recorded: number | undefined): number {
    if (recorded !== undefined) return recorded;
    if (this.ledger.lastObservedTime !== undefined) return this.ledger.lastObservedTime;
    return this.options.now();
  }

  private observeTime(recorded: number | undefined): void {
    if (recorded === undefined) return;
    // A run fed recorded times (replay) keeps time by them, even if its first round began
    // on the wall clock.
    if (this.ledger.lastObservedTime === undefined) this.ledger.startTime = recorded;
    if (this.ledger.lastObservedTime === undefined || recorded > this.ledger.lastObservedTime) this.ledger.lastObservedTime = recorded;
  }

  private touch(): void {
    this.hooks.touched(this);
  }
}

/** Is the call being finished the same call as the one started just before it (the back-to-back streak)? */
function isBackToBack(ledger: RunLedger, argsHash: string): boolean {
  return ledger.lastArgsHash === argsHash && ledger.sameCallStreak >= 2;
}

/** Has the run learned that the page went somewhere new since this page call last ran (RunLedger.pageNewsMark)? */
function pageNewsSince(ledger: RunLedger, record: SignatureRecord | undefined): boolean {
  return record !== undefined && ledger.pageNewsMark > 2 * record.epoch;
}

/**
 * A call that may have written finished: a listing that said it had no more pages may have
 * grown, so its next empty page is news again (issue 24 #2). A call of unknown effect of the
 * listing's own tool is kept out: a tool nobody declared (`list_charges`) moves the write
 * epoch with every page it reads, and its own paging must not wipe its end.
 */
function forgetEndedListings(endedListings: Map<string, string>, tool: string, effect: CallEffect): void {
  if (effect !== 'unknown') {
    endedListings.clear();
    return;
  }
  for (const [listing, listingTool] of endedListings) if (listingTool !== tool) endedListings.delete(listing);
}

function unguardedDecision(call: PrehashedToolCall): CallDecision {
  return { action: 'allow', kind: 'unguarded', tool: call.tool, argsHash: call.argsHash };
}

/**
 * Fingerprinting runs user data through getters and toJSON: a result whose getter throws
 * must not turn a successful tool call into an error in the host. Such a result is
 * unfingerprintable (counts as new).
 */
function safeFingerprint(outcome: CallOutcome, policy: ResolvedToolPolicy, maxBytes: number): PrehashedOutcome {
  try {
    return fingerprintOutcome(outcome, policy, maxBytes);
  } catch {
    return unfingerprintableOutcome(outcome);
  }
}

/** An outcome that could not be read: a failure when it is one, else a success counted as new. */
function unfingerprintableOutcome(outcome: CallOutcome): PrehashedOutcome {
  let failed = false;
  try {
    failed = 'error' in outcome && outcome.error !== undefined;
  } catch {
    // An outcome object that cannot be read either: the call finished, nothing more is known.
  }
  return failed ? { outcome: 'error', unfingerprintable: true } : { outcome: 'success', unfingerprintable: true };
}

/**
 * A call's outcome fingerprinted, with the lines of a file it returned when the call is a
 * window read (issue 24 #6): the engine and instrumentTool, which fingerprints for its span,
 * read the window the same way. Never throws, like safeFingerprint: it runs inside finishCall
 * and after the tool returned in instrumentTool, where a throw would leave the call in flight
 * or hand the caller an error instead of the tool's result.
 */
function fingerprintCallOutcome(call: PrehashedToolCall, outcome: CallOutcome, policy: ResolvedToolPolicy, maxBytes: number): PrehashedOutcome {
  const prehashed = safeFingerprint(outcome, policy, maxBytes);
  if (call.readWindow !== undefined && prehashed.outcome === 'success') {
    // The window is read from the result a second time (its returncode, output, content): a
    // getter or Proxy that throws here makes the result unreadable, as in safeFingerprint.
    try {
      if (!('error' in outcome && outcome.error !== undefined)) {
        const window = returnedWindowOf(call.readWindow, jsonTextValue(outcome.result));
        if (window !== undefined) prehashed.window = window;
      }
    } catch {
      return { outcome: 'success', unfingerprintable: true };
    }
  }
  // Where an empty window read started, so a page past the file's known end is judged as one.
  const asked = call.readWindow?.ranges;
  if (prehashed.outcome === 'empty' && call.readWindow?.resource !== undefined && asked !== undefined && asked.length === 1) {
    prehashed.askedFrom = { resource: call.readWindow.resource, line: asked[0]![0] };
  }
  return prehashed;
}

export { fingerprintCallOutcome, safeFingerprint };
