// `npm run demo -- langchain`: loopguard's LangChain middleware and guarded tools, offline,
// through langchain's real createAgent graph (LangGraph underneath). The model is a scripted
// BaseChatModel that binds tools like a real one and, like any model, calls only the tools it
// is offered: one run rewords the same search round after round, one pages through an audit log.
import { BaseChatModel } from '@langchain/core/language_models/chat_models';
import { AIMessage, type BaseMessage, HumanMessage } from '@langchain/core/messages';
import type { ChatResult } from '@langchain/core/outputs';
import { tool } from '@langchain/core/tools';
import { createAgent } from 'langchain';
import { z } from 'zod';
import { LoopGuard } from '../../../src/core/loop-guard.js';
import { createGuardedAgentRun } from '../../../src/integrations/langchain/index.js';

type Reply = { calls: Array<{ tool: string; args: Record<string, unknown> }> } | { text: string };

/** Replies by turn; offered no tools, it answers from what it has (as a real model would). */
class ScriptedModel extends BaseChatModel {
  offered: string[] = [];
  constructor(
    private readonly script: (turn: number) => Reply,
    readonly log: Array<{ offered: string[]; lastMessage: string }> = [],
    private readonly ids = { next: 1 },
  ) {
    super({});
  }
  _llmType(): string {
    return 'scripted-demo';
  }
  override bindTools(tools: Array<{ name?: string } | Record<string, unknown>>): ScriptedModel {
    const bound = new ScriptedModel(this.script, this.log, this.ids);
    bound.offered = tools.map((entry) => String((entry as { name?: unknown }).name));
    return bound;
  }
  async _generate(messages: BaseMessage[]): Promise<ChatResult> {
    this.log.push({ offered: this.offered, lastMessage: messages.at(-1)?.text ?? '' });
    const reply = this.script(this.log.length);
    const calls = 'calls' in reply ? reply.calls.filter((call) => this.offered.includes(call.tool)) : [];
    const message =
      calls.length > 0
        ? new AIMessage({ content: '', tool_calls: calls.map((call) => ({ ...call, name: call.tool, id: `call_${this.ids.next++}`, type: 'tool_call' as const })) })
        : new AIMessage('text' in reply ? reply.text : 'From the pages I found: deleted data is kept 30 days, backups 90 days.');
    return { generations: [{ text: message.text, message }] };
  }
}

export async function runLangchainDemo(out: (line: string) => void): Promise<boolean> {
  const guard = new LoopGuard({ tools: { search_docs: { readOnly: true }, list_audit_log: { readOnly: true, cursorArg: 'cursor' } } });

  // 1. A reworded search that keeps bringing back the same two pages.
  let searches = 0;
  const searchDocs = tool(
    async () => {
      searches += 1;
      return JSON.stringify({ results: [{ id: 'data-retention', title: 'Data retention' }, { id: 'backups-and-restore', title: 'Backups' }] });
    },
    { name: 'search_docs', description: 'Search the documentation', schema: z.object({ query: z.string() }) },
  );
  const looping = createGuardedAgentRun({ guard, tools: [searchDocs], runId: 'langchain-reworded-search' });
  const loopModel = new ScriptedModel((turn) => ({ calls: [{ tool: 'search_docs', args: { query: `data retention policy, wording ${turn}` } }] }));
  const loopAgent = createAgent({ model: loopModel, tools: looping.tools, middleware: [looping.middleware] });
  const loopResult = await loopAgent.invoke({ messages: [new HumanMessage('How long do you keep deleted data?')] });
  const loopOutcome = looping.end();

  out('LangChain createAgent, reworded search (same two pages every round):');
  loopModel.log.forEach((call, index) => {
    const note = /^Note:/.test(call.lastMessage) ? ' — nudged' : /^Tool use has ended/.test(call.lastMessage) ? ' — stop message, no tools' : '';
    out(`  model call ${index + 1}: offered [${call.offered.join(', ')}]${note}`);
  });
  out(`  stopped: ${loopOutcome.stopReason} after ${searches} searches; final answer: "${loopResult.messages.at(-1)?.text}"`);

  // 2. Honest pagination: every page is new, nothing is refused or stopped.
  const pages: string[] = [];
  const auditLog = tool(
    async ({ cursor }) => {
      const page = Number(cursor ?? 0);
      pages.push(String(page));
      return JSON.stringify({ entries: [{ id: `evt-${page}-1` }, { id: `evt-${page}-2` }], next_cursor: page < 3 ? String(page + 1) : null });
    },
    { name: 'list_audit_log', description: 'Page through the audit log', schema: z.object({ cursor: z.string().optional() }) },
  );
  const honest = createGuardedAgentRun({ guard, tools: [auditLog], runId: 'langchain-pagination' });
  const pageModel = new ScriptedModel((turn) => (turn <= 4 ? { calls: [{ tool: 'list_audit_log', args: turn === 1 ? {} : { cursor: String(turn - 1) } }] } : { text: '8 audit events, none unexpected.' }));
  const pageResult = await createAgent({ model: pageModel, tools: honest.tools, middleware: [honest.middleware] }).invoke({ messages: [new HumanMessage('Summarise the audit log')] });
  const pageOutcome = honest.end();
  out('LangChain createAgent, paging an audit log:');
  out(`  ${pages.length} pages read, ${pageOutcome.refusals.length} refused, stop: ${pageOutcome.stopReason ?? 'none'}; answer: "${pageResult.messages.at(-1)?.text}"`);

  const lastCall = loopModel.log.at(-1);
  return (
    loopOutcome.stopReason === 'stale_rounds' &&
    lastCall !== undefined &&
    lastCall.offered.length === 0 &&
    /^Tool use has ended/.test(lastCall.lastMessage) &&
    loopModel.log.some((call) => /^Note:/.test(call.lastMessage)) &&
    pages.length === 4 &&
    pageOutcome.refusals.length === 0 &&
    pageOutcome.stopReason === undefined
  );
}
