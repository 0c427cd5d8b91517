import { expect } from 'chai';
import { readSpanConvention } from '../../../src/replay/span-conventions/read-span-convention.js';
import { isSpanReaderAttribute, SPAN_READER_ATTRIBUTES } from '../../../src/replay/span-conventions/span-reader-attributes.js';

/**
 * Spans of every convention and role the readers know, plus spans of none, each with the
 * attributes its project documents and some it does not read (prompts, model names).
 */
const SPANS: Array<{ name: string; attributes: Record<string, unknown> }> = [
  { name: 'invoke_agent researcher', attributes: { 'gen_ai.operation.name': 'invoke_agent', 'gen_ai.agent.name': 'researcher', 'gen_ai.conversation.id': 'c1' } },
  { name: 'chat gpt-4o', attributes: { 'gen_ai.operation.name': 'chat', 'gen_ai.request.model': 'gpt-4o', 'gen_ai.usage.input_tokens': 10, 'gen_ai.input.messages': '[…]' } },
  { name: 'execute_tool search', attributes: { 'gen_ai.operation.name': 'execute_tool', 'gen_ai.tool.call.arguments': '{}', 'gen_ai.tool.call.result': '{}' } },
  { name: 'execute_tool search', attributes: {} },
  { name: 'Agent', attributes: { 'openinference.span.kind': 'AGENT', 'session.id': 's1' } },
  { name: 'ChatOpenAI', attributes: { 'openinference.span.kind': 'LLM', 'llm.token_count.prompt': 5, 'llm.token_count.completion': 2, 'llm.input_messages': '[…]' } },
  { name: 'web_search', attributes: { 'openinference.span.kind': 'TOOL', 'tool.name': 'web_search', 'input.value': '{}', 'output.value': '{}', 'tool_call.id': 't1', 'input.mime_type': 'application/json' } },
  { name: 'chain', attributes: { 'openinference.span.kind': 'CHAIN' } },
  { name: 'research.workflow', attributes: { 'traceloop.span.kind': 'workflow', 'traceloop.entity.name': 'research', 'traceloop.association.properties.session_id': 's2' } },
  { name: 'web_search.tool', attributes: { 'traceloop.span.kind': 'tool', 'traceloop.entity.input': '{}', 'traceloop.entity.output': '{}' } },
  { name: 'openai.chat', attributes: { 'llm.request.type': 'chat', 'gen_ai.usage.prompt_tokens': 3, 'gen_ai.usage.completion_tokens': 1, 'gen_ai.prompt.0.content': 'hi' } },
  { name: 'running tool', attributes: { 'gen_ai.tool.name': 'search', 'tool_arguments': '{}', 'tool_response': '{}', 'logfire.msg': 'running tool' } },
  { name: 'agent run', attributes: { 'logfire.msg': 'agent run', 'agent_name': 'a' } },
  { name: 'ai.generateText', attributes: { 'ai.operationId': 'ai.generateText', 'ai.prompt': 'hi' } },
  { name: 'ai.generateText.doGenerate', attributes: { 'ai.operationId': 'ai.generateText.doGenerate', 'ai.usage.inputTokens': 1 } },
  { name: 'ai.toolCall', attributes: { 'ai.operationId': 'ai.toolCall', 'ai.toolCall.name': 'search', 'ai.toolCall.args': '{}' } },
  { name: 'HTTP GET', attributes: { 'http.method': 'GET', 'url.full': 'https://example.com' } },
];

function recordingProxy(attributes: Record<string, unknown>, read: Set<string>): Record<string, unknown> {
  return new Proxy(attributes, {
    get(target, key, receiver) {
      if (typeof key === 'string') read.add(key);
      return Reflect.get(target, key, receiver);
    },
    has(target, key) {
      if (typeof key === 'string') read.add(key);
      return Reflect.has(target, key);
    },
    getOwnPropertyDescriptor(target, key) {
      if (typeof key === 'string') read.add(key);
      return Reflect.getOwnPropertyDescriptor(target, key);
    },
    ownKeys() {
      throw new Error('a convention reader enumerated the attributes: a decoder could no longer drop the ones no reader names');
    },
  });
}

describe('SPAN_READER_ATTRIBUTES: every attribute the span readers read', () => {
  it('the convention readers read no attribute outside the list (a Proxy records every name they ask for)', () => {
    const read = new Set<string>();
    for (const span of SPANS) readSpanConvention(span.name, recordingProxy({ ...span.attributes }, read));
    // The Proxy saw the readers at work: markers of every convention were asked for.
    for (const marker of ['gen_ai.operation.name', 'openinference.span.kind', 'traceloop.span.kind', 'tool_arguments', 'ai.operationId', 'tool.name', 'output.value']) {
      expect(read, marker).to.include(marker);
    }
    const unlisted = [...read].filter((key) => !isSpanReaderAttribute(key));
    expect(unlisted, 'read by a reader but not in SPAN_READER_ATTRIBUTES / its prefixes').to.deep.equal([]);
  });

  it('dropping every unlisted attribute before reading gives the same reading and the same normalised attributes', () => {
    for (const span of SPANS) {
      const all = { ...span.attributes };
      const listed = Object.fromEntries(Object.entries(span.attributes).filter(([key]) => isSpanReaderAttribute(key)));
      expect(readSpanConvention(span.name, listed), span.name).to.deep.equal(readSpanConvention(span.name, all));
      const normalisedAll = Object.fromEntries(Object.entries(all).filter(([key]) => isSpanReaderAttribute(key)));
      expect(listed, span.name).to.deep.equal(normalisedAll);
    }
  });

  it('lists no attribute a prompt or a model name lives in', () => {
    for (const key of ['gen_ai.input.messages', 'gen_ai.request.model', 'llm.input_messages', 'ai.prompt', 'gen_ai.prompt.0.content', 'logfire.msg', 'http.method']) {
      expect(isSpanReaderAttribute(key), key).to.equal(false);
    }
    expect(SPAN_READER_ATTRIBUTES.has('input.value')).to.equal(true);
  });
});
