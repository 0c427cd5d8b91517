import { readFile } from 'node:fs/promises';
import { LoopGuardConfigError } from '../core/errors.js';
import { validateOptions } from '../core/policy.js';
import type { LoopGuardOptions, Profile } from '../core/types.js';

/** A policy file that cannot be used; the message names the file and, when known, the field. */
export class ReplayPolicyError extends Error {
  override readonly name = 'ReplayPolicyError';
  readonly file: string;
  readonly field: string | undefined;
  constructor(file: string, message: string, field?: string) {
    super(message);
    this.file = file;
    this.field = field;
  }
}

/**
 * Options of the engine (LoopGuardEngineOptions) and the clock: the library accepts them next
 * to the policy, but in a replay they are replay's own business. Silently taken, `maxIdleMs`
 * would change decisions and `logger` would crash later with a stack trace.
 */
const ENGINE_ONLY_WHY = {
  listeners: 'installs its own listeners',
  logger: 'reports problems itself',
  maxOpenRuns: 'holds every run of a file open until its last line',
  endedRunTtlMs: 'reports and frees each run as it ends',
  maxIdleMs: 'ends each run at its last line; an idle limit would end runs by another run\'s clock',
  now: 'uses the recorded time of each call as its clock',
  store: 'replays each file in this process, against no shared store',
  idempotentWrites: 'never runs a tool, so there is no write to deduplicate',
  storeFailure: 'uses no shared store',
  claimLeaseMs: 'uses no shared store',
  ownedRuns: 'uses no shared store',
} as const;
const ENGINE_ONLY_KEYS = Object.keys(ENGINE_ONLY_WHY) as Array<keyof typeof ENGINE_ONLY_WHY>;

/** An engine option a command other than replay takes from its policy file (see {@link loadReplayPolicy}'s `engineKeys`). */
export type EngineOnlyKey = keyof typeof ENGINE_ONLY_WHY;

/**
 * Which engine options a policy file may hold, for a command that decides live calls
 * (`loopguard serve`): `accepted` are taken; any other is refused with `why[key]`, or with
 * replay's reason when the command gives none.
 */
export interface PolicyEngineKeys {
  command: string;
  accepted: ReadonlySet<EngineOnlyKey>;
  why: Partial<Record<EngineOnlyKey, string>>;
}

/**
 * Reads `--policy FILE` (the library's options object as JSON, per-tool policies included)
 * through the same validator the library uses, so a policy that replays is a policy that
 * deploys. `--profile` wins over the file's profile.
 */
export async function loadReplayPolicy(policyFile: string | undefined, profile: Profile | undefined, engineKeys?: PolicyEngineKeys): Promise<LoopGuardOptions> {
  let options: LoopGuardOptions = {};
  if (policyFile !== undefined) {
    let text: string;
    try {
      text = await readFile(policyFile, 'utf8');
    } catch (error) {
      throw new ReplayPolicyError(policyFile, `${policyFile}: cannot read policy file (${(error as NodeJS.ErrnoException).code ?? (error as Error).message})`);
    }
    let value: unknown;
    try {
      value = JSON.parse(text);
    } catch (error) {
      throw new ReplayPolicyError(policyFile, `${policyFile}: policy is not valid JSON (${(error as Error).message})`);
    }
    if (value !== null && typeof value === 'object' && !Array.isArray(value)) {
      for (const key of ENGINE_ONLY_KEYS) {
        if (!Object.prototype.hasOwnProperty.call(value, key) || engineKeys?.accepted.has(key) === true) continue;
        const why = engineKeys?.why[key];
        throw new ReplayPolicyError(
          policyFile,
          why !== undefined
            ? `${policyFile}: "${key}" cannot be set in ${engineKeys!.command}'s policy file: ${why}. Remove it.`
            : `${policyFile}: "${key}" is an engine option, not a policy option; a policy file holds only what decides calls (replay ${ENGINE_ONLY_WHY[key]}). Remove it.`,
          key,
        );
      }
    }
    try {
      options = validateOptions(value, policyFile);
    } catch (error) {
      if (error instanceof LoopGuardConfigError) throw new ReplayPolicyError(policyFile, error.message, error.field);
      throw error;
    }
  }
  return profile === undefined ? options : { ...options, profile };
}
