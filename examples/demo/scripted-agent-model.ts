// The demo's "model": the AI SDK's own MockLanguageModelV3 (from 'ai/test'), driven by a
// script of tool calls per turn. It behaves like the looping models in the write-ups: it
// follows its plan whatever it is told, except that
// - like any model, it calls only tools it is offered: when its next planned call is to a tool
//   that was taken away (`activeTools`), it answers from what it has instead;
// - when it is offered no tools and told to answer (`toolChoice: 'none'`), it answers;
// - when a scenario says it heeds refusals, reading one ("Not run: ...") makes it switch to
//   what the refusal asked for (use the result it already has).
// Token usage is computed from the prompt it actually receives, and each call advances the
// virtual clock like a hosted model would, so the guarded and unguarded runs are comparable.
import type { LanguageModelV3CallOptions, LanguageModelV3GenerateResult } from '@ai-sdk/provider';
import { MockLanguageModelV3 } from 'ai/test';

import type { VirtualClock } from './virtual-clock.js';

export interface ScriptedCall {
  tool: string;
  args: Record<string, unknown>;
}

export interface AgentScript {
  /** The model's plan: the tool calls it makes, one entry per turn. */
  turns: ScriptedCall[][];
  /** Its answer when the plan runs out. */
  answer: string;
  /** Its answer when loopguard ends tool use (the final, tool-less step) or takes away the tool it meant to call. */
  answerWhenStopped: string;
  /** When set, the model heeds a refusal: it abandons the plan for these turns and answer. */
  afterRefusal?: { turns: ScriptedCall[][]; answer: string };
}

/** Tokens of the system prompt and tool definitions, sent with every call. */
const FIXED_PROMPT_TOKENS = 1_150;

export function scriptedAgentModel(script: AgentScript, clock: VirtualClock): MockLanguageModelV3 {
  let plan = script.turns;
  let answer = script.answer;
  let turn = 0;
  let heededRefusal = false;
  let callNumber = 0;

  return new MockLanguageModelV3({
    provider: 'scripted',
    modelId: 'looping-agent',
    doGenerate: async (options: LanguageModelV3CallOptions): Promise<LanguageModelV3GenerateResult> => {
      if (script.afterRefusal !== undefined && !heededRefusal && lastToolResultWasRefused(options)) {
        heededRefusal = true;
        plan = script.afterRefusal.turns;
        answer = script.afterRefusal.answer;
        turn = 0;
      }
      const inputTokens = FIXED_PROMPT_TOKENS + Math.ceil(JSON.stringify(options.prompt).length / 4);
      const offered = new Set((options.tools ?? []).map((tool) => tool.name));
      const planned = plan[turn];
      // No tools, or a planned tool no longer offered: the plan cannot go on.
      const cutShort = options.toolChoice?.type === 'none' || (planned !== undefined && planned.some((call) => !offered.has(call.tool)));
      const calls = cutShort ? undefined : planned;
      turn += 1;
      if (calls === undefined) {
        const text = cutShort ? script.answerWhenStopped : answer;
        const outputTokens = 20 + Math.ceil(text.length / 4);
        clock.advance(modelLatencyMs(inputTokens, outputTokens));
        return { content: [{ type: 'text', text }], finishReason: { unified: 'stop', raw: 'stop' }, usage: usage(inputTokens, outputTokens), warnings: [] };
      }
      const outputTokens = 30 + calls.reduce((sum, call) => sum + Math.ceil(JSON.stringify(call.args).length / 3), 0);
      clock.advance(modelLatencyMs(inputTokens, outputTokens));
      return {
        content: calls.map((call) => ({
          type: 'tool-call' as const,
          toolCallId: `call_${String((callNumber += 1)).padStart(2, '0')}`,
          toolName: call.tool,
          input: JSON.stringify(call.args),
        })),
        finishReason: { unified: 'tool-calls', raw: 'tool_calls' },
        usage: usage(inputTokens, outputTokens),
        warnings: [],
      };
    },
  });
}

/** Hosted-model-like latency: time to first token grows with the prompt, then ~40 tokens/s. */
function modelLatencyMs(inputTokens: number, outputTokens: number): number {
  return 700 + inputTokens * 0.12 + outputTokens * 25;
}

function usage(inputTokens: number, outputTokens: number): LanguageModelV3GenerateResult['usage'] {
  return {
    inputTokens: { total: inputTokens, noCache: inputTokens, cacheRead: undefined, cacheWrite: undefined },
    outputTokens: { total: outputTokens, text: outputTokens, reasoning: undefined },
  };
}

function lastToolResultWasRefused(options: LanguageModelV3CallOptions): boolean {
  const toolMessages = options.prompt.filter((message) => message.role === 'tool');
  const last = toolMessages[toolMessages.length - 1];
  if (last === undefined || last.role !== 'tool') return false;
  return last.content.some(
    (part) => part.type === 'tool-result' && part.output.type === 'text' && part.output.value.startsWith('Not run:'),
  );
}
