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
 * Reads `--policy FILE` (the library's options object as JSON, per-tool policies included)
 * through the same validator the library uses, so a policy that replays is a policy that
 * deploys. `--profile` wins over the file's profile.
 */
export async function loadReplayPolicy(policyFile: string | undefined, profile: Profile | undefined): Promise<LoopGuardOptions> {
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
    try {
      options = validateOptions(value, policyFile);
    } catch (error) {
      if (error instanceof LoopGuardConfigError) throw new ReplayPolicyError(policyFile, error.message, error.field);
      throw error;
    }
  }
  return profile === undefined ? options : { ...options, profile };
}
