import type { LoopGuard, RunGuard } from '../core/loop-guard.js';
import type { CallTicket } from '../core/run-guard.js';
import type { CallEffect, CallOutcome, ModelUsage, PrehashedOutcome, ToolCall } from '../core/types.js';
import { ServerRequestError } from './server-request-error.js';

/** Options of {@link DecisionApi}. */
export interface DecisionApiOptions {
  guard: LoopGuard;
  /** Claimed calls whose outcome has not come back, kept at most; the oldest go first. Default 100 000. */
  maxOpenTickets?: number;
  /**
   * A claimed call whose outcome has not come back this long after its claim is recorded as
   * timed out (document 001: it may have run), as other processes sharing a store record one
   * another's: an identical read may then run again, an identical write meets the
   * unknown-outcome rule, instead of "already running" forever when an agent crashed or never
   * reported. A late outcome is still accepted. Default: the engine's `claimLeaseMs` (120 000).
   */
  ticketLeaseMs?: number;
  /** The clock of the lease, in epoch ms. Default `Date.now`. */
  now?: () => number;
}

/** A claimed call the API holds: its ticket, its run, and when it was claimed. */
interface OpenTicket {
  readonly ticket: CallTicket;
  readonly runId: string;
  readonly claimedAt: number;
}

/** What a call that never reported back is recorded as (the shared ledger's own record of one); a fresh object each time, as the engine may stamp it. */
const abandoned = (): PrehashedOutcome => ({ outcome: 'timeout', errorType: 'abandoned' });

const MAX_ID_CHARS = 512;
const EFFECTS: ReadonlySet<string> = new Set<CallEffect>(['read', 'write', 'unknown']);

type Json = Record<string, unknown>;

/**
 * The decision API: the engine's run methods over JSON, for agents in any language. Each
 * handler is one engine call: `claim` is `run.claimCall` (the same store-aware door every
 * integration uses), `outcome` is `run.finishCall`, then `beginRound`, `shouldStop`,
 * `reportState`, `contextCompacted`, `end`.
 *
 * A claim's ticket is an opaque string. Without a shared store it names the ticket this
 * process holds. With one (`--redis`) it carries the call's key in the run's shared log and
 * its tool, so the outcome may go to any replica: that replica catches up with the log and
 * finishes the call the log knows. Every answer waits until what it changed is in the store,
 * so the next request sees it whichever replica it reaches.
 */
export class DecisionApi {
  private readonly guard: LoopGuard;
  private readonly maxOpenTickets: number;
  private readonly ticketLeaseMs: number;
  private readonly now: () => number;
  /** Tickets of calls claimed here, by `runId \0 ticket`; insertion order = age. Kept past their lease, for a late outcome. */
  private readonly tickets = new Map<string, OpenTicket>();
  /** The same, until their lease runs out (then recorded as timed out); insertion order = age. */
  private readonly leased = new Map<string, OpenTicket>();
  /** The token of each open ticket whose claim gave a callId, by `runId \0 callId` (see retriedClaim). */
  private readonly tokenByCallId = new Map<string, string>();
  private sequence = 0;

  constructor(options: DecisionApiOptions) {
    this.guard = options.guard;
    this.maxOpenTickets = options.maxOpenTickets ?? 100_000;
    this.ticketLeaseMs = options.ticketLeaseMs ?? options.guard.claimLeaseMs;
    this.now = options.now ?? Date.now;
  }

  /**
   * Claimed calls still waiting for an outcome (the `loopguard_serve_open_tickets` gauge): not
   * those whose lease ran out (recorded as timed out at the next claim, or counted so already
   * here), nor those known finished, by an outcome on another replica read from the log. The
   * tickets kept for a late outcome are not open. A walk of at most maxOpenTickets, once a scrape.
   */
  get openTickets(): number {
    const expiredBefore = this.now() - this.ticketLeaseMs;
    let open = 0;
    for (const entry of this.leased.values()) if (entry.claimedAt > expiredBefore && !entry.ticket.finished) open += 1;
    return open;
  }

  /** POST /v1/runs/{runId}/calls */
  async claim(runId: string, body: Json): Promise<Json> {
    const tool = requireString(body, 'tool');
    const call: ToolCall = { tool, args: body.arguments };
    if (body.callId !== undefined) call.callId = requireString(body, 'callId');
    if (body.effect !== undefined) {
      if (typeof body.effect !== 'string' || !EFFECTS.has(body.effect)) throw badField('effect', `must be "read", "write" or "unknown", got ${JSON.stringify(body.effect)}`);
      call.effect = body.effect as CallEffect;
    }
    this.expireLeases();
    const run = await this.openLiveRun(runId);
    const retried = call.callId === undefined ? undefined : this.retriedClaim(runId, run, call);
    if (retried !== undefined) return retried;
    const ticket = await run.claimCall(call);
    await settled(run);
    const decision = ticket.decision;
    if (decision.action === 'refuse') {
      const stopped = run.stopped;
      // After a stop every call gets the stop (tools are over), not a per-call reason.
      if (stopped !== undefined && decision.reason === 'run.stopped') {
        return { decision: 'stop', reason: stopped.reason, message: stopped.message, detail: stopped.detail, round: stopped.round };
      }
      return { decision: 'refuse', reason: decision.reason, message: decision.message, round: ticket.round, argsHash: decision.argsHash };
    }
    const token = this.keep(runId, ticket, run);
    return { decision: 'allow', kind: decision.kind, ticket: token, round: ticket.round, argsHash: decision.argsHash };
  }

  /** POST /v1/runs/{runId}/calls/{ticket}/outcome */
  async outcome(runId: string, token: string, body: Json): Promise<Json> {
    let outcome: CallOutcome;
    if (Object.hasOwn(body, 'error') && body.error !== undefined && body.error !== null) outcome = { error: body.error };
    else if (Object.hasOwn(body, 'result')) outcome = { result: body.result };
    else throw badField('result', 'give the tool\'s result as "result" (any JSON), or its failure as "error" ({ "type": "timeout", "message": "…" })');
    const key = `${runId}\u0000${token}`;
    let local = this.tickets.get(key)?.ticket;
    const parsed = parseToken(token);
    if (local !== undefined) this.forget(key);
    // Its lease ran out here (expireLeases finished it as timed out and let its business key go
    // unsettled, as it may have run): the outcome that came after all settles the key as on any
    // other replica, from the ticket. Finishing the spent ticket did nothing, so the key stayed
    // pending, "being done right now" to every later claim, though the write was done.
    if (local?.finished === true && this.guard.isShared && parsed?.held !== undefined) local = undefined;
    let run: RunGuard;
    let ticket: CallTicket;
    if (local !== undefined) {
      run = await this.openRun(runId);
      ticket = local;
    } else {
      const unknownTicket = (): ServerRequestError =>
        new ServerRequestError({
          status: 404,
          code: 'unknown_ticket',
          message: `no open call with ticket ${JSON.stringify(token)} in run ${JSON.stringify(runId)}: its outcome was already recorded, the run ended, or the ticket is not one this server gave (without --redis, outcomes must go to the server that gave the ticket)`,
          field: 'ticket',
        });
      if (!this.guard.isShared || parsed === undefined || parsed.logKey === undefined) throw unknownTicket();
      // Claimed on another replica: this one catches up with the log, which knows the call. A
      // run the log does not know is a ticket sent under the wrong run id: answered as such, not
      // recorded into a run made up for it while the real call stays in flight.
      const found = await this.findRun(runId);
      if (found === undefined) throw unknownTicket();
      run = found;
      ticket = { decision: { action: 'allow', kind: 'new', tool: parsed.tool, argsHash: '' }, round: run.round, call: { tool: parsed.tool, argsHash: '' }, finished: false, key: parsed.logKey };
    }
    // A business key only the claiming run object held: another replica's, or this one's before
    // the run was evicted (maxOpenRuns) and resumed as a new object. Settled here with the outcome.
    const held = parsed?.held;
    if (held !== undefined && ticket.key !== undefined && run.shared !== undefined && run.shared.heldKeyOf(ticket.key) === undefined) {
      run.shared.adoptHeldKey(ticket.key, { tool: parsed!.tool, scope: held.scope, runId, value: held.value }, held.owner);
    }
    const novelty = run.finishCall(ticket, outcome);
    await settled(run);
    return { novelty };
  }

  /** POST /v1/runs/{runId}/rounds */
  async beginRound(runId: string, body: Json): Promise<Json> {
    const usage = optionalUsage(body);
    const run = await this.openLiveRun(runId);
    const round = run.beginRound(usage);
    await settled(run);
    return { round };
  }

  /** POST /v1/runs/{runId}/should-stop */
  async shouldStop(runId: string): Promise<Json> {
    const run = await this.openRun(runId);
    const decision = run.shouldStop();
    await settled(run);
    if (decision.action === 'stop') {
      return { action: 'stop', reason: decision.reason, message: decision.message, detail: decision.detail, round: decision.round, partial: decision.partial };
    }
    return decision.nudge === undefined ? { action: 'continue', disabledTools: decision.disabledTools } : { action: 'continue', nudge: decision.nudge, disabledTools: decision.disabledTools };
  }

  /** POST /v1/runs/{runId}/state */
  async reportState(runId: string, body: Json): Promise<Json> {
    if (!Object.hasOwn(body, 'state')) throw badField('state', 'give the progress state as "state" (a digest string, or any JSON to be hashed)');
    const run = await this.openRun(runId);
    run.reportState(body.state);
    await settled(run);
    return { recorded: true };
  }

  /** POST /v1/runs/{runId}/compacted: the model's context was compacted (RunGuard.contextCompacted). */
  async contextCompacted(runId: string): Promise<Json> {
    const run = await this.openRun(runId);
    run.contextCompacted();
    await settled(run);
    return { recorded: true };
  }

  /** POST /v1/runs/{runId}/end */
  async end(runId: string): Promise<Json> {
    const run = await this.findRun(runId);
    if (run === undefined) return { ended: true };
    const stop = run.stopped;
    run.end();
    await settled(run);
    for (const key of this.tickets.keys()) if (key.startsWith(`${runId}\u0000`)) this.forget(key);
    return stop === undefined ? { ended: true } : { ended: true, stopped: { reason: stop.reason, detail: stop.detail, round: stop.round } };
  }

  /** GET /v1/runs/{runId}: the run as this server sees it (with --redis: as the log says). */
  async view(runId: string): Promise<Json> {
    const run = await this.findRun(runId);
    if (run === undefined) throw new ServerRequestError({ status: 404, code: 'unknown_run', message: `no run ${JSON.stringify(runId)} is open or recently ended on this server` });
    return describeRun(run);
  }

  /** GET /v1/runs: open runs, most recently active last (as `loopguard runs` lists them). */
  list(limit: number): Json {
    const runs: Json[] = [];
    for (const run of this.guard.runs()) runs.push(describeRun(run));
    return { ...this.guard.stats(), runs: runs.slice(-limit) };
  }

  /**
   * A run this server or (with --redis) the shared log knows, up to date; undefined for one
   * neither knows. Looking at a run, ending it or reporting into it must not start it: with
   * --redis every GET of a made-up id took an open-run slot (evicting real runs at
   * maxOpenRuns) and an end wrote a log for a run that never was.
   */
  private async findRun(runId: string): Promise<RunGuard | undefined> {
    if (!this.guard.isShared) return this.guard.getRun(runId);
    // A run this replica has open or just ended is known; otherwise the log decides. Read once
    // here and once by resumeRun: only for a run this replica has not seen yet.
    if (this.guard.getRun(runId) === undefined && (await this.guard.store!.readRunEvents(runId, 0)).length === 0) return undefined;
    return this.guard.resumeRun(runId);
  }

  private async openRun(runId: string): Promise<RunGuard> {
    // With a shared store a request may be the first this replica sees of a run, or come
    // after other replicas moved it on: catch up first, so shouldStop and rounds judge the
    // whole log (a claim is compare-and-append anyway).
    if (this.guard.isShared) return this.guard.resumeRun(runId);
    // An ended run is answered as ended while the engine remembers it (endedRunTtlMs), as a
    // shared store answers it from the log: restarting it here let a run loopguard stopped
    // go on unguarded under the same id, and only without --redis.
    return this.guard.getRun(runId) ?? this.guard.startRun(runId);
  }

  /**
   * A run the agent ended is over: a new round or call under its id is a new run that reused
   * the id (a fixed id copied from an example), which must not silently be refused tool after
   * tool, or restarted over the ended run's record. A stopped run still answers `stop`.
   */
  private async openLiveRun(runId: string): Promise<RunGuard> {
    const run = await this.openRun(runId);
    if (run.isEnded && run.stopped === undefined) {
      throw new ServerRequestError({
        status: 409,
        code: 'run_ended',
        message: `run ${JSON.stringify(runId)} has ended (POST /v1/runs/{runId}/end); a run id names one run: start the next run under a new id (a UUID)`,
        field: 'runId',
      });
    }
    return run;
  }

  private keep(runId: string, ticket: CallTicket, run: RunGuard): string {
    let token = `${Buffer.from(ticket.call.tool).toString('base64url')}.${ticket.key ?? `~${(this.sequence += 1).toString(36)}`}`;
    // A write holding a business key: the key travels in the ticket, so the replica the outcome
    // reaches can complete it (the log does not carry it: it names the call, not the key).
    const held = ticket.key === undefined ? undefined : run.shared?.heldKeyOf(ticket.key);
    if (held !== undefined) token += `.${Buffer.from(JSON.stringify([held.key.scope, held.key.value, held.owner])).toString('base64url')}`;
    const key = `${runId}\u0000${token}`;
    const open: OpenTicket = { ticket, runId, claimedAt: this.now() };
    this.tickets.set(key, open);
    this.leased.set(key, open);
    if (ticket.call.callId !== undefined) this.tokenByCallId.set(`${runId}\u0000${ticket.call.callId}`, token);
    if (this.tickets.size > this.maxOpenTickets) this.forget(this.tickets.keys().next().value as string);
    return token;
  }

  /** Drops a ticket from both maps (its outcome came, its run ended, or it is the oldest past maxOpenTickets). */
  private forget(key: string): void {
    const open = this.tickets.get(key);
    const callId = open?.ticket.call.callId;
    if (callId !== undefined) {
      const byCallId = `${open!.runId}\u0000${callId}`;
      if (this.tokenByCallId.get(byCallId) === key.slice(open!.runId.length + 1)) this.tokenByCallId.delete(byCallId);
    }
    this.tickets.delete(key);
    this.leased.delete(key);
  }

  /**
   * A claim sent again because its answer was lost (a client timeout, a load balancer retrying
   * on another replica): the same callId, tool and arguments as a call of the run still in
   * flight. It gets that call's allow and ticket again. Claimed anew, the agent's own call was
   * refused repeat.in_flight ("its result will be in the conversation": it never would be) and
   * the refusal counted against the run. The callId is the framework's id of one model tool
   * call; the arguments are compared too, as some frameworks number calls per turn ("call_0").
   *
   * Reads only. A client that replays a step sends the same callId too (LangGraph resuming from
   * a checkpoint runs the pending tool calls again under their ids), after the write may have
   * run: given its ticket back, the write ran twice. A write, or a call of unknown effect, is
   * left to the engine, refused as in flight and then of unknown outcome, as without a callId:
   * a false "already running" costs a round, a second write cannot be taken back.
   */
  private retriedClaim(runId: string, run: RunGuard, call: ToolCall): Json | undefined {
    if (this.guard.hasBusinessKey(call.tool)) return undefined;
    const callId = call.callId!;
    let token = this.tokenByCallId.get(`${runId}\u0000${callId}`);
    let ticket = token === undefined ? undefined : this.tickets.get(`${runId}\u0000${token}`)?.ticket;
    // With a shared store the log says whether it is still in flight (its outcome may have gone
    // to another replica, or the replica been rebuilt since): the ticket here may not know.
    if (ticket !== undefined && run.shared !== undefined && (ticket.key === undefined || run.shared.tickets.get(ticket.key)?.finished !== false)) ticket = undefined;
    if (ticket === undefined || ticket.finished) {
      token = undefined;
      ticket = undefined;
      for (const [logKey, live] of run.shared?.tickets ?? []) {
        if (live.finished || live.call.callId !== callId || live.call.tool !== call.tool) continue;
        token = `${Buffer.from(call.tool).toString('base64url')}.${logKey}`;
        ticket = live;
        break;
      }
    }
    if (ticket === undefined || token === undefined || ticket.call.tool !== call.tool || ticket.decision.action !== 'allow') return undefined;
    const claimed = run.effectOfClaim(call);
    if (claimed.effect !== 'read' || claimed.call.argsHash !== ticket.call.argsHash) return undefined;
    return { decision: 'allow', kind: ticket.decision.kind, ticket: token, round: ticket.round, argsHash: ticket.decision.argsHash };
  }

  /**
   * Records as timed out every call whose lease ran out without an outcome, oldest first: the
   * walk stops at the first one still inside its lease, so a claim pays for what expired only.
   * A run no longer open here is left to whoever opens it next (with a store, any replica's
   * link expires the calls of other link ids; a resumed run's link is a new one).
   */
  private expireLeases(): void {
    if (this.leased.size === 0) return;
    const expiredBefore = this.now() - this.ticketLeaseMs;
    for (const [key, open] of this.leased) {
      if (open.claimedAt > expiredBefore) break;
      this.leased.delete(key);
      const run = this.guard.getRun(open.runId);
      if (run !== undefined && !run.isEnded) run.finishCall(open.ticket, abandoned());
    }
  }
}

/** Resolves when what the run recorded is in the shared store (at once without one). */
function settled(run: RunGuard): Promise<void> {
  // The run's own flush, not LoopGuard.flush(): that one waits on every open run.
  return run.shared?.flushed() ?? Promise.resolve();
}

/**
 * `<tool, base64url>.<the call's key in the log, or ~local serial>[.<business key, base64url JSON>]`.
 * A log key is `<link id>.<serial>` (base64url and base-36: no dot inside either part).
 */
function parseToken(token: string): { tool: string; logKey: string | undefined; held?: { scope: 'global' | 'run'; value: string; owner: string } } | undefined {
  const parts = token.split('.');
  if (parts.length < 2 || parts.length > 4 || parts.some((part) => part.length === 0)) return undefined;
  const tool = Buffer.from(parts[0]!, 'base64url').toString();
  if (tool.length === 0) return undefined;
  if (parts[1]!.startsWith('~')) return parts.length === 2 ? { tool, logKey: undefined } : undefined;
  if (parts.length === 2) return undefined;
  const logKey = `${parts[1]}.${parts[2]}`;
  if (parts.length === 3) return { tool, logKey };
  let held: unknown;
  try {
    held = JSON.parse(Buffer.from(parts[3]!, 'base64url').toString());
  } catch {
    return undefined;
  }
  if (!Array.isArray(held) || held.length !== 3 || (held[0] !== 'global' && held[0] !== 'run') || typeof held[1] !== 'string' || typeof held[2] !== 'string') return undefined;
  return { tool, logKey, held: { scope: held[0], value: held[1], owner: held[2] } };
}

export function describeRun(run: RunGuard): Json {
  const stop = run.stopped;
  return {
    id: run.id,
    profile: run.profile,
    round: run.round,
    staleRoundStreak: run.staleRoundStreak,
    refusedRoundStreak: run.refusedRoundStreak,
    inFlight: run.inFlight,
    ended: run.isEnded,
    stopped: stop === undefined ? null : { reason: stop.reason, detail: stop.detail, round: stop.round },
  };
}

export function requireRunId(value: string): string {
  if (value.length === 0 || value.length > MAX_ID_CHARS) throw badField('runId', `the run id in the path must be 1 to ${MAX_ID_CHARS} characters`);
  return value;
}

function requireString(body: Json, field: string): string {
  const value = body[field];
  if (typeof value !== 'string' || value.length === 0 || value.length > MAX_ID_CHARS) {
    throw badField(field, `must be a non-empty string of at most ${MAX_ID_CHARS} characters, got ${value === undefined ? 'nothing' : JSON.stringify(value).slice(0, 80)}`);
  }
  return value;
}

function optionalUsage(body: Json): ModelUsage | undefined {
  const usage = body.usage;
  if (usage === undefined || usage === null) return undefined;
  if (typeof usage !== 'object' || Array.isArray(usage)) throw badField('usage', 'must be an object { "inputTokens": n, "outputTokens": n }');
  const result: ModelUsage = {};
  for (const field of ['inputTokens', 'outputTokens'] as const) {
    const value = (usage as Json)[field];
    if (value === undefined) continue;
    if (typeof value !== 'number' || !Number.isFinite(value) || value < 0) throw badField(`usage.${field}`, `must be a number ≥ 0, got ${JSON.stringify(value)}`);
    result[field] = value;
  }
  return result;
}

function badField(field: string, problem: string): ServerRequestError {
  return new ServerRequestError({ status: 400, code: 'bad_request', field, message: `${field}: ${problem}` });
}
