import { diag } from '@opentelemetry/api';

/**
 * Runs one loopguard bookkeeping step inside a framework hook. A bug in the guard must never
 * take the agent down with it: when the step throws, the hook behaves as if loopguard were
 * not installed (the call runs, the step is offered its usual tools) and the error goes to
 * OpenTelemetry's diagnostic logger, which is where every other loopguard warning goes.
 */
export function failOpen<T>(where: string, step: () => T, fallback: T): T {
  try {
    return step();
  } catch (error) {
    diag.warn(`loopguard: ${where} failed; continuing without the guard for this step`, error);
    return fallback;
  }
}
