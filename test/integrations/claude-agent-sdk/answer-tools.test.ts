// Answer tools through the Claude Agent SDK hooks (issue 18 item 1): once the run stopped,
// PreToolUse denies every call but the answer (AskUserQuestion, or an MCP tool declared
// `terminal`), which is let through once and never ends the query.
import { expect } from 'chai';
import type { HookJSONOutput, PostToolBatchHookInput, PostToolUseHookInput, PreToolUseHookInput } from '@anthropic-ai/claude-agent-sdk';

import { LoopGuard } from '../../../src/core/loop-guard.js';
import { createLoopGuardHooks, type LoopGuardHooks } from '../../../src/integrations/claude-agent-sdk/index.js';
import { fireHooks } from './claude-code-session-hook-inputs.js';

const SESSION = '0a1b2c3d-4e5f-4a6b-8c7d-9e0f1a2b3c4d';
const base = { session_id: SESSION, transcript_path: `/home/user/.claude/projects/-work/${SESSION}.jsonl`, cwd: '/work', permission_mode: 'default' };
let nextId = 0;

/** One model response with one tool call: PreToolUse, PostToolUse if allowed, PostToolBatch. Returns whether it was denied. */
async function respond(guarded: LoopGuardHooks, tool: string, input: Record<string, unknown>, response: unknown): Promise<{ denied: boolean; pre: HookJSONOutput }> {
  const id = `toolu_01answer${String(++nextId).padStart(12, '0')}`;
  const preInput: PreToolUseHookInput = { ...base, hook_event_name: 'PreToolUse', tool_name: tool, tool_input: input, tool_use_id: id };
  const [pre] = await fireHooks(guarded.hooks, preInput);
  const specific = pre !== undefined && 'hookSpecificOutput' in pre ? pre.hookSpecificOutput : undefined;
  const denied = specific?.hookEventName === 'PreToolUse' && specific.permissionDecision === 'deny';
  if (!denied) {
    const post: PostToolUseHookInput = { ...base, hook_event_name: 'PostToolUse', tool_name: tool, tool_input: input, tool_response: response, tool_use_id: id, duration_ms: 5 };
    await fireHooks(guarded.hooks, post);
  }
  const batch: PostToolBatchHookInput = { ...base, hook_event_name: 'PostToolBatch', tool_calls: [{ tool_name: tool, tool_input: input, tool_use_id: id, ...(denied ? {} : { tool_response: response }) }] };
  await fireHooks(guarded.hooks, batch);
  return { denied, pre: pre! };
}

describe('Claude Agent SDK hooks: answer tools are sacred', () => {
  it('lets the answer through after the stop (well-known AskUserQuestion, policy-declared MCP reply), once, without ending the query', async () => {
    const guarded = createLoopGuardHooks({ guard: new LoopGuard({ tools: { mcp__support__reply: { terminal: true } } }), runId: SESSION });
    for (let round = 0; round < 4; round++) await respond(guarded, 'Bash', { command: 'ls' }, { stdout: 'src', stderr: '', interrupted: false, isImage: false });
    expect(guarded.run.stopped?.reason).to.equal('refused_rounds');

    const other = await respond(guarded, 'Bash', { command: 'pwd' }, { stdout: '/work', stderr: '', interrupted: false, isImage: false });
    expect(other.denied).to.equal(true);
    const reply = await respond(guarded, 'mcp__support__reply', { text: 'The build is green.' }, [{ type: 'text', text: 'sent' }]);
    expect(reply.denied).to.equal(false);
    expect(reply.pre).to.deep.equal({});
    const again = await respond(guarded, 'AskUserQuestion', { questions: [] }, { answers: {} });
    expect(again.denied, 'the answer was delivered: nothing more runs').to.equal(true);
    guarded.end();

    const asked = createLoopGuardHooks({ guard: new LoopGuard() });
    for (let round = 0; round < 4; round++) await respond(asked, 'Bash', { command: 'ls' }, { stdout: 'src', stderr: '', interrupted: false, isImage: false });
    expect(asked.run.stopped).to.not.equal(undefined);
    expect((await respond(asked, 'AskUserQuestion', { questions: [{ question: 'Which branch?' }] }, { answers: {} })).denied).to.equal(false);
    asked.end();
  });
});
