/**
 * Thrown for a span attribute that should hold facts loopguard wrote beside its hashes
 * (`loopguard.tool.call_facts`, `outcome_facts`) and does not; the message names the field.
 */
export class FactsTextError extends Error {
  override readonly name = 'FactsTextError';
}

/** The JSON object a facts text holds. @throws FactsTextError when it is not one. */
export function factsObjectOf(text: string): Record<string, unknown> {
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch {
    throw new FactsTextError('not JSON');
  }
  if (value === null || typeof value !== 'object' || Array.isArray(value)) throw new FactsTextError('not a JSON object');
  return value as Record<string, unknown>;
}

/** `[from, to]` line ranges, copied. @throws FactsTextError naming `field` when they are not. */
export function lineRangesOf(value: unknown, field: string): Array<[number, number]> {
  if (!Array.isArray(value) || !value.every((range) => Array.isArray(range) && range.length === 2 && range.every((line) => typeof line === 'number'))) {
    throw new FactsTextError(`${field} must be [from, to] pairs of line numbers`);
  }
  return (value as Array<[number, number]>).map(([from, to]) => [from, to]);
}
