import { expect } from 'chai';
import { effectFromMcpAnnotations } from '../../../src/integrations/mcp/index.js';
import { JsonRpcLineReader } from '../../../src/integrations/mcp/json-rpc-line-reader.js';

describe('effectFromMcpAnnotations', () => {
  it('reads readOnlyHint and destructiveHint in the policy\'s order; idempotent and open-world hints change nothing', () => {
    expect(effectFromMcpAnnotations({ readOnlyHint: true })).to.equal('read');
    expect(effectFromMcpAnnotations({ readOnlyHint: true, openWorldHint: true })).to.equal('read');
    expect(effectFromMcpAnnotations({ readOnlyHint: false, destructiveHint: false })).to.equal('write');
    expect(effectFromMcpAnnotations({ readOnlyHint: false, idempotentHint: true })).to.equal('write');
    expect(effectFromMcpAnnotations({ destructiveHint: true })).to.equal('write');
    // Says nothing: the policy decides (well-known tools, else unknown).
    expect(effectFromMcpAnnotations({ idempotentHint: true })).to.equal(undefined);
    expect(effectFromMcpAnnotations({ title: 'Lookup' })).to.equal(undefined);
    expect(effectFromMcpAnnotations(undefined)).to.equal(undefined);
  });

  it('leaves a tool the app declared to its policy', () => {
    expect(effectFromMcpAnnotations({ readOnlyHint: true }, { writes: true })).to.equal(undefined);
    expect(effectFromMcpAnnotations({ readOnlyHint: true }, { approval: false })).to.equal(undefined);
    expect(effectFromMcpAnnotations({ readOnlyHint: true }, { retries: 2 })).to.equal('read');
  });
});

describe('JsonRpcLineReader', () => {
  it('keeps each line exactly as sent, across chunk and UTF-8 boundaries, with CRLF and a last line without newline', () => {
    const lines: string[] = [];
    const reader = new JsonRpcLineReader((line) => lines.push(line));
    const text = Buffer.from('{"a":"é","b" : 1 }\r\n\n{"c":"✓"}\n{"d":2}', 'utf8');
    // Split inside the two-byte é and the three-byte ✓.
    const cuts = [7, 8, 25, 26, 27, text.length];
    let from = 0;
    for (const cut of cuts) {
      reader.push(text.subarray(from, cut));
      from = cut;
    }
    expect(lines).to.deep.equal(['{"a":"é","b" : 1 }', '{"c":"✓"}']);
    reader.end();
    expect(lines).to.deep.equal(['{"a":"é","b" : 1 }', '{"c":"✓"}', '{"d":2}']);
  });
});
