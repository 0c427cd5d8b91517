// A minimal tool-calling chat model for offline tests of the LangChain adapter. @langchain/core's
// fakes either ignore bound tools (FakeListChatModel, FakeStreamingChatModel answer text or one
// fixed chunk) or cycle a fixed list whatever they are offered (langchain's
// FakeToolCallingModel, which also reuses message ids, so LangGraph's reducer would overwrite
// earlier replies). This one is a real BaseChatModel subclass whose bindTools records what
// each call offered, and whose script decides each reply from the round and the offered tools:
// like any model, it calls only tools it is offered unless the script insists.
import { BaseChatModel, type BaseChatModelParams } from '@langchain/core/language_models/chat_models';
import { AIMessage, type BaseMessage } from '@langchain/core/messages';
import type { ChatResult } from '@langchain/core/outputs';

export interface ScriptedCall {
  tool: string;
  args: Record<string, unknown>;
}

/** One reply: tool calls, or a text answer. */
export type ScriptedReply = { calls: ScriptedCall[]; insist?: boolean } | { text: string };

export interface ScriptedTurn {
  /** 1-based model call number. */
  turn: number;
  offered: string[];
  messages: BaseMessage[];
}

export interface ScriptedRequest {
  offered: string[];
  messages: BaseMessage[];
}

interface Shared {
  requests: ScriptedRequest[];
  nextCallId: number;
}

export class ScriptedChatModel extends BaseChatModel {
  private offered: string[] = [];
  private readonly shared: Shared;

  constructor(
    private readonly script: (turn: ScriptedTurn) => ScriptedReply,
    shared?: Shared,
    params: BaseChatModelParams = {},
  ) {
    super(params);
    this.shared = shared ?? { requests: [], nextCallId: 1 };
  }

  /** Every model call, in order: the messages sent and the tool names offered. */
  get requests(): ScriptedRequest[] {
    return this.shared.requests;
  }

  _llmType(): string {
    return 'scripted';
  }

  override bindTools(tools: Array<{ name?: string } | Record<string, unknown>>): ScriptedChatModel {
    const bound = new ScriptedChatModel(this.script, this.shared);
    bound.offered = tools.map((tool) => String((tool as { name?: unknown }).name));
    return bound;
  }

  async _generate(messages: BaseMessage[]): Promise<ChatResult> {
    this.shared.requests.push({ offered: [...this.offered], messages: [...messages] });
    const reply = this.script({ turn: this.shared.requests.length, offered: [...this.offered], messages });
    const usage = { input_tokens: 1000, output_tokens: 50, total_tokens: 1050 };
    let message: AIMessage;
    if ('text' in reply || (!reply.insist && reply.calls.every((call) => !this.offered.includes(call.tool)))) {
      const text = 'text' in reply ? reply.text : 'From what I found: data is kept 30 days after account deletion.';
      message = new AIMessage({ content: text, usage_metadata: usage });
    } else {
      const calls = reply.insist ? reply.calls : reply.calls.filter((call) => this.offered.includes(call.tool));
      message = new AIMessage({
        content: '',
        tool_calls: calls.map((call) => ({ name: call.tool, args: call.args, id: `call_${this.shared.nextCallId++}`, type: 'tool_call' as const })),
        usage_metadata: usage,
      });
    }
    return { generations: [{ text: message.text, message }] };
  }
}

/** The text of each ToolMessage in `messages`, by tool call id. */
export function toolMessagesIn(messages: BaseMessage[]): Map<string, string> {
  const outputs = new Map<string, string>();
  for (const message of messages) {
    if (message.type !== 'tool') continue;
    outputs.set((message as unknown as { tool_call_id: string }).tool_call_id, message.text);
  }
  return outputs;
}
