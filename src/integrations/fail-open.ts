import { reportToDiag } from '../otel/report-to-diag.js';

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
    reportToDiag('warn', `loopguard: ${where} failed; continuing without the guard for this step`, error);
    return fallback;
  }
}

/**
 * {@link failOpen} for steps that await (`run.claimCall`, which with a shared store claims the
 * call across processes): a step that throws or rejects leaves the hook as if loopguard were
 * not installed, with the same `diag` warning.
 */
export async function failOpenAsync<T>(where: string, step: () => Promise<T> | T, fallback: T): Promise<T> {
  try {
    return await step();
  } catch (error) {
    reportToDiag('warn', `loopguard: ${where} failed; continuing without the guard for this step`, error);
    return fallback;
  }
}
