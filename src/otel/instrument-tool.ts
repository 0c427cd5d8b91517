import { readableText } from '../core/readable-text.js';
import { context as contextApi, SpanKind, SpanStatusCode, trace, type Context, type Tracer } from '@opentelemetry/api';
import { callFactsText } from '../core/call-facts-text.js';
import { prehashCall } from '../core/prehash-call.js';
import { describeError } from '../core/result-fingerprint.js';
import { describeConfigValue } from '../core/describe-config-value.js';
import { LoopGuardConfigError } from '../core/errors.js';
import {
  ATTR_ARGS_HASH,
  ATTR_CALL_FACTS,
  ATTR_ENFORCED,
  ATTR_ERROR_TYPE,
  ATTR_GEN_AI_OPERATION_NAME,
  ATTR_GEN_AI_TOOL_CALL_ARGUMENTS,
  ATTR_GEN_AI_TOOL_CALL_ID,
  ATTR_GEN_AI_TOOL_CALL_RESULT,
  ATTR_GEN_AI_TOOL_NAME,
  ATTR_GEN_AI_TOOL_TYPE,
  ATTR_OUTCOME,
  ATTR_RESULT_HASH,
  ATTR_UNFINGERPRINTABLE,
  OPERATION_EXECUTE_TOOL,
} from './attributes.js';
import { fingerprintCallOutcome, safeFingerprint, type CallTicket, type RunGuard } from '../core/run-guard.js';
import type { PrehashedToolCall } from '../core/types.js';
import { LoopGuardSpanProcessor } from './loop-guard-span-processor.js';
import { ToolTimeoutError } from './tool-timeout-error.js';
import { failedCallError } from '../core/aborted-call-error.js';

/** Options of {@link instrumentTool}. */
export interface InstrumentToolOptions {
  /** The processor registered on the tracer provider; it owns the ledger. */
  processor: LoopGuardSpanProcessor;
  /** Default: `trace.getTracer('loopguard')` from the global provider. */
  tracer?: Tracer;
  /** Put the raw arguments on the span (`gen_ai.tool.call.arguments`). Default false: they may hold personal data. */
  recordArguments?: boolean;
  /** Put the raw result on the span (`gen_ai.tool.call.result`). Default false. */
  recordResult?: boolean;
  /** `gen_ai.tool.type`. Default `function`. */
  type?: string;
  /** Parent context for the span. Default: the active context at call time. */
  parentContext?: () => Context;
  /**
   * The run to use when the processor did not see the span (the sampler dropped the trace).
   * Default: the parent's run as the processor knows it, else the trace's implicit run.
   */
  run?: () => RunGuard | undefined;
}

/** Per-call extras handed to a guarded tool. */
export interface ToolCallExtras {
  /** Aborted when the tool's `timeoutMs` passes (or the caller's signal aborts). */
  signal: AbortSignal;
  callId: string | undefined;
}

/** Options a caller may pass per call. */
export interface GuardedCallOptions {
  callId?: string;
  signal?: AbortSignal;
}

/** A guarded tool returns the tool's result, or the refusal message when it was not run. */
export type GuardedTool<A, R> = (args: A, options?: GuardedCallOptions) => Promise<R | string>;

/**
 * The extras of one call. A class with `signal` as a prototype getter, not an object literal
 * with a getter: a literal with an accessor is built through the runtime with a fresh getter
 * closure on every call. Measured (/tmp node probe, 2M objects, Node 20, loaded 2-core
 * machine, best of 3): literal with getter + controller closure 1.9–2.8 µs, this class
 * 32–65 ns; in the compiled profile (bench/profile.js loopguard, 150 B args + 2 KB result)
 * the literal's line held 74 of the wrapper's ~200 self-time ticks.
 *
 * The AbortController is made on first use: most tools never read their signal, and an
 * AbortController + signal per call was 8 % of a guarded call's profile.
 */
class CallExtras implements ToolCallExtras {
  #controller: AbortController | undefined;
  constructor(readonly callId: string | undefined) {}

  get signal(): AbortSignal {
    return (this.#controller ??= new AbortController()).signal;
  }

  /** Aborts the tool's signal (the caller's signal aborted, or the tool timed out). */
  abort(reason: unknown): void {
    (this.#controller ??= new AbortController()).abort(reason);
  }
}

const MAX_RECORDED_TEXT = 64 * 1024;

function asAttributeText(value: unknown): string {
  // Never throws: the arguments are recorded before the tool runs and the result after, and
  // neither may fail the call.
  const text = readableText(value, '[a value that cannot be read]');
  return text.length > MAX_RECORDED_TEXT ? `${text.slice(0, MAX_RECORDED_TEXT)}…` : text;
}

/**
 * A result as `gen_ai.tool.call.result`. Readers (replay, `serve`) take text that parses as a
 * JSON number, boolean, null or string for that value, as instrumentations that write JSON mean
 * it: so a string result that is such text is written JSON-quoted, or a shell's "3\n" came back
 * as the number 3, the same answer as a later "3", and the replay of the export stopped a run
 * two rounds before the live run did (test/otel/corpus-through-span-processor.test.ts).
 */
function resultAttributeText(result: unknown): string {
  if (typeof result === 'string' && isJsonScalarText(result)) return asAttributeText(JSON.stringify(result));
  return asAttributeText(result);
}

function isJsonScalarText(text: string): boolean {
  const first = text.trimStart().charCodeAt(0);
  if (Number.isNaN(first) || first === 123 /* { */ || first === 91 /* [ */) return false;
  try {
    JSON.parse(text);
    return true;
  } catch {
    return false;
  }
}

/**
 * Wraps a tool function so every call is an `execute_tool {name}` span with the GenAI
 * attributes and loopguard's hashes, and is decided by the ledger before it runs.
 *
 * The span's start is where the processor decides (synchronously, in onStart); a refused
 * call ends its span at once and returns the refusal message as the tool result, without
 * running — a refusal is not a span error. An allowed call runs with an AbortSignal that
 * fires at the tool's `timeoutMs`; its result is fingerprinted here, so raw results stay off
 * spans unless `recordResult` is set. Errors are recorded and rethrown unchanged.
 */
export function instrumentTool<A, R>(
  name: string,
  execute: (args: A, extras: ToolCallExtras) => Promise<R> | R,
  options: InstrumentToolOptions,
): GuardedTool<A, R> {
  validateInstrumentToolOptions(name, execute, options);
  const { processor } = options;
  const tracer = options.tracer ?? trace.getTracer('loopguard');
  const toolType = options.type ?? 'function';
  // Resolved once per tool, not per call: guard.argsHash / guard.fingerprint look the policy up
  // on every call, and the lookup of a tool without a policy (six well-known-name Set tests)
  // was 1.5 % of a guarded call's self time (compiled bench/profile.js, 150 B args + 2 KB result).
  const policy = processor.guard.options.tool(name);
  const maxFingerprintBytes = processor.guard.options.maxFingerprintBytes;
  const { shellPolls, now } = processor.guard.options;
  const spanName = `${OPERATION_EXECUTE_TOOL} ${name}`;
  const recordArguments = options.recordArguments === true;
  const recordResult = options.recordResult === true;
  const parentContext = options.parentContext;
  const runOption = options.run;

  return async (args: A, callOptions?: GuardedCallOptions): Promise<R | string> => {
    const parent = parentContext !== undefined ? parentContext() : contextApi.active();
    const callId = callOptions?.callId;
    const toolCall = callId === undefined ? { tool: name, args } : { tool: name, args, callId };
    // With a shared store (loopguard/redis) the call is claimed across processes before its
    // span starts, here where we can await; the processor, synchronous in onStart, takes that
    // decision for the span instead of deciding on its replica alone. The claim identifies the
    // call (with its start time, so the call's own clock stamp is not identity), and the span
    // carries that same identity: the arguments are hashed once per call, not once for the span
    // and again for the claim (issue 20), and the processor always recognises the claim (a
    // clock-stamped call was decided and recorded twice when the two hashes differed).
    let claimedRun: RunGuard | undefined;
    let prehashed: PrehashedToolCall | undefined;
    if (processor.guard.isShared) {
      claimedRun = runOption?.() ?? processor.runForUnrecordedSpan(parent, trace.getSpanContext(parent)?.traceId ?? '');
      if (claimedRun !== undefined) {
        // Arguments, not just their hash: a business-key write (idempotentWrites) reads its key from them.
        const claimed = await claimedRun.claimCall(toolCall);
        claimedRun.adoptClaim(claimed);
        prehashed = claimed.call;
      }
    }
    // Otherwise the engine's own identity function (core/prehash-call.ts): the span's args hash
    // is the one the run decides on, a clock stamp of the call left out (issue 24 #7).
    prehashed ??= prehashCall(toolCall, policy, shellPolls, now);
    const argsHash = prehashed.argsHash;
    // A literal, not a spread of a wrap-time template plus the hash: measured (/tmp node
    // probe, 2M objects, best of 3) literal with constant computed keys 93–128 ns, spread +
    // keyed add 4.6–8 µs (the add leaves the clone's fast shape).
    const attributes: Record<string, string | boolean> = {
      // This wrapper does not run a refused call: the processor may record "refuse".
      [ATTR_ENFORCED]: true,
      [ATTR_GEN_AI_OPERATION_NAME]: OPERATION_EXECUTE_TOOL,
      [ATTR_GEN_AI_TOOL_NAME]: name,
      [ATTR_GEN_AI_TOOL_TYPE]: toolType,
      [ATTR_ARGS_HASH]: argsHash,
    };
    if (callId !== undefined) attributes[ATTR_GEN_AI_TOOL_CALL_ID] = callId;
    const facts = callFactsText(prehashed);
    if (facts !== undefined) attributes[ATTR_CALL_FACTS] = facts;
    if (recordArguments) attributes[ATTR_GEN_AI_TOOL_CALL_ARGUMENTS] = asAttributeText(args);
    // The processor decides on this call's facts (a shell command's effect, a paged call's
    // listing), not on the bare hash the span carries; an unsampled span leaves the slot unread.
    processor.expectCall(prehashed);
    const span = tracer.startSpan(spanName, { kind: SpanKind.INTERNAL, attributes }, parent);
    processor.expectCall(undefined);
    const { spanId, traceId } = span.spanContext();
    let decision = processor.decisionForSpan(spanId);
    // Guarding must not depend on sampling: when the processor never saw this span (a
    // dropped trace), keep the ledger here, on the same run it would have used.
    let ownTicket: CallTicket | undefined;
    let ownRun: RunGuard | undefined;
    if (decision === undefined && !processor.isTracking(spanId)) {
      ownRun = runOption?.() ?? processor.runForUnrecordedSpan(parent, traceId);
      if (ownRun !== undefined) {
        ownTicket = ownRun.startCall(prehashed);
        decision = ownTicket.decision;
      }
    }
    // A claim the span did not take (the processor put the span in another run) is dropped.
    claimedRun?.adoptClaim(undefined);
    if (decision?.action === 'refuse') {
      span.end();
      return rememberRefusal(decision.message);
    }
    const extras = new CallExtras(callId);
    const callerSignal = callOptions?.signal;
    let onCallerAbort: (() => void) | undefined;
    if (callerSignal !== undefined) {
      // A signal aborted before the call never fires 'abort' again: pass its state on now.
      if (callerSignal.aborted) extras.abort(callerSignal.reason);
      else {
        onCallerAbort = () => extras.abort(callerSignal.reason);
        callerSignal.addEventListener('abort', onCallerAbort, { once: true });
      }
    }
    const toolContext = trace.setSpan(parent, span);
    let timer: NodeJS.Timeout | undefined;
    try {
      let result: R;
      if (policy.timeoutMs === undefined) {
        // The tool is called inside contextApi.with directly (its arguments passed through
        // with's own parameters, no closure), and a synchronous throw lands in this try. The
        // `Promise.resolve().then(() => execute())` this replaced made two closures and two
        // promises per call, and every promise pays the async-hooks init of the context
        // manager: that line held 111 of the wrapper's 250 self-time ticks in the compiled
        // profile (bench/profile.js loopguard, 150 B args + 2 KB result).
        result = await contextApi.with(toolContext, execute, undefined, args, extras);
      } else {
        // With a timeout the clock starts before the tool runs, so a tool's synchronous
        // prefix counts toward its timeout: the tool still starts on the next microtask.
        const timeoutMs = policy.timeoutMs;
        const running = contextApi.with(toolContext, () => Promise.resolve().then(() => execute(args, extras)));
        result = await Promise.race([
          running,
          new Promise<never>((_, reject) => {
            timer = setTimeout(() => {
              const error = new ToolTimeoutError({ tool: name, timeoutMs });
              extras.abort(error);
              reject(error);
            }, timeoutMs);
            // A pending tool timeout must never keep the process alive.
            timer.unref();
          }),
        ]);
      }
      const fingerprint = fingerprintCallOutcome(prehashed, { result }, policy, maxFingerprintBytes);
      processor.recordOutcomeForSpan(spanId, fingerprint);
      span.setAttribute(ATTR_OUTCOME, fingerprint.outcome);
      if (fingerprint.resultHash !== undefined) span.setAttribute(ATTR_RESULT_HASH, fingerprint.resultHash);
      if (fingerprint.unfingerprintable) span.setAttribute(ATTR_UNFINGERPRINTABLE, true);
      if (recordResult) span.setAttribute(ATTR_GEN_AI_TOOL_CALL_RESULT, resultAttributeText(result));
      if (ownTicket !== undefined) ownRun?.finishCall(ownTicket, fingerprint);
      return result;
    } catch (error) {
      // Failed after its caller aborted it: recorded as cut short whatever the abort's reason,
      // since the tool may have written (a business key stays held).
      const fingerprint = safeFingerprint({ error: failedCallError(error, callerSignal) }, policy, maxFingerprintBytes);
      processor.recordOutcomeForSpan(spanId, fingerprint);
      const { type, message } = describeError(error);
      span.setAttribute(ATTR_OUTCOME, fingerprint.outcome);
      if (fingerprint.resultHash !== undefined) span.setAttribute(ATTR_RESULT_HASH, fingerprint.resultHash);
      span.setAttribute(ATTR_ERROR_TYPE, fingerprint.outcome === 'error' ? type : fingerprint.outcome);
      span.setStatus({ code: SpanStatusCode.ERROR, message });
      if (ownTicket !== undefined) ownRun?.finishCall(ownTicket, fingerprint);
      throw error;
    } finally {
      if (timer !== undefined) clearTimeout(timer);
      if (onCallerAbort !== undefined) callerSignal?.removeEventListener('abort', onCallerAbort);
      span.end();
    }
  };
}

/**
 * Refusal texts handed out lately, so {@link isLoopGuardRefusal} can tell them from a tool's
 * own text. A refusal is returned as a plain string — the model must read it as the tool's
 * result — and a string primitive can carry no mark, so the text itself is remembered.
 * Bounded (oldest forgotten first); the texts name tool and round, so a few thousand cover
 * every refusal a program still holds.
 */
const recentRefusals = new Set<string>();
const MAX_REMEMBERED_REFUSALS = 4096;

function rememberRefusal(message: string): string {
  recentRefusals.delete(message);
  recentRefusals.add(message);
  if (recentRefusals.size > MAX_REMEMBERED_REFUSALS) recentRefusals.delete(recentRefusals.values().next().value as string);
  return message;
}

/**
 * True when `value` is a refusal a guarded tool of this process returned instead of running
 * (its most recent 4 096 distinct refusal texts), false for anything else — including a tool
 * result that merely looks like one. Use it to keep a refusal out of a cache or a UI.
 */
export function isLoopGuardRefusal(value: unknown): boolean {
  return typeof value === 'string' && recentRefusals.has(value);
}

const INSTRUMENT_TOOL_OPTION_KEYS = new Set(['processor', 'tracer', 'recordArguments', 'recordResult', 'type', 'parentContext', 'run']);

/** Rejects a bad instrumentTool call at wrap time, naming the field, instead of at the first call. */
export function validateInstrumentToolOptions(name: unknown, execute: unknown, options: unknown, prefix = ''): void {
  const fail = (field: string, message: string): never => {
    throw new LoopGuardConfigError({ field, message });
  };
  if (typeof name !== 'string' || name.length === 0) fail('name', `the tool name must be a non-empty string, got ${describeConfigValue(name)}`);
  if (typeof execute !== 'function') fail('execute', `must be the tool function (args, extras) => result, got ${describeConfigValue(execute)}`);
  validateToolOptionFields(options, prefix, true);
}

/** The option fields of instrumentTool; `withProcessor` false for startAgentRun's toolOptions. */
export function validateToolOptionFields(options: unknown, prefix: string, withProcessor: boolean): void {
  const fail = (field: string, message: string): never => {
    throw new LoopGuardConfigError({ field: `${prefix}${field}`, message });
  };
  if (typeof options !== 'object' || options === null || Array.isArray(options)) {
    fail(prefix === '' ? 'options' : prefix.slice(0, -1), `must be an options object, got ${describeConfigValue(options)}`);
  }
  const o = options as Record<string, unknown>;
  for (const key of Object.keys(o)) {
    if (!INSTRUMENT_TOOL_OPTION_KEYS.has(key)) fail(key, `is not an option of instrumentTool (options: ${[...INSTRUMENT_TOOL_OPTION_KEYS].join(', ')})`);
  }
  if (withProcessor && !(o.processor instanceof LoopGuardSpanProcessor)) {
    fail('processor', `must be the LoopGuardSpanProcessor registered on your tracer provider, got ${describeConfigValue(o.processor)}`);
  }
  for (const key of ['recordArguments', 'recordResult'] as const) {
    if (o[key] !== undefined && typeof o[key] !== 'boolean') fail(key, `must be true or false, got ${describeConfigValue(o[key])}`);
  }
  if (o.type !== undefined && typeof o.type !== 'string') fail('type', `must be a string (gen_ai.tool.type), got ${describeConfigValue(o.type)}`);
  if (o.tracer !== undefined && typeof (o.tracer as { startSpan?: unknown }).startSpan !== 'function') {
    fail('tracer', `must be an OpenTelemetry Tracer (provider.getTracer(name)), got ${describeConfigValue(o.tracer)}`);
  }
  for (const key of ['parentContext', 'run'] as const) {
    if (o[key] !== undefined && typeof o[key] !== 'function') fail(key, `must be a function returning the ${key === 'run' ? 'RunGuard' : 'Context'}, got ${describeConfigValue(o[key])}`);
  }
}
