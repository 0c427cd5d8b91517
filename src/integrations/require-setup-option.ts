import { describeConfigValue } from '../core/describe-config-value.js';
import { LoopGuardConfigError } from '../core/errors.js';

/**
 * What a setup function of an integration needs in one of its arguments:
 * - `options`: an options object (`usage` is how to call it, e.g. `guardTools(tools, { run })`);
 * - `run`: a RunGuard (`guard.startRun(id)`);
 * - `guard`: a LoopGuard (`new LoopGuard(options)`);
 * - `tool-set`: an object of tools by name (the AI SDK's `tools`);
 * - `tool-list`: an array of tools.
 */
export type SetupOptionKind = 'options' | 'run' | 'guard' | 'tool-set' | 'tool-list';

/**
 * Rejects a missing or wrong setup argument of an integration (`guardTools`, `guardAgentTools`,
 * `guardLangChainTools`, `createGuardedAgentRun`, `guardMcpClient`, …) with a
 * LoopGuardConfigError naming `field` and saying what to pass, when the integration is set up.
 * Without it a forgotten `run` surfaced later as a raw TypeError ("Invalid value used as weak
 * map key"), or worse, was swallowed by failOpen on every call and left the tools unguarded.
 * Setup time only: never call it on the per-call path.
 */
export function requireSetupOption(kind: SetupOptionKind, field: string, value: unknown, usage?: string): void {
  if (isValid(kind, value)) return;
  throw new LoopGuardConfigError({ field, message: `${expectation(kind, usage)}, got ${describeConfigValue(value)}` });
}

function isValid(kind: SetupOptionKind, value: unknown): boolean {
  switch (kind) {
    case 'options':
    case 'tool-set':
      return typeof value === 'object' && value !== null && !Array.isArray(value);
    case 'tool-list':
      return Array.isArray(value);
    case 'run':
      return (
        typeof value === 'object' &&
        value !== null &&
        typeof (value as { claimCall?: unknown }).claimCall === 'function' &&
        typeof (value as { startCall?: unknown }).startCall === 'function'
      );
    case 'guard':
      return typeof value === 'object' && value !== null && typeof (value as { startRun?: unknown }).startRun === 'function';
  }
}

function expectation(kind: SetupOptionKind, usage: string | undefined): string {
  switch (kind) {
    case 'options':
      return `must be an options object${usage === undefined ? '' : ` (${usage})`}`;
    case 'run':
      return 'must be the run to guard (guard.startRun(id))';
    case 'guard':
      return 'must be a LoopGuard (new LoopGuard(options) from \'loopguard\')';
    case 'tool-set':
      return `must be the tools object, by name ({ search: tool(...) })${usage === undefined ? '' : ` (${usage})`}`;
    case 'tool-list':
      return `must be an array of tools ([search, fetchPage])${usage === undefined ? '' : ` (${usage})`}`;
  }
}
