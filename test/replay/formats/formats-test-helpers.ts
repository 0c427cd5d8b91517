import { readFileSync } from 'node:fs';
import type { ReplayCall } from '../../../src/replay/replay-call.js';

export const FIXTURES = new URL('./fixtures/', import.meta.url).pathname;

export function fixture(name: string): string {
  return `${FIXTURES}${name}`;
}

export function readFixtureJson(name: string): unknown {
  return JSON.parse(readFileSync(fixture(name), 'utf8'));
}

/** The parts of a call a mapping test compares. */
export function shape(call: ReplayCall): Record<string, unknown> {
  const { source: _source, ...rest } = call;
  return rest;
}
