/**
 * An append-only column of small unsigned integers. Replay keeps one decision per input
 * call for every run until the file ends; storing them as typed-array columns instead of
 * objects keeps that at a few bytes per call, which is what lets a large transcript replay
 * in bounded (per-call, not per-byte) memory.
 */
export class GrowableUintColumn {
  /**
   * A short column is a plain array: a typed array costs ~200 bytes (object and backing
   * store) before its first element, and replay may hold many short runs open at once (long
   * interleaved files). Past SMALL_COLUMN values it moves to a typed array (1-4 bytes each).
   */
  private values: number[] | Uint8Array | Uint16Array | Uint32Array = [];
  private count = 0;

  constructor(private readonly kind: 'u8' | 'u16' | 'u32') {}

  get length(): number {
    return this.count;
  }

  push(value: number): void {
    const values = this.values;
    if (Array.isArray(values)) {
      if (this.count < SMALL_COLUMN) {
        values.push(value);
        this.count++;
        return;
      }
      const typed = allocate(this.kind, SMALL_COLUMN * 2);
      typed.set(values);
      this.values = typed;
    } else if (this.count === values.length) {
      const bigger = allocate(this.kind, values.length * 2);
      bigger.set(values);
      this.values = bigger;
    }
    (this.values as Uint32Array)[this.count++] = value;
  }

  at(index: number): number {
    return this.values[index];
  }

  set(index: number, value: number): void {
    this.values[index] = value;
  }
}

const SMALL_COLUMN = 32;

function allocate(kind: 'u8' | 'u16' | 'u32', capacity: number): Uint8Array | Uint16Array | Uint32Array {
  if (kind === 'u8') return new Uint8Array(capacity);
  if (kind === 'u16') return new Uint16Array(capacity);
  return new Uint32Array(capacity);
}

/** Below this many strings a linear search beats a Map and costs no Map per run. */
const MAP_AFTER = 16;

/** Interns repeated strings (tool names, reasons) so each call stores an index, not a string. */
export class StringInterner {
  private indexByValue: Map<string, number> | undefined;
  private readonly values: string[] = [];

  intern(value: string): number {
    let index = this.indexByValue !== undefined ? this.indexByValue.get(value) : this.values.indexOf(value);
    if (index === undefined || index === -1) {
      index = this.values.length;
      this.values.push(value);
      if (this.indexByValue !== undefined) this.indexByValue.set(value, index);
      else if (this.values.length > MAP_AFTER) this.indexByValue = new Map(this.values.map((v, i) => [v, i]));
    }
    return index;
  }

  valueAt(index: number): string {
    return this.values[index];
  }
}
