import { createHash, timingSafeEqual } from 'node:crypto';

/**
 * Compares a presented secret with the expected one in time that does not depend on where
 * they differ, nor on the presented length: both are hashed to 32 bytes first, since
 * timingSafeEqual needs equal lengths and an early length check would leak the token's length.
 */
export function constantTimeEqual(presented: string, expected: string): boolean {
  const a = createHash('sha256').update(presented).digest();
  const b = createHash('sha256').update(expected).digest();
  return timingSafeEqual(a, b) && presented.length === expected.length;
}
