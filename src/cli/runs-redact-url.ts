/**
 * A Redis URL fit to print: its password (`redis://:secret@host`, `redis://user:secret@host`)
 * becomes `***`. `loopguard runs` names the server in every message, and those messages end
 * up in terminals, CI logs and tickets.
 */
export function redactRedisUrl(url: string): string {
  try {
    const parsed = new URL(url);
    if (parsed.password === '') return url; // as typed: URL would normalise it (a trailing slash)
    parsed.password = '***';
    return parsed.toString();
  } catch {
    // Not parseable: hide everything between the scheme and an `@`, which is where a secret would be.
    return url.replace(/\/\/[^@/]*@/, '//***@');
  }
}
