/**
 * An append-only column of small unsigned integers. Replay keeps one decision per input
 * call for every run until the file ends; storing them as typed-array columns instead of
 * objects keeps that at a few bytes per call, which is what lets a large transcript replay
 * in bounded (per-call, not per-byte) memory.
 */
export class GrowableUintColumn {
  private values: Uint8Array | Uint16Array | Uint32Array;
  private count = 0;

  constructor(private readonly kind: 'u8' | 'u16' | 'u32', initialCapacity = 16) {
    this.values = allocate(kind, initialCapacity);
  }

  get length(): number {
    return this.count;
  }

  push(value: number): void {
    if (this.count === this.values.length) {
      const bigger = allocate(this.kind, this.values.length * 2);
      bigger.set(this.values);
      this.values = bigger;
    }
    this.values[this.count++] = value;
  }

  at(index: number): number {
    return this.values[index];
  }

  set(index: number, value: number): void {
    this.values[index] = value;
  }
}

function allocate(kind: 'u8' | 'u16' | 'u32', capacity: number): Uint8Array | Uint16Array | Uint32Array {
  if (kind === 'u8') return new Uint8Array(capacity);
  if (kind === 'u16') return new Uint16Array(capacity);
  return new Uint32Array(capacity);
}

/** Interns repeated strings (tool names, reasons) so each call stores an index, not a string. */
export class StringInterner {
  private readonly indexByValue = new Map<string, number>();
  private readonly values: string[] = [];

  intern(value: string): number {
    let index = this.indexByValue.get(value);
    if (index === undefined) {
      index = this.values.length;
      this.values.push(value);
      this.indexByValue.set(value, index);
    }
    return index;
  }

  valueAt(index: number): string {
    return this.values[index];
  }
}
