import { expect } from 'chai';
import { effectFromMcpAnnotations } from '../../../src/integrations/mcp/index.js';
import { jsonRpcIdKey } from '../../../src/integrations/mcp/json-rpc-id-key.js';
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
    const reader = new JsonRpcLineReader((line) => lines.push(line.toString('utf8')));
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

  it('issue 23 #11: reads a 20 MB line arriving in 64 KiB chunks whole, looking at each byte once', () => {
    const lines: Buffer[] = [];
    const reader = new JsonRpcLineReader((line) => lines.push(line));
    const body = Buffer.alloc(20 * 1024 * 1024, 'x');
    const stream = Buffer.concat([Buffer.from('{"a":1}\n'), body, Buffer.from('\n{"b":2}\n')]);
    for (let offset = 0; offset < stream.length; offset += 65_536) reader.push(stream.subarray(offset, offset + 65_536));
    expect(lines).to.have.length(3);
    expect(lines[1]!.equals(body)).to.equal(true);
    expect(lines[2]!.toString('utf8')).to.equal('{"b":2}');
    // Re-scanning the buffered part on each chunk (quadratic: 20 MB took 12 s) would count ~3200x this.
    expect(reader.bytesScanned).to.equal(stream.length);
  });

  it('issue 23 #12: hands each line over as the bytes that came, invalid UTF-8 included', () => {
    const lines: Buffer[] = [];
    const reader = new JsonRpcLineReader((line) => lines.push(line));
    const line = Buffer.concat([Buffer.from('{"s":"'), Buffer.from([0xff, 0xe2, 0x82]), Buffer.from('"}')]);
    reader.push(line.subarray(0, 7));
    reader.push(Buffer.concat([line.subarray(7), Buffer.from('\n')]));
    expect(lines).to.have.length(1);
    expect(lines[0]!.equals(line)).to.equal(true);
  });
});

describe('jsonRpcIdKey', () => {
  it('issue 23 #10: files ids exactly: numbers one double apart stay apart, spellings of one value meet, 1 is not "1"', () => {
    expect(jsonRpcIdKey('12345678901234567891')).to.not.equal(jsonRpcIdKey('12345678901234567890'));
    expect(jsonRpcIdKey('1e400')).to.not.equal(jsonRpcIdKey('1e401'));
    expect(new Set(['1', '1.0', '10e-1', '0.1E+1'].map(jsonRpcIdKey)).size).to.equal(1);
    expect(jsonRpcIdKey('"a"')).to.equal(jsonRpcIdKey('"\\u0061"'));
    expect(jsonRpcIdKey('1')).to.not.equal(jsonRpcIdKey('"1"'));
    expect(jsonRpcIdKey('null')).to.equal(undefined);
  });
});
