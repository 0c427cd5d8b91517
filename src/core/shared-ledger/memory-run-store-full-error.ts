/** A business-key claim the memory store has no room for (`maxBusinessKeys`). */
export class MemoryRunStoreFullError extends Error {
  override readonly name = 'MemoryRunStoreFullError';
  constructor(readonly maxBusinessKeys: number) {
    super(`the memory run store holds ${maxBusinessKeys} unexpired business keys (maxBusinessKeys); a new one cannot be claimed until some expire`);
  }
}
