import { diag } from '@opentelemetry/api';

/**
 * Reports to OpenTelemetry's diag, where the span processor and the framework hooks say what
 * went wrong. The app's DiagLogger is its code: one that throws made a report of loopguard's own
 * failure, written inside the catch meant to contain it, an exception in the SDK's startSpan or
 * the framework's hook, in the app's tool call. A report it cannot take is dropped.
 */
export function reportToDiag(level: 'error' | 'warn', message: string, error?: unknown): void {
  try {
    if (error === undefined) diag[level](message);
    else diag[level](message, error);
  } catch {
    // Nowhere left to report: diag itself failed.
  }
}
