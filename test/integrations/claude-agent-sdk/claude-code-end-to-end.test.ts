// The real thing, offline: the SDK's `query()` starts the real Claude Code CLI (the SDK's
// platform package), whose model requests go to a local server speaking the Anthropic
// Messages API with a scripted model. Claude Code runs its real Bash tool in a temporary
// directory and calls loopguard's hooks as it would in production. Skipped when the CLI's
// platform package is not installed.
import { expect } from 'chai';
import { createServer, type Server } from 'node:http';
import { existsSync, mkdtempSync, rmSync } from 'node:fs';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { query, type SDKUserMessage } from '@anthropic-ai/claude-agent-sdk';

import { LoopGuard } from '../../../src/core/loop-guard.js';
import { createLoopGuardHooks } from '../../../src/integrations/claude-agent-sdk/index.js';

type Block = { type: 'text'; text: string } | { type: 'tool_use'; id: string; name: string; input: Record<string, unknown> };

/** A Messages API that answers each request with the agent's next planned response (streamed as SSE). */
class ScriptedModelServer {
  readonly requests: Array<{ messages: Array<{ role: string; content: unknown }> }> = [];
  private server: Server | undefined;
  private next = 0;

  /** Requests the agent loop sent without tools (titles, summaries: a compaction's summary request among them). */
  readonly sideRequests: Array<{ system?: unknown; messages: unknown[] }> = [];

  constructor(private readonly plan: (turn: number) => Block[]) {}

  async start(): Promise<string> {
    this.server = createServer((request, response) => {
      let body = '';
      request.on('data', (chunk) => (body += chunk));
      request.on('end', () => {
        const parsed = body === '' ? {} : JSON.parse(body);
        if (!request.url?.startsWith('/v1/messages') || request.url.includes('count_tokens')) {
          response.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify({ input_tokens: 10 }));
          return;
        }
        // Side requests (titles, summaries) come without tools; only the agent loop's turns follow the plan.
        // A compaction asks for a summary, tools attached: a side request all the same.
        const summary = /summar/i.test(JSON.stringify(parsed.system ?? '')) || /summary of the conversation/i.test(JSON.stringify(parsed.messages?.at(-1) ?? ''));
        const agentTurn = (parsed.tools?.length ?? 0) > 0 && !summary;
        if (!agentTurn) this.sideRequests.push(parsed);
        const content = agentTurn
          ? (this.requests.push(parsed), this.plan(++this.next))
          : [{ type: 'text' as const, text: summary ? '<summary>The user asked what notes.txt says; it says alpha.</summary>' : 'ok' }];
        const stopReason = content.some((block) => block.type === 'tool_use') ? 'tool_use' : 'end_turn';
        const message = { id: `msg_${this.next}_${Date.now()}`, type: 'message', role: 'assistant', model: parsed.model, content: [], stop_reason: null, stop_sequence: null, usage: { input_tokens: 10, output_tokens: 1 } };
        if (!parsed.stream) {
          response.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify({ ...message, content, stop_reason: stopReason }));
          return;
        }
        response.writeHead(200, { 'content-type': 'text/event-stream' });
        const event = (name: string, data: unknown) => response.write(`event: ${name}\ndata: ${JSON.stringify(data)}\n\n`);
        event('message_start', { type: 'message_start', message });
        content.forEach((block, index) => {
          if (block.type === 'text') {
            event('content_block_start', { type: 'content_block_start', index, content_block: { type: 'text', text: '' } });
            event('content_block_delta', { type: 'content_block_delta', index, delta: { type: 'text_delta', text: block.text } });
          } else {
            event('content_block_start', { type: 'content_block_start', index, content_block: { ...block, input: {} } });
            event('content_block_delta', { type: 'content_block_delta', index, delta: { type: 'input_json_delta', partial_json: JSON.stringify(block.input) } });
          }
          event('content_block_stop', { type: 'content_block_stop', index });
        });
        event('message_delta', { type: 'message_delta', delta: { stop_reason: stopReason, stop_sequence: null }, usage: { output_tokens: 5 } });
        event('message_stop', { type: 'message_stop' });
        response.end();
      });
    });
    await new Promise<void>((resolve) => this.server!.listen(0, '127.0.0.1', resolve));
    const address = this.server.address();
    return `http://127.0.0.1:${typeof address === 'object' && address !== null ? address.port : 0}`;
  }

  close(): void {
    this.server?.close();
  }

  /** The text of everything the model was sent in request `index` after the last assistant turn. */
  lastUserText(index: number): string {
    return JSON.stringify(this.requests[index]?.messages.at(-1)?.content ?? '');
  }
}

function cliInstalled(): boolean {
  try {
    const require = createRequire(import.meta.url);
    const sdk = dirname(require.resolve('@anthropic-ai/claude-agent-sdk'));
    return existsSync(join(sdk, '..', `claude-agent-sdk-${process.platform}-${process.arch}`, 'claude'));
  } catch {
    return false;
  }
}

/**
 * Runs one query. `prompts`: the user's messages, sent one after another once the previous turn
 * ended (streaming input, as an interactive session types them; `/compact` among them).
 */
async function runQuery(plan: (turn: number) => Block[], guarded: ReturnType<typeof createLoopGuardHooks>, prompts?: string[]) {
  const model = new ScriptedModelServer(plan);
  const baseUrl = await model.start();
  const cwd = mkdtempSync(join(tmpdir(), 'loopguard-claude-code-'));
  const messages: Array<{ type: string; subtype?: string }> = [];
  let turnEnded: () => void = () => undefined;
  async function* typed(): AsyncGenerator<SDKUserMessage> {
    for (const text of prompts!) {
      yield { type: 'user', message: { role: 'user', content: text }, parent_tool_use_id: null };
      await new Promise<void>((resolve) => (turnEnded = resolve));
    }
  }
  try {
    const session = query({
      prompt: prompts === undefined ? 'Why does the build fail?' : typed(),
      options: {
        cwd,
        hooks: guarded.hooks,
        // bypassPermissions is refused under root; allowedTools lets Bash run without a prompt.
        permissionMode: 'default',
        allowedTools: ['Bash'],
        model: 'claude-sonnet-4-5',
        settingSources: [],
        env: { ...process.env, ANTHROPIC_BASE_URL: baseUrl, ANTHROPIC_API_KEY: 'sk-ant-test', CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC: '1', HOME: cwd },
      },
    });
    for await (const message of session) {
      messages.push(message as { type: string; subtype?: string });
      if (message.type === 'result') turnEnded();
    }
  } finally {
    model.close();
    rmSync(cwd, { recursive: true, force: true });
  }
  return { model, messages };
}

const bash = (turn: number, command: string): Block[] => [{ type: 'tool_use', id: `toolu_e2e_${turn}`, name: 'Bash', input: { command, description: `Step ${turn}` } }];

describe('Claude Agent SDK hooks in a real Claude Code session (local scripted model)', function () {
  this.timeout(180_000);
  before(function () {
    if (!cliInstalled()) this.skip();
  });

  it('a model that lists the same directory over and over: denied, told to stop, and the query ends when it insists', async () => {
    const guarded = createLoopGuardHooks({ guard: new LoopGuard(), runId: 'e2e-loop' });
    // The model never gives up on `ls` (it would go on for 20 turns).
    const { model, messages } = await runQuery((turn) => (turn <= 20 ? bash(turn, 'ls') : [{ type: 'text', text: 'done' }]), guarded);
    const outcome = guarded.end();

    expect(outcome.stopReason).to.equal('refused_rounds');
    expect(outcome.partial.executed).to.equal(1);
    // What the model read: loopguard's reason as the tool result of the denied call...
    expect(model.lastUserText(2)).to.include('Not run: Bash was already called with these same arguments in this run (call toolu_e2e_1, round 1)');
    // ...and, after the stop, the stop message as PostToolBatch context before its next request.
    expect(model.lastUserText(5)).to.include('PostToolBatch hook additional context: Tool use has ended for this run');
    // Turn 5 was denied with the stop message; turn 6 insisted, so the query ended there.
    expect(model.requests).to.have.length(6);
    expect(outcome.refusals.map((refusal) => refusal.reason)).to.deep.equal(['repeat.run_wide', 'repeat.run_wide', 'repeat.run_wide', 'run.stopped', 'run.stopped']);
    expect(messages.at(-1)?.type).to.equal('result');
  });

  it('a model that writes, reads, rewrites and reads again: every command runs, nothing is said', async () => {
    const guarded = createLoopGuardHooks({ guard: new LoopGuard(), runId: 'e2e-honest' });
    const steps = ['echo 1 > build.log', 'cat build.log', 'echo 2 > build.log', 'cat build.log', 'ls'];
    const { model } = await runQuery((turn) => (turn <= steps.length ? bash(turn, steps[turn - 1]!) : [{ type: 'text', text: 'The build log now says 2.' }]), guarded);
    const outcome = guarded.end();
    expect(outcome.refusals).to.deep.equal([]);
    expect(outcome.stopReason).to.equal(undefined);
    expect(outcome.partial.executed).to.equal(5);
    expect(model.requests).to.have.length(6);
    expect(model.lastUserText(4)).to.include('2');
    for (let index = 1; index < model.requests.length; index++) expect(model.lastUserText(index)).to.not.include('Not run');
  });

  it('the user compacts the conversation (/compact), then the model reads its file again: allowed (PreCompact); denied without the compaction', async () => {
    // Turns 1-2 write and read notes.txt, turn 3 answers; after the next prompt, turn 4 reads it again.
    const plan = (turn: number): Block[] =>
      turn === 1 ? bash(1, 'echo alpha > notes.txt') : turn === 2 || turn === 4 ? bash(turn, 'cat notes.txt') : [{ type: 'text', text: 'notes.txt says alpha.' }];
    const compacted = createLoopGuardHooks({ guard: new LoopGuard(), runId: 'e2e-compacted' });
    const { model, messages } = await runQuery(plan, compacted, ['What does notes.txt say?', '/compact', 'Check notes.txt again.']);
    const outcome = compacted.end();
    expect(messages.some((message) => message.type === 'system' && message.subtype === 'compact_boundary'), 'Claude Code compacted').to.equal(true);
    expect(model.sideRequests.length, 'the summary request').to.be.greaterThan(0);
    expect(outcome.refusals).to.deep.equal([]);
    expect(outcome.partial.executed).to.equal(3);

    const kept = createLoopGuardHooks({ guard: new LoopGuard(), runId: 'e2e-not-compacted' });
    await runQuery(plan, kept, ['What does notes.txt say?', 'Check notes.txt again.']);
    expect(kept.end().refusals.map((refusal) => refusal.reason)).to.deep.equal(['repeat.run_wide']);
  });
});
