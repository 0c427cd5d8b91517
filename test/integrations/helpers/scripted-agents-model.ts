// A scripted model for the OpenAI Agents tests, implementing the SDK's own `Model` interface
// (its extension point for custom providers). Each getResponse takes the next scripted turn.
// Like a looping model it is stubborn: it makes its scripted calls whatever tools it is
// offered, and answers in text only when its script ends or, after being told tool use has
// ended, its scripted calls are not all to tools it is still offered.
import { Usage, type Model, type ModelRequest, type ModelResponse, type StreamEvent } from '@openai/agents';

export type ScriptedAgentTurn = { calls: Array<{ tool: string; args: unknown; id?: string }> } | { text: string };

export class ScriptedAgentsModel implements Model {
  readonly requests: ModelRequest[] = [];
  private index = 0;
  private callNumber = 0;

  constructor(
    private readonly turns: ScriptedAgentTurn[],
    private readonly finalText = 'final answer',
    /** false: report no usage at all, like some providers. */
    private readonly reportsUsage = true,
  ) {}

  async getResponse(request: ModelRequest): Promise<ModelResponse> {
    this.requests.push(request);
    const turn = this.index < this.turns.length ? this.turns[this.index] : { text: this.finalText };
    this.index += 1;
    const usage = this.reportsUsage ? new Usage({ requests: 1, inputTokens: 100, outputTokens: 10, totalTokens: 110 }) : new Usage();
    // After the stop it still calls a tool it is offered (an answer tool), and nothing else.
    const offered = new Set(request.tools.map((tool) => tool.name));
    const stopped =
      (request.systemInstructions ?? '').includes('Tool use has ended') && !('calls' in turn && turn.calls.every((call) => offered.has(call.tool)));
    if ('text' in turn || stopped) {
      const text = 'text' in turn && !stopped ? turn.text : this.finalText;
      return { usage, output: [{ type: 'message', role: 'assistant', status: 'completed', content: [{ type: 'output_text', text }] }] };
    }
    return {
      usage,
      output: turn.calls.map((call) => ({
        type: 'function_call' as const,
        callId: call.id ?? `call-${(this.callNumber += 1)}`,
        name: call.tool,
        arguments: typeof call.args === 'string' ? call.args : JSON.stringify(call.args),
        status: 'completed' as const,
      })),
    };
  }

  /** The same scripted turn, delivered the way a streaming provider ends: response_done. */
  async *getStreamedResponse(request: ModelRequest): AsyncIterable<StreamEvent> {
    const response = await this.getResponse(request);
    yield { type: 'response_started' };
    yield {
      type: 'response_done',
      response: {
        id: `response-${this.requests.length}`,
        usage: {
          requests: response.usage.requests,
          inputTokens: response.usage.inputTokens,
          outputTokens: response.usage.outputTokens,
          totalTokens: response.usage.totalTokens,
        },
        output: response.output,
      },
    } as StreamEvent;
  }
}

/** Outputs of function calls in a request's input, by call id. */
export function functionOutputsIn(request: ModelRequest): Map<string, string> {
  const outputs = new Map<string, string>();
  if (typeof request.input === 'string') return outputs;
  for (const item of request.input) {
    if (item.type !== 'function_call_result') continue;
    const output = item.output as { type?: string; text?: string } | string;
    outputs.set(item.callId, typeof output === 'string' ? output : (output.text ?? JSON.stringify(output)));
  }
  return outputs;
}
