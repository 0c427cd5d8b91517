import { isPlainObject } from '../parse-transcript-line.js';

/**
 * Which whole JSON document this is: `resourceSpans` is an OTLP request, a `trajectory` array
 * a SWE-agent trajectory, a `messages` array next to `info` a mini-swe-agent trajectory.
 */
export function detectDocumentFormat(value: unknown): 'otlp' | 'swe-agent' | 'mini-swe-agent' | undefined {
  if (!isPlainObject(value)) return undefined;
  if ('resourceSpans' in value) return 'otlp';
  if (Array.isArray(value.trajectory)) return 'swe-agent';
  if (Array.isArray(value.messages) && isPlainObject(value.info)) return 'mini-swe-agent';
  return undefined;
}
