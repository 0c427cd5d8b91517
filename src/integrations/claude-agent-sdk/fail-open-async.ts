import { diag } from '@opentelemetry/api';

/**
 * `failOpen` (../fail-open.ts) for steps that await (`run.claimCall`, which with a shared store claims the
 * call across processes): a step that throws or rejects leaves the hook answering as if
 * loopguard were not installed, and the error goes to OpenTelemetry's `diag`, worded like
 * every other adapter's fail-open warning.
 */
export async function failOpenAsync<T>(where: string, step: () => Promise<T> | T, fallback: T): Promise<T> {
  try {
    return await step();
  } catch (error) {
    diag.warn(`loopguard: ${where} failed; continuing without the guard for this step`, error);
    return fallback;
  }
}
