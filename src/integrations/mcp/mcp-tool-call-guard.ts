import type { LoopGuard } from '../../core/loop-guard.js';
import type { CallTicket, RunGuard } from '../../core/run-guard.js';
import type { CallOutcome, RunDecision, ToolAnnotations } from '../../core/types.js';
import { recordDeliveredRefusal } from '../delivered-refusals.js';
import { CANCELLED_BEFORE_RUN } from '../../core/aborted-call-error.js';
import { failOpen, failOpenAsync } from '../fail-open.js';
import { effectFromMcpAnnotations } from './effect-from-mcp-annotations.js';
import { meaningOfToolResult, refusalToolResult, stopToolResult, type McpCallToolResult } from './mcp-call-tool-result.js';

/** What to do with one `tools/call`. */
export type McpCallStart =
  /** Refused, or the run has stopped: answer with `result`; the server never sees the call. */
  | { action: 'answer'; result: McpCallToolResult }
  /** Run it; pass the outcome to {@link McpToolCallGuard.finish}. `nudge`: add it to the result. */
  | { action: 'forward'; ticket: CallTicket | undefined; nudge?: string };

export interface McpToolCallGuardOptions {
  guard: LoopGuard;
  run: RunGuard;
  /**
   * How rounds are counted. `undefined`: by the caller (`run.beginRound()` before each model
   * call, `run.shouldStop()` after). A number (ms, ≥ 0): a call that arrives when no call is
   * running and at least this long after the last one finished opens a new round, after
   * `shouldStop()` judged the one before. 0: every call that finds none running is a round.
   */
  roundGapMs?: number;
  /**
   * A new run after a quiet gap this long (ms, > 0) with no call running: `nextRun(previous)`
   * ends the previous run and returns the next (the stdio proxy's runs, one per conversation
   * as far as a gap tells). `undefined`: one run, the caller's.
   */
  runGap?: { ms: number; nextRun: (previous: RunGuard) => RunGuard };
}

/**
 * The guard behind both MCP fronts (the stdio proxy and `guardMcpClient`): tool annotations
 * from `tools/list` feed each call's effect, rounds come from the caller or from quiet gaps,
 * refusals and the stop become error results, and results are recorded by what they mean.
 * Fails open: a bug here lets the call through and goes to `diag`.
 */
export class McpToolCallGuard {
  /** The run calls are decided in now (a new one after each quiet gap of `runGap.ms`). */
  run: RunGuard;
  private readonly guard: LoopGuard;
  private readonly roundGapMs: number | undefined;
  private readonly runGap: McpToolCallGuardOptions['runGap'];
  private readonly annotations = new Map<string, ToolAnnotations | undefined>();
  private inFlight = 0;
  private lastFinishedAt: number | undefined;
  private toolListSeen = false;
  private openedRound = false;

  constructor(options: McpToolCallGuardOptions) {
    this.guard = options.guard;
    this.run = options.run;
    this.roundGapMs = options.roundGapMs;
    this.runGap = options.runGap;
  }

  /** A `tools/list` result (one page) was seen. */
  get hasToolList(): boolean {
    return this.toolListSeen;
  }

  /** Records the annotations of a `tools/list` result page. Never throws. */
  recordToolList(result: unknown): void {
    failOpen('tools/list', () => {
      const tools = (result as { tools?: unknown } | undefined)?.tools;
      if (!Array.isArray(tools)) return;
      this.toolListSeen = true;
      for (const tool of tools) {
        if (typeof tool !== 'object' || tool === null) continue;
        const { name, annotations } = tool as { name?: unknown; annotations?: unknown };
        if (typeof name !== 'string') continue;
        this.annotations.set(name, typeof annotations === 'object' && annotations !== null ? (annotations as ToolAnnotations) : undefined);
      }
    }, undefined);
  }

  /** Decides one `tools/call` (and, with quiet-gap rounds, opens a round first). */
  async start(name: string, args: unknown, callId: string | undefined): Promise<McpCallStart> {
    if (this.runGap !== undefined && this.inFlight === 0 && this.lastFinishedAt !== undefined && this.now() - this.lastFinishedAt >= this.runGap.ms) {
      const next = failOpen<RunGuard | undefined>('next run', () => this.runGap!.nextRun(this.run), undefined);
      if (next !== undefined) {
        this.run = next;
        this.lastFinishedAt = undefined;
        this.openedRound = false;
      }
    }
    const run = this.run;
    let nudge: string | undefined;
    if (this.roundGapMs !== undefined && run.stopped === undefined && this.opensRound()) {
      // The engine's order: judge the round that just ended, then open the next.
      const next = failOpen<RunDecision | undefined>('shouldStop', () => run.shouldStop(), undefined);
      if (next?.action === 'continue') {
        nudge = next.nudge;
        failOpen('beginRound', () => run.beginRound(), undefined);
        this.openedRound = true;
      }
    }
    // Counted as running before the claim is awaited: parallel calls of one turn arrive while
    // it is pending, and must see this one running or each would open its own round.
    this.inFlight += 1;
    const declared = failOpen('policy', () => (Object.hasOwn(this.guard.options.tools, name) ? this.guard.options.tools[name] : undefined), undefined);
    const effect = effectFromMcpAnnotations(this.annotations.get(name), declared);
    const ticket = await failOpenAsync<CallTicket | undefined>(
      `claimCall(${name})`,
      () => run.claimCall({ tool: name, args, ...(callId !== undefined ? { callId } : {}), ...(effect !== undefined ? { effect } : {}) }),
      undefined,
    );
    const decision = ticket?.decision;
    if (decision?.action === 'refuse') {
      failOpen('record refusal', () => recordDeliveredRefusal(run, ticket!), undefined);
      this.inFlight = Math.max(0, this.inFlight - 1);
      this.lastFinishedAt = this.now();
      // After a stop every call gets the stop message (tools are over), not a per-call reason.
      const stopped = run.stopped;
      const result = stopped !== undefined && decision.reason === 'run.stopped' ? stopToolResult(stopped) : refusalToolResult(decision);
      return { action: 'answer', result };
    }
    return nudge === undefined ? { action: 'forward', ticket } : { action: 'forward', ticket, nudge };
  }

  /** A call `start` allowed that will not be sent after all (its caller aborted meanwhile): it did not run. */
  cancelled(ticket: CallTicket | undefined): void {
    this.inFlight = Math.max(0, this.inFlight - 1);
    this.lastFinishedAt = this.now();
    if (ticket === undefined) return;
    failOpen(`finishCall(${ticket.call.tool})`, () => this.run.finishCall(ticket, CANCELLED_BEFORE_RUN), undefined);
  }

  /** Records what a forwarded call returned (`{ result }`: the CallToolResult) or how it failed. */
  finish(ticket: CallTicket | undefined, outcome: CallOutcome): void {
    this.inFlight = Math.max(0, this.inFlight - 1);
    this.lastFinishedAt = this.now();
    if (ticket === undefined) return;
    const recorded: CallOutcome = outcome.error !== undefined || !('result' in outcome) ? outcome : { result: meaningOfToolResult(outcome.result) };
    failOpen(`finishCall(${ticket.call.tool})`, () => this.run.finishCall(ticket, recorded), undefined);
  }

  private opensRound(): boolean {
    if (this.inFlight > 0) return false;
    if (this.run.round === 0) return true;
    // Nothing has finished since this guard opened its first round: still that turn.
    if (this.lastFinishedAt === undefined) return !this.openedRound;
    return this.now() - this.lastFinishedAt >= (this.roundGapMs as number);
  }

  private now(): number {
    return this.guard.options.now();
  }
}
