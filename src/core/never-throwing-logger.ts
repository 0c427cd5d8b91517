/**
 * The caller's logger, made unable to throw. A logger is the caller's code, like a listener: one
 * that throws (a closed transport) made every call that warned throw into the agent, and inside
 * `loopguard serve`'s last net turned a failed request into an unhandled rejection. A warning
 * it cannot take is dropped: there is nowhere left to say it.
 */
export function neverThrowingLogger(sink: { warn(message: string): void }): { warn(message: string): void } {
  return {
    warn: (message) => {
      try {
        sink.warn(message);
      } catch {
        // The logger itself failed.
      }
    },
  };
}
