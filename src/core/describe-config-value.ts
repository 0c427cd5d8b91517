const MAX_DESCRIBED_VALUE_LENGTH = 80;

/**
 * A bad option value as the caller wrote it, for a LoopGuardConfigError message; the engine,
 * the span processor and the instrumentation all describe values this way. Not plain
 * JSON.stringify: it reports `1e999` as "null", throws on BigInt and cycles (a TypeError
 * instead of the config error), and drops functions.
 */
export function describeConfigValue(value: unknown): string {
  switch (typeof value) {
    case 'number':
      return String(value);
    case 'bigint':
      return `${value}n`;
    case 'undefined':
      return 'undefined';
    case 'function':
      return 'a function';
    case 'symbol':
      return value.toString();
  }
  let text: string;
  try {
    text = JSON.stringify(value) ?? String(value);
  } catch {
    text = Object.prototype.toString.call(value);
  }
  return text.length > MAX_DESCRIBED_VALUE_LENGTH ? `${text.slice(0, MAX_DESCRIBED_VALUE_LENGTH)}…` : text;
}
