import { readdirSync, readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

export interface IndexedDocument {
  id: string;
  title: string;
  summary: string;
  text: string;
  terms: Map<string, number>;
}

export interface SearchHit {
  id: string;
  title: string;
  summary: string;
}

const STOP_WORDS = new Set(
  'a an and are as at be by do does for from how in is it its of on or our the this to we what when where which who why with you your after before long kept keep'.split(' '),
);

/** A small keyword index over the bundled markdown corpus (examples/demo/corpus). */
export class DocumentIndex {
  readonly documents: IndexedDocument[];

  constructor(directory = join(dirname(fileURLToPath(import.meta.url)), 'corpus')) {
    this.documents = readdirSync(directory)
      .filter((file) => file.endsWith('.md'))
      .sort()
      .map((file) => {
        const text = readFileSync(join(directory, file), 'utf8');
        const [heading, ...rest] = text.split('\n');
        const body = rest.join('\n').trim();
        const terms = new Map<string, number>();
        for (const term of tokenize(`${heading} ${heading} ${body}`)) terms.set(term, (terms.get(term) ?? 0) + 1);
        return {
          id: file.replace(/\.md$/, ''),
          title: heading.replace(/^#\s*/, ''),
          summary: body.split('\n\n')[0].replace(/\s+/g, ' '),
          text,
          terms,
        };
      });
  }

  /** Top `limit` documents by term overlap; ties broken by id so a result list is stable. */
  search(query: string, limit = 3): SearchHit[] {
    const queryTerms = [...new Set(tokenize(query))];
    return this.documents
      .map((document) => ({ document, score: queryTerms.reduce((sum, term) => sum + Math.min(document.terms.get(term) ?? 0, 3), 0) }))
      .filter((entry) => entry.score > 0)
      .sort((a, b) => b.score - a.score || a.document.id.localeCompare(b.document.id))
      .slice(0, limit)
      .map(({ document }) => ({ id: document.id, title: document.title, summary: document.summary }));
  }

  get(id: string): IndexedDocument | undefined {
    return this.documents.find((document) => document.id === id);
  }
}

function tokenize(text: string): string[] {
  return text
    .toLowerCase()
    .split(/[^a-z0-9]+/)
    .filter((term) => term.length > 1 && !STOP_WORDS.has(term))
    .map((term) => term.replace(/(ing|ed|es|s)$/, ''));
}
