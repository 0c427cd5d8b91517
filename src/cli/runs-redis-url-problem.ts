import { redactRedisUrl } from './runs-redact-url.js';

/**
 * What makes `url` unusable as `loopguard runs --redis`, as one line starting `--redis`, or
 * undefined when it can be used. Checked before ioredis sees the URL: ioredis throws a raw
 * `TypeError: Invalid URL` (port 99999, `redis://[::1`) or `URIError` (`%zz` in a password)
 * from its constructor, and reads a database that is not a number (`/abc`) as NaN, which
 * selects nothing and would list database 0: a wrong answer rather than an error.
 */
export function redisUrlProblem(url: string): string | undefined {
  const shown = JSON.stringify(redactRedisUrl(url));
  if (!/^rediss?:\/\/./.test(url)) return `--redis must be a redis:// or rediss:// URL (redis://host:6379), got ${shown}`;
  let parsed: URL;
  try {
    parsed = new URL(url);
  } catch {
    // The WHATWG parser says only "Invalid URL": name the usual culprit when it is there.
    const port = /^rediss?:\/\/(?:[^@/]*@)?(?:\[[^\]]*\]|[^:/?#]*):(\d+)(?:[/?#]|$)/.exec(url)?.[1];
    if (port !== undefined && Number(port) > 65535) return `--redis has port ${port}, which is not a TCP port (1-65535), in ${shown}`;
    return `--redis is not a valid URL (redis://[user:password@]host:port[/db]), got ${shown}`;
  }
  if (parsed.hostname === '') return `--redis names no host (redis://host:6379), got ${shown}`;
  if (parsed.port === '0') return `--redis has port 0, which is not a TCP port (1-65535), in ${shown}`;
  for (const [part, value] of [['user name', parsed.username], ['password', parsed.password]] as const) {
    try {
      decodeURIComponent(value);
    } catch {
      return `--redis has a ${part} that is not valid percent-encoding (write a literal % as %25), in ${shown}`;
    }
  }
  const databases = [parsed.pathname === '' || parsed.pathname === '/' ? undefined : parsed.pathname.slice(1), parsed.searchParams.get('db') ?? undefined];
  for (const database of databases) {
    if (database !== undefined && !/^\d{1,9}$/.test(database)) {
      return `--redis has database ${JSON.stringify(database)}, which is not a database number (redis://host:6379/0), in ${shown}`;
    }
  }
  return undefined;
}
