// Answer tools through the real generateText loop (issue 18 item 1): a browser agent that
// answers with `send_msg_to_user` keeps that tool when the ladder or a stop takes the others
// away, and the answer it gives when the stop is due is delivered.
import { expect } from 'chai';
import { generateText, stepCountIs, tool } from 'ai';
import { z } from 'zod';

import { LoopGuard } from '../../../src/core/loop-guard.js';
import { createGuardedAgentSettings } from '../../../src/integrations/ai-sdk/index.js';
import { offeredTools, scriptedLanguageModel, userTextsIn, type ScriptedTurn } from '../helpers/scripted-language-model.js';

/** The same results page whatever is clicked: the agent is going nowhere. */
const samePage = 'RootWebArea "Search results" [12] link "Next page" [13] StaticText "No orders found"';

function browserTools(clicks: string[], answers: string[]) {
  return {
    click: tool({
      description: 'Click an element by its bid',
      inputSchema: z.object({ bid: z.string() }),
      execute: async ({ bid }) => {
        clicks.push(bid);
        return samePage;
      },
    }),
    send_msg_to_user: tool({
      description: 'Send the answer to the user',
      inputSchema: z.object({ text: z.string() }),
      execute: async ({ text }) => {
        answers.push(text);
        return 'sent';
      },
    }),
  };
}

describe('AI SDK: answer tools are sacred', () => {
  it('keeps offering send_msg_to_user after a stop, delivers the answer the model gives, and ends the run after it', async () => {
    const clicks: string[] = [];
    const answers: string[] = [];
    const turns: ScriptedTurn[] = [13, 14, 15, 16, 17, 18].map((bid) => ({ calls: [{ tool: 'click', args: { bid: String(bid) } }] }));
    turns.push({ calls: [{ tool: 'send_msg_to_user', args: { text: 'No order matches the criteria.' } }] });
    const model = scriptedLanguageModel(turns, 'never reached');
    const guarded = createGuardedAgentSettings({ guard: new LoopGuard(), tools: browserTools(clicks, answers) });

    await generateText({ model, prompt: 'Find my cheapest order', ...guarded, stopWhen: [guarded.stopWhen, stepCountIs(30)] });

    const calls = model.doGenerateCalls;
    expect(guarded.outcome().stopReason).to.equal('stale_rounds');
    expect(clicks).to.have.length(6);
    // The step after the stop offered only the answer tool, and the model could call it.
    const last = calls[calls.length - 1]!;
    expect(offeredTools(last)).to.deep.equal(['send_msg_to_user']);
    expect(last.toolChoice).to.not.deep.equal({ type: 'none' });
    expect(userTextsIn(last.prompt).at(-1)).to.match(/^Tool use has ended for this run: .* Exception: `send_msg_to_user` is still available/);
    expect(answers).to.deep.equal(['No order matches the criteria.']);
    // The run ended after the answer: no model call after it.
    expect(calls).to.have.length(7);
  });

  it('never drops the answer tool from activeTools when the ladder switches a looping tool off', async () => {
    const clicks: string[] = [];
    const answers: string[] = [];
    const lookups: string[] = [];
    const tools = {
      ...browserTools(clicks, answers),
      goto: tool({
        description: 'Open a url',
        inputSchema: z.object({ url: z.string() }),
        execute: async ({ url }) => {
          lookups.push(url);
          return `RootWebArea "${url}"`;
        },
      }),
    };
    const turns: ScriptedTurn[] = [
      { calls: [{ tool: 'goto', args: { url: 'shop/orders' } }] },
      ...[13, 14, 15, 16].map((bid) => ({ calls: [{ tool: 'click', args: { bid: String(bid) } }, { tool: 'send_msg_to_user', args: { text: 'still looking' } }] })),
    ];
    const model = scriptedLanguageModel(turns, 'done');
    const guarded = createGuardedAgentSettings({ guard: new LoopGuard(), tools });

    await generateText({ model, prompt: 'Find my cheapest order', ...guarded, stopWhen: [guarded.stopWhen, stepCountIs(30)] });

    const offered = model.doGenerateCalls.map((call) => offeredTools(call));
    expect(offered.some((names) => !names.includes('click'))).to.equal(true, 'the ladder switched click off at some point');
    for (const names of offered) expect(names).to.include('send_msg_to_user');
    expect(guarded.outcome().refusals.filter((refusal) => refusal.tool === 'send_msg_to_user')).to.deep.equal([]);
  });
});
