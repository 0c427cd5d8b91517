// A scripted model for the AI SDK tests, built on the SDK's own MockLanguageModelV3 (its
// extension point for tests): each doGenerate call takes the next scripted turn. The model
// is "stubborn" on purpose, like a looping model: it makes its scripted calls whatever tools
// it is offered, except that it answers in text when told `toolChoice: 'none'`.
import type { LanguageModelV3CallOptions, LanguageModelV3GenerateResult } from '@ai-sdk/provider';
import { MockLanguageModelV3 } from 'ai/test';

export type ScriptedTurn = { calls: Array<{ tool: string; args: unknown; id?: string }> } | { text: string };

export function scriptedLanguageModel(turns: ScriptedTurn[], finalText = 'final answer'): MockLanguageModelV3 {
  let index = 0;
  let callNumber = 0;
  return new MockLanguageModelV3({
    doGenerate: async (options: LanguageModelV3CallOptions): Promise<LanguageModelV3GenerateResult> => {
      const turn = index < turns.length ? turns[index] : { text: finalText };
      index += 1;
      const usage = {
        inputTokens: { total: 100, noCache: 100, cacheRead: undefined, cacheWrite: undefined },
        outputTokens: { total: 10, text: 10, reasoning: undefined },
      };
      if ('text' in turn || options.toolChoice?.type === 'none') {
        const text = 'text' in turn ? turn.text : finalText;
        return { content: [{ type: 'text', text }], finishReason: { unified: 'stop', raw: undefined }, usage, warnings: [] };
      }
      return {
        content: turn.calls.map((call) => ({
          type: 'tool-call' as const,
          toolCallId: call.id ?? `call-${(callNumber += 1)}`,
          toolName: call.tool,
          input: typeof call.args === 'string' ? call.args : JSON.stringify(call.args),
        })),
        finishReason: { unified: 'tool-calls', raw: undefined },
        usage,
        warnings: [],
      };
    },
  });
}

/** The tool-result parts the model received in one prompt, by call id. */
export function toolResultsIn(prompt: LanguageModelV3CallOptions['prompt']): Map<string, { type: string; value?: unknown }> {
  const results = new Map<string, { type: string; value?: unknown }>();
  for (const message of prompt) {
    if (message.role !== 'tool') continue;
    for (const part of message.content) {
      if (part.type === 'tool-result') results.set(part.toolCallId, part.output as { type: string; value?: unknown });
    }
  }
  return results;
}

/** The text of user messages in a prompt (where loopguard's nudge and stop message go). */
export function userTextsIn(prompt: LanguageModelV3CallOptions['prompt']): string[] {
  const texts: string[] = [];
  for (const message of prompt) {
    if (message.role !== 'user') continue;
    for (const part of message.content) if (part.type === 'text') texts.push(part.text);
  }
  return texts;
}

/** Names of the tools offered in one model call. */
export function offeredTools(options: LanguageModelV3CallOptions): string[] {
  return (options.tools ?? []).map((tool) => tool.name);
}
