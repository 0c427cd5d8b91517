/**
 * A value as text for a message or a span attribute: a string as it is, else its JSON, else
 * `String()`, and `unreadable` when neither works (a Proxy, a getter or `toString` that throws).
 * Never throws: it runs where a throw would replace the tool's own result or error.
 */
export function readableText(value: unknown, unreadable: string): string {
  if (typeof value === 'string') return value;
  try {
    return JSON.stringify(value) ?? String(value);
  } catch {
    try {
      return String(value);
    } catch {
      return unreadable;
    }
  }
}
