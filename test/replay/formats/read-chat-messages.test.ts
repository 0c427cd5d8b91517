// Chat messages as Python agents log them (OpenAI Chat Completions and Anthropic Messages shapes),
// read by `loopguard replay` without conversion. The conversations are written here in the shapes
// the two APIs document (tool_calls / role "tool" / tool_call_id; tool_use / tool_result / is_error).
import { expect } from 'chai';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { evaluateFile } from '../../../eval/eval-run.js';
import { detectDocumentFormat } from '../../../src/replay/formats/detect-document-format.js';
import { detectInputFormat } from '../../../src/replay/formats/detect-input-format.js';
import { readChatMessages } from '../../../src/replay/formats/read-chat-messages.js';
import { ReplayInputError } from '../../../src/replay/replay-input-error.js';

const source = { file: 'support.json', line: 1, run: 'support' };

const openAiConversation = [
  { role: 'system', content: 'You are an airline support agent.' },
  { role: 'user', content: 'Move my flight to Friday.' },
  {
    role: 'assistant',
    content: null,
    tool_calls: [
      { id: 'call_1', type: 'function', function: { name: 'get_reservation_details', arguments: '{"reservation_id":"4WQ150"}' } },
      { id: 'call_2', type: 'function', function: { name: 'search_direct_flight', arguments: '{"origin":"SFO","destination":"JFK","date":"2024-05-17"}' } },
    ],
  },
  // Parallel calls answered out of order.
  { role: 'tool', tool_call_id: 'call_2', content: '[{"flight_number":"HAT069","price":412}]' },
  { role: 'tool', tool_call_id: 'call_1', content: '{"reservation_id":"4WQ150","flights":[{"flight_number":"HAT001"}]}' },
  { role: 'assistant', content: 'HAT069 on Friday costs $412. Shall I book it?' },
  { role: 'user', content: 'Yes.' },
  { role: 'assistant', content: null, tool_calls: [{ id: 'call_3', type: 'function', function: { name: 'update_reservation_flights', arguments: '{"reservation_id":"4WQ150","flights":["HAT069"]}' } }] },
  { role: 'tool', tool_call_id: 'call_3', content: [{ type: 'text', text: 'Error: payment method required' }] },
  // Asked and never answered: the run ended first.
  { role: 'assistant', content: null, tool_calls: [{ id: 'call_4', type: 'function', function: { name: 'get_user_details', arguments: 'not json' } }] },
];

describe('readChatMessages', () => {
  it('OpenAI shape: an assistant message is a round, its tool_calls are calls answered by role "tool" messages, in the order asked', () => {
    const { calls, problems } = readChatMessages(openAiConversation, source);
    expect(problems).to.deep.equal([]);
    expect(calls.map((call) => [call.round, call.tool, call.args, call.callId, call.outcome])).to.deep.equal([
      [1, 'get_reservation_details', { reservation_id: '4WQ150' }, 'call_1', { result: '{"reservation_id":"4WQ150","flights":[{"flight_number":"HAT001"}]}' }],
      [1, 'search_direct_flight', { origin: 'SFO', destination: 'JFK', date: '2024-05-17' }, 'call_2', { result: '[{"flight_number":"HAT069","price":412}]' }],
      // Round 2 was the assistant's question to the user: no calls, a gap.
      [3, 'update_reservation_flights', { reservation_id: '4WQ150', flights: ['HAT069'] }, 'call_3', { result: 'Error: payment method required' }],
    ]);
    expect(calls.every((call) => call.run === 'support' && call.source.file === 'support.json')).to.equal(true);
  });

  it('Anthropic shape: tool_use blocks answered by tool_result blocks; is_error is a failure', () => {
    const { calls } = readChatMessages(
      {
        messages: [
          { role: 'user', content: 'Why does the build fail?' },
          { role: 'assistant', content: [{ type: 'text', text: 'Let me look.' }, { type: 'tool_use', id: 'toolu_1', name: 'run_command', input: { command: 'npm run build' } }] },
          { role: 'user', content: [{ type: 'tool_result', tool_use_id: 'toolu_1', is_error: true, content: [{ type: 'text', text: 'exit 2: TS2304 Cannot find name' }] }] },
          { role: 'assistant', content: [{ type: 'tool_use', id: 'toolu_2', name: 'read_file', input: { path: 'src/a.ts' } }] },
          { role: 'user', content: [{ type: 'tool_result', tool_use_id: 'toolu_2', content: 'export const a = b;' }] },
        ],
      },
      source,
    );
    expect(calls.map((call) => [call.round, call.tool, call.args, call.outcome])).to.deep.equal([
      [1, 'run_command', { command: 'npm run build' }, { error: { type: 'tool_error', message: 'exit 2: TS2304 Cannot find name' } }],
      [2, 'read_file', { path: 'src/a.ts' }, { result: 'export const a = b;' }],
    ]);
  });

  it('the older function_call answered by a role "function" message of the same name', () => {
    const { calls } = readChatMessages(
      [
        { role: 'assistant', content: null, function_call: { name: 'lookup', arguments: '{"q":"refund policy"}' } },
        { role: 'function', name: 'lookup', content: 'Refunds within 30 days.' },
      ],
      source,
    );
    expect(calls.map((call) => [call.round, call.tool, call.args, call.outcome])).to.deep.equal([[1, 'lookup', { q: 'refund policy' }, { result: 'Refunds within 30 days.' }]]);
  });

  it('a results file of many runs (each "traj" or "messages"): one run per element, named by task_id or position', () => {
    const conversation = (id: string) => [
      { role: 'assistant', tool_calls: [{ id, type: 'function', function: { name: 'get_order', arguments: '{}' } }] },
      { role: 'tool', tool_call_id: id, content: 'order' },
    ];
    const { calls } = readChatMessages([{ task_id: 7, reward: 1, traj: conversation('a') }, { reward: 0, messages: conversation('b') }], source);
    expect(calls.map((call) => call.run)).to.deep.equal(['support#7', 'support#2']);
  });

  it('several trials of one task (a results file of a run with many trials): one run per trial, none merged or lost', () => {
    const conversation = (id: string) => [
      { role: 'assistant', tool_calls: [{ id, type: 'function', function: { name: 'get_order', arguments: '{}' } }] },
      { role: 'tool', tool_call_id: id, content: 'order' },
    ];
    const { calls, problems } = readChatMessages(
      [
        { task_id: 7, trial: 0, traj: conversation('a') },
        { task_id: 7, trial: 1, traj: conversation('b') },
        { task_id: 8, trial: 0, traj: conversation('c') },
        { task_id: 9, traj: conversation('d') },
        { task_id: 9, traj: conversation('e') },
      ],
      source,
    );
    expect(problems).to.deep.equal([]);
    expect(calls.map((call) => call.run)).to.deep.equal(['support#7/trial-0', 'support#7/trial-1', 'support#8', 'support#9/1', 'support#9/2']);
  });

  it('reads the message shape of tau2-style results: {"simulations": [...]}, flat tool calls ({id, name, arguments}), tool messages by "id" with an "error" flag', () => {
    const simulation = (trial: number) => ({
      id: `sim-${trial}`,
      task_id: 'refund_1',
      trial,
      messages: [
        { role: 'assistant', content: null, tool_calls: [{ id: 'c1', name: 'get_user_details', arguments: { user_id: 'u1' }, requestor: 'assistant' }] },
        { role: 'tool', id: 'c1', content: '{"user_id":"u1"}', requestor: 'assistant', error: false },
        { role: 'assistant', content: null, tool_calls: [{ id: 'c2', name: 'get_order_details', arguments: { order_id: '#W9' }, requestor: 'assistant' }] },
        { role: 'tool', id: 'c2', content: 'Error: order not found', requestor: 'assistant', error: true },
        // The simulated user's own tool (telecom-style): not the agent's call.
        { role: 'user', content: null, tool_calls: [{ id: 'u1', name: 'toggle_airplane_mode', arguments: {}, requestor: 'user' }] },
        { role: 'tool', id: 'u1', content: 'done', requestor: 'user', error: false },
      ],
    });
    expect(detectDocumentFormat({ simulations: [simulation(0)] })).to.equal('chat-messages');
    const { calls, problems } = readChatMessages({ timestamp: 't', simulations: [simulation(0), simulation(1)] }, source);
    expect(problems).to.deep.equal([]);
    expect(calls.map((call) => [call.run, call.round, call.tool, call.args, call.outcome])).to.deep.equal([
      ['support#refund_1/trial-0', 1, 'get_user_details', { user_id: 'u1' }, { result: '{"user_id":"u1"}' }],
      ['support#refund_1/trial-0', 2, 'get_order_details', { order_id: '#W9' }, { error: { type: 'tool_error', message: 'Error: order not found' } }],
      ['support#refund_1/trial-1', 1, 'get_user_details', { user_id: 'u1' }, { result: '{"user_id":"u1"}' }],
      ['support#refund_1/trial-1', 2, 'get_order_details', { order_id: '#W9' }, { error: { type: 'tool_error', message: 'Error: order not found' } }],
    ]);
  });

  it('names the message that is not one, keeps the rest; a document of no kind is one clear error', () => {
    const { calls, problems } = readChatMessages([...openAiConversation.slice(0, 5), 'stray text'], source);
    expect(calls).to.have.length(2);
    expect(problems.map((problem) => problem.message)).to.deep.equal(['support.json:1: [5] must be a message with a "role", got "stray text"']);
    expect(() => readChatMessages({ messages: [] }, source)).to.throw(ReplayInputError, /chat messages are an array/);
  });

  it('is detected from the document, and from one line, without taking mini-swe-agent or OpenHands documents', () => {
    expect(detectDocumentFormat(openAiConversation)).to.equal('chat-messages');
    expect(detectDocumentFormat({ messages: openAiConversation })).to.equal('chat-messages');
    expect(detectDocumentFormat([{ task_id: 1, traj: openAiConversation }])).to.equal('chat-messages');
    expect(detectDocumentFormat({ messages: openAiConversation, info: {} })).to.equal('mini-swe-agent');
    expect(detectDocumentFormat([{ action: 'run', args: {} }])).to.equal('openhands');
    expect(detectDocumentFormat([1, 2])).to.equal(undefined);
    expect(detectInputFormat(JSON.stringify(openAiConversation))).to.equal('chat-messages');
    expect(detectInputFormat(JSON.stringify({ messages: openAiConversation }))).to.equal('chat-messages');
    // A line that is an array of something else is still read (and reported) as a transcript line.
    expect(detectInputFormat('[1, 2]')).to.equal('jsonl');
  });

  it('replays end to end: a support agent asking the same lookup again and again is refused, then stopped', async () => {
    const messages: unknown[] = [{ role: 'user', content: 'Where is my order?' }];
    for (let turn = 1; turn <= 12; turn++) {
      messages.push({ role: 'assistant', content: null, tool_calls: [{ id: `c${turn}`, type: 'function', function: { name: 'get_order_status', arguments: '{"order_id":"W123"}' } }] });
      messages.push({ role: 'tool', tool_call_id: `c${turn}`, content: '{"order_id":"W123","status":"shipped"}' });
    }
    const directory = mkdtempSync(join(tmpdir(), 'chat-messages-'));
    try {
      // Pretty-printed over many lines, as json.dump(indent=2) writes it.
      const file = join(directory, 'W123.json');
      writeFileSync(file, JSON.stringify({ messages }, null, 2));
      const [run] = await evaluateFile(file, {});
      expect(run!.runId).to.equal('W123');
      expect(run!.report.stop?.reason).to.be.a('string');
      expect([...run!.report.decisions()].some((decision) => decision.decision === 'refuse')).to.equal(true);
    } finally {
      rmSync(directory, { recursive: true, force: true });
    }
  });
});
