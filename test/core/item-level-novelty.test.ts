import { expect } from 'chai';
import { resolveOptions } from '../../src/core/policy.js';
import { fingerprintResult } from '../../src/core/result-fingerprint.js';
import type { StopDecision } from '../../src/core/types.js';
import { newRun, playRounds, type ScriptedCall } from './play.js';

const policy = resolveOptions().defaultTool;
const fingerprint = (result: unknown) => fingerprintResult(result, policy, 1 << 24);

const doc = (id: number) => ({ id: `doc-${id}`, title: `Document ${id}`, snippet: `text of document ${id}` });

describe('item-level novelty', () => {
  it('finds the list by structure: a top-level array, or the one array that is most of an envelope', () => {
    expect(fingerprint([doc(1), doc(2)]).items).to.have.length(2);
    expect(fingerprint({ documents: [doc(1), doc(2)], total: 2 }).items).to.have.length(2);
    expect(fingerprint({ hits: { total: 2, hits: [doc(1), doc(2)] } }).items).to.have.length(2);
    // A record with a short tag list is one fact, not a list of items.
    expect(fingerprint({ name: 'loopguard', description: 'a long description of the repository and what it does', tags: ['a'] }).items).to.equal(undefined);
    // Two lists: no single main list.
    expect(fingerprint({ a: [doc(1)], b: [doc(2)] }).items).to.equal(undefined);
  });

  it('judges an envelope around zero items empty, whatever its other fields say', () => {
    expect(fingerprint({ status: 'ok', results: [] })).to.deep.equal({ outcome: 'empty' });
    expect(fingerprint({ rows: [], rowCount: 0, query: 'x' }).outcome).to.equal('empty');
  });

  it('reads an MCP CallToolResult by meaning, not envelope: text content holding JSON, structuredContent', () => {
    expect(fingerprint({ content: [{ type: 'text', text: '[]' }] }).outcome).to.equal('empty');
    const fromText = fingerprint({ content: [{ type: 'text', text: JSON.stringify([doc(1), doc(2)]) }] });
    const fromObject = fingerprint([doc(1), doc(2)]);
    expect(fromText.resultHash).to.equal(fromObject.resultHash);
    expect(fingerprint({ content: [{ type: 'text', text: 'x' }], structuredContent: { items: [doc(3)] } }).items).to.have.length(1);
    const failed = fingerprint({ content: [{ type: 'text', text: 'Error: no such repository' }], isError: true });
    expect(failed).to.include({ outcome: 'error' });
  });

  it('stops document 000\'s reworded search when the engine returns the same documents in another order', () => {
    for (const profile of ['general', 'researcher'] as const) {
      const run = newRun({ profile, escalation: { enabled: false } });
      const orders = [[1, 2, 3], [3, 1, 2], [2, 3, 1], [1, 3], [3, 2, 1], [2, 1], [1, 2, 3]];
      const log = playRounds(run, orders.map((ids, round) => [{ tool: 'search_docs', args: { query: `reworded ${round}` }, outcome: { result: { documents: ids.map(doc), query: `reworded ${round}` } } }]));
      const stop = log.at(-1)!.after as StopDecision;
      expect(stop, profile).to.include({ action: 'stop', reason: 'stale_rounds', round: 6 });
    }
  });

  it('any new item is a new fact', () => {
    const run = newRun();
    const rounds: ScriptedCall[][] = [];
    for (let round = 0; round < 8; round++) rounds.push([{ tool: 'search_docs', args: { query: `q${round}` }, outcome: { result: [doc(1), doc(2), doc(round + 10)] } }]);
    const log = playRounds(run, rounds);
    expect(log.every((round) => round.after.action === 'continue')).to.equal(true);
    expect(run.partial().seenResults).to.equal(0);
  });
});

describe('item hashing', () => {
  it('hashes a range the same through the scratch copy and through charCodeAt, at any offset and for non-ASCII text', async () => {
    const { hashItemRanges, hashItemText } = await import('../../src/core/hash.js');
    const item = '{"id":"doc-7","title":"Zürich — 東京 🚀","n":3}';
    for (const padding of ['', 'x', 'xy', 'x'.repeat(300_000)]) {
      const text = `[${padding.length ? `"${padding}",` : ''}${item},${item}]`;
      const start = text.indexOf(item);
      const second = text.lastIndexOf(item);
      const out: number[] = [];
      hashItemRanges(text, [start, second], [start + item.length, second + item.length], out);
      expect(out[0], `offset ${start}`).to.equal(hashItemText(item));
      expect(out[1], `offset ${second}`).to.equal(hashItemText(item));
      expect(Number.isSafeInteger(out[0])).to.equal(true);
    }
    expect(hashItemText('{"id":1}')).to.not.equal(hashItemText('{"id":2}'));
  });
});
