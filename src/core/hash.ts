import { createHash } from 'node:crypto';

/**
 * SHA-256 of the UTF-8 text, truncated to 128 bits and written as 22 base64url characters.
 * 128 bits keeps accidental collisions out of reach for any run length while the stored
 * string stays short: the ledger keeps one per distinct call and per distinct result, and
 * memory per recorded call is a budget (issue 6: ≤ 150 B).
 */
export function hashText(text: string): string {
  return createHash('sha256').update(text).digest().toString('base64url', 0, 16);
}
