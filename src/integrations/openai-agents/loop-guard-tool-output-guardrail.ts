import type { ToolOutputGuardrailDefinition } from '@openai/agents';
import type { RunGuard } from '../../core/run-guard.js';
import { UNEXPLAINED_TOOL_FAILURE } from '../../core/result-fingerprint.js';
import type { CallOutcome } from '../../core/types.js';
import { failOpen } from '../fail-open.js';
import { getOpenAIAgentsRunState } from './openai-agents-run-state.js';

/** The SDK's default timeout text: `Tool 'name' timed out after 1000ms.` */
const SDK_DEFAULT_TIMEOUT = /^Tool '.*' timed out after \d+ms\.$/;

/** Recorded as the error of a call whose output was the SDK's default error text. */
export class AgentToolError extends Error {
  override readonly name: string;
  constructor(message: string, name = 'AgentToolError') {
    super(message);
    this.name = name;
  }
}

/**
 * A tool output guardrail that tells loopguard what an allowed call returned (whether it taught
 * the run anything, whether it failed). It never changes the output: always `allow`.
 */
export function loopGuardToolOutputGuardrail(run: RunGuard): ToolOutputGuardrailDefinition<any> {
  const state = getOpenAIAgentsRunState(run);
  return {
    type: 'tool_output',
    name: 'loopguard',
    run: async ({ toolCall, output }) => {
      const ticket = state.tickets.get(toolCall.callId);
      if (ticket !== undefined) {
        state.tickets.delete(toolCall.callId);
        state.startedCalls.delete(toolCall.callId);
        failOpen(`finishCall(${toolCall.name})`, () => run.finishCall(ticket, outcomeOf(output)), undefined);
      }
      return { behavior: { type: 'allow' } };
    },
  };
}

function outcomeOf(output: unknown): CallOutcome {
  // The text the SDK's default error function gives the model when a tool throws: the thrown
  // error itself never reaches a guardrail or hook, so this text is how a failure is told apart
  // from a result. A tool with its own `errorFunction` reports failures as results.
  if (output === UNEXPLAINED_TOOL_FAILURE) return { error: new AgentToolError(output) };
  if (typeof output === 'string' && SDK_DEFAULT_TIMEOUT.test(output)) return { error: new AgentToolError(output, 'TimeoutError') };
  return { result: parseJsonText(output) };
}

/** Function tools return strings (often JSON); fingerprint the value, not its spacing. */
function parseJsonText(output: unknown): unknown {
  if (typeof output !== 'string') return output;
  const text = output.trim();
  if (!(text.startsWith('{') || text.startsWith('['))) return output;
  try {
    return JSON.parse(text);
  } catch {
    return output;
  }
}
