import { expect } from 'chai';
import { parseTranscriptLine } from '../../src/replay/parse-transcript-line.js';
import type { ReplayCall } from '../../src/replay/replay-call.js';
import { ReplayInputError } from '../../src/replay/replay-input-error.js';

const good = { run: 'r1', round: 1, tool: 'search', args: { q: 'x' }, result: { hits: 1 } };

/** The line as a call (a line with no tool, result or error is a model round instead). */
function callOf(text: string, file: string, line: number): ReplayCall {
  const parsed = parseTranscriptLine(text, file, line);
  if ('kind' in parsed) throw new Error(`expected a call, got a model round: ${text}`);
  return parsed;
}

function problemFor(line: unknown): ReplayInputError {
  const text = typeof line === 'string' ? line : JSON.stringify(line);
  try {
    parseTranscriptLine(text, 'runs.jsonl', 7);
  } catch (error) {
    expect(error).to.be.instanceOf(ReplayInputError);
    return error as ReplayInputError;
  }
  throw new Error(`expected ${text} to be rejected`);
}

describe('parseTranscriptLine', () => {
  it('turns a valid line into a call with its source location', () => {
    const call = callOf(
      JSON.stringify({ ...good, callId: 'c1', ts: 1000, durationMs: 20, usage: { inputTokens: 10, outputTokens: 2 } }),
      'runs.jsonl',
      3,
    );
    expect(call).to.deep.include({ run: 'r1', round: 1, tool: 'search', callId: 'c1', startTime: 1000, durationMs: 20 });
    expect(call.source).to.deep.equal({ file: 'runs.jsonl', line: 3 });
    expect(call.outcome).to.deep.equal({ result: { hits: 1 } });
    expect(call.usage).to.deep.equal({ inputTokens: 10, outputTokens: 2 });
  });

  it('keeps args given as JSON text and errors as {type, message}', () => {
    const call = callOf(
      JSON.stringify({ run: 'r', round: 2, tool: 't', args: '{"b":1,"a":2}', error: { type: 'overloaded', message: '429' } }),
      'f',
      1,
    );
    expect(call.args).to.equal('{"b":1,"a":2}');
    expect(call.outcome).to.deep.equal({ error: { type: 'overloaded', message: '429' } });
  });

  it('reads "compactedBefore": true (the model\'s context was compacted before this call); false and absent are the same', () => {
    expect(callOf(JSON.stringify({ ...good, compactedBefore: true }), 'f', 1).compactedBefore).to.equal(true);
    expect(callOf(JSON.stringify({ ...good, compactedBefore: false }), 'f', 1)).to.not.have.property('compactedBefore');
    expect(callOf(JSON.stringify(good), 'f', 1)).to.not.have.property('compactedBefore');
  });

  it('reads a line with run and round and no tool, result or error as a model call that asked for no tools', () => {
    expect(parseTranscriptLine(JSON.stringify({ run: 'r1', round: 4, usage: { inputTokens: 900, outputTokens: 120 }, ts: 5000, text: 'The answer is 42.' }), 'runs.jsonl', 9)).to.deep.equal({
      kind: 'model-round',
      source: { file: 'runs.jsonl', line: 9 },
      run: 'r1',
      round: 4,
      usage: { inputTokens: 900, outputTokens: 120 },
      startTime: 5000,
    });
    // A result or an error without a tool is a call missing its tool, not a model round.
    expect(problemFor({ run: 'r1', round: 4, result: 'x' })).to.include({ field: 'tool' });
    expect(problemFor({ run: 'r1', round: 4, error: { message: 'x' } })).to.include({ field: 'tool' });
    expect(problemFor({ run: 'r1', round: 4, usage: { inputTokens: -1 } })).to.include({ field: 'usage.inputTokens' });
  });

  it('accepts a null result (a recorded null is a result)', () => {
    expect(callOf(JSON.stringify({ ...good, result: null }), 'f', 1).outcome).to.deep.equal({ result: null });
  });

  const cases: Array<[string, unknown, string | undefined, RegExp]> = [
    ['bad JSON', '{"run": "r1", ', undefined, /not valid JSON/],
    ['an array line', [1, 2], undefined, /expected a JSON object/],
    ['missing run', { ...good, run: undefined }, 'run', /"run" must be a non-empty string, got nothing/],
    ['numeric run', { ...good, run: 5 }, 'run', /"run" must be a non-empty string, got 5/],
    ['round 0', { ...good, round: 0 }, 'round', /"round" must be an integer >= 1, got 0/],
    ['fractional round', { ...good, round: 1.5 }, 'round', /"round" must be an integer >= 1/],
    ['round as text', { ...good, round: '2' }, 'round', /got "2"/],
    ['empty tool', { ...good, tool: '' }, 'tool', /"tool" must be a non-empty string/],
    ['args not JSON', { ...good, args: '{nope' }, 'args', /"args" is a string but not valid JSON/],
    ['args an array', { ...good, args: [1] }, 'args', /"args" must be an object or a string holding JSON, got an array/],
    ['both result and error', { ...good, error: { type: 'x' } }, 'result', /both "result" and "error"/],
    ['neither result nor error', { run: 'r', round: 1, tool: 't' }, 'result', /exactly one of "result".*or "error"/],
    ['error a string', { run: 'r', round: 1, tool: 't', error: 'boom' }, 'error', /"error" must be an object/],
    ['error.type a number', { run: 'r', round: 1, tool: 't', error: { type: 429 } }, 'error.type', /"error.type" must be a string/],
    ['negative ts', { ...good, ts: -1 }, 'ts', /"ts" must be a non-negative number \(epoch milliseconds/],
    ['durationMs text', { ...good, durationMs: 'fast' }, 'durationMs', /"durationMs" must be a non-negative number/],
    ['usage tokens text', { ...good, usage: { inputTokens: '12' } }, 'usage.inputTokens', /"usage.inputTokens" must be a non-negative integer/],
    ['callId number', { ...good, callId: 7 }, 'callId', /"callId" must be a string/],
    ['compactedBefore text', { ...good, compactedBefore: 'yes' }, 'compactedBefore', /"compactedBefore" must be true or false, got "yes"/],
  ];
  for (const [name, line, field, message] of cases) {
    it(`rejects ${name} as file:line naming the field`, () => {
      const problem = problemFor(line);
      expect(problem.message).to.match(/^runs\.jsonl:7: /);
      expect(problem.message).to.match(message);
      expect(problem.field).to.equal(field);
      expect(problem.line).to.equal(7);
    });
  }

  it('shortens huge bad values in the message', () => {
    const problem = problemFor({ ...good, round: 'x'.repeat(10_000) });
    expect(problem.message.length).to.be.lessThan(200);
  });
});
