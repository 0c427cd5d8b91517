/**
 * What a span means to replay and to `loopguard serve`:
 * - `run`: opens a run (an agent invocation);
 * - `round`: a model call;
 * - `tool`: a tool call;
 * - `other`: kept only as a link in the parent chain.
 */
export type CollectedSpanRole = 'run' | 'round' | 'tool' | 'other';

/**
 * A convention reader's verdict on one span. `flavor` says which attribute names the rest of
 * the reader chain (otlp-spans-to-replay-calls.ts) finds the call in: `genai` for the GenAI
 * names (`gen_ai.tool.name`, `gen_ai.tool.call.arguments` / `.result`), `vercel` for the AI
 * SDK's `ai.toolCall.*`. A reader of another convention copies its attributes onto the GenAI
 * names, so one call builder serves every convention.
 */
export interface SpanReading {
  role: CollectedSpanRole;
  flavor: 'genai' | 'vercel';
  /** Which convention recognised the span (for messages and tests). */
  convention: string;
}

/**
 * One convention: recognises its spans by name and attributes, and normalises `attributes`
 * in place onto the GenAI names. Returns undefined for a span that is not of its convention.
 */
export type SpanConventionReader = (name: string, attributes: Record<string, unknown>) => SpanReading | undefined;

/** Sets `to` from `from` when `to` is not already recorded (the GenAI name, when present, wins). */
export function copyAttribute(attributes: Record<string, unknown>, from: string, to: string): void {
  if (attributes[to] === undefined && attributes[from] !== undefined) attributes[to] = attributes[from];
}
