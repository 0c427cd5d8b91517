import { BaseCallbackHandler } from '@langchain/core/callbacks/base';
import type { Serialized } from '@langchain/core/load/serializable';
import type { LLMResult } from '@langchain/core/outputs';
import type { CallTicket, RunGuard } from '../../core/run-guard.js';
import type { DeliveredRefusal } from '../delivered-refusals.js';
import { failOpen } from '../fail-open.js';
import { requireSetupOption } from '../require-setup-option.js';
import { toolResultOutcome } from './tool-result-outcome.js';

/** Options of {@link LoopGuardCallbackHandler}. */
export interface LoopGuardCallbackHandlerOptions {
  /** The run the observed agent invocation belongs to (`guard.startRun(...)`). */
  run: RunGuard;
}

/** A call loopguard would have refused; it ran anyway, since a callback cannot stop it. */
export type WouldRefuseDecision = DeliveredRefusal;

/**
 * Observe only: a LangChain callback handler that feeds loopguard's ledger from the events of
 * any LangChain or LangGraph run, without changing anything. Pass it per invocation:
 * `agent.invoke(input, { callbacks: [handler] })`.
 *
 * Each chat model (or LLM) start is a round; each tool start is a call, each tool end or error
 * its outcome. A callback cannot stop a call, so every call runs: a refusal is recorded as
 * `would_refuse` (the call is marked observe-only, which is how loopguard's telemetry counts
 * it: in `loopguard.tool.calls{loopguard.decision="would_refuse"}`, never in
 * `loopguard.refusals`) and listed in {@link wouldRefuse}; `run.shouldStop()` still says where
 * the run would have stopped. See docs/getting-started.md, "Enforced or only watched".
 *
 * Calls are identified by tool name and arguments only: a shell tool's command line is not
 * classified here (it counts as a possible write, the safe side), as for spans.
 * Handlers run awaited and never throw (errors go to `diag`): LangChain otherwise may run
 * them in the background, and a round must be open before its tool calls are counted.
 */
export class LoopGuardCallbackHandler extends BaseCallbackHandler {
  override name = 'loopguard';
  readonly run: RunGuard;
  /** Calls loopguard would have refused, in order. */
  readonly wouldRefuse: WouldRefuseDecision[] = [];
  private readonly tickets = new Map<string, CallTicket>();
  /** LangChain run ids of tools in flight: a model called inside a tool is not a round of this agent. */
  private readonly toolRunIds = new Set<string>();

  constructor(options: LoopGuardCallbackHandlerOptions) {
    super({ _awaitHandler: true });
    requireSetupOption('options', 'options', options, 'new LoopGuardCallbackHandler({ run })');
    requireSetupOption('run', 'run', options.run);
    this.run = options.run;
  }

  override handleChatModelStart(_llm: Serialized, _messages: unknown[][], _runId: string, parentRunId?: string): void {
    this.beginRound(parentRunId);
  }

  override handleLLMStart(_llm: Serialized, _prompts: string[], _runId: string, parentRunId?: string): void {
    this.beginRound(parentRunId);
  }

  override handleLLMEnd(output: LLMResult): void {
    failOpen(
      'handleLLMEnd',
      () => {
        const message = (output.generations?.[0]?.[0] as { message?: { usage_metadata?: { input_tokens?: number; output_tokens?: number } } } | undefined)?.message;
        const usage = message?.usage_metadata;
        if (usage !== undefined && this.run.round > 0) this.run.recordUsage({ inputTokens: usage.input_tokens, outputTokens: usage.output_tokens });
      },
      undefined,
    );
  }

  override handleToolStart(
    tool: Serialized,
    input: string,
    runId: string,
    _parentRunId?: string,
    _tags?: string[],
    _metadata?: Record<string, unknown>,
    runName?: string,
    toolCallId?: string,
  ): void {
    this.toolRunIds.add(runId);
    failOpen(
      'handleToolStart',
      () => {
        const name = runName ?? toolNameOf(tool);
        const args = parseJsonText(input);
        // The arguments, not their hash: what is read from them (a shell command's effect, a
        // paged call's listing) decides the call as on every other door.
        const ticket = this.run.startCall({ tool: name, args, callId: toolCallId, observeOnly: true });
        const decision = ticket.decision;
        if (decision.action === 'refuse') {
          this.wouldRefuse.push({
            round: ticket.round,
            tool: name,
            callId: toolCallId,
            reason: decision.reason,
            message: decision.message,
            ...(decision.previousCallId !== undefined ? { previousCallId: decision.previousCallId } : {}),
          });
          return;
        }
        this.tickets.set(runId, ticket);
      },
      undefined,
    );
  }

  override handleToolEnd(output: unknown, runId: string): void {
    this.toolRunIds.delete(runId);
    const ticket = this.takeTicket(runId);
    if (ticket === undefined) return;
    failOpen('handleToolEnd', () => this.run.finishCall(ticket, toolResultOutcome(output, ticket.call.callId)), undefined);
  }

  override handleToolError(error: unknown, runId: string): void {
    this.toolRunIds.delete(runId);
    const ticket = this.takeTicket(runId);
    if (ticket === undefined) return;
    failOpen('handleToolError', () => this.run.finishCall(ticket, { error }), undefined);
  }

  private beginRound(parentRunId: string | undefined): void {
    if (parentRunId !== undefined && this.toolRunIds.has(parentRunId)) return;
    failOpen('beginRound', () => this.run.beginRound(), undefined);
  }

  private takeTicket(runId: string): CallTicket | undefined {
    const ticket = this.tickets.get(runId);
    this.tickets.delete(runId);
    return ticket;
  }
}

function toolNameOf(tool: Serialized): string {
  const kwargs = (tool as { kwargs?: { name?: unknown } }).kwargs;
  if (typeof kwargs?.name === 'string') return kwargs.name;
  const name = (tool as { name?: unknown }).name;
  if (typeof name === 'string') return name;
  return tool.id.at(-1) ?? 'unknown_tool';
}

/** LangChain hands tool input to callbacks as text: JSON of the arguments, or the raw string. */
function parseJsonText(input: string): unknown {
  const text = input.trim();
  if (!(text.startsWith('{') || text.startsWith('['))) return input;
  try {
    return JSON.parse(text);
  } catch {
    return input;
  }
}
