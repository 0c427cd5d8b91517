/**
 * The key under which the proxy files a request by its id, from the id's raw JSON text, or
 * `undefined` for `null` and anything that is not a JSON-RPC id. Exact, never through a JS
 * number: `12345678901234567891` and `12345678901234567890` are one double but two requests.
 * Spellings of one value share a key (`1`, `1.0` and `10e-1`; `"a"` and `"\u0061"`), since a
 * server that parses ids answers with its own spelling. `1` and `"1"` are different ids.
 */
export function jsonRpcIdKey(rawId: string): string | undefined {
  const text = rawId.trim();
  if (text.startsWith('"')) {
    try {
      return `s:${JSON.parse(text) as string}`;
    } catch {
      return undefined;
    }
  }
  const number = /^(-?)(\d+)(?:\.(\d+))?(?:[eE]([+-]?\d+))?$/.exec(text);
  if (number === null) return undefined;
  const [, sign, whole, fraction = '', exponent = '0'] = number;
  let digits = `${whole}${fraction}`.replace(/^0+/, '');
  if (digits === '') return 'n:0';
  // Exponents as BigInt: `1e400` and `1e401` are different ids too.
  let power = BigInt(exponent) - BigInt(fraction.length);
  // Counted from the end: `/0+$/` retried from every zero of an inner run (a peer's id of 50,000 digits: 1.5 s).
  let end = digits.length;
  while (end > 0 && digits.charCodeAt(end - 1) === 48 /* 0 */) end--;
  const trailingZeros = digits.length - end;
  digits = digits.slice(0, digits.length - trailingZeros);
  power += BigInt(trailingZeros);
  return `n:${sign}${digits}e${power}`;
}
