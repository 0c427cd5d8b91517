import { describeConfigValue } from './describe-config-value.js';
import { InvalidToolCallError } from './errors.js';

/**
 * What is wrong with a call handed to the engine, or undefined when it has a tool name. Only
 * the name is checked: arguments of any value are a call (arguments that cannot be read get an
 * identity matching nothing, prehash-call.ts), and every other field is optional.
 */
export function invalidToolCallOf(call: unknown): InvalidToolCallError | undefined {
  if (call === null || typeof call !== 'object') {
    return new InvalidToolCallError({ field: 'call', message: `must be an object { tool, args }, got ${describeConfigValue(call)}. Pass the call the model made, e.g. { tool: 'search', args: { q: 'x' } }.` });
  }
  return invalidToolNameOf((call as { tool?: unknown }).tool, 'call.tool');
}

/** What is wrong with a tool name, or undefined when it is a string. */
export function invalidToolNameOf(tool: unknown, field: string): InvalidToolCallError | undefined {
  if (typeof tool === 'string') return undefined;
  return new InvalidToolCallError({ field, message: `must be the tool's name as a string, got ${describeConfigValue(tool)}. Pass the name the model called (the tool call's name), e.g. 'search'.` });
}

/** What is wrong with an outcome handed to finishCall, or undefined when it is an object. */
export function invalidOutcomeOf(outcome: unknown): InvalidToolCallError | undefined {
  if (outcome !== null && typeof outcome === 'object') return undefined;
  return new InvalidToolCallError({
    field: 'outcome',
    message: `must be { result } or { error }, got ${describeConfigValue(outcome)}. Wrap what the tool returned: finishCall(ticket, { result }), or { error } when it threw.`,
  });
}

/** What is wrong with a ticket handed to finishCall, or undefined when it is one the engine gave. */
export function invalidTicketOf(ticket: unknown): InvalidToolCallError | undefined {
  if (ticket !== null && typeof ticket === 'object') {
    const decision = (ticket as { decision?: unknown }).decision;
    if (decision !== null && typeof decision === 'object') return undefined;
  }
  return new InvalidToolCallError({
    field: 'ticket',
    message: `must be the ticket startCall or claimCall returned for this call, got ${describeConfigValue(ticket)}. Keep it from startCall and pass it back: finishCall(ticket, { result }).`,
  });
}
