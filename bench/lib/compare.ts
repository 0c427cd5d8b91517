/**
 * Interleaved micro-comparison for development probes (not part of `npm run bench`):
 * runs every variant in rotation for `reps` short bursts and reports each one's median
 * burst time, so load from other processes lands on all variants alike.
 */
export function compare(variants: Record<string, () => unknown>, { reps = 31, burst = 2000 } = {}): Record<string, number> {
  const samples: Record<string, number[]> = {};
  for (const fn of Object.values(variants)) for (let i = 0; i < burst; i++) fn();
  for (let rep = 0; rep < reps; rep++) {
    for (const [name, fn] of Object.entries(variants)) {
      const start = process.hrtime.bigint();
      for (let i = 0; i < burst; i++) fn();
      (samples[name] ??= []).push(Number(process.hrtime.bigint() - start) / burst);
    }
  }
  const medians: Record<string, number> = {};
  for (const [name, values] of Object.entries(samples)) {
    values.sort((a, b) => a - b);
    medians[name] = values[values.length >> 1]!;
  }
  return medians;
}

export function printComparison(title: string, medians: Record<string, number>, baseline?: string): void {
  console.log(`-- ${title}`);
  const base = baseline !== undefined ? medians[baseline]! : undefined;
  for (const [name, ns] of Object.entries(medians)) {
    console.log(`${name.padEnd(28)} ${(ns / 1000).toFixed(3).padStart(9)} µs${base !== undefined ? `  ×${(ns / base).toFixed(2)}` : ''}`);
  }
}
