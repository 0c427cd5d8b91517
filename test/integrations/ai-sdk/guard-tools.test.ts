import { expect } from 'chai';
import type { LanguageModelV3CallOptions } from '@ai-sdk/provider';
import { generateText, tool } from 'ai';
import { z } from 'zod';
import { LoopGuard } from '../../../src/core/loop-guard.js';
import { createMemoryRunStore } from '../../../src/core/shared-ledger/create-memory-run-store.js';
import { createGuardedAgentSettings } from '../../../src/integrations/ai-sdk/create-guarded-agent-settings.js';
import { guardTools } from '../../../src/integrations/ai-sdk/guard-tools.js';
import { loopGuardPrepareStep } from '../../../src/integrations/ai-sdk/loop-guard-prepare-step.js';
import { loopGuardStopCondition } from '../../../src/integrations/ai-sdk/loop-guard-stop-condition.js';
import { expectSetupErrors, type SetupCase } from '../../helpers/expect-setup-errors.js';
import { scriptedLanguageModel, type ScriptedTurn } from '../helpers/scripted-language-model.js';

/** The tool-result parts of one prompt in order (a reused call id cannot key them). */
function toolResultParts(prompt: LanguageModelV3CallOptions['prompt']): Array<{ toolName: string; toolCallId: string; output: unknown }> {
  const parts: Array<{ toolName: string; toolCallId: string; output: unknown }> = [];
  for (const message of prompt) {
    if (message.role !== 'tool') continue;
    for (const part of message.content) if (part.type === 'tool-result') parts.push({ toolName: part.toolName, toolCallId: part.toolCallId, output: part.output });
  }
  return parts;
}

describe('guardTools', () => {
  it('setup without a run, tools or options is a LoopGuardConfigError naming the field, not a raw TypeError or a silently unguarded tool', () => {
    const guard = new LoopGuard();
    const run = guard.startRun();
    const tools = { search: tool({ description: 'search', inputSchema: z.object({ q: z.string() }), execute: async ({ q }) => q }) };
    const setups: SetupCase[] = [
      ['guardTools(tools, undefined)', () => guardTools(tools, undefined as never), 'options', /^options: must be an options object .*got undefined$/],
      ['guardTools(tools, {})', () => guardTools(tools, {} as never), 'run', /^run: must be the run to guard \(guard\.startRun\(id\)\), got undefined$/],
      ['guardTools(undefined, { run })', () => guardTools(undefined as never, { run }), 'tools', /^tools: must be the tools object.*got undefined$/],
      ['createGuardedAgentSettings(undefined)', () => createGuardedAgentSettings(undefined as never), 'options', /^options: must be an options object/],
      ['createGuardedAgentSettings({ guard })', () => createGuardedAgentSettings({ guard } as never), 'tools', /^tools: must be the tools object/],
      ['createGuardedAgentSettings({ tools })', () => createGuardedAgentSettings({ tools } as never), 'guard', /^guard: must be a LoopGuard/],
      ['loopGuardPrepareStep(undefined)', () => loopGuardPrepareStep(undefined as never, undefined as never), 'run', /^run: must be the run to guard/],
      ['loopGuardPrepareStep(run, undefined)', () => loopGuardPrepareStep(run, undefined as never), 'options', /^options: must be an options object/],
      ['loopGuardPrepareStep(run, {})', () => loopGuardPrepareStep(run, {} as never), 'tools', /^tools: must be the tools object/],
      ['loopGuardStopCondition(undefined)', () => loopGuardStopCondition(undefined as never), 'run', /^run: must be the run to guard/],
    ];
    expectSetupErrors(setups);
  });

  it('issue 10 #15: a tool named __proto__ (a tool set parsed from JSON) is guarded, not dropped', async () => {
    const search = tool({ description: 'search', inputSchema: z.object({ q: z.string() }), execute: async ({ q }) => `docs for ${q}` });
    // JSON.parse makes "__proto__" an own key, as a tool set loaded from a config file would.
    const tools = Object.assign(JSON.parse('{"__proto__": null, "lookup": null}') as Record<string, unknown>, {});
    Object.defineProperty(tools, '__proto__', { value: search, enumerable: true, writable: true, configurable: true });
    tools.lookup = search;
    const run = new LoopGuard({ profile: 'researcher' }).startRun();
    const guarded = guardTools(tools as Record<string, typeof search>, { run });
    expect(Object.keys(guarded)).to.have.members(['__proto__', 'lookup']);
    expect(Object.getPrototypeOf(guarded)).to.equal(Object.prototype);
    const guardedProto = Object.getOwnPropertyDescriptor(guarded, '__proto__')?.value as typeof search;
    expect(guardedProto).to.not.equal(search);
    run.beginRound();
    // Not a literal: AI SDK 7 requires `context` in the call options, AI SDK 6 does not know it.
    const callOptions = { toolCallId: 'c1', messages: [], context: {} };
    const output = await guardedProto.execute!({ q: 'a' }, callOptions);
    expect(output).to.equal('docs for a');
    expect(run.partial().toolCalls).to.equal(1);
  });

  // Some OpenAI-compatible servers number tool call ids per response: "call_0" in every step.
  // A refusal of one "call_0" must not decide how a later, allowed "call_0" reaches the model.
  describe('a provider that reuses a tool call id in every step', () => {
    const turns: ScriptedTurn[] = [
      { calls: [{ tool: 'search', args: { q: 'refunds' }, id: 'call_0' }] },
      { calls: [{ tool: 'search', args: { q: 'refunds' }, id: 'call_0' }] },
      { calls: [{ tool: 'search', args: { q: 'refunds' }, id: 'call_0' }] }, // the same again: refused
      { calls: [{ tool: 'weather', args: { city: 'Paris' }, id: 'call_0' }] }, // a new call, the same id
      { text: 'done' },
    ];
    const tools = {
      search: tool({
        inputSchema: z.object({ q: z.string() }),
        execute: async () => ({ docs: ['refund-policy'] }),
        toModelOutput: ({ output }) => ({ type: 'text', value: `docs: ${output.docs.join(', ')}` }),
      }),
      weather: tool({
        inputSchema: z.object({ city: z.string() }),
        execute: async ({ city }) => ({ city, tempC: 21 }),
        toModelOutput: ({ output }) => ({ type: 'text', value: `${output.city}: ${output.tempC} °C` }),
      }),
    };
    const play = async () => {
      const guarded = createGuardedAgentSettings({ guard: new LoopGuard(), tools });
      const model = scriptedLanguageModel(turns);
      await generateText({ model, prompt: 'go', ...guarded });
      const refusals = guarded.end().refusals;
      return { guarded, refusals, results: toolResultParts(model.doGenerateCalls.at(-1)!.prompt) };
    };

    it("an allowed call after a refused one with the same id gets its tool's own toModelOutput; the refused call gets the refusal text", async () => {
      const { refusals, results } = await play();
      expect(refusals.map((refusal) => [refusal.tool, refusal.callId])).to.deep.equal([['search', 'call_0']]);
      expect(results.map((part) => [part.toolName, part.toolCallId, part.output])).to.deep.equal([
        ['search', 'call_0', { type: 'text', value: 'docs: refund-policy' }],
        ['search', 'call_0', { type: 'text', value: 'docs: refund-policy' }],
        ['search', 'call_0', { type: 'text', value: refusals[0]!.message }],
        ['weather', 'call_0', { type: 'text', value: 'Paris: 21 °C' }],
      ]);
    });

    it("toModelOutput called again later for call_0 (as convertToModelMessages does for a stored chat): the refusal text for the refused output, the tool's own for the others", async () => {
      const { guarded, refusals } = await play();
      const message = refusals[0]!.message;
      const callOptions = { toolCallId: 'call_0', messages: [] };
      expect(await guarded.tools.search.toModelOutput!({ ...callOptions, input: { q: 'refunds' }, output: message as never })).to.deep.equal({ type: 'text', value: message });
      expect(await guarded.tools.search.toModelOutput!({ ...callOptions, input: { q: 'refunds' }, output: { docs: ['refund-policy'] } })).to.deep.equal({ type: 'text', value: 'docs: refund-policy' });
      expect(await guarded.tools.weather.toModelOutput!({ ...callOptions, input: { city: 'Paris' }, output: { city: 'Paris', tempC: 21 } })).to.deep.equal({ type: 'text', value: 'Paris: 21 °C' });
    });
  });

  // The SDK hands each tool the step's abortSignal; a tool rejects with its reason (fetch does),
  // which is whatever the caller aborted with. Recorded as that error, a deterministic one, it
  // freed the key of a write whose request had gone out, and the next run sent the email again.
  it('a business-key write aborted with a reason of the caller\'s own keeps its key: the next run is refused, the email goes out once', async () => {
    const sent: string[] = [];
    const tools = {
      send_email: tool({
        description: 'Send an email',
        inputSchema: z.object({ to: z.string() }),
        execute: async ({ to }, { abortSignal }) => {
          sent.push(to); // the request is out
          await new Promise((resolve, reject) => {
            const timer = setTimeout(resolve, 100);
            abortSignal?.addEventListener('abort', () => (clearTimeout(timer), reject(abortSignal.reason)), { once: true });
          });
          return 'sent';
        },
      }),
    };
    const guard = new LoopGuard({ store: createMemoryRunStore(), idempotentWrites: { send_email: { key: ['to'] } }, logger: { warn: () => undefined } });
    const turn = (): ScriptedTurn[] => [{ calls: [{ tool: 'send_email', args: { to: 'ops@example.com' } }] }];
    const first = createGuardedAgentSettings({ guard, tools, runId: 'mail-1' });
    const controller = new AbortController();
    setTimeout(() => controller.abort(new Error('user pressed stop')), 10);
    await generateText({ model: scriptedLanguageModel(turn()), prompt: 'send it', ...first, abortSignal: controller.signal }).catch(() => undefined);
    await guard.flush();
    const second = createGuardedAgentSettings({ guard, tools, runId: 'mail-2' });
    await generateText({ model: scriptedLanguageModel(turn()), prompt: 'send it', ...second });
    expect(second.outcome().refusals.map((refusal) => refusal.reason)).to.deep.equal(['repeat.in_flight']);
    expect(sent).to.deep.equal(['ops@example.com']);
  });
});
