import { expect } from 'chai';
import { callSignature } from '../../../src/core/call-signature.js';
import { resolveOptions } from '../../../src/core/policy.js';
import { callAndListingSignatures, listingKeyOf } from '../../../src/core/world-state/listing-key-of.js';

// callAndListingSignatures writes the arguments once for both hashes; these must stay exactly
// the hashes callSignature and listingKeyOf give one by one (the run log carries them, and a
// replica on an older version computes them the old way).
const options = resolveOptions({ tools: { search: { volatileArgs: ['session'], cursorArg: 'marker' } } });
const START = 1_764_000_000_000;

const cases: Array<[string, unknown]> = [
  ['search', { query: 'retry policy', page: 3, limit: 10 }],
  ['search', { query: 'retry policy', page: 4, limit: 10, session: 'abc' }],
  ['search', { marker: 'm-17', query: 'x' }],
  ['search', { Page: 2, query: 'x', filters: '{"b":2,"a":1}' }],
  ['search', { cursor: null, query: 'x', nested: { page: 9, session: 's', deep: [1, { cursor: 2 }] } }],
  ['search', { cursor: 'c-1', timestamp: START + 20, query: 'x' }],
  ['search', { cursor: 'c-1', since: START, query: 'x' }],
  ['search', { offset: 20, skip: undefined, query: 'x', emoji: 'a\u{1F600}b', quote: 'say "hi"\n' }],
  ['search', { page: 1 }],
  ['list_items', { starting_after: 'obj_9', limit: 100 }],
  ['list_items', { start_cursor: 'abc', page_size: 100, filter: { property: 'Status', status: { equals: 'Done' } } }],
  ['search', { page: 1, when: new Date(START) }],
  ['search', { page: 1, tags: new Set(['a', 'b']) }],
  ['jira_search', { jql: 'project = OPS', startAt: 50, maxResults: 50 }],
  ['list_events', { start_at: '2026-12-07T09:00:00Z', calendar: 'team' }],
  ['list_log_groups', { NextToken: 'eyJwIjoyfQ==', logGroupNamePrefix: '/aws/' }],
  ['search', { pageIndex: 3, query: 'x' }],
  ['search', { pageIndex: 'third', query: 'x' }],
  ['search', { query: 'no paging here' }],
  ['search', 'plain text'],
  ['search', ['page', 1]],
];

describe('callAndListingSignatures: one pass, the same hashes as callSignature and listingKeyOf', () => {
  for (const [tool, args] of cases) {
    it(`${tool} ${show(args)}`, () => {
      const policy = options.tool(tool);
      const both = callAndListingSignatures(tool, args, policy, START);
      expect(both.argsHash).to.equal(callSignature(tool, args, policy, START));
      expect(both.listingKey).to.equal(listingKeyOf(tool, args, policy, START));
    });
  }

  it('a class instance with toJSON takes the exact writer for both hashes', () => {
    class Query {
      page = 2;
      toJSON(): unknown {
        return { q: 'x' };
      }
    }
    const policy = options.tool('search');
    const both = callAndListingSignatures('search', new Query(), policy, START);
    expect(both.argsHash).to.equal(callSignature('search', new Query(), policy, START));
    expect(both.listingKey).to.equal(listingKeyOf('search', new Query(), policy, START));
  });

  it('arguments with no sound identity (a BigInt, NaN) match nothing, as callSignature says', () => {
    const policy = options.tool('search');
    for (const args of [{ page: 1, big: 10n }, { page: 1, nan: Number.NaN }]) {
      const first = callAndListingSignatures('search', args, policy, START);
      const second = callAndListingSignatures('search', args, policy, START);
      expect(first.argsHash).to.not.equal(second.argsHash);
      expect(callSignature('search', args, policy, START)).to.not.equal(first.argsHash);
    }
  });

  it('pages of one search share the listing key, another search does not', () => {
    const policy = options.tool('search');
    const page3 = callAndListingSignatures('search', { query: 'a', page: 3 }, policy, START);
    const page4 = callAndListingSignatures('search', { query: 'a', page: 4 }, policy, START);
    const other = callAndListingSignatures('search', { query: 'b', page: 4 }, policy, START);
    expect(page3.listingKey).to.be.a('string').and.equal(page4.listingKey);
    expect(page3.argsHash).to.not.equal(page4.argsHash);
    expect(other.listingKey).to.not.equal(page4.listingKey);
  });
});

function show(args: unknown): string {
  try {
    return JSON.stringify(args, (_, value: unknown) => (typeof value === 'bigint' ? `${value}n` : value)) ?? String(args);
  } catch {
    return String(args);
  }
}
