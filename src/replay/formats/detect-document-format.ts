import { isPlainObject } from '../parse-transcript-line.js';
import { isChatMessagesDocument } from './read-chat-messages.js';
import { isOpenHandsEventList } from './read-openhands-trajectory.js';

/**
 * Which whole JSON document this is: `resourceSpans` is an OTLP request, a `trajectory` array
 * a SWE-agent trajectory, a `messages` array next to `info` a mini-swe-agent trajectory, an array
 * of OpenHands events (or a `history` of them: an OpenHands `output.jsonl` line) an OpenHands
 * trajectory, and chat messages (an array of `{role, content}`, `{"messages"}` without `info`, or
 * an array of runs each with `messages` / `traj`) a conversation. A SWE-agent demonstration's
 * `history` holds chat messages, not events, and is none.
 */
export function detectDocumentFormat(value: unknown): 'otlp' | 'swe-agent' | 'mini-swe-agent' | 'openhands' | 'chat-messages' | undefined {
  if (isOpenHandsEventList(value)) return 'openhands';
  if (Array.isArray(value)) return isChatMessagesDocument(value) ? 'chat-messages' : undefined;
  if (!isPlainObject(value)) return undefined;
  if ('resourceSpans' in value) return 'otlp';
  if (Array.isArray(value.trajectory)) return 'swe-agent';
  if (Array.isArray(value.messages) && isPlainObject(value.info)) return 'mini-swe-agent';
  if (isOpenHandsEventList(value.history)) return 'openhands';
  if (isChatMessagesDocument(value)) return 'chat-messages';
  return undefined;
}
