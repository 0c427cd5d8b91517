// span-roles.ts is pure: what a span means to the ledger, and the outcome of an ended call span.
import { expect } from 'chai';

import { resolveOptions } from '../../src/core/policy.js';
import { fingerprintError, fingerprintResult } from '../../src/core/result-fingerprint.js';
import { interpretGenAiSpan, interpretSpan, readCallOutcome, readUsage, type SpanInterpreter } from '../../src/otel/span-roles.js';

const options = resolveOptions({});
const policy = options.tool('search');
const MAX = options.maxFingerprintBytes;
const UNSET = { code: 0 };
const OK = { code: 1 };
const ERROR = { code: 2, message: 'boom' };

describe('span-roles', () => {
  describe('interpretGenAiSpan', () => {
    it('reads invoke_agent as a run, named by loopguard.run.id, then gen_ai.conversation.id (marked: a chat can hold overlapping runs), else none', () => {
      expect(interpretGenAiSpan('x', { 'gen_ai.operation.name': 'invoke_agent', 'loopguard.run.id': 'r1', 'gen_ai.conversation.id': 'c1' })).to.deep.equal({ kind: 'run', runId: 'r1' });
      expect(interpretGenAiSpan('x', { 'gen_ai.operation.name': 'invoke_agent', 'gen_ai.conversation.id': 'c1' })).to.deep.equal({ kind: 'run', runId: 'c1', conversation: true });
      expect(interpretGenAiSpan('x', { 'gen_ai.operation.name': 'invoke_agent' })).to.deep.equal({ kind: 'run', runId: undefined });
    });

    it('reads every model-call operation as a round, and nothing else', () => {
      for (const op of ['chat', 'generate_content', 'text_completion']) {
        expect(interpretGenAiSpan('x', { 'gen_ai.operation.name': op }), op).to.deep.equal({ kind: 'round' });
      }
      for (const op of ['embeddings', 'create_agent', 'Chat', '']) {
        expect(interpretGenAiSpan('chat-handler', { 'gen_ai.operation.name': op }), op).to.equal(undefined);
      }
    });

    it('reads execute_tool as a call with tool, call id, argument hash and raw arguments', () => {
      const role = interpretGenAiSpan('execute_tool search', {
        'gen_ai.operation.name': 'execute_tool',
        'gen_ai.tool.name': 'search',
        'gen_ai.tool.call.id': 'call_1',
        'loopguard.tool.args_hash': 'abc',
        'gen_ai.tool.call.arguments': '{"q":1}',
      });
      expect(role).to.deep.equal({ kind: 'call', tool: 'search', callId: 'call_1', argsHash: 'abc', rawArguments: '{"q":1}' });
    });

    it('falls back to the span name when only the naming half of the convention is followed', () => {
      expect(interpretGenAiSpan('execute_tool fetch_page', {})).to.deep.include({ kind: 'call', tool: 'fetch_page' });
      expect(interpretGenAiSpan('chat gpt-4o', {})).to.deep.equal({ kind: 'round' });
      expect(interpretGenAiSpan('invoke_agent planner', {})).to.deep.equal({ kind: 'run', runId: undefined });
      // The attribute decides over the name.
      expect(interpretGenAiSpan('chat gpt-4o', { 'gen_ai.operation.name': 'embeddings' })).to.equal(undefined);
      // A prefix that only looks alike is not the operation.
      expect(interpretGenAiSpan('execute_toolbox x', {})).to.equal(undefined);
      expect(interpretGenAiSpan('chatty span', {})).to.equal(undefined);
    });

    it('ignores an execute_tool span with no tool name anywhere', () => {
      expect(interpretGenAiSpan('execute_tool', { 'gen_ai.operation.name': 'execute_tool' })).to.equal(undefined);
      expect(interpretGenAiSpan('execute_tool ', { 'gen_ai.operation.name': 'execute_tool', 'gen_ai.tool.name': '' })).to.equal(undefined);
    });

    it('takes weird attribute types without throwing: numbers and booleans become text, arrays and null are absent', () => {
      const role = interpretGenAiSpan('execute_tool fallback', {
        'gen_ai.operation.name': 'execute_tool',
        'gen_ai.tool.name': 42,
        'gen_ai.tool.call.id': true,
        'loopguard.tool.args_hash': ['a', 'b'],
        'gen_ai.tool.call.arguments': null,
      });
      expect(role).to.deep.equal({ kind: 'call', tool: '42', callId: 'true', argsHash: undefined, rawArguments: undefined });
      expect(interpretGenAiSpan('x', { 'gen_ai.operation.name': ['execute_tool'] })).to.equal(undefined);
      expect(interpretGenAiSpan('', {})).to.equal(undefined);
    });
  });

  describe('interpretSpan', () => {
    it('tries the interpreters in order; the first that recognises the span wins', () => {
      const calls: string[] = [];
      const aiSdk: SpanInterpreter = (name) => {
        calls.push('aiSdk');
        return name === 'ai.toolCall' ? { kind: 'call', tool: 'from-ai-sdk', callId: undefined, argsHash: undefined, rawArguments: undefined } : undefined;
      };
      const never: SpanInterpreter = () => {
        calls.push('never');
        return undefined;
      };
      expect(interpretSpan('ai.toolCall', {}, [aiSdk, never, interpretGenAiSpan])).to.deep.include({ tool: 'from-ai-sdk' });
      expect(calls).to.deep.equal(['aiSdk']);
      calls.length = 0;
      expect(interpretSpan('chat m', {}, [aiSdk, never, interpretGenAiSpan])).to.deep.equal({ kind: 'round' });
      expect(calls).to.deep.equal(['aiSdk', 'never']);
      expect(interpretSpan('unrelated', {}, [aiSdk, interpretGenAiSpan])).to.equal(undefined);
    });
  });

  describe('readCallOutcome', () => {
    it("trusts loopguard's own attributes when the instrumentation set them", () => {
      expect(readCallOutcome({ 'loopguard.tool.outcome': 'success', 'loopguard.tool.result_hash': 'h1' }, UNSET, policy, MAX)).to.deep.equal({
        outcome: 'success',
        resultHash: 'h1',
      });
      expect(readCallOutcome({ 'loopguard.tool.outcome': 'success', 'loopguard.tool.unfingerprintable': true }, OK, policy, MAX)).to.deep.equal({
        outcome: 'success',
        unfingerprintable: true,
      });
      expect(readCallOutcome({ 'loopguard.tool.outcome': 'empty' }, UNSET, policy, MAX)).to.deep.equal({ outcome: 'empty' });
      // The recorded outcome wins over the status, and keeps the error type.
      expect(
        readCallOutcome({ 'loopguard.tool.outcome': 'overloaded', 'loopguard.tool.result_hash': 'e1', 'error.type': 'overloaded' }, ERROR, policy, MAX),
      ).to.deep.equal({ outcome: 'overloaded', resultHash: 'e1', errorType: 'overloaded' });
    });

    it('does not trust an outcome value it does not know (refused, typos): falls back to status and raw result', () => {
      expect(readCallOutcome({ 'loopguard.tool.outcome': 'refused' }, UNSET, policy, MAX)).to.deep.equal({ outcome: 'success', unfingerprintable: true });
      expect(readCallOutcome({ 'loopguard.tool.outcome': 'SUCCESS', 'gen_ai.tool.call.result': '{"a":1}' }, UNSET, policy, MAX)).to.deep.equal(
        fingerprintResult('{"a":1}', policy, MAX),
      );
      expect(readCallOutcome({ 'loopguard.tool.outcome': 42 }, ERROR, policy, MAX).outcome).to.equal('error');
    });

    it('reads an ERROR status as a failure fingerprinted by error.type and message; overloaded and timeout keep their meaning', () => {
      const plain = readCallOutcome({ 'error.type': 'ValidationError' }, { code: 2, message: 'bad id' }, policy, MAX);
      expect(plain).to.deep.equal(fingerprintError({ type: 'ValidationError', message: 'bad id' }));
      expect(plain.outcome).to.equal('error');
      expect(readCallOutcome({ 'error.type': 'overloaded' }, { code: 2, message: 'x' }, policy, MAX).outcome).to.equal('overloaded');
      expect(readCallOutcome({ 'error.type': 'timeout' }, { code: 2, message: 'x' }, policy, MAX).outcome).to.equal('timeout');
      // No error.type, no message: still an error, and the same error twice has the same hash.
      const a = readCallOutcome({}, { code: 2 }, policy, MAX);
      const b = readCallOutcome({}, { code: 2 }, policy, MAX);
      expect(a.outcome).to.equal('error');
      expect(a.resultHash).to.be.a('string').and.equal(b.resultHash);
      // Different bodies are different results.
      expect(readCallOutcome({}, { code: 2, message: 'one' }, policy, MAX).resultHash).to.not.equal(readCallOutcome({}, { code: 2, message: 'two' }, policy, MAX).resultHash);
    });

    it('fingerprints a recorded raw result, JSON text judged by structure', () => {
      const fromText = readCallOutcome({ 'gen_ai.tool.call.result': '{"docs":[1,2]}' }, OK, policy, MAX);
      expect(fromText.outcome).to.equal('success');
      expect(fromText.resultHash).to.equal(fingerprintResult({ docs: [1, 2] }, policy, MAX).resultHash);
      expect(readCallOutcome({ 'gen_ai.tool.call.result': '{"docs":[]}' }, OK, policy, MAX)).to.deep.equal({ outcome: 'empty' });
      expect(readCallOutcome({ 'gen_ai.tool.call.result': 'plain text' }, OK, policy, MAX).resultHash).to.be.a('string');
      // Volatile fields are stripped: took_ms does not make a result new.
      expect(readCallOutcome({ 'gen_ai.tool.call.result': '{"docs":[1],"took_ms":3}' }, OK, policy, MAX).resultHash).to.equal(
        readCallOutcome({ 'gen_ai.tool.call.result': '{"docs":[1],"took_ms":9}' }, OK, policy, MAX).resultHash,
      );
      // A result attribute under another name (other conventions).
      expect(readCallOutcome({ 'ai.toolCall.result': '{"a":1}' }, OK, policy, MAX, 'ai.toolCall.result').resultHash).to.equal(
        fingerprintResult({ a: 1 }, policy, MAX).resultHash,
      );
    });

    it('leans to "new fact" when nothing tells the content: success, unfingerprintable', () => {
      expect(readCallOutcome({}, UNSET, policy, MAX)).to.deep.equal({ outcome: 'success', unfingerprintable: true });
      expect(readCallOutcome({ 'gen_ai.tool.call.result': ['a', 'b'] }, OK, policy, MAX)).to.deep.equal({ outcome: 'success', unfingerprintable: true });
      // A raw result over the size cap is not fingerprinted.
      expect(readCallOutcome({ 'gen_ai.tool.call.result': 'x'.repeat(100) }, OK, policy, 10)).to.deep.equal({ outcome: 'success', unfingerprintable: true });
    });
  });

  describe('readUsage', () => {
    it('reads input and output tokens, numbers or numeric text', () => {
      expect(readUsage({ 'gen_ai.usage.input_tokens': 100, 'gen_ai.usage.output_tokens': 20 })).to.deep.equal({ inputTokens: 100, outputTokens: 20 });
      expect(readUsage({ 'gen_ai.usage.input_tokens': '7' })).to.deep.equal({ inputTokens: 7 });
      expect(readUsage({ 'gen_ai.usage.output_tokens': 3 })).to.deep.equal({ outputTokens: 3 });
    });

    it('is undefined when no usage was recorded or it is not a number', () => {
      expect(readUsage({})).to.equal(undefined);
      expect(readUsage({ 'gen_ai.usage.input_tokens': 'many', 'gen_ai.usage.output_tokens': undefined })).to.equal(undefined);
    });
  });
});
