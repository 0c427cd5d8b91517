import type { RunGuard } from '../../core/run-guard.js';
import { getLangChainRunState } from './lang-chain-run-state.js';

/**
 * Records the token usage a chat model reported on its reply (`usage_metadata`) into the round
 * that is still current. Each message is recorded once, so the hook that sees it first wins.
 */
export function recordLangChainUsage(run: RunGuard, message: unknown): void {
  if (typeof message !== 'object' || message === null) return;
  const state = getLangChainRunState(run);
  if (state.usageRecorded.has(message)) return;
  const usage = (message as { usage_metadata?: { input_tokens?: number; output_tokens?: number } }).usage_metadata;
  if (usage === undefined) return;
  state.usageRecorded.add(message);
  run.recordUsage({ inputTokens: usage.input_tokens, outputTokens: usage.output_tokens });
}
