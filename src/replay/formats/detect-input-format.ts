import { isPlainObject } from '../parse-transcript-line.js';
import { detectDocumentFormat } from './detect-document-format.js';

/**
 * How one input file is read, decided from its first non-blank line.
 * - `jsonl`: loopguard's own transcript, one call per line.
 * - `otlp`: OTLP JSON, one ExportTraceServiceRequest per line.
 * - `otlp-document`: a first line that is only `{` (or `[`): a JSON document spread over many lines
 *   (a saved OTLP/HTTP body, a SWE-agent `.traj`, a mini-swe-agent `.traj.json`, an OpenHands
 *   trajectory export), read whole
 *   and then dispatched on its keys (see detectDocumentFormat).
 * - `swe-agent` / `mini-swe-agent` / `openhands` / `chat-messages`: such a trajectory (or a
 *   conversation of chat messages, one line an array of them or `{"messages"}`) written on one line (each
 *   non-blank line is then one trajectory; an OpenHands evaluation `output.jsonl` is one
 *   `{"instance_id", "history", ...}` per line).
 * - `claude-code`: a Claude Code session log (~/.claude/projects/*\/*.jsonl), one event per line.
 * - `unknown`: JSON that is none of these; replay reports it once and skips the file.
 */
export type ReplayInputFormat = 'jsonl' | 'otlp' | 'otlp-document' | 'swe-agent' | 'mini-swe-agent' | 'openhands' | 'chat-messages' | 'claude-code' | 'unknown';

/** Every format replay reads, for messages about a file that is none of them. */
export const READABLE_FORMATS =
  'loopguard JSONL (run, round, tool, result|error per line), OTLP JSON, SWE-agent .traj, mini-swe-agent .traj.json, OpenHands trajectory (event array, or output.jsonl lines with "history"), chat messages (OpenAI or Anthropic shape: an array of messages, {"messages"}, or an array of runs with "messages"/"traj"), Claude Code session .jsonl';

/** Event types of a Claude Code session log; the first line of a session is one of these. */
const CLAUDE_CODE_EVENT_TYPES = new Set([
  'user',
  'assistant',
  'summary',
  'system',
  'file-history-snapshot',
  'queue-operation',
  'progress',
  'attachment',
  'turn_end',
  'custom-title',
]);

/**
 * Detects the format of a file from its first non-blank line. Text that is not a JSON object
 * stays `jsonl` (as before: the line is reported and the rest read as a transcript), so a
 * transcript whose first line is damaged still replays.
 */
export function detectInputFormat(firstLine: string): ReplayInputFormat {
  const trimmed = firstLine.trimStart();
  const opening = trimmed.trimEnd();
  if (opening === '{' || opening === '[') return 'otlp-document';
  // A whole conversation (or OpenHands event list) as one JSON array on one line.
  if (trimmed.startsWith('[')) {
    try {
      const kind = detectDocumentFormat(JSON.parse(trimmed));
      if (kind === 'chat-messages' || kind === 'openhands') return kind;
    } catch {
      // not one JSON value: read as a transcript, as before
    }
    return 'jsonl';
  }
  if (!trimmed.startsWith('{')) return 'jsonl';
  let value: unknown;
  try {
    value = JSON.parse(trimmed);
  } catch {
    return 'jsonl';
  }
  if (!isPlainObject(value)) return 'jsonl';
  if ('resourceSpans' in value) return 'otlp';
  if ('run' in value || 'tool' in value || 'round' in value) return 'jsonl';
  const document = detectDocumentFormat(value);
  if (document === 'swe-agent' || document === 'mini-swe-agent' || document === 'openhands' || document === 'chat-messages') return document;
  if (isClaudeCodeEvent(value)) return 'claude-code';
  return 'unknown';
}

function isClaudeCodeEvent(value: Record<string, unknown>): boolean {
  if (typeof value.type !== 'string') return false;
  if (typeof value.sessionId === 'string' || isPlainObject(value.message)) return true;
  return CLAUDE_CODE_EVENT_TYPES.has(value.type) && ('leafUuid' in value || 'snapshot' in value || 'messageId' in value || 'uuid' in value);
}
