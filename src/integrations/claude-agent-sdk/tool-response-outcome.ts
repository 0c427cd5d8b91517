import type { PostToolUseFailureHookInput } from '@anthropic-ai/claude-agent-sdk';
import type { CallOutcome } from '../../core/types.js';

/**
 * The outcome loopguard records for a `PostToolUse` hook's `tool_response`: Claude Code's
 * structured output of the tool (`{ stdout, stderr, interrupted }` for Bash, `{ file: { content } }`
 * for Read, `{ filenames, durationMs }` for Glob, an MCP `CallToolResult`), fingerprinted as is,
 * except fields that differ on every call of WebSearch: its `durationSeconds` (not one of the
 * default volatile result fields) and the `tool_use_id` Claude Code stamps on each block of
 * hits. Left in, no web search would ever repeat an earlier one, and a reworded-search loop
 * would never look stale.
 */
export function toolResponseOutcome(toolName: string, response: unknown): CallOutcome {
  if (toolName === 'WebSearch' && isRecord(response)) return { result: withoutWebSearchStamps(response) };
  return { result: response };
}

/**
 * The outcome of a `PostToolUseFailure` hook. Claude Code hands hooks only the error text
 * (`Exit code 1\n…` for a failing command), the same text its session log records with
 * `is_error: true`; it is recorded with the type `tool_error` that `loopguard replay` gives such
 * a result, so a recorded session replays to the decisions the hooks took live. Transient
 * failures (`503`, `ETIMEDOUT`, `rate limit`) are recognised from the text. An interrupt (the
 * user pressed Esc) is not the tool's failure to repeat: it is recorded as `interrupted`,
 * never transient.
 */
export function toolFailureOutcome(input: Pick<PostToolUseFailureHookInput, 'error' | 'is_interrupt'>): CallOutcome {
  return { error: { type: input.is_interrupt === true ? 'interrupted' : 'tool_error', message: input.error } };
}

function withoutWebSearchStamps(response: Record<string, unknown>): Record<string, unknown> {
  const { durationSeconds: _durationSeconds, ...rest } = response;
  if (!Array.isArray(rest.results)) return rest;
  return {
    ...rest,
    results: rest.results.map((block: unknown) => {
      if (!isRecord(block)) return block;
      const { tool_use_id: _toolUseId, ...hits } = block;
      return hits;
    }),
  };
}

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}
