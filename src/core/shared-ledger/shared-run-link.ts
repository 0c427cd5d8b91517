import { randomBytes } from 'node:crypto';
import { refusalMessage } from '../messages.js';
import type { CallTicket } from '../run-guard.js';
import type { CallDecision, PrehashedOutcome, PrehashedToolCall, RefusalReason, ToolCall } from '../types.js';
import { decodeRunEvent, encodeRunEvent, RunEventDecodeError, type RunEvent } from './run-event.js';
import type { AppendResult, BusinessKey, RunLogSummary } from './run-store.js';
import type { ResolvedIdempotentWrite, ResolvedSharedLedger } from './shared-ledger-options.js';

/** What the link needs of a run (RunGuard implements it; internal). */
export interface SharedReplica {
  readonly id: string;
  readonly isUnguarded: boolean;
  /** Applies a logged event: no listener is told (the process that made it told its own). */
  applyLogged(event: RunEvent): CallTicket | undefined;
  /** Back to an empty ledger, before the whole log is applied again. */
  resetReplica(): void;
  /** The decision a call would get now (or `forced`), without recording it. */
  decideForClaim(call: ToolCall | PrehashedToolCall, forced?: { reason: RefusalReason; message: string }): { call: PrehashedToolCall; decision: CallDecision; time: number };
  /** Records a call whose decision the store accepted. */
  commitClaim(call: PrehashedToolCall, decision: CallDecision, time: number, key: string): CallTicket;
  startCall(call: ToolCall | PrehashedToolCall): CallTicket;
  /** A refusal made here without the store (fail closed), recorded like any other. */
  refuseLocally(call: ToolCall | PrehashedToolCall, reason: RefusalReason, message: string): CallTicket;
  readonly stopReason: string | undefined;
  readonly isEnded: boolean;
}

/** How the link reports the store's trouble (the engine turns it into a warning and a listener event). */
export interface SharedLedgerReporter {
  storeFailed(runId: string, operation: StoreOperation, error: unknown): void;
  storeRecovered(runId: string): void;
  warn(message: string): void;
}

export type StoreOperation = 'claim' | 'append' | 'read' | 'business_key';

/** A business key held by a running call, settled when the call finishes. */
interface HeldKey {
  readonly key: BusinessKey;
  readonly owner: string;
  readonly policy: ResolvedIdempotentWrite;
}

/** Claims retried this often against other processes' appends before deciding locally. */
const MAX_CLAIM_ATTEMPTS = 8;
/**
 * Own events kept for a store that cannot be reached. Past it the oldest are dropped with a
 * warning: memory stays bounded, and the local replica (which has them all) keeps deciding.
 */
const MAX_PENDING_EVENTS = 10_000;

const FAILED_WRITE_RELEASED: ReadonlySet<string> = new Set(['error', 'overloaded']);

/**
 * One run's connection to the shared store: keeps the run's replica in step with the log and
 * puts this process's events into it.
 *
 * The replica is the log applied in order (`confirmed` entries) plus this process's own
 * events not yet accepted (`pending`). Claims (`claimCall`, the async path) are decided on a
 * complete view: the call's entry goes in by compare-and-append behind exactly the entries the
 * decision saw, so two processes racing for the same call cannot both run it. The synchronous
 * path (the span processor) decides on the replica as it is and appends in the background; if
 * another process appended first, the replica is rebuilt from the log with this process's
 * events after the other's (a rebase), so every replica converges on the log's order.
 */
export class SharedRunLink {
  /** Distinguishes this process's call keys from every other's in the run's log. */
  readonly linkId = randomBytes(6).toString('base64url');
  private confirmed = 0;
  private pending: string[] = [];
  private queue: Promise<unknown> = Promise.resolve();
  private flushQueued = false;
  private sequence = 0;
  /** Calls started and not finished, by key, from every process (the log's open calls). */
  readonly tickets = new Map<string, CallTicket>();
  private readonly heldKeys = new Map<string, HeldKey>();
  private summary: RunLogSummary | undefined;
  /** Business keys being completed or released, so `flushed()` can wait for them. */
  private readonly settling = new Set<Promise<unknown>>();

  constructor(
    private readonly replica: SharedReplica,
    private readonly shared: ResolvedSharedLedger,
    private readonly reporter: SharedLedgerReporter,
    private readonly now: () => number,
  ) {}

  /** Entries of the run's log this replica reflects. */
  get confirmedLength(): number {
    return this.confirmed;
  }
  get pendingCount(): number {
    return this.pending.length;
  }

  nextKey(): string {
    this.sequence += 1;
    return `${this.linkId}.${this.sequence.toString(36)}`;
  }

  /** A change made on the synchronous path: logged in the background, in order. */
  record(event: RunEvent): void {
    this.pending.push(encodeRunEvent(event));
    if (this.pending.length > MAX_PENDING_EVENTS) {
      this.pending.splice(0, this.pending.length - MAX_PENDING_EVENTS);
      this.reporter.warn(`run ${JSON.stringify(this.replica.id)}: more than ${MAX_PENDING_EVENTS} events waiting for the store; the oldest are dropped from the shared log (this process still has them)`);
    }
    this.scheduleFlush();
  }

  /** Waits until every event recorded so far is in the store (or the store failed). */
  async flushed(): Promise<void> {
    await this.exclusive(() => this.flush());
    await Promise.all(this.settling);
  }

  /** Brings the replica up to date with the log (a process joining a run, an SRE tool). */
  refresh(): Promise<void> {
    return this.exclusive(async () => {
      await this.flush();
      try {
        const entries = await this.shared.store.readRunEvents(this.replica.id, this.confirmed);
        this.reporter.storeRecovered(this.replica.id);
        if (this.pending.length === 0) this.applyEntries(entries, this.confirmed);
        else await this.rebuild();
      } catch (error) {
        this.reporter.storeFailed(this.replica.id, 'read', error);
      }
    });
  }

  /** The async path: a call decided on the whole log and claimed in one round trip. */
  claimCall(call: ToolCall | PrehashedToolCall): Promise<CallTicket> {
    return this.exclusive(() => this.claim(call));
  }

  /** A ticket of this process finished: settle its business key, if it holds one. */
  settle(ticket: CallTicket, outcome: PrehashedOutcome): void {
    const key = ticket.key;
    if (key === undefined) return;
    const held = this.heldKeys.get(key);
    if (held === undefined) return;
    this.heldKeys.delete(key);
    const store = this.shared.store;
    // A timeout leaves the claim pending: the write may have happened (document 001), and
    // the lease running out sends the next attempt to `verify`.
    if (outcome.outcome === 'timeout') return;
    // A failure the tool reported (an error, an overloaded service) means it did not write:
    // the key is free for an honest retry.
    const settled = FAILED_WRITE_RELEASED.has(outcome.outcome)
      ? store.releaseBusinessKey(held.key, held.owner)
      : store.completeBusinessKey(held.key, held.owner, outcome.resultHash, held.policy.ttlMs);
    const tracked = settled.then(
      () => this.reporter.storeRecovered(this.replica.id),
      (error: unknown) => this.reporter.storeFailed(this.replica.id, 'business_key', error),
    );
    this.settling.add(tracked);
    void tracked.then(() => this.settling.delete(tracked));
  }

  /** Summary fields written beside the log with the next append. */
  noteSummary(summary: RunLogSummary): void {
    this.summary = { ...this.summary, ...summary };
  }

  // -------------------------------------------------------------------------------------

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
    // append, so a call costs one round trip, not two (bench/redis.ts: 2.9x -> see
    // BENCHMARKS.md, a bare SET round trip being 1x).
    setImmediate(() => {
      void this.exclusive(async () => {
        this.flushQueued = false;
        await this.flush();
      });
    });
  }

  private append(entries: readonly string[]): Promise<AppendResult> {
    const summary = this.summary;
    return this.shared.store.appendRunEvents(this.replica.id, this.confirmed, entries, summary);
  }

  private async flush(): Promise<void> {
    for (let attempt = 0; this.pending.length > 0 && attempt < MAX_CLAIM_ATTEMPTS; attempt++) {
      const batch = this.pending.slice();
      let result: AppendResult;
      try {
        result = await this.append(batch);
      } catch (error) {
        // Kept: the next change or claim tries again.
        this.reporter.storeFailed(this.replica.id, 'append', error);
        return;
      }
      this.reporter.storeRecovered(this.replica.id);
      if (result.accepted) {
        this.pending.splice(0, batch.length);
        this.confirmed = result.length;
        continue;
      }
      await this.rebuild(result);
    }
  }

  private async claim(call: ToolCall | PrehashedToolCall): Promise<CallTicket> {
    const replica = this.replica;
    if (replica.isUnguarded) return replica.startCall(call);
    const tool = call.tool;
    const write = this.shared.idempotentWrites.get(tool);
    let held: HeldKey | undefined;
    let forced: { reason: RefusalReason; message: string } | undefined;
    if (write !== undefined && 'args' in call) {
      const outcome = await this.claimBusinessKey(call as ToolCall, write);
      if (outcome === 'store_down') {
        return replica.refuseLocally(call, 'store.unavailable', storeUnavailableMessage(tool));
      }
      if ('refuse' in outcome) forced = outcome.refuse;
      else held = outcome.held;
    }
    for (let attempt = 0; attempt < MAX_CLAIM_ATTEMPTS; attempt++) {
      this.expireAbandonedCalls();
      const proposed = replica.decideForClaim(call, forced);
      const { call: prehashed, time } = proposed;
      let decision = proposed.decision;
      // The business key settled what these two checks ask (is the same write running, or
      // did it maybe happen?): claimed fresh, or taken over after verify said "not done".
      if (held !== undefined && decision.action === 'refuse' && (decision.reason === 'repeat.in_flight' || decision.reason === 'write.outcome_unknown')) {
        decision = { action: 'allow', kind: 'retry', tool: decision.tool, argsHash: decision.argsHash };
      }
      const key = this.nextKey();
      const entry = encodeRunEvent({ type: 'call', key, time, call: prehashed, decision });
      const batch = [...this.pending, entry];
      let result: AppendResult;
      try {
        result = await this.append(batch);
      } catch (error) {
        this.reporter.storeFailed(replica.id, 'claim', error);
        if (!this.shared.callsFailOpen) {
          if (held !== undefined) this.releaseQuietly(held);
          return replica.refuseLocally(call, 'store.unavailable', storeUnavailableMessage(tool));
        }
        // Fail open: decided on this replica, logged when the store is back. A business key
        // already claimed (its node is up) still makes the write exactly-once: it stays held.
        const ticket = replica.startCall(forced === undefined ? call : prehashed);
        if (held !== undefined) {
          if (ticket.decision.action === 'allow' && ticket.key !== undefined) this.heldKeys.set(ticket.key, held);
          else this.releaseQuietly(held);
        }
        return ticket;
      }
      this.reporter.storeRecovered(replica.id);
      if (result.accepted) {
        this.pending.splice(0, batch.length - 1);
        this.confirmed = result.length;
        const ticket = replica.commitClaim(prehashed, decision, time, key);
        if (decision.action === 'allow') this.tickets.set(key, ticket);
        if (held !== undefined) {
          if (decision.action === 'allow') this.heldKeys.set(key, held);
          else this.releaseQuietly(held); // refused for another reason (the run stopped): the write never ran
        }
        return ticket;
      }
      await this.rebuild(result);
    }
    this.reporter.warn(`run ${JSON.stringify(replica.id)}: ${MAX_CLAIM_ATTEMPTS} claims in a row lost to other processes; deciding this call on the local replica`);
    if (held !== undefined) this.releaseQuietly(held);
    return replica.startCall(call);
  }

  private releaseQuietly(held: HeldKey): void {
    this.shared.store.releaseBusinessKey(held.key, held.owner).catch((error: unknown) => this.reporter.storeFailed(this.replica.id, 'business_key', error));
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
    const value = safeKey(write, call.args);
    if (value === undefined) {
      this.reporter.warn(`tool ${JSON.stringify(call.tool)}: this call's arguments have no business key (idempotentWrites.${call.tool}.key); it runs without exactly-once protection`);
      return { held: undefined };
    }
    const key: BusinessKey = { tool: call.tool, scope: write.scope, runId: this.replica.id, value };
    const owner = `${this.replica.id}/${this.nextKey()}`;
    const store = this.shared.store;
    try {
      const state = await store.claimBusinessKey(key, owner, write.leaseMs, write.ttlMs);
      this.reporter.storeRecovered(this.replica.id);
      switch (state.state) {
        case 'claimed':
          return { held: { key, owner, policy: write } };
        case 'done':
          return { refuse: { reason: 'write.already_done', message: alreadyDoneMessage(call.tool, state.at, state.runId, this.replica.id, false) } };
        case 'pending':
          return {
            refuse: {
              reason: 'repeat.in_flight',
              message: `Not run: the same ${call.tool} (same business key) is being done right now by another worker (since ${new Date(state.claimedAt).toISOString()}). Do not send it again; wait for that result.`,
            },
          };
        case 'expired': {
          if (write.verify === undefined) {
            return {
              refuse: {
                reason: 'write.outcome_unknown',
                message:
                  `Not run: an earlier ${call.tool} with the same business key started at ${new Date(state.claimedAt).toISOString()} and never reported back, so it may have happened. ` +
                  'Check the records (is it already done?) before doing it again; loopguard will not repeat it blindly.',
              },
            };
          }
          let verified: boolean;
          try {
            verified = (await write.verify(call.args)).done === true;
          } catch (error) {
            this.reporter.warn(`verify of ${call.tool} threw (${error instanceof Error ? error.message : String(error)}); the write is refused as of unknown outcome`);
            return {
              refuse: {
                reason: 'write.outcome_unknown',
                message: `Not run: an earlier ${call.tool} with the same business key may have happened, and checking the records failed. Check before doing it again.`,
              },
            };
          }
          if (verified) {
            await store.completeBusinessKey(key, undefined, undefined, write.ttlMs);
            return { refuse: { reason: 'write.already_done', message: alreadyDoneMessage(call.tool, state.claimedAt, state.runId, this.replica.id, true) } };
          }
          // Verified as not done: this call takes the claim over and may run.
          if (await store.takeOverBusinessKey(key, state.owner, owner, write.leaseMs)) return { held: { key, owner, policy: write } };
          return {
            refuse: {
              reason: 'repeat.in_flight',
              message: `Not run: another worker has just taken over the same ${call.tool} (same business key). Do not send it again; wait for that result.`,
            },
          };
        }
      }
    } catch (error) {
      this.reporter.storeFailed(this.replica.id, 'business_key', error);
      return this.shared.idempotentWritesFailOpen ? { held: undefined } : 'store_down';
    }
  }

  /**
   * Calls of other processes in flight longer than the claim lease are finished as timed out
   * (their process probably died): a timeout, because such a call may have run (document 001).
   */
  private expireAbandonedCalls(): void {
    if (this.tickets.size === 0) return;
    const now = this.now();
    for (const [key, ticket] of this.tickets) {
      if (key.startsWith(`${this.linkId}.`)) continue;
      const started = ticket.call.startTime;
      // A business-key write declares how long it may run (its lease); other calls get the
      // engine's claimLeaseMs.
      const lease = this.shared.idempotentWrites.get(ticket.call.tool)?.leaseMs ?? this.shared.claimLeaseMs;
      if (started === undefined || started > now - lease) continue;
      const event: RunEvent = { type: 'finish', key, time: now, outcome: { outcome: 'timeout', errorType: 'abandoned' } };
      this.replica.applyLogged(event);
      this.pending.push(encodeRunEvent(event));
    }
  }

  /** Applies log entries in order (a replica with nothing pending just catches up). */
  private applyEntries(entries: readonly string[], from: number): void {
    for (let index = 0; index < entries.length; index++) {
      this.applyEntry(entries[index]!, from + index);
    }
    this.confirmed = from + entries.length;
  }

  private applyEntry(entry: string, position: number): void {
    let event: RunEvent;
    try {
      event = decodeRunEvent(entry, `loopguard:{${this.replica.id}} log[${position}]`);
    } catch (error) {
      // One unreadable entry (a newer writer) must not take the run down; it is skipped, said once.
      this.reporter.warn(error instanceof RunEventDecodeError ? error.message : String(error));
      return;
    }
    const ticket = this.replica.applyLogged(event);
    if (event.type === 'call' && ticket !== undefined && event.decision.action === 'allow' && event.decision.kind !== 'unguarded') this.tickets.set(event.key, ticket);
    else if (event.type === 'finish') this.tickets.delete(event.key);
  }

  /**
   * Another process appended first. With nothing of ours pending, catching up is applying
   * its entries. Otherwise our events were applied before its, which the log will not say:
   * the replica is rebuilt from the whole log, and our events applied after it (a rebase).
   */
  private async rebuild(result?: AppendResult): Promise<void> {
    if (result !== undefined && !result.accepted && !result.truncated && this.pending.length === 0) {
      this.applyEntries(result.entries, this.confirmed);
      return;
    }
    let entries: readonly string[];
    if (result !== undefined && !result.accepted && (this.confirmed === 0 || result.truncated === true)) {
      entries = result.entries;
      if (result.truncated === true) {
        this.reporter.warn(`run ${JSON.stringify(this.replica.id)}: its shared log is shorter than this process saw (expired, or the store lost data); rebuilt from what the store has`);
      }
    } else {
      entries = await this.shared.store.readRunEvents(this.replica.id, 0);
    }
    const own = this.pending;
    this.replica.resetReplica();
    this.tickets.clear();
    this.applyEntries(entries, 0);
    for (const entry of own) this.applyEntry(entry, -1);
    if (result !== undefined && !result.accepted && result.truncated === true) this.confirmed = entries.length;
  }
}

function safeKey(write: ResolvedIdempotentWrite, args: unknown): string | undefined {
  try {
    return write.keyOf(args);
  } catch {
    return undefined;
  }
}

function storeUnavailableMessage(tool: string): string {
  return refusalMessage('store.unavailable', { tool });
}

function alreadyDoneMessage(tool: string, at: number, byRun: string, thisRun: string, verified: boolean): string {
  const when = new Date(at).toISOString();
  const where = byRun === thisRun ? 'in this run' : `by run ${JSON.stringify(byRun)}`;
  return `Not run: this ${tool} (same business key) was already done ${where} at ${when}${verified ? ' (checked in the records)' : ''}. It was not sent again. Continue from that result.`;
}

