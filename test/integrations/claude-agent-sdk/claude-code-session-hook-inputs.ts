// Turns a Claude Code session log (`~/.claude/projects/<project>/<session>.jsonl`) into the hook
// inputs Claude Code gave its hooks while that session ran, typed with the SDK's own hook input
// types so tsc checks their shape: per model response, each tool_use → PreToolUse, its
// tool_result → PostToolUse (the line's `toolUseResult`, the structured output hooks receive as
// `tool_response`; the result text when the line has none) or PostToolUseFailure (`is_error`),
// then one PostToolBatch. Responses are grouped by `message.id` and runs by session and
// sidechain agent exactly as `loopguard replay` groups them (read-claude-code-session.ts), so
// the hooks and replay see the same rounds; a tool use without a result is left out, as replay
// leaves it out. A `compact_boundary` line is the PreCompact Claude Code fired before it wrote it.
import { readFileSync } from 'node:fs';
import type {
  HookCallbackMatcher,
  HookEvent,
  HookInput,
  HookJSONOutput,
  PostToolBatchHookInput,
  PostToolUseFailureHookInput,
  PostToolUseHookInput,
  PreCompactHookInput,
  PreToolUseHookInput,
} from '@anthropic-ai/claude-agent-sdk';

interface SessionUse {
  id: string;
  name: string;
  input: Record<string, unknown>;
  agentId: string | undefined;
  sessionId: string;
  cwd: string;
  result?: { text: string; structured: unknown; isError: boolean };
}

/** The hook inputs of one model response, in the order Claude Code fires them. */
export interface RecordedRound {
  agentId: string | undefined;
  inputs: HookInput[];
}

/** Reads a session log into rounds of hook inputs, in the order the rounds ended. */
export function claudeCodeSessionHookInputs(path: string): RecordedRound[] {
  const rounds: RecordedRound[] = [];
  const open = new Map<string, { key: string; uses: SessionUse[] }>();
  const uses = new Map<string, SessionUse>();
  const seen = new Set<string>();

  const close = (run: string): void => {
    const round = open.get(run);
    open.delete(run);
    if (round === undefined) return;
    const answered = round.uses.filter((use) => use.result !== undefined);
    if (answered.length === 0) return;
    rounds.push({ agentId: answered[0]!.agentId, inputs: hookInputsOf(answered) });
  };

  for (const text of readFileSync(path, 'utf8').split('\n')) {
    if (text.trim() === '') continue;
    const event = JSON.parse(text) as Record<string, any>;
    if (event.type === 'system' && event.subtype === 'compact_boundary') {
      const agentId: string | undefined = event.isSidechain === true ? (event.agentId ?? 'sidechain') : undefined;
      close(`${event.sessionId}/${agentId ?? ''}`);
      const compact: PreCompactHookInput = {
        session_id: event.sessionId,
        transcript_path: `/home/user/.claude/projects/app/${event.sessionId}.jsonl`,
        cwd: event.cwd ?? '/',
        permission_mode: 'default',
        ...(agentId !== undefined ? { agent_id: agentId, agent_type: 'general-purpose' } : {}),
        hook_event_name: 'PreCompact',
        trigger: event.compactMetadata?.trigger ?? 'auto',
        custom_instructions: null,
      };
      rounds.push({ agentId, inputs: [compact] });
      continue;
    }
    if (event.type !== 'assistant' && event.type !== 'user') continue;
    const content = event.message?.content;
    if (!Array.isArray(content)) continue;
    if (event.type === 'assistant') {
      if (event.message.model === '<synthetic>' || event.isApiErrorMessage === true) continue;
      const agentId: string | undefined = event.isSidechain === true ? (event.agentId ?? 'sidechain') : undefined;
      const run = `${event.sessionId}/${agentId ?? ''}`;
      const key = event.message.id ?? event.requestId;
      if (open.get(run)?.key !== key) {
        close(run);
        open.set(run, { key, uses: [] });
      }
      for (const block of content) {
        if (block?.type !== 'tool_use' || seen.has(block.id)) continue;
        seen.add(block.id);
        const use: SessionUse = { id: block.id, name: block.name, input: block.input ?? {}, agentId, sessionId: event.sessionId, cwd: event.cwd ?? '/' };
        uses.set(block.id, use);
        open.get(run)!.uses.push(use);
      }
      continue;
    }
    for (const block of content) {
      if (block?.type !== 'tool_result') continue;
      const use = uses.get(block.tool_use_id);
      if (use === undefined || use.result !== undefined) continue;
      const resultText = typeof block.content === 'string' ? block.content : (block.content ?? []).map(blockText).join('\n');
      use.result = { text: resultText, structured: event.toolUseResult ?? resultText, isError: block.is_error === true };
    }
  }
  for (const run of [...open.keys()]) close(run);
  return rounds;
}

function blockText(block: Record<string, any>): string {
  if (block.type === 'text') return block.text;
  if (block.type === 'image') return `[image ${block.source?.media_type ?? 'unknown'}]`;
  return '';
}

function hookInputsOf(uses: SessionUse[]): HookInput[] {
  const inputs: HookInput[] = [];
  const base = (use: SessionUse) => ({
    session_id: use.sessionId,
    transcript_path: `/home/user/.claude/projects/app/${use.sessionId}.jsonl`,
    cwd: use.cwd,
    permission_mode: 'default',
    ...(use.agentId !== undefined ? { agent_id: use.agentId, agent_type: 'general-purpose' } : {}),
  });
  for (const use of uses) {
    const pre: PreToolUseHookInput = { ...base(use), hook_event_name: 'PreToolUse', tool_name: use.name, tool_input: use.input, tool_use_id: use.id };
    inputs.push(pre);
    const result = use.result!;
    if (result.isError) {
      const failure: PostToolUseFailureHookInput = {
        ...base(use),
        hook_event_name: 'PostToolUseFailure',
        tool_name: use.name,
        tool_input: use.input,
        tool_use_id: use.id,
        error: result.text,
      };
      inputs.push(failure);
    } else {
      const post: PostToolUseHookInput = {
        ...base(use),
        hook_event_name: 'PostToolUse',
        tool_name: use.name,
        tool_input: use.input,
        tool_response: result.structured,
        tool_use_id: use.id,
      };
      inputs.push(post);
    }
  }
  const batch: PostToolBatchHookInput = {
    ...base(uses[0]!),
    hook_event_name: 'PostToolBatch',
    tool_calls: uses.map((use) => ({
      tool_name: use.name,
      tool_input: use.input,
      tool_use_id: use.id,
      ...(use.result!.isError ? {} : { tool_response: use.result!.structured }),
    })),
  };
  inputs.push(batch);
  return inputs;
}

/** Calls the hooks registered for an input's event, as Claude Code does, and returns their outputs. */
export async function fireHooks(hooks: Partial<Record<HookEvent, HookCallbackMatcher[]>>, input: HookInput): Promise<HookJSONOutput[]> {
  const outputs: HookJSONOutput[] = [];
  const toolUseId = 'tool_use_id' in input ? input.tool_use_id : undefined;
  for (const matcher of hooks[input.hook_event_name] ?? []) {
    if (matcher.matcher !== undefined && 'tool_name' in input && !new RegExp(`^(?:${matcher.matcher})$`).test(input.tool_name)) continue;
    for (const callback of matcher.hooks) outputs.push(await callback(input, toolUseId, { signal: new AbortController().signal }));
  }
  return outputs;
}
