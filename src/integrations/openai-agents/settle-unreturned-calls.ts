import type { CallTicket, RunGuard } from '../../core/run-guard.js';
import { AbortedCallError, CANCELLED_BEFORE_RUN } from '../../core/aborted-call-error.js';
import { failOpen } from '../fail-open.js';
import { getOpenAIAgentsRunState } from './openai-agents-run-state.js';

type ToolStartListener = (context: unknown, tool: unknown, details: { toolCall?: { callId?: unknown } } | undefined) => void;
interface AgentEvents {
  on(event: 'agent_tool_start', listener: ToolStartListener): unknown;
  off(event: 'agent_tool_start', listener: ToolStartListener): unknown;
}

/**
 * Listens to `agent`'s tool starts for this run, once per agent: the SDK emits
 * `agent_tool_start` just before it runs a function tool, so a call allowed and never started
 * is known not to have run. Let go at the first start after the run ended.
 */
export function watchToolStarts(run: RunGuard, agent: unknown): void {
  const state = getOpenAIAgentsRunState(run);
  const events = agent as Partial<AgentEvents> | null;
  if (typeof events !== 'object' || events === null || typeof events.on !== 'function' || typeof events.off !== 'function') return;
  if (state.watchedAgents.has(events)) return;
  state.watchedAgents.add(events);
  const listener: ToolStartListener = (_context, _tool, details) => {
    if (run.isEnded) {
      events.off!('agent_tool_start', listener);
      return;
    }
    const callId = details?.toolCall?.callId;
    if (typeof callId === 'string' && state.tickets.has(callId)) state.startedCalls.add(callId);
  };
  events.on('agent_tool_start', listener);
  state.watching = true;
}

/**
 * Finishes the allowed calls whose output never reached the output guardrail, once the SDK is
 * done with them: `'turn'` at a new model call, `'end'` at the run's end, or one call id
 * guarded again after its approval. One never started did not run: its business key is
 * released, or the write could never be retried (refused in flight, then of unknown outcome,
 * for the key's whole ttl). One that started (the tool threw with no errorFunction, or was
 * cancelled mid-run), or whose start this run could not hear, may have written: cut short, and
 * its key stays held.
 *
 * `'turn'` settles nothing while a started call is still open: a tool is running, and this
 * model call is a nested agent's (an agent used as a tool), not the next turn; a sibling call
 * claimed and not yet started may be about to run.
 */
export function settleUnreturnedCalls(run: RunGuard, scope: 'turn' | 'end' | { callId: string }): void {
  const state = getOpenAIAgentsRunState(run);
  const settle = (callId: string, ticket: CallTicket): void => {
    state.tickets.delete(callId);
    const started = state.startedCalls.delete(callId);
    const outcome = !started && state.watching ? CANCELLED_BEFORE_RUN : { error: new AbortedCallError('the tool started, and the SDK never handed back its output') };
    failOpen(`finishCall(${ticket.call.tool})`, () => run.finishCall(ticket, outcome), undefined);
  };
  if (typeof scope === 'object') {
    const ticket = state.tickets.get(scope.callId);
    if (ticket !== undefined) settle(scope.callId, ticket);
    return;
  }
  if (scope === 'turn' && state.startedCalls.size > 0) return;
  for (const [callId, ticket] of [...state.tickets]) settle(callId, ticket);
}
