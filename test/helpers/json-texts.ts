import { resultObject } from '../../bench/lib/fixtures.js';
import { seededRandom } from './seeded-random.js';

/**
 * JSON texts for the one-pass JSON text scan's tests (issue 20): JSON.stringify output of
 * seeded random values built from keys and values fingerprinting reads (noise, volatile and
 * paging names, MCP envelopes, array-index keys, escapes, surrogates, long numbers), some of
 * them edited out of stringify's form, plus hand-written shapes.
 */
const KEYS: readonly string[] = [
  'id', 'title', 'hits', 'results', 'data', 'items', 'total', 'score', '_score', 'took', 'took_ms', 'timestamp', 'request_id', 'requestId', 'etag',
  'has_more', 'hasMore', 'next_cursor', 'nextCursor', 'next_page_token', 'next', 'response_metadata', 'content', 'structuredContent', 'type', 'text',
  'ok', 'acknowledged', 'success', 'status', 'error', '__proto__', '1', '0', '10', 'a b', 'ключ', 'k"q', 'k\\b', 'tags', 'images', 'page', 'cursor', '',
];

const STRINGS = [
  '', 'ok', 'done', 'success', 'doc-1', 'Configuring retries', '2024-05-01T12:03:04Z', 'ran in 1.53s', '12ms', 'request id: 7f3c2a1b-aaaa',
  '9b1deb4d-3b7d-4bad-9bdd-2b0d7b3dcb6d', 'line\nbreak', 'tab\there', 'quote " inside', 'back\\slash', 'ctrl \u0001 \u001f \u007f', 'emoji 😀',
  'lone \ud800 high', 'lone \udc00 low', 'é à ü', '\u2028\u2029', '/path/to/file', '<html>', 'took 3 seconds', '====', 'null', 'true', '0', 'W/abc',
];

const NUMBERS = [0, -0, 1, -1, 3, 10, 100, 0.5, -0.25, 1 / 3, 2 / 3, 0.1 + 0.2, 1e21, 1e20, 123456789012345, 1234567890123456, 2 ** 53 + 2, 1e-6, 1e-7, 5e-324, 1.7976931348623157e308, 0.000123, 42.125, 1794474000, 1794474000123];

function randomValue(next: () => number, depth: number): unknown {
  const roll = next();
  if (depth > 4 || roll < 0.35) {
    const kind = Math.floor(next() * 5);
    if (kind === 0) return STRINGS[Math.floor(next() * STRINGS.length)];
    if (kind === 1) return NUMBERS[Math.floor(next() * NUMBERS.length)];
    if (kind === 2) return next() < 0.5;
    if (kind === 3) return null;
    return Math.round(next() * 1000) / (next() < 0.5 ? 1 : 100);
  }
  if (roll < 0.6) {
    const length = next() < 0.2 ? 0 : Math.floor(next() * 6);
    return Array.from({ length }, () => randomValue(next, depth + 1));
  }
  const object: Record<string, unknown> = {};
  const size = next() < 0.15 ? 0 : Math.floor(next() * 6);
  for (let index = 0; index < size; index++) {
    const key = KEYS[Math.floor(next() * KEYS.length)]!;
    Object.defineProperty(object, key, { value: randomValue(next, depth + 1), enumerable: true, writable: true, configurable: true });
  }
  return object;
}

/** Edits that take a text out of JSON.stringify's form (or keep it there) while it stays JSON. */
const EDITS: Array<(text: string, next: () => number) => string> = [
  (text) => text.replace(',', ', '),
  (text) => text.replace(':', ': '),
  (text) => ` ${text}`,
  (text) => `${text}\n`,
  (text) => text.replace(/\//, '\\/'),
  (text) => text.replace(/"([a-z])/, (_, letter: string) => `"\\u00${letter.charCodeAt(0).toString(16)}`),
  (text) => text.replace(/:(\d+)([,}\]])/, ':$1.0$2'),
  (text) => text.replace(/:(\d+)([,}\]])/, ':$1e0$2'),
  (text) => text.replace(/:0([,}\]])/, ':-0$1'),
  (text) => text.replace(/^\{/, '{"id":"dup",'),
  (text) => text.replace(/^\{"/, '{"7":1,"'),
  (text) => text.replace(/"\\n/, '"\\u000a'),
  (text) => text.replace(/"/, '"\\ud83d\\ude00'),
  (text) => text.replace(/:null/, ':nul'),
  (text) => text.replace(/\]$/, ',]'),
  (text, next) => text.slice(0, Math.floor(next() * text.length)),
];

export function texts(count: number, seed: number): string[] {
  const next = seededRandom(seed);
  const out: string[] = [];
  for (let index = 0; index < count; index++) {
    let value = randomValue(next, 0);
    if (typeof value !== 'object' || value === null) value = [value];
    let text = JSON.stringify(value);
    if (next() < 0.35) text = EDITS[Math.floor(next() * EDITS.length)]!(text, next);
    out.push(text);
  }
  return out;
}

/** An object of `count` keys as text; with `from`/`to`, key `to` repeats key `from` (the last one wins in JSON.parse). */
function wideObjectText(count: number, from?: number, to?: number): string {
  const members: string[] = [];
  for (let index = 0; index < count; index++) {
    const key = index === to && from !== undefined ? `field_${from}` : `field_${index}`;
    members.push(`"${key}":${index % 3 === 0 ? `"value ${index}"` : index}`);
  }
  return `{"items":[{${members.join(',')}}],"total":1}`;
}

/** Shapes findItems, the empty checks and the paging markers read, written out. */
export const SHAPES: readonly string[] = [
  '[]', '{}', '{"a":[]}', '{"a":{}}', '[0,false,null,""]', '{"a":0,"b":[[],{}]}', '{"status":"ok","results":[]}', '{"results":[],"has_more":false}',
  '{"results":[],"next_cursor":null}', '{"results":[],"next":""}', '{"results":[],"response_metadata":{"next_cursor":""}}', '{"results":[1],"response_metadata":{"next_cursor":""}}',
  '{"data":{"hits":{"total":2,"hits":[{"id":1},{"id":2}]}}}', '{"data":{"hits":{"hits":{"deep":[1,2]}}}}', '{"a":[1],"b":[2]}', '{"a":[],"b":[2],"c":[]}',
  '{"a":[],"b":[]}', '{"w":{"x":[1,2,3]},"v":1}', '{"w":{"x":[1]},"z":{"y":[2]}}', '{"w":[{"x":[1]}],"n":"name"}', '{"ok":true}', '{"ok":false}',
  '{"data":{"issueAddLabel":{"success":true}}}', '{"acknowledged":true,"error":null}', '{"content":[{"type":"text","text":"[1,2]"}]}', '{"content":"x"}',
  '{"took":12,"hits":[{"_score":0.5,"id":"a"},{"_score":0.25,"id":"b"}]}', '{"name":"loopguard","description":"a long description of the repository and what it does","tags":["a"]}',
  '[{"id":1,"timestamp":"2025-11-02T10:00:01.123Z"},{"id":2,"ran":"in 1.53s"}]', '{"__proto__":{"a":[1]},"b":2}', '{"hasMore":false,"items":[{"a":1}]}',
  '{"a":[{"title":"a long first list item"},{"title":"another long one"}],"b":[2]}', '{"a":[],"b":[{"title":"a long list item"},{"title":"another long one"}]}',
  '{"w":{"a":[],"b":[]},"x":{"title":"a long list item that is most of the text"}}', '{"w":{"x":{"y":{"z":[{"title":"an item that is most of it"},{"t":"another"}]}}}}',
  '{"data":{"hits":[{"title":"a long list item that is most of it"},{"title":"another one, long as well"}]}}',
  '{"data":{"search":{"hits":[{"title":"a long list item that is most of it"},{"title":"another one, long as well"}]}},"n":1}',
  // Wide objects: repeated keys are found pairwise among the first 16 keys and by a Set past them.
  wideObjectText(40), wideObjectText(40, 0, 25), wideObjectText(40, 3, 30), wideObjectText(40, 18, 20), wideObjectText(40, 2, 9), `[${wideObjectText(20, 16, 17)},${wideObjectText(17)}]`,
  JSON.stringify(resultObject(2048)), JSON.stringify(resultObject(8192, 3)),
];

