import type { LoopGuardOptions, Profile } from '../core/types.js';
import { loadReplayPolicy, ReplayPolicyError, type PolicyEngineKeys } from '../replay/load-replay-policy.js';
import { CliOptionError } from './cli-option-error.js';

/**
 * Reads `--policy FILE` for any command, through the library's validator. A file that cannot
 * be read, is not JSON or has a bad field becomes a {@link CliOptionError} for `--policy` whose
 * message names the file and the field (`policy.json: maxRounds: must be …`).
 */
export async function loadCliPolicy(command: string, policyFile: string | undefined, profile?: Profile, engineKeys?: PolicyEngineKeys): Promise<LoopGuardOptions> {
  try {
    return await loadReplayPolicy(policyFile, profile, engineKeys);
  } catch (error) {
    if (error instanceof ReplayPolicyError) throw new CliOptionError(command, '--policy', error.message);
    throw error;
  }
}
