import type { ToolErrorFormatter, ToolErrorFormatterArgs } from '@openai/agents';
import type { RunGuard } from '../../core/run-guard.js';
import { recordDeliveredRefusal } from '../delivered-refusals.js';
import { failOpen } from '../fail-open.js';

/**
 * A `toolErrorFormatter` (run option) for calls to tools loopguard took away. `isEnabled` hides
 * a disabled tool (and every tool once the run must stop), but a looping model often calls it
 * anyway, since it is in the conversation. With `toolNotFoundBehavior: 'return_error_to_model'`
 * the SDK asks this formatter what to tell the model: loopguard records the call as refused
 * (insisting on a disabled tool keeps the stale count going, so the stop still comes) and the
 * model reads why the tool is gone instead of "tool not found". Other errors go to your
 * formatter, or the SDK's default text.
 */
export function loopGuardToolErrorFormatter(run: RunGuard, formatter?: ToolErrorFormatter<any>): ToolErrorFormatter<any> {
  return async (args: ToolErrorFormatterArgs<any>) => {
    if (args.kind === 'tool_not_found') {
      const message = failOpen<string | undefined>(
        'toolErrorFormatter',
        () => {
          const call = { tool: args.toolName, callId: args.callId };
          if (run.shouldRefuse(call).action !== 'refuse') return undefined;
          const ticket = run.startCall(call);
          if (ticket.decision.action !== 'refuse') return undefined;
          recordDeliveredRefusal(run, ticket);
          return ticket.decision.message;
        },
        undefined,
      );
      if (message !== undefined) return message;
    }
    return formatter?.(args);
  };
}
