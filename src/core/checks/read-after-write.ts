import type { SignatureRecord } from '../run-ledger.js';

/**
 * Read after write: once a tool with side effects (policy `approval: true`) has run, the
 * state earlier reads saw may have changed, so those reads may run again. The ledger bumps
 * a write epoch each time such a tool runs; a record from an earlier epoch is stale.
 */
export function isRereadAfterWrite(record: SignatureRecord, writeEpoch: number): boolean {
  return record.epoch < writeEpoch;
}
