import { unidentifiableSignature } from './call-signature.js';
import type { ResolvedToolPolicy } from './policy.js';
import type { PrehashedToolCall, ToolCall } from './types.js';
import { callAndListingSignatures } from './world-state/listing-key-of.js';
import { readWindowRequestOf } from './world-state/read-window-request-of.js';
import { resolveCallEffect, type ShellPollRules } from './world-state/resolve-call-effect.js';

/**
 * A call's identity and the facts the checks read from its arguments, the one way every path
 * computes them: the engine's startCall / claimCall and instrumentTool's span attribute. Two
 * paths hashing the same call differently (one stripping the call's own clock stamp, one not)
 * would put one args hash on the span and decide on another (issue 24 #7).
 *
 * `now` is read once, only when the call carries no start time: the call's start is what
 * tells a wall-clock stamp among its arguments from a question about time. The returned call
 * keeps `startTime` only when the caller gave one (a recorded time makes the run keep time by
 * recorded times, run-guard.ts timeOf).
 */
export function prehashCall(call: ToolCall, policy: ResolvedToolPolicy, shellPolls: ShellPollRules, now: () => number): PrehashedToolCall {
  const startTime = call.startTime ?? now();
  let prehashed: PrehashedToolCall;
  try {
    prehashed = readArguments(call, policy, shellPolls, startTime);
  } catch {
    // Arguments that throw when read (a getter, a revoked Proxy) have no sound identity: one
    // that matches nothing, as a cycle gets (call-signature.ts), and the effect the tool's
    // policy gives (a shell tool's: may write). Leaning to "new call" keeps the run alive,
    // and the host is not thrown an error from its own object.
    prehashed = { tool: call.tool, argsHash: unidentifiableSignature(call.tool) };
    if (call.effect !== undefined) prehashed.effect = call.effect;
  }
  if (call.callId !== undefined) prehashed.callId = call.callId;
  if (call.startTime !== undefined) prehashed.startTime = call.startTime;
  if (call.observeOnly === true) prehashed.observeOnly = true;
  // A tool that only waits (`wait`, `sleep`): the look after it is a poll, as after `sleep 5` in a shell.
  if (policy.waits) prehashed.sleepsOnly = true;
  return prehashed;
}

/** The identity and the facts read from the call's arguments; throws what reading them throws. */
function readArguments(call: ToolCall, policy: ResolvedToolPolicy, shellPolls: ShellPollRules, startTime: number): PrehashedToolCall {
  const signatures = callAndListingSignatures(call.tool, call.args, policy, startTime);
  const prehashed: PrehashedToolCall = { tool: call.tool, argsHash: signatures.argsHash };
  if (signatures.listingKey !== undefined) prehashed.listingKey = signatures.listingKey;
  // A read of part of a file (issue 24 #6): what it returned is read from its output at finish.
  const readWindow = readWindowRequestOf(policy.ownName ?? call.tool, policy, call.args);
  if (readWindow !== undefined) prehashed.readWindow = readWindow;
  // The world-state model needs the arguments only for shell and editor tools; every
  // other tool's effect is a field of its resolved policy (read in the engine's factsOf).
  if (call.effect !== undefined) prehashed.effect = call.effect;
  else if (policy.shellArg !== undefined || policy.editor || policy.pageActionArg !== undefined || policy.sqlArg !== undefined) {
    const info = resolveCallEffect(policy, call.args, shellPolls);
    prehashed.effect = info.effect;
    if (info.family !== undefined) prehashed.family = info.family;
    if (info.terminal) prehashed.terminal = true;
    if (info.pollDeadlineMs !== undefined) prehashed.pollDeadlineMs = info.pollDeadlineMs;
    if (info.changesStateElsewhere === true) prehashed.changesStateElsewhere = true;
    if (info.waitsOnCommand === true) prehashed.waitsOnCommand = true;
    if (info.sleepsOnly === true) prehashed.sleepsOnly = true;
    if (info.pollsAfterSleep === true) prehashed.pollsAfterSleep = true;
  }
  return prehashed;
}
