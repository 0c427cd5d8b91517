import { expect } from 'chai';
import { tool } from 'ai';
import { z } from 'zod';
import { LoopGuard } from '../../../src/core/loop-guard.js';
import { guardTools } from '../../../src/integrations/ai-sdk/guard-tools.js';

describe('guardTools', () => {
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
});
