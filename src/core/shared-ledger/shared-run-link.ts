import { randomBytes } from 'node:crypto';
import { refusalMessage } from '../messages.js';
import { rejectAfter } from '../reject-after.js';
import { isTransientErrorType } from '../result-fingerprint.js';
import type { CallTicket } from '../run-guard.js';
import type { CallDecision, CallEffect, PrehashedOutcome, PrehashedToolCall, RefusalReason, ToolCall } from '../types.js';
import { decodeRunEvent, encodeRunEvent, RunEventDecodeError, type RunEvent } from './run-event.js';
import type { AppendResult, BusinessKey, BusinessKeyState, RunLogSummary } from './run-store.js';
import { DEFAULT_BUSINESS_KEY_TTL_MS, MAX_TIMER_MS, type ResolvedIdempotentWrite, type ResolvedSharedLedger } from './shared-ledger-options.js';
import { thrownText } from '../thrown-text.js';

/** What the link needs of a run (RunGuard implements it; internal). */
export interface SharedReplica {
  readonly id: string;
  readonly isUnguarded: boolean;
  /** Applies a logged event: no listener is told (the process that made it told its own). */
  applyLogged(event: RunEvent): CallTicket | undefined;
  /** Back to an empty ledger, before the whole log is applied again. */
  resetReplica(): void;
  /** The decision a call would get now (or `forced`), without recording it. */
  decideForClaim(
    call: ToolCall | PrehashedToolCall,
    forced?: { reason: RefusalReason; message: string },
  ): { call: PrehashedToolCall; decision: CallDecision; time: number; effect: CallEffect };
  /**
   * A call prehashed (stamped with its start time when it has none) and its effect, without
   * deciding it: an owned run decides only reads before their append, so another call must
   * not be decided here and again by its claim.
   */
  effectOfClaim(call: ToolCall | PrehashedToolCall): { call: PrehashedToolCall; effect: CallEffect };
  /** Applies a claimed call to the replica now, telling no listener yet (see announceClaim). */
  applyClaim(call: PrehashedToolCall, decision: CallDecision, time: number, key: string): CallTicket;
  /** The claim is in the log (or decided without it): tell the listeners, once. */
  announceClaim(ticket: CallTicket, decision?: CallDecision): void;
  /** An evicted run's call, decided as unguarded (its business key was settled by the claim). */
  startUnguarded(call: ToolCall | PrehashedToolCall): CallTicket;
}

/** How the link reports the store's trouble (the engine turns it into a warning and a listener event). */
export interface SharedLedgerReporter {
  /**
   * An operation of `link` failed. `tool`: the business-key write it was for, so a warning can
   * say which key is in trouble (one key holding the wrong type fails alone).
   */
  storeFailed(link: SharedRunLink, runId: string, operation: StoreOperation, error: unknown, tool?: string): void;
  /**
   * Every operation `link` saw fail has since succeeded, or nothing of it still waits for the
   * store. Called only when the link was failing, never on a healthy link's every success.
   */
  storeRecovered(link: SharedRunLink): void;
  warn(message: string): void;
  /**
   * The link has changes not yet in the store (`true`), or none any more (`false`): the engine
   * keeps busy links so flush() covers runs that already left its lists (issue 23 #5).
   */
  unflushed(link: SharedRunLink, unflushed: boolean): void;
}

export type StoreOperation = 'claim' | 'append' | 'read' | 'business_key';

/** A business key held by a running call, settled when the call finishes. */
interface HeldKey {
  readonly key: BusinessKey;
  readonly owner: string;
  /** How long the key stays done once the write is (its policy's ttlMs). */
  readonly ttlMs: number;
}

/** Claims retried this often against other processes' appends before deciding locally. */
const MAX_CLAIM_ATTEMPTS = 8;
/**
 * Own events kept for a store that cannot be reached (beside a batch being sent). Past it the
 * oldest not being sent are dropped with a warning: memory stays bounded, and the local
 * replica (which has them all) keeps deciding.
 */
const MAX_PENDING_EVENTS = 10_000;
/**
 * Entries waiting for the store past which an owned run's read waits for its claim after all
 * (one append carrying the backlog): a loop of owned reads that never yields to the event loop
 * would otherwise never flush, and its oldest entries would be dropped at MAX_PENDING_EVENTS.
 */
const OWNED_READ_BACKLOG = 1_000;
/**
 * An owned run's background appends start at most this often: the reads decided in between
 * go in the next one. A read already returned without the store, so the wait costs no caller
 * anything; what it saves is an append per read under load (bench/redis.ts, the owned-read row:
 * 0.86 appends and about 75 us of client CPU per read when every read got its own append, the
 * socket write and the reply's parsing being most of a round trip's client side). A run whose
 * calls come further apart than this (an agent waiting on a model) appends each read as soon
 * as before, so the record a crash can lose stays the reads of the last millisecond and the
 * append in flight.
 */
const OWNED_APPEND_INTERVAL_MS = 1;
/** Retries of a failed background append: from 1 s, doubling, at most every 30 s. */
const RETRY_FIRST_MS = 1_000;
const RETRY_MAX_MS = 30_000;

/**
 * What a failure is a failure of, so that only a success of the same kind ends it: Redis can
 * answer reads and refuse every write (maxmemory with noeviction: OOM), or refuse one key
 * (the run hash or a business key holding a string: WRONGTYPE) and serve the rest. A read that
 * works says nothing about the append that keeps failing; taken as "the store is back", it
 * flushed again at once, the append failed again, and the two warnings alternated thousands of
 * times a second with no backoff (the audit's d4; d7 for a business key). `log`: appends and
 * claims; `read`: reads of the log; `key`: business keys.
 */
type FailureKind = 'log' | 'read' | 'key';

/** Thrown inside the link when a read of the log failed (so a claim can fail open or closed). */
class StoreReadError extends Error {
  constructor(readonly failure: unknown) {
    super('read of the run log failed');
  }
}

/**
 * One run's connection to the shared store: keeps the run's replica in step with the log and
 * puts this process's events into it.
 *
 * Invariant: the replica is the log's first `confirmed` entries applied in order, then this
 * process's `pending` entries, in order. Every change, a claimed call included, is applied to
 * the replica when it is made and appended behind exactly the entries the replica holds
 * (compare-and-append), so the log's order is the replica's. A claim (`claimCall`, the async
 * path) goes in before its call runs: if another process appended first, the claim is taken
 * back (the replica is rebuilt from the log without it) and the call is decided again, so two
 * processes racing for the same call cannot both run it. The synchronous path (the span
 * processor) appends in the background; when another process appended first, the replica is
 * rebuilt from the log with this process's entries after the other's (a rebase).
 *
 * Owned runs (`ownedRuns`): this process says it is the run's only writer, so a read's claim
 * cannot lose a race and waiting for its append buys nothing. A read is decided on the
 * replica and appended in the background, as on the synchronous path; everything else is
 * still claimed before it runs. An append that finds the log longer than this process left
 * it proves another writer: the run is rebased (as above) and claims every call from then on.
 */
export class SharedRunLink {
  /** Distinguishes this process's call keys from every other's in the run's log. */
  readonly linkId = randomBytes(6).toString('base64url');
  private confirmed = 0;
  /**
   * The log's entry at `confirmed - 1` as this replica applied it (undefined: none, or not
   * known). Sent with every append and compared before a read's tail is applied, so a log that
   * was lost and written again by other processes is told from the one this replica saw: its
   * length alone cannot tell, and its tail applied here missed the new log's first entries
   * (a call in flight in another process among them ran again here).
   */
  private lastConfirmed: string | undefined;
  private pending: string[] = [];
  /** Entries at the front of `pending` being appended now (never dropped by the cap). */
  private sending = 0;
  /**
   * An append whose reply never came (a timeout): it may be in the log. Resolved by reading
   * the log at `at` before the next append, so its entries land exactly once.
   */
  private uncertain: { at: number; entries: readonly string[] } | undefined;
  private queue: Promise<unknown> = Promise.resolve();
  private flushQueued = false;
  /** When the last background append was sent (performance.now(), not the injected clock: a test's frozen clock would hold an owned run's flush forever). */
  private lastAppendAt = -Infinity;
  private retryTimer: ReturnType<typeof setTimeout> | undefined;
  private retryDelay = RETRY_FIRST_MS;
  private sequence = 0;
  /** Numbers the marks of keyless entries apart from call keys (see isOwnBatch). */
  private markSequence = 0;
  /** Calls started and not finished, by key, from every process (the log's open calls). */
  readonly tickets = new Map<string, CallTicket>();
  private readonly heldKeys = new Map<string, HeldKey>();
  private summary: RunLogSummary | undefined;
  /** Business keys being completed or released, so `flushed()` can wait for them. */
  private readonly settling = new Set<Promise<unknown>>();
  /** Claims queued or running: each carries the pending events, so a background flush waits. */
  private claimsWaiting = 0;
  /** When foreign in-flight calls were last checked against their lease (see expireAbandonedCalls). */
  private lastExpiryScan = -Infinity;
  private warnedContention = false;
  private warnedCap = false;
  /**
   * Business keys to settle in the store: claims whose callers were told the write did not
   * run, to release (a claim that timed out may land when the store catches up, issue 23 #3),
   * and writes that finished, to complete (`done`). One that fails is tried again with the
   * next flush, so a write done during an outage is still remembered as done afterwards.
   */
  private untold: Array<{ key: BusinessKey; owner: string; done?: { resultHash: string | undefined; ttlMs: number }; failed?: boolean }> = [];
  /**
   * Settlements in `untold` (or being sent) that failed at least once and have not succeeded
   * since: while any has, the link's business-key failure lasts (see storeAnswered).
   */
  private keysFailing = 0;
  /** Told to the engine: this link has changes not yet in the store. */
  private busy = false;
  /**
   * Reads are decided here without waiting for their append (`ownedRuns`), until an append
   * finds another process's entries in the log: then false for good.
   */
  private owned: boolean;
  /**
   * The kinds of store operation that failed for this link and have not succeeded since (see
   * FailureKind). While any is set, an owned run's reads take the awaited path again, which
   * fails open or closed per storeFailure, and the engine counts the store as down.
   */
  private readonly failing = new Set<FailureKind>();
  /** Log positions of entries this link could not read and said so (each is said once). */
  private warnedUnreadable: Set<number> | undefined;
  /** The log's name in warnings (see logName). */
  private logKeyName: string | undefined;
  /** Tools whose business-key write reached the synchronous door, said once per run each. */
  private warnedUnclaimed: Set<string> | undefined;

  constructor(
    private readonly replica: SharedReplica,
    private readonly shared: ResolvedSharedLedger,
    private readonly reporter: SharedLedgerReporter,
    private readonly now: () => number,
  ) {
    this.owned = shared.ownedRuns;
  }

  nextKey(): string {
    this.sequence += 1;
    return `${this.linkId}.${this.sequence.toString(36)}`;
  }

  /** A change made on the synchronous path: logged in the background, in order. */
  record(event: RunEvent): void {
    // A keyless entry carries a mark of this link, so a resent append is known for its own.
    this.push(encodeRunEvent(event, event.type === 'call' || event.type === 'finish' ? undefined : `${this.linkId}.w${(this.markSequence += 1).toString(36)}`));
    this.scheduleFlush();
  }

  /** Waits until every event recorded so far is in the store (or the store failed). */
  async flushed(): Promise<void> {
    this.releaseUntold();
    await this.exclusive(() => this.flush());
    await Promise.all(this.settling);
  }

  /** The store answered again: append what waited (the engine calls it for every run). */
  storeIsBack(): void {
    if (this.pending.length > 0 || this.uncertain !== undefined || this.untold.length > 0) this.scheduleFlush();
  }

  /** Brings the replica up to date with the log (a process joining a run, an SRE tool). */
  refresh(): Promise<void> {
    return this.exclusive(async () => {
      await this.flush();
      try {
        const entries = await this.readTail();
        if (entries !== undefined && this.pending.length === 0 && this.uncertain === undefined) this.applyEntries(entries, this.confirmed);
        else await this.rebuild();
      } catch (error) {
        this.storeFailed('read', error instanceof StoreReadError ? error.failure : error);
      }
    });
  }

  /** The async path: a call decided on the whole log and claimed in one round trip. */
  claimCall(call: ToolCall | PrehashedToolCall): Promise<CallTicket> {
    // Owned runs: a read is decided now, on the replica, unless a claim is queued or running
    // (it goes after that claim, as it would in one process), the store is failing (the
    // awaited path then fails open or closed as storeFailure says), or too much waits to be
    // appended (OWNED_READ_BACKLOG). A business-key tool is
    // claimed whatever its effect: its key is a store round trip anyway.
    if (
      this.owned &&
      this.claimsWaiting === 0 &&
      this.failing.size === 0 &&
      this.pending.length < OWNED_READ_BACKLOG &&
      !this.replica.isUnguarded &&
      !this.shared.idempotentWrites.has(call.tool)
    ) {
      this.expireAbandonedCalls();
      // The effect first, the decision only for a read: a call that may write is decided by
      // its claim, on the replica as it is then (deciding it here too cost it a second
      // decide(), issue 20 #4: 1.07 us for decideForClaim against 0.80 us for effectOfClaim
      // of a prehashed call in a 300-call run; a read pays both in 1.07-1.16 us, one decide
      // within the noise). Hashed once either way: both paths take the prehashed call.
      const classified = this.replica.effectOfClaim(call);
      if (classified.effect === 'read') return Promise.resolve(this.claimOwnedRead(this.replica.decideForClaim(classified.call)));
      call = classified.call;
    }
    this.claimsWaiting += 1;
    return this.exclusive(() => this.claim(call)).finally(() => {
      this.claimsWaiting -= 1;
      // Recorded while the claim was in flight (after its batch was taken): not carried.
      if (this.pending.length > 0) this.scheduleFlush();
    });
  }

  /**
   * A ticket of this process finished (or was finished for it): settle its business key, if it
   * holds one. `outcome` undefined: the log had already finished it (timed out as abandoned).
   */
  settle(ticket: CallTicket, outcome: PrehashedOutcome): void {
    if (ticket.key !== undefined) this.settleKey(ticket.key, outcome);
  }

  /**
   * The business key a call of this process holds, by the call's key in the log: what another
   * process needs to settle it when the call's outcome reaches that process instead
   * (`loopguard serve` replicas: the decision API's claim on one, its outcome on another).
   */
  heldKeyOf(ticketKey: string): { key: BusinessKey; owner: string } | undefined {
    const held = this.heldKeys.get(ticketKey);
    return held === undefined ? undefined : { key: held.key, owner: held.owner };
  }

  /**
   * Takes over the settling of a business key another process claimed for the call `ticketKey`
   * of this run, whose outcome this process is about to record: finishing the call then
   * completes or releases the key as it would have there. The key's ttl is this engine's
   * policy for the tool (replicas share one configuration), or the default.
   */
  adoptHeldKey(ticketKey: string, key: BusinessKey, owner: string): void {
    this.heldKeys.set(ticketKey, { key, owner, ttlMs: this.shared.idempotentWrites.get(key.tool)?.ttlMs ?? DEFAULT_BUSINESS_KEY_TTL_MS });
  }

  /**
   * `fromLog`: the outcome is another process's record of this process's call. An outcome that
   * settles nothing (a timeout, a transient error) then leaves the key held: it is the lease
   * expiry another process logged for a call still running here (review #11), or a reply that
   * may yet be followed by the call's own.
   */
  private settleKey(ticketKey: string, outcome: PrehashedOutcome, fromLog = false): void {
    const held = this.heldKeys.get(ticketKey);
    if (held === undefined) return;
    // Only a failure that proves the write did nothing frees its key for an honest retry: a
    // service that turned the call away, or a deterministic error. A timeout or a transient
    // error (a connection reset after the mail server accepted the mail) may have written:
    // the claim stays pending, and its lease running out sends the next attempt to `verify`
    // (document 001).
    const settles = outcome.outcome !== 'timeout' && !(outcome.outcome === 'error' && (isTransientFailure(outcome) || isCutShort(outcome)));
    if (fromLog && !settles) return;
    this.heldKeys.delete(ticketKey);
    if (!settles) return;
    this.markBusy();
    this.untold.push(
      outcome.outcome === 'error' || outcome.outcome === 'overloaded'
        ? { key: held.key, owner: held.owner }
        : { key: held.key, owner: held.owner, done: { resultHash: outcome.resultHash, ttlMs: held.ttlMs } },
    );
    this.releaseUntold();
  }

  /**
   * The synchronous door (`startCall`: the span processor's onStart, a hand-written loop)
   * cannot wait for the store, so it cannot claim a business key. Such a write is refused
   * rather than run unclaimed (issue 23 #2): returns the refusal, or undefined when `call`
   * holds no business key (no policy for its tool, or its arguments lack a key part — the
   * async door runs those unprotected too, with a warning). A call known only by its hash
   * (a span without arguments) may be any write of its tool: refused.
   */
  refusalOfUnclaimedWrite(call: ToolCall | PrehashedToolCall): { reason: RefusalReason; message: string } | undefined {
    const write = this.shared.idempotentWrites.get(call.tool);
    if (write === undefined) return undefined;
    if (!isPrehashedCall(call)) {
      const value = readKey(write, call.args);
      if (value === undefined) return undefined;
      if (typeof value === 'object') {
        const refusal = this.refusalOfUnreadableKey(call.tool, value);
        return this.shared.idempotentWritesFailOpen ? undefined : refusal;
      }
    }
    if (!(this.warnedUnclaimed ??= new Set()).has(call.tool)) {
      this.warnedUnclaimed.add(call.tool);
      // Two ways here: the synchronous door, or a call known only by its hash on either door
      // (a span that does not record arguments, read by the processor or by serve's OTLP
      // receiver): the message names the one that applies.
      const hashOnly = isPrehashedCall(call);
      const why = hashOnly
        ? 'was decided without its arguments (a span that does not record them, or a call given by its hash), so its key cannot be read; '
        : 'was decided on the synchronous path (run.startCall, or the span processor\'s onStart for a span no async wrapper claimed), which cannot wait for the store to claim the key; ';
      const fix = hashOnly
        ? 'Record the call\'s arguments on its span (gen_ai.tool.call.arguments), or claim it with its arguments.'
        : 'Decide such calls with await run.claimCall(...) (instrumentTool and every framework integration do).';
      this.reporter.warn(
        `run ${JSON.stringify(this.replica.id)}: ${call.tool} has a business key (idempotentWrites.${call.tool}) but ${why}` +
          `it is refused (store.unavailable) rather than run without exactly-once protection. ${fix} Said once per tool and run.`,
      );
    }
    return { reason: 'store.unavailable', message: unclaimedWriteMessage(call.tool) };
  }

  /** Summary fields written beside the log with the next append. */
  noteSummary(summary: RunLogSummary): void {
    this.summary = { ...this.summary, ...summary };
  }

  /**
   * Calls of other processes in flight longer than their lease are finished as timed out
   * (their process probably died): a timeout, because such a call may have run (document
   * 001). The lease is judged by this process's clock against the call's recorded start.
   */
  expireAbandonedCalls(): void {
    if (this.tickets.size === 0) return;
    const now = this.now();
    // A walk over the open calls, at most every 100 ms: leases are seconds long, and a claim
    // loop with many calls in flight must not pay the walk on every claim.
    if (now - this.lastExpiryScan < 100) return;
    this.lastExpiryScan = now;
    const expired: string[] = [];
    for (const [key, ticket] of this.tickets) {
      if (key.startsWith(`${this.linkId}.`)) continue;
      const started = ticket.call.startTime;
      // A business-key write declares how long it may run (its lease); other calls get the
      // engine's claimLeaseMs.
      const lease = this.shared.idempotentWrites.get(ticket.call.tool)?.leaseMs ?? this.shared.claimLeaseMs;
      if (started !== undefined && started <= now - lease) expired.push(key);
    }
    for (const key of expired) {
      const event: RunEvent = { type: 'finish', key, time: now, outcome: { outcome: 'timeout', errorType: 'abandoned' } };
      this.replica.applyLogged(event);
      this.push(encodeRunEvent(event));
    }
    if (expired.length > 0) this.scheduleFlush();
  }

  // -------------------------------------------------------------------------------------

  /**
   * A read of an owned run: applied now and logged in the background, pipelined with the next
   * append (the synchronous path's guarantee). A read cannot run twice in a way that matters,
   * and no other process writes this run, so no claim of another can make it wrong.
   */
  private claimOwnedRead(proposed: { call: PrehashedToolCall; decision: CallDecision; time: number }): CallTicket {
    this.markBusy();
    const { ticket, entry } = this.applyProposal(proposed, proposed.decision);
    this.push(entry);
    this.scheduleFlush();
    this.replica.announceClaim(ticket);
    return ticket;
  }

  /**
   * An append was turned down: another process wrote to the run. For an owned run that
   * breaks the promise `ownedRuns` made, so the run claims every call from now on, said once.
   */
  private appendRefused(result: Extract<AppendResult, { accepted: false }>): void {
    if (!this.owned) return;
    this.owned = false;
    const cause = result.truncated === true ? 'its shared log is not the one this process left' : 'another process appended to it';
    this.reporter.warn(
      `run ${JSON.stringify(this.replica.id)}: ownedRuns says this process is the run's only writer, but ${cause}; ` +
        'from now on every call of this run is claimed in the store before it runs (reads decided before this may not have seen the other process\'s calls). ' +
        'Route each run to one process, or leave ownedRuns off. Said once per run.',
    );
  }

  private storeFailed(operation: StoreOperation, error: unknown, tool?: string): void {
    this.failing.add(operation === 'read' ? 'read' : operation === 'business_key' ? 'key' : 'log');
    this.reporter.storeFailed(this, this.replica.id, operation, error, tool);
  }

  /**
   * An operation of kind `kind` succeeded. It ends a failure of its own kind only: a read that
   * works does not mean an append will (see FailureKind), and an append that works does not
   * mean a business key will. An accepted append also ends a read failure (the log answered).
   * A business key's failure lasts while a settlement of one is still waiting to be retried:
   * another key's success says nothing of the one that keeps failing.
   */
  private storeAnswered(kind: FailureKind): void {
    if (this.failing.size === 0) return;
    if (kind === 'log') this.failing.delete('read');
    if (kind !== 'key' || this.keysFailing === 0) this.failing.delete(kind);
    this.recoveredIfClear();
  }

  /**
   * A failed operation whose work is all done: the append's entries were found in the log
   * (it ran, and failed after, on the run hash), or no failed business-key settlement waits to
   * be retried (a key claim that failed leaves none: the call was refused or ran unguarded,
   * and its settling is a new operation). Nothing of this link waits for the store, so it
   * no longer keeps the engine's outage open, though the operation itself never succeeded: a
   * run left with an unsendable summary would otherwise hold it open for good, and swallow the
   * warning of the next real outage. A read failure has no work to wait on: it ends with a read
   * or an accepted append.
   */
  private settleIdleFailures(): void {
    if (this.failing.size === 0) return;
    if (this.pending.length === 0 && this.uncertain === undefined) this.failing.delete('log');
    if (this.keysFailing === 0) this.failing.delete('key');
    this.recoveredIfClear();
  }

  private recoveredIfClear(): void {
    if (this.failing.size === 0) this.reporter.storeRecovered(this);
  }

  private markBusy(): void {
    if (this.busy) return;
    this.busy = true;
    this.reporter.unflushed(this, true);
  }

  /** Everything recorded is in the store (or dropped): the engine may let go of this link. */
  private markIdleIfDone(): void {
    this.settleIdleFailures();
    if (!this.busy || this.pending.length > 0 || this.uncertain !== undefined || this.settling.size > 0 || this.untold.length > 0) return;
    this.busy = false;
    this.reporter.unflushed(this, false);
  }

  private push(entry: string): void {
    this.markBusy();
    this.pending.push(entry);
    // Entries being sent do not count: they leave when the append returns.
    let excess = this.pending.length - this.sending - MAX_PENDING_EVENTS;
    if (excess <= 0) return;
    // An append of unknown fate holds the oldest entries: they go whole or not at all. Cut
    // in part, the rest could no longer be settled against the log and was appended again
    // behind its own copy when Redis had run it late (50 entries twice in a 10 103-entry log).
    // Whole, they are in the log or lost, as the cap allows, and the next append's refusal
    // rebuilds this replica from whatever the log holds.
    if (this.uncertain !== undefined) excess = Math.max(excess, this.uncertain.entries.length);
    // The oldest entries not being sent go: the log will miss them (this replica keeps them).
    this.pending.splice(this.sending, excess);
    this.uncertain = undefined;
    if (!this.warnedCap) {
      this.warnedCap = true;
      this.reporter.warn(`run ${JSON.stringify(this.replica.id)}: more than ${MAX_PENDING_EVENTS} events waiting for the store; the oldest are dropped from the shared log (this process still has them)`);
    }
  }

  private track(promise: Promise<unknown>, tool: string): void {
    const tracked = promise.then(
      () => this.storeAnswered('key'),
      (error: unknown) => this.storeFailed('business_key', error, tool),
    );
    this.markBusy();
    this.settling.add(tracked);
    void tracked.then(() => {
      this.settling.delete(tracked);
      this.markIdleIfDone();
    });
  }

  private exclusive<T>(task: () => Promise<T>): Promise<T> {
    const result = this.queue.then(task);
    this.queue = result.then(
      () => undefined,
      () => undefined,
    );
    return result;
  }

  private scheduleFlush(): void {
    if (this.flushQueued) return;
    this.flushQueued = true;
    // On the next macrotask, not now: every event recorded until then goes in one append
    // (the pipelining of outcomes), and a claim made in the meantime carries them in its own
    // append, so a call costs one round trip, not two (bench/redis.ts). An owned run waits
    // out OWNED_APPEND_INTERVAL_MS since its last append instead.
    const wait = this.ownedAppendWait();
    if (wait > 0) setTimeout(this.runScheduledFlush, wait);
    else setImmediate(this.runScheduledFlush);
  }

  /** Milliseconds until an owned run may start its next background append (OWNED_APPEND_INTERVAL_MS); 0 for a run not owned. */
  private ownedAppendWait(): number {
    return this.owned ? this.lastAppendAt + OWNED_APPEND_INTERVAL_MS - performance.now() : 0;
  }

  /** A field, so setTimeout and setImmediate both take it as it is (no bind, no closure per flush). */
  private readonly runScheduledFlush = (): void => {
    // A claim queued or running carries the pending events in its own append, and its end
    // schedules a flush for what it did not carry: a task queued behind it would only find
    // claimsWaiting > 0 (below) and return. Not queueing it saves every awaited guarded
    // call an async task and its promise hops between the claim's reply and the caller:
    // with the redis store's ready() skipped too, 61.4 -> 58.9 us client CPU and 104.9 ->
    // 100.3 us wall per guarded call (median of 100 interleaved blocks of 500 calls).
    if (this.claimsWaiting > 0 && this.untold.length === 0) {
      this.flushQueued = false;
      return;
    }
    void this.exclusive(async () => {
      this.flushQueued = false;
      this.releaseUntold();
      // A claim behind this one carries the pending events in its own append: flushing them
      // first would be a second round trip per call (bench/redis.ts: 1.5 appends per guarded
      // call before this check, 1.0 after).
      if (this.claimsWaiting > 0) return;
      await this.flush(true);
    });
  };

  /** After a failed append: try again later by itself, so an outage's events reach the log. */
  private scheduleRetry(): void {
    if (this.retryTimer !== undefined) return;
    this.retryTimer = setTimeout(() => {
      this.retryTimer = undefined;
      this.scheduleFlush();
    }, this.retryDelay);
    // A retry must never keep the process alive.
    this.retryTimer.unref?.();
    this.retryDelay = Math.min(this.retryDelay * 2, RETRY_MAX_MS);
  }

  /**
   * The log from `confirmed` on, or undefined when it is not the log this replica was built
   * from (said with a warning): read from the entry before, which must be the one applied
   * last (see lastConfirmed).
   */
  private async readTail(): Promise<string[] | undefined> {
    const last = this.lastConfirmed;
    if (this.confirmed === 0 || last === undefined) return this.read(this.confirmed);
    const entries = await this.read(this.confirmed - 1);
    if (entries[0] === last) return entries.slice(1);
    this.warnReplaced();
    return undefined;
  }

  private warnReplaced(): void {
    this.reporter.warn(
      `run ${JSON.stringify(this.replica.id)}: its shared log is not the one this process saw (shorter, or lost and written again by other processes: ` +
        'it expired, or the store lost data); rebuilt from what the store has',
    );
  }

  private async read(from: number): Promise<string[]> {
    try {
      const entries = await this.shared.store.readRunEvents(this.replica.id, from);
      this.storeAnswered('read');
      return entries;
    } catch (error) {
      throw new StoreReadError(error);
    }
  }

  /**
   * Appends `pending` behind the `confirmed` entries. An earlier append of unknown fate is
   * settled first: if its entries are in the log at the place they were sent to, they count
   * as appended (sending them again would apply them twice everywhere). Undefined: nothing
   * is left to send (the settled append held all of it).
   */
  private async append(): Promise<{ result: AppendResult; sent: number } | undefined> {
    if (this.uncertain !== undefined) {
      const { at, entries } = this.uncertain;
      if (at === this.confirmed) {
        if (this.settleUncertain(await this.read(at), at)) {
          this.confirmed = at + entries.length;
          if (entries.length > 0) this.lastConfirmed = entries[entries.length - 1];
        }
      } else {
        this.uncertain = undefined;
      }
    }
    // Never an append with no entries just for the summary: it rides on the next append with
    // entries. An append that failed after its entries landed (Redis stops a script at its
    // first error: a run hash holding a string fails the summary's HSET after the RPUSH) would
    // otherwise be followed by an empty one carrying the same summary, failing the same way,
    // for as long as the link retried.
    if (this.pending.length === 0) return undefined;
    const batch = this.pending.slice();
    const at = this.confirmed;
    this.sending = batch.length;
    this.lastAppendAt = performance.now();
    try {
      let result = await this.shared.store.appendRunEvents(this.replica.id, at, batch, this.summary, this.lastConfirmed);
      if (!result.accepted && result.truncated !== true && this.isOwnBatch(batch, result.entries)) result = { accepted: true, length: at + batch.length };
      // Refused, the store still answered with the log's entries: that much is a read.
      this.storeAnswered(result.accepted ? 'log' : 'read');
      this.retryDelay = RETRY_FIRST_MS;
      return { result, sent: batch.length };
    } catch (error) {
      // It may have run: settled before the next append.
      this.uncertain = { at: this.confirmed, entries: batch };
      throw error;
    } finally {
      this.sending = 0;
    }
  }

  /**
   * The log's entries from where `batch` was sent begin with `batch` itself: this very append,
   * delivered twice (ioredis resends a command whose reply a dropped connection lost, and
   * Redis runs the script again, refused now that the log is longer). Taken for another
   * process's entries, a claim was rebuilt from a log holding it and refused repeat.in_flight
   * by itself, its entry left in the log as a call that never finishes, and a background batch
   * was rebased and appended again. A batch is known for its own by this link's mark: a call
   * key, or the writer mark of a keyless entry (a round, usage). Without that mark a round sent
   * twice was counted twice by every replica: a round written in the same millisecond by
   * another process would be the same text. Only a batch of outcomes of other links' calls
   * has no mark, and an outcome applied twice counts once (the call is finished).
   */
  private isOwnBatch(batch: readonly string[], logged: readonly string[]): boolean {
    if (logged.length < batch.length) return false;
    const mark = `"${this.linkId}.`;
    let keyed = false;
    for (let index = 0; index < batch.length; index++) {
      if (logged[index] !== batch[index]) return false;
      if (!keyed && batch[index]!.includes(mark)) keyed = true;
    }
    return keyed;
  }

  /** The first `sent` pending entries were appended: the log is `length` long and ends with them. */
  private confirmSent(sent: number, length: number): void {
    if (sent > 0) this.lastConfirmed = this.pending[sent - 1];
    this.pending.splice(0, sent);
    this.confirmed = length;
  }

  /**
   * Settles an append of unknown fate against the log (`log` holds its entries from `from`
   * on, read after that append on the same connection, so it ran before the read or never
   * will): if its entries are where they were sent to, they are logged and leave `pending`.
   * Returns whether they were.
   */
  private settleUncertain(log: readonly string[], from: number): boolean {
    const uncertain = this.uncertain;
    if (uncertain === undefined) return false;
    this.uncertain = undefined;
    const offset = uncertain.at - from;
    const landed =
      offset >= 0 &&
      uncertain.entries.every((entry, index) => log[offset + index] === entry && this.pending[index] === entry);
    if (landed) this.pending.splice(0, uncertain.entries.length);
    return landed;
  }

  /** `paced`: a background flush, which leaves an owned run's entries for its next paced append; flushed() and refresh() drain. */
  private async flush(paced = false): Promise<void> {
    try {
      await this.flushPending(paced);
    } finally {
      this.markIdleIfDone();
    }
  }

  private async flushPending(paced: boolean): Promise<void> {
    // Only refused appends count toward the limit: entries recorded while an append is in
    // flight (owned reads, the synchronous path) make the next accepted append, not a loss
    // (bench/redis.ts warned "8 appends lost" on a run with one writer before).
    for (let refused = 0; this.pending.length > 0 || this.uncertain !== undefined; ) {
      if (refused === MAX_CLAIM_ATTEMPTS) {
        if (!this.warnedContention) {
          this.warnedContention = true;
          this.reporter.warn(`run ${JSON.stringify(this.replica.id)}: ${MAX_CLAIM_ATTEMPTS} appends in a row lost to other processes; this process's entries go in on a later try (said once per run)`);
        }
        this.scheduleRetry();
        return;
      }
      if (paced && this.ownedAppendWait() > 0) {
        this.scheduleFlush();
        return;
      }
      try {
        const appended = await this.append();
        if (appended === undefined) return;
        const { result, sent } = appended;
        if (result.accepted) {
          this.confirmSent(sent, result.length);
          // A claim waiting behind this flush carries the rest in its own append.
          if (this.claimsWaiting > 0) return;
          continue;
        }
        refused += 1;
        this.appendRefused(result);
        await this.rebuild(result);
      } catch (error) {
        // Kept: appended by the retry timer, the next change or claim, or when the store is back.
        this.storeFailed('append', error instanceof StoreReadError ? error.failure : error);
        this.scheduleRetry();
        return;
      }
    }
  }

  private async claim(call: ToolCall | PrehashedToolCall): Promise<CallTicket> {
    const replica = this.replica;
    const tool = call.tool;
    const write = this.shared.idempotentWrites.get(tool);
    let held: HeldKey | undefined;
    let forced: { reason: RefusalReason; message: string } | undefined;
    // The business key first, even for a run the engine evicted: exactly-once is the key's
    // promise, not the run's.
    if (write !== undefined && isPrehashedCall(call)) {
      // Known only by its hash: its key cannot be read, so it cannot be claimed (issue 23 #2).
      forced = this.refusalOfUnclaimedWrite(call);
    } else if (write !== undefined) {
      const outcome = await this.claimBusinessKey(call, write);
      if (outcome === 'store_down') forced = { reason: 'store.unavailable', message: storeUnavailableMessage(tool) };
      else if ('refuse' in outcome) forced = outcome.refuse;
      else held = outcome.held;
    }
    if (replica.isUnguarded) return this.unguardedClaim(call, forced, held);
    for (let attempt = 0; attempt < MAX_CLAIM_ATTEMPTS; attempt++) {
      this.expireAbandonedCalls();
      // The business key settled what these two checks ask (is the same write running, or
      // did it maybe happen?): claimed fresh, or taken over after verify said "not done".
      this.markBusy();
      const { ticket, decision, entry } = this.propose(call, forced, (proposed) =>
        held !== undefined && proposed.action === 'refuse' && (proposed.reason === 'repeat.in_flight' || proposed.reason === 'write.outcome_unknown')
          ? { action: 'allow', kind: 'retry', tool: proposed.tool, argsHash: proposed.argsHash }
          : proposed,
      );
      this.pending.push(entry);
      let result: AppendResult;
      let sent: number;
      try {
        // Never undefined here: the claim's own entry was just pushed.
        ({ result, sent } = (await this.append())!);
        if (!result.accepted) {
          // Another process appended first: the claim is taken back (the replica rebuilt from
          // the log without it) and the call decided again on the complete view.
          this.appendRefused(result);
          await this.rebuild(result, entry);
          continue;
        }
      } catch (error) {
        return this.claimWithoutStore(error, ticket, decision, held);
      }
      this.confirmSent(sent, result.length);
      this.keep(ticket, decision, held);
      this.markIdleIfDone();
      replica.announceClaim(ticket);
      return ticket;
    }
    if (!this.warnedContention) {
      this.warnedContention = true;
      this.reporter.warn(`run ${JSON.stringify(replica.id)}: ${MAX_CLAIM_ATTEMPTS} claims in a row lost to other processes; such calls are decided on this process's replica (said once per run)`);
    }
    // Decided here, logged in the background (the synchronous path's guarantee).
    const { ticket, decision, entry } = this.propose(call, forced, (proposed) => proposed);
    this.push(entry);
    this.scheduleFlush();
    this.keep(ticket, decision, held);
    replica.announceClaim(ticket);
    return ticket;
  }

  /**
   * Decides a call on the replica (`adjust` may change the decision) and applies it now, so
   * the replica's order is the log's: anything this process records while the entry is being
   * appended comes after the claim here as it will in the log. Returns the entry to append.
   */
  private propose(
    call: ToolCall | PrehashedToolCall,
    forced: { reason: RefusalReason; message: string } | undefined,
    adjust: (decision: CallDecision) => CallDecision,
  ): { ticket: CallTicket; decision: CallDecision; entry: string } {
    const proposed = this.replica.decideForClaim(call, forced);
    return this.applyProposal(proposed, adjust(proposed.decision));
  }

  private applyProposal(
    proposed: { call: PrehashedToolCall; time: number },
    decision: CallDecision,
  ): { ticket: CallTicket; decision: CallDecision; entry: string } {
    const key = this.nextKey();
    const ticket = this.replica.applyClaim(proposed.call, decision, proposed.time, key);
    if (decision.action === 'allow') this.tickets.set(key, ticket);
    return { ticket, decision, entry: encodeRunEvent({ type: 'call', key, time: proposed.time, call: proposed.call, decision }) };
  }

  /** A claimed business key stays with an allowed call, to be settled when it finishes. */
  private keep(ticket: CallTicket, decision: CallDecision, held: HeldKey | undefined): void {
    if (held === undefined) return;
    if (decision.action === 'allow' && ticket.key !== undefined) this.heldKeys.set(ticket.key, held);
    else this.releaseQuietly(held); // refused for another reason (the run stopped): the write never ran
  }

  /**
   * The claim's append or read failed. Its entry stays applied and pending (appended when the
   * store is back, exactly once). Fail open: the call goes ahead on this replica's decision.
   * Fail closed: an allowed call is refused `store.unavailable`, and its entry is followed by
   * an outcome saying it did not run (turned away), so no replica waits for it.
   */
  private claimWithoutStore(error: unknown, ticket: CallTicket, decision: CallDecision, held: HeldKey | undefined): CallTicket {
    const replica = this.replica;
    // Reported as the claim whichever of its steps failed (settling an earlier append, the
    // append, a rebuild's read): the claim is what did not get through.
    this.storeFailed('claim', error instanceof StoreReadError ? error.failure : error);
    this.scheduleRetry();
    if (decision.action === 'refuse' || this.shared.callsFailOpen) {
      this.keep(ticket, decision, held);
      replica.announceClaim(ticket);
      return ticket;
    }
    if (held !== undefined) this.releaseQuietly(held);
    const key = ticket.key!;
    const turnedAway: RunEvent = { type: 'finish', key, time: this.now(), outcome: { outcome: 'overloaded', errorType: 'store.unavailable' } };
    replica.applyLogged(turnedAway);
    this.push(encodeRunEvent(turnedAway));
    const refusal: CallDecision = { action: 'refuse', reason: 'store.unavailable', tool: decision.tool, argsHash: decision.argsHash, message: storeUnavailableMessage(decision.tool) };
    replica.announceClaim(ticket, refusal);
    return { decision: refusal, round: ticket.round, call: ticket.call, finished: false };
  }

  /** An evicted run is not guarded any more, but a business key still decides its write. */
  private unguardedClaim(call: ToolCall | PrehashedToolCall, forced: { reason: RefusalReason; message: string } | undefined, held: HeldKey | undefined): CallTicket {
    const ticket = this.replica.startUnguarded(call);
    if (forced !== undefined) {
      return { decision: { action: 'refuse', reason: forced.reason, tool: ticket.call.tool, argsHash: ticket.call.argsHash, message: forced.message }, round: ticket.round, call: ticket.call, finished: false };
    }
    if (held !== undefined) {
      ticket.key = this.nextKey();
      this.heldKeys.set(ticket.key, held);
    }
    return ticket;
  }

  private releaseQuietly(held: HeldKey): void {
    this.markBusy();
    this.untold.push({ key: held.key, owner: held.owner });
    this.releaseUntold();
  }

  /**
   * Settles business keys: releases the claims of writes that were refused or failed for sure,
   * completes those of writes that finished. A release goes on the store's connection behind
   * the claim itself, so a claim that lands late is released right after. One that fails is
   * kept and tried again with the next flush (the retry timer, the next change, the store back).
   */
  private releaseUntold(): void {
    if (this.untold.length === 0) return;
    const untold = this.untold;
    this.untold = [];
    const store = this.shared.store;
    for (const entry of untold) {
      const settling = entry.done === undefined ? store.releaseBusinessKey(entry.key, entry.owner) : store.completeBusinessKey(entry.key, entry.owner, entry.done.resultHash, entry.done.ttlMs);
      this.track(
        settling.then(() => {
          if (entry.failed === true) this.keysFailing -= 1;
        }, (error: unknown) => {
          if (entry.failed !== true) {
            entry.failed = true;
            this.keysFailing += 1;
          }
          this.untold.push(entry);
          this.scheduleRetry();
          throw error;
        }),
        entry.key.tool,
      );
    }
  }

  /**
   * A write whose key function threw: refused as one that cannot be checked against the shared
   * record (`store.unavailable`), with a warning naming the policy field, once per tool and run.
   */
  private refusalOfUnreadableKey(tool: string, key: UnreadableKey): { reason: RefusalReason; message: string } {
    const warned = `key:${tool}`;
    if (!(this.warnedUnclaimed ??= new Set()).has(warned)) {
      this.warnedUnclaimed.add(warned);
            const fallback = this.shared.idempotentWritesFailOpen ? "run without exactly-once protection (storeFailure.idempotentWrites: 'open')" : 'refused (store.unavailable)';
      this.reporter.warn(
        `run ${JSON.stringify(this.replica.id)}: idempotentWrites.${tool}.key threw (${thrownText(key.thrown)}), so the business key of this ${tool} cannot be read; ` +
          `such calls are ${fallback}. Make the key function return undefined for arguments that hold no key. Said once per tool and run.`,
      );
    }
    return { reason: 'store.unavailable', message: unclaimedWriteMessage(tool) };
  }

  /**
   * The business-key step of a write (document 001). Claimed: the write may run. Done: it is
   * refused with when it was done. Running elsewhere: refused as in flight. Lost (its lease
   * ran out): `verify` decides, or it is refused as of unknown outcome — never run blindly.
   */
  private async claimBusinessKey(
    call: ToolCall,
    write: ResolvedIdempotentWrite,
  ): Promise<'store_down' | { held: HeldKey | undefined } | { refuse: { reason: RefusalReason; message: string } }> {
    const value = readKey(write, call.args);
    if (value === undefined) {
      this.reporter.warn(`tool ${JSON.stringify(call.tool)}: this call's arguments have no business key (idempotentWrites.${call.tool}.key); it runs without exactly-once protection`);
      return { held: undefined };
    }
    if (typeof value === 'object') {
      const refusal = this.refusalOfUnreadableKey(call.tool, value);
      // As on a store outage: exactly-once cannot be promised, and the policy says which way to fail.
      return this.shared.idempotentWritesFailOpen ? { held: undefined } : { refuse: refusal };
    }
    const key: BusinessKey = { tool: call.tool, scope: write.scope, runId: this.replica.id, value };
    const owner = `${this.replica.id}/${this.nextKey()}`;
    const store = this.shared.store;
    // Only the store calls themselves are inside the "store failed" catches. The answer is
    // data anyone may have written (a key hash with `at: 'n/a'`): building the refusal from it
    // once threw inside the catch, so the key read as a store outage, and with
    // idempotentWrites 'open' a write already done ran again (audit d1).
    let state: BusinessKeyState;
    try {
      state = await store.claimBusinessKey(key, owner, write.leaseMs, write.ttlMs);
    } catch (error) {
      return this.businessKeyStoreFailed(key, owner, write, error);
    }
    this.storeAnswered('key');
    switch (state.state) {
      case 'claimed':
        return { held: { key, owner, ttlMs: write.ttlMs } };
      case 'done':
        return { refuse: { reason: 'write.already_done', message: alreadyDoneMessage(call.tool, state.at, state.runId, this.replica.id, false) } };
      case 'pending':
        return {
          refuse: {
            reason: 'repeat.in_flight',
            message: `Not run: the same ${call.tool} (same business key) is being done right now by another worker (since ${timeText(state.claimedAt)}). Do not send it again; wait for that result.`,
          },
        };
      case 'expired': {
        if (write.verify === undefined) {
          return {
            refuse: {
              reason: 'write.outcome_unknown',
              message:
                `Not run: an earlier ${call.tool} with the same business key started at ${timeText(state.claimedAt)} and never reported back, so it may have happened. ` +
                'Check the records (is it already done?) before doing it again; loopguard will not repeat it blindly.',
            },
          };
        }
        const checkFailed = {
          refuse: {
            reason: 'write.outcome_unknown' as const,
            message: `Not run: an earlier ${call.tool} with the same business key may have happened, and checking the records failed. Check before doing it again.`,
          },
        };
        let verified: boolean;
        try {
          // Only an explicit { done: false } lets the write run again. Anything else (a bare
          // boolean from `async (args) => wasSent(args)`, { done: 'yes' }, {}) once read as
          // "not done", and the write that verify was asked about ran a second time.
          // Bounded by the write's lease (how long the write itself may honestly take): every
          // other step of a claim is bounded by the store's timeout, and a verify that never
          // answered (a hung request to the system of record) held the agent's step forever.
          // A late answer or failure is dropped, never left unhandled.
          const asked = Promise.resolve().then(() => write.verify!(argumentsOf(call.args)));
          const answer = await rejectAfter(asked, Math.min(write.leaseMs, MAX_TIMER_MS), () => new VerifyTimeoutError());
          const done = doneOf(answer);
          if (done === undefined) {
            this.reporter.warn(`verify of ${call.tool} answered neither { done: true } nor { done: false }; the write is refused as of unknown outcome`);
            return checkFailed;
          }
          verified = done;
        } catch (error) {
          this.reporter.warn(
            error instanceof VerifyTimeoutError
              ? `verify of ${call.tool} did not answer within the write's lease (${write.leaseMs} ms); the write is refused as of unknown outcome`
              : `verify of ${call.tool} threw (${thrownText(error)}); the write is refused as of unknown outcome`,
          );
          return checkFailed;
        }
        if (verified) {
          // The records say it was done: refused whatever the store says to recording that.
          // A failure here once fell to the store-failure path, and with idempotentWrites
          // 'open' the write verify had just found done ran again. Unrecorded, the next
          // claim finds the key expired and asks verify again.
          try {
            await store.completeBusinessKey(key, undefined, undefined, write.ttlMs);
          } catch (error) {
            this.storeFailed('business_key', error, call.tool);
          }
          return { refuse: { reason: 'write.already_done', message: alreadyDoneMessage(call.tool, state.claimedAt, state.runId, this.replica.id, true) } };
        }
        // Verified as not done: this call takes the claim over and may run.
        let taken: boolean;
        try {
          taken = await store.takeOverBusinessKey(key, state.owner, owner, write.leaseMs);
        } catch (error) {
          return this.businessKeyStoreFailed(key, owner, write, error);
        }
        if (taken) return { held: { key, owner, ttlMs: write.ttlMs } };
        return {
          refuse: {
            reason: 'repeat.in_flight',
            message: `Not run: another worker has just taken over the same ${call.tool} (same business key). Do not send it again; wait for that result.`,
          },
        };
      }
    }
  }

  /** A claim or a take-over of a business key failed in the store: the write goes by `storeFailure.idempotentWrites`. */
  private businessKeyStoreFailed(key: BusinessKey, owner: string, write: ResolvedIdempotentWrite, error: unknown): 'store_down' | { held: HeldKey } {
    this.storeFailed('business_key', error, key.tool);
    // The claim (or a take-over) may still land when the store catches up (a timeout is not
    // a "no"). Fail open: the write runs, and settling it completes or releases the claim
    // like any other. Fail closed: the caller is told it did not run, so the claim is
    // released, or the write's every retry would be refused as in flight, then as of
    // unknown outcome, for the key's whole ttl (issue 23 #3).
    if (this.shared.idempotentWritesFailOpen) return { held: { key, owner, ttlMs: write.ttlMs } };
    this.releaseQuietly({ key, owner, ttlMs: write.ttlMs });
    return 'store_down';
  }

  /**
   * The run's log as warnings name it: the store's own key when it has one (the Redis store's
   * `keysOf`, prefix and escaped id, so `LINDEX` finds the entry), else the run's id. A made-up
   * `loopguard:{id}` named no key under another prefix or for an id with braces.
   */
  private logName(): string {
    if (this.logKeyName === undefined) {
      const store = this.shared.store as { keysOf?: (runId: string) => { log: string } };
      let name: string | undefined;
      try {
        if (typeof store.keysOf === 'function') name = store.keysOf(this.replica.id).log;
      } catch {
        // A store whose keysOf fails names the run instead.
      }
      this.logKeyName = name ?? `run ${JSON.stringify(this.replica.id)} log`;
    }
    return this.logKeyName;
  }

  /** Applies log entries in order (a replica with nothing pending just catches up). */
  private applyEntries(entries: readonly string[], from: number): void {
    for (let index = 0; index < entries.length; index++) {
      this.applyEntry(entries[index]!, from + index);
    }
    this.confirmed = from + entries.length;
    if (entries.length > 0) this.lastConfirmed = entries[entries.length - 1];
    else if (from === 0) this.lastConfirmed = undefined;
  }

  private applyEntry(entry: string, position: number): void {
    let event: RunEvent;
    try {
      event = decodeRunEvent(entry, `${this.logName()}[${position}]`);
    } catch (error) {
      // One unreadable entry (a newer writer) must not take the run down; it is skipped, said
      // once per entry: a rebuild applies the whole log again (two processes taking turns in a
      // run rebuilt on every other claim, and said it 25 times in 50 claims).
      if (!(this.warnedUnreadable ??= new Set()).has(position)) {
        this.warnedUnreadable.add(position);
        this.reporter.warn(error instanceof RunEventDecodeError ? error.message : thrownText(error));
      }
      return;
    }
    const ticket = this.replica.applyLogged(event);
    if (event.type === 'call' && ticket !== undefined && event.decision.action === 'allow' && event.decision.kind !== 'unguarded') this.tickets.set(event.key, ticket);
    else if (event.type === 'finish') {
      this.tickets.delete(event.key);
      // Another process recorded the outcome of a call whose business key this one holds (the
      // decision API's outcome went to another replica): settled from the log, or the key
      // would stay pending in the store until its lease ran out, and then read as a write of
      // unknown outcome. Settling twice is harmless: the store checks the owner.
      if (this.heldKeys.size > 0 && this.heldKeys.has(event.key)) this.settleKey(event.key, event.outcome, true);
    }
  }

  /**
   * Another process appended first. With nothing of ours unlogged, catching up is applying its
   * entries (unless `always`: a claim applied then taken back needs the replica rebuilt).
   * Otherwise our entries were applied before its, which the log will not say: the replica is
   * rebuilt from the whole log, and our entries applied after it (a rebase). The log is read
   * before anything is reset, so a failed read leaves the replica as it was.
   */
  private async rebuild(result?: AppendResult, withdrawn?: string): Promise<void> {
    if (result?.accepted === true) return;
    if (result !== undefined && withdrawn === undefined && !result.truncated && this.pending.length === 0) {
      this.applyEntries(result.entries, this.confirmed);
      return;
    }
    let entries: readonly string[];
    if (result !== undefined && (this.confirmed === 0 || result.truncated === true)) {
      entries = result.entries;
      if (result.truncated) this.warnReplaced();
    } else {
      entries = await this.read(0);
    }
    // Taken back only now that the log is read: a failed read leaves the claim in place.
    if (withdrawn !== undefined) this.pending.splice(this.pending.lastIndexOf(withdrawn), 1);
    // An append whose reply never came may be in what was just read: its entries are then
    // applied from the log, and must not be applied (and appended) again from pending
    // (issue 23 #4).
    this.settleUncertain(entries, 0);
    const own = this.pending;
    this.replica.resetReplica();
    this.tickets.clear();
    this.applyEntries(entries, 0);
    for (const entry of own) this.applyEntry(entry, -1);
  }
}

/**
 * A failure whose type says the call was stopped while it ran, not turned down: Claude Code's
 * `interrupted` (the user pressed Esc), a `CancelledError`. Recorded as an error on purpose (an
 * interrupt is no failure to retry), it still says nothing about whether the write happened.
 */
const CUT_SHORT_TYPE = /interrupt|cancel|abort/i;

function isCutShort(outcome: PrehashedOutcome): boolean {
  return outcome.errorType !== undefined && CUT_SHORT_TYPE.test(outcome.errorType);
}

function isTransientFailure(outcome: PrehashedOutcome): boolean {
  return outcome.transient === true || (outcome.transient === undefined && outcome.errorType !== undefined && isTransientErrorType(outcome.errorType));
}

/**
 * The arguments as the key and `verify` read them: frameworks that hand over the model's JSON
 * text (OpenAI Agents) get it parsed, as the call signature does, so `key: ['to']` finds `to`.
 */
function argumentsOf(args: unknown): unknown {
  if (typeof args !== 'string') return args;
  const trimmed = args.trimStart();
  if (!trimmed.startsWith('{') && !trimmed.startsWith('[')) return args;
  try {
    return JSON.parse(args) as unknown;
  } catch {
    return args;
  }
}

/** A verify that did not answer within the write's lease. */
class VerifyTimeoutError extends Error {}

/** What a `verify` answer says: true or false, or undefined for an answer that says neither. Throws what reading it throws. */
function doneOf(answer: unknown): boolean | undefined {
  if (typeof answer !== 'object' || answer === null) return undefined;
  const done = (answer as { done?: unknown }).done;
  return typeof done === 'boolean' ? done : undefined;
}

/** A key function that threw: the call's key cannot be read, which is not the same as having none. */
interface UnreadableKey {
  readonly thrown: unknown;
}

/**
 * The call's business key (hashed), undefined when its arguments hold none, or what the key
 * function threw. A throw once read as "no key", so the write ran without exactly-once
 * protection and a second one ran again.
 */
function readKey(write: ResolvedIdempotentWrite, args: unknown): string | undefined | UnreadableKey {
  try {
    return write.keyOf(argumentsOf(args));
  } catch (thrown) {
    return { thrown };
  }
}

function isPrehashedCall(call: ToolCall | PrehashedToolCall): call is PrehashedToolCall {
  return typeof (call as PrehashedToolCall).argsHash === 'string';
}

function unclaimedWriteMessage(tool: string): string {
  return `Not run: this ${tool} must be checked against the shared record of writes before it runs (it may already have been done), and that check could not be made here. Do not assume it happened.`;
}

function storeUnavailableMessage(tool: string): string {
  return refusalMessage('store.unavailable', { tool });
}

/**
 * A time the store gave, for a message. The store's business-key hash may hold anything (a
 * field not written by loopguard reads as NaN): `new Date(NaN).toISOString()` throws, and a
 * message must never be what fails.
 */
function timeText(ms: number): string {
  const date = new Date(ms);
  return Number.isNaN(date.getTime()) ? 'an unknown time' : date.toISOString();
}

function alreadyDoneMessage(tool: string, at: number, byRun: string, thisRun: string, verified: boolean): string {
  const when = timeText(at);
  const where = byRun === thisRun ? 'in this run' : `by run ${JSON.stringify(byRun)}`;
  return `Not run: this ${tool} (same business key) was already done ${where} at ${when}${verified ? ' (checked in the records)' : ''}. It was not sent again. Continue from that result.`;
}
