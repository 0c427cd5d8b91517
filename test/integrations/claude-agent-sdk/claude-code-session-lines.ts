// Writes a Claude Code session log in the shape Claude Code 2.x writes it (one line per content
// block, the response's lines sharing `message.id`, results in `user` lines with
// `toolUseResult`), from a compact script of model responses. Used for sessions that loop,
// which the recorded fixture does not.
export interface ScriptedUse {
  name: string;
  input: Record<string, unknown>;
  /** The text the model read (the tool_result content). */
  text: string;
  /** The structured output hooks receive (`toolUseResult`). */
  structured?: unknown;
  isError?: boolean;
}

export interface ScriptedResponse {
  uses: ScriptedUse[];
  /** A subagent's response (`isSidechain`, `agentId`). */
  agentId?: string;
  /** Claude Code compacted the conversation just before this response (a `compact_boundary` line and its summary). */
  compactedBefore?: boolean;
}

export function claudeCodeSessionLines(sessionId: string, prompt: string, responses: ScriptedResponse[], finalText: string): string[] {
  const lines: string[] = [];
  let clock = Date.parse('2026-03-02T09:00:00.000Z');
  let uuid = 0;
  let parent: string | null = null;
  let toolId = 0;
  const stamp = (): string => new Date((clock += 1500)).toISOString();
  const push = (event: Record<string, unknown>, sidechain?: string): void => {
    const id = `00000000-0000-4000-8000-${String(++uuid).padStart(12, '0')}`;
    lines.push(
      JSON.stringify({
        parentUuid: parent,
        isSidechain: sidechain !== undefined,
        ...(sidechain !== undefined ? { agentId: sidechain } : {}),
        userType: 'external',
        cwd: '/work/app',
        sessionId,
        version: '2.1.63',
        gitBranch: 'main',
        ...event,
        uuid: id,
        timestamp: stamp(),
      }),
    );
    parent = id;
  };
  const usage = { input_tokens: 4, cache_creation_input_tokens: 120, cache_read_input_tokens: 9000, output_tokens: 90, service_tier: 'standard' };
  push({ type: 'user', message: { role: 'user', content: prompt }, permissionMode: 'default' });
  responses.forEach((response, index) => {
    const messageId = `msg_01${String(index + 1).padStart(22, '0')}`;
    const ids = response.uses.map(() => `toolu_01${String(++toolId).padStart(20, '0')}`);
    if (response.compactedBefore === true) {
      push({ type: 'system', subtype: 'compact_boundary', content: 'Conversation compacted', isMeta: false, level: 'info', compactMetadata: { trigger: 'auto', preTokens: 155025 } }, response.agentId);
      push({ type: 'user', isCompactSummary: true, isVisibleInTranscriptOnly: true, message: { role: 'user', content: 'This session is being continued from a previous conversation that ran out of context. …' } }, response.agentId);
    }
    response.uses.forEach((use, useIndex) => {
      push(
        {
          type: 'assistant',
          message: {
            model: 'claude-sonnet-4-5',
            id: messageId,
            type: 'message',
            role: 'assistant',
            content: [{ type: 'tool_use', id: ids[useIndex], name: use.name, input: use.input }],
            stop_reason: useIndex === response.uses.length - 1 ? 'tool_use' : null,
            stop_sequence: null,
            usage,
          },
          requestId: `req_01${String(index + 1).padStart(22, '0')}`,
        },
        response.agentId,
      );
    });
    response.uses.forEach((use, useIndex) => {
      push(
        {
          type: 'user',
          message: { role: 'user', content: [{ tool_use_id: ids[useIndex], type: 'tool_result', content: use.text, ...(use.isError ? { is_error: true } : {}) }] },
          toolUseResult: use.isError ? `Error: ${use.text}` : (use.structured ?? use.text),
        },
        response.agentId,
      );
    });
  });
  push({
    type: 'assistant',
    message: { model: 'claude-sonnet-4-5', id: 'msg_01final', type: 'message', role: 'assistant', content: [{ type: 'text', text: finalText }], stop_reason: 'end_turn', stop_sequence: null, usage },
    requestId: 'req_01final',
  });
  return lines;
}
