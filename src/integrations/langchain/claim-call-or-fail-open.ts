import { diag } from '@opentelemetry/api';
import type { CallTicket, RunGuard } from '../../core/run-guard.js';
import type { ToolCall } from '../../core/types.js';

/**
 * `run.claimCall(call)`, failing open: LangChain tools and hooks are async, so the call is
 * claimed with the async API (with a shared store it is claimed across processes). When the
 * guard throws or its promise rejects, the call runs as if loopguard were not installed and the
 * error goes to OpenTelemetry's `diag`, like every other adapter's (see ../fail-open.ts).
 */
export async function claimCallOrFailOpen(run: RunGuard, call: ToolCall): Promise<CallTicket | undefined> {
  try {
    return await run.claimCall(call);
  } catch (error) {
    diag.warn(`loopguard: claimCall(${call.tool}) failed; continuing without the guard for this step`, error);
    return undefined;
  }
}
