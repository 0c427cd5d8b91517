import { isPlainObject } from '../parse-transcript-line.js';
import { isOpenHandsEventList } from './read-openhands-trajectory.js';

/**
 * Which whole JSON document this is: `resourceSpans` is an OTLP request, a `trajectory` array
 * a SWE-agent trajectory, a `messages` array next to `info` a mini-swe-agent trajectory, an array
 * of OpenHands events (or a `history` of them: an OpenHands `output.jsonl` line) an OpenHands
 * trajectory. A SWE-agent demonstration's `history` holds chat messages, not events, and is none.
 */
export function detectDocumentFormat(value: unknown): 'otlp' | 'swe-agent' | 'mini-swe-agent' | 'openhands' | undefined {
  if (isOpenHandsEventList(value)) return 'openhands';
  if (!isPlainObject(value)) return undefined;
  if ('resourceSpans' in value) return 'otlp';
  if (Array.isArray(value.trajectory)) return 'swe-agent';
  if (Array.isArray(value.messages) && isPlainObject(value.info)) return 'mini-swe-agent';
  if (isOpenHandsEventList(value.history)) return 'openhands';
  return undefined;
}
