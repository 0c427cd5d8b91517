// The facts a span carries beside its hashes (loopguard.tool.call_facts / outcome_facts): what
// was read from the arguments and the result, written by the processor's instrumentation and read
// back by replay and serve. Anyone can write a span attribute, so reading checks every field.
import { expect } from 'chai';
import { callFactsText, readCallFacts } from '../../src/core/call-facts-text.js';
import { FactsTextError } from '../../src/core/facts-text-error.js';
import { outcomeFactsText, readOutcomeFacts } from '../../src/core/outcome-facts-text.js';
import { prehashCall } from '../../src/core/prehash-call.js';
import { resolveOptions } from '../../src/core/policy.js';
import { fingerprintResult } from '../../src/core/result-fingerprint.js';

const options = resolveOptions();
const prehashed = (tool: string, args: unknown) => prehashCall({ tool, args }, options.tool(tool), options.shellPolls, () => 1_000);

describe('call facts text (loopguard.tool.call_facts)', () => {
  it('reads back what prehashCall read from a shell command, a paged call and a file window', () => {
    for (const [tool, args] of [
      ['bash', { command: 'grep -rn TODO src' }],
      ['bash', { command: 'sleep 5 && gh run view 123' }],
      ['search', { query: 'refunds', page: 2 }],
      ['str_replace_editor', { command: 'view', path: '/repo/a.py', view_range: [10, 40] }],
    ] as const) {
      const call = prehashed(tool, args);
      const text = callFactsText(call);
      expect(text, tool).to.be.a('string');
      const { tool: _tool, argsHash: _hash, ...facts } = call;
      expect(readCallFacts(text!), JSON.stringify(args)).to.deep.equal(facts);
    }
  });

  it('writes JSON whatever the text it carries (a family with quotes, a window)', () => {
    const call = { tool: 't', argsHash: 'h', effect: 'read' as const, family: 'say "hi"\\', pollDeadlineMs: 1500, readWindow: { resource: '/a "b".py', numbered: true, ranges: [[3, 9]] as Array<[number, number]> } };
    const { tool: _tool, argsHash: _hash, ...facts } = call;
    expect(readCallFacts(callFactsText(call)!)).to.deep.equal(facts);
  });

  it('is absent for a call with nothing read from its arguments (most tools)', () => {
    expect(callFactsText(prehashed('get_weather', { city: 'Paris' }))).to.equal(undefined);
  });

  it('names the field that is not what call facts hold, and leaves unknown fields out', () => {
    expect(() => readCallFacts('{')).to.throw(FactsTextError, 'not JSON');
    expect(() => readCallFacts('[1]')).to.throw(FactsTextError, 'not a JSON object');
    expect(() => readCallFacts('{"effect":"delete"}')).to.throw(FactsTextError, /effect must be "read", "write" or "unknown", got "delete"/);
    expect(() => readCallFacts('{"terminal":"yes"}')).to.throw(FactsTextError, 'terminal must be true or false');
    expect(() => readCallFacts('{"pollDeadlineMs":-1}')).to.throw(FactsTextError, 'pollDeadlineMs');
    expect(() => readCallFacts('{"readWindow":{"numbered":true,"ranges":[[1]]}}')).to.throw(FactsTextError, 'readWindow.ranges');
    expect(readCallFacts('{"effect":"read","fromTheFuture":1}')).to.deep.equal({ effect: 'read' });
  });
});

describe('outcome facts text (loopguard.tool.outcome_facts)', () => {
  const policy = options.tool('search');

  it('reads back the flags, the window and the items of an outcome; items only when asked', () => {
    const listed = fingerprintResult({ hits: [{ id: 1, title: 'a' }, { id: 2, title: 'b' }] }, policy, 1 << 20);
    expect(listed.items).to.have.length(2);
    expect(readOutcomeFacts(outcomeFactsText(listed, true)!)).to.deep.include({ items: listed.items });
    expect(outcomeFactsText(listed, false), 'items left out').to.equal(undefined);
    const outcome = {
      outcome: 'error' as const,
      resultHash: 'h',
      transient: false,
      stepRejected: true,
      errorAnswer: true,
      window: { resource: '/a.py', numbered: true, ranges: [[1, 40]] as Array<[number, number]>, lastLine: 90 },
    };
    expect(readOutcomeFacts(outcomeFactsText(outcome, true)!)).to.deep.equal({ transient: false, stepRejected: true, errorAnswer: true, window: outcome.window });
  });

  it('is absent for an outcome with nothing read beyond its hash', () => {
    expect(outcomeFactsText({ outcome: 'success', resultHash: 'h' }, true)).to.equal(undefined);
  });

  it('names the field that is not what outcome facts hold', () => {
    expect(() => readOutcomeFacts('"x"')).to.throw(FactsTextError, 'not a JSON object');
    expect(() => readOutcomeFacts('{"stepRejected":1}')).to.throw(FactsTextError, 'stepRejected must be true or false');
    expect(() => readOutcomeFacts('{"items":[1.5]}')).to.throw(FactsTextError, 'items must be item fingerprints');
    expect(() => readOutcomeFacts('{"window":{"resource":"/a","numbered":true}}')).to.throw(FactsTextError, 'window.ranges');
    expect(() => readOutcomeFacts('{"askedFrom":{"resource":"/a"}}')).to.throw(FactsTextError, 'askedFrom');
  });

});
