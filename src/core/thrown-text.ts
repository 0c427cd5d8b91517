/**
 * What was thrown, as text for a warning. Anything can be thrown, and `String(value)` itself
 * throws on an object without a prototype (`Object.create(null)`), with a throwing `toString`,
 * or an error whose `message` getter throws: inside the catch meant to keep a listener's, a key
 * function's, a verify's or a store's failure out of the host, it threw into the host instead.
 * A warning must never be what fails.
 */
export function thrownText(thrown: unknown): string {
  try {
    return thrown instanceof Error ? String(thrown.message) : String(thrown);
  } catch {
    try {
      return Object.prototype.toString.call(thrown);
    } catch {
      return 'a value that cannot be shown';
    }
  }
}
