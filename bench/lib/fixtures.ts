/**
 * Deterministic inputs for every benchmark: tool arguments of ~150 B and ~2 KB, tool results
 * of ~2 KB, ~100 KB and ~2 MB (objects, and the same values as JSON text). No randomness, so
 * two runs of the bench hash the same bytes.
 */

/** ~150 B of canonical JSON: a typical search call. `variant` makes distinct calls. */
export function smallArgs(variant: number): Record<string, unknown> {
  return {
    query: 'how do I configure the retry policy of the search index',
    filters: { lang: 'en', source: 'docs', version: '2.x' },
    limit: 10,
    page: variant,
  };
}

/** ~2 KB of canonical JSON: a call carrying a document excerpt and nested options. */
export function largeArgs(variant: number): Record<string, unknown> {
  const sections = [];
  for (let index = 0; index < 12; index++) {
    sections.push({ id: `sec-${index}`, heading: `Section ${index} of the design notes`, weight: index / 10, tags: ['draft', 'review'] });
  }
  return {
    path: '/workspace/project/docs/design/retry-policy.md',
    instructions: 'Summarise the sections below and list every open question the reviewers raised about retries.',
    options: { format: 'markdown', maxTokens: 800, temperature: 0.2, include: { code: true, tables: false, links: true } },
    sections,
    cursor: variant,
  };
}

function hit(index: number): Record<string, unknown> {
  return {
    id: `doc-${index}`,
    title: `Configuring retries for index ${index}`,
    url: `https://docs.example.com/search/retries/${index}`,
    score: 1 / (index + 1),
    snippet: 'Retries are attempted with exponential backoff; set maxAttempts to bound them and jitter to spread load.',
  };
}

/** A search-style result of about `bytes` bytes of JSON. `variant` changes one field. */
export function resultObject(bytes: number, variant = 0): Record<string, unknown> {
  const hits = [];
  let size = 40;
  for (let index = 0; size < bytes; index++) {
    const item = hit(index);
    hits.push(item);
    size += JSON.stringify(item).length + 1;
  }
  return { total: hits.length, variant, hits };
}

export const SIZES = { '2 KB': 2 * 1024, '100 KB': 100 * 1024, '2 MB': 2 * 1024 * 1024 } as const;
export type SizeName = keyof typeof SIZES;

export function byteLength(value: unknown): number {
  return Buffer.byteLength(typeof value === 'string' ? value : JSON.stringify(value));
}
