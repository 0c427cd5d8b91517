import { factsObjectOf, FactsTextError, lineRangesOf } from './facts-text-error.js';
import type { PrehashedOutcome } from './types.js';

/**
 * What fingerprinting read from a call's result besides its hash — a failure that is
 * transient or about the arguments, a step the harness rejected, a last page, a command still
 * running, a file window, the result's items — as one JSON text, for the span attribute
 * `loopguard.tool.outcome_facts`. A span carries the result's hash, not the result (loopguard's
 * default), and an error's type and message, not what was read from them: without these a
 * replay of the export judged a transient timeout as a failure seen before and twelve rejected
 * browser steps as twelve failures, and decided otherwise than the run did
 * (test/otel/corpus-through-span-processor.test.ts).
 *
 * `withItems`: the items are needed only where the whole result was new (the engine reads them
 * nowhere else, as the shared log's entries do); reading them is the costly part. Undefined
 * when there is nothing to say (most results), so most spans carry nothing more.
 */
export function outcomeFactsText(outcome: PrehashedOutcome, withItems: boolean): string | undefined {
  // Fields read by name and the text concatenated, as callFactsText: it runs at the end of every
  // guarded call, and most outcomes have none of these.
  let text = '';
  if (outcome.acknowledgement === true) text += ',"acknowledgement":true';
  if (outcome.describesAction === true) text += ',"describesAction":true';
  if (outcome.commandRunning === true) text += ',"commandRunning":true';
  if (outcome.lastPage === true) text += ',"lastPage":true';
  // false is a fact too: the error was read and is not transient (checks/retry-budget.ts).
  if (outcome.transient !== undefined) text += `,"transient":${outcome.transient === true}`;
  if (outcome.argumentIndependent === true) text += ',"argumentIndependent":true';
  if (outcome.aboutArguments === true) text += ',"aboutArguments":true';
  if (outcome.namesRejected === true) text += ',"namesRejected":true';
  if (outcome.stepRejected === true) text += ',"stepRejected":true';
  if (outcome.inProgress === true) text += ',"inProgress":true';
  if (outcome.wroteNothing === true) text += ',"wroteNothing":true';
  if (outcome.errorAnswer === true) text += ',"errorAnswer":true';
  if (outcome.window !== undefined) text += `,"window":${JSON.stringify(outcome.window)}`;
  if (outcome.askedFrom !== undefined) text += `,"askedFrom":${JSON.stringify(outcome.askedFrom)}`;
  if (withItems) {
    const items = outcome.items;
    if (items !== undefined && items.length > 0) text += `,"items":[${items.join(',')}]`;
  }
  return text === '' ? undefined : `{${text.slice(1)}}`;
}

const FLAGS = [
  'acknowledgement',
  'describesAction',
  'commandRunning',
  'lastPage',
  'transient',
  'argumentIndependent',
  'aboutArguments',
  'namesRejected',
  'stepRejected',
  'inProgress',
  'wroteNothing',
  'errorAnswer',
] as const satisfies ReadonlyArray<keyof PrehashedOutcome>;

/**
 * The facts of {@link outcomeFactsText}'s text, checked field by field (a span attribute is
 * anyone's to write). Fields this version does not know are left out.
 *
 * @throws FactsTextError naming the field that is not what the facts hold.
 */
export function readOutcomeFacts(text: string): Partial<PrehashedOutcome> {
  const record = factsObjectOf(text);
  const facts: Partial<PrehashedOutcome> = {};
  for (const flag of FLAGS) {
    const flagValue = record[flag];
    if (flagValue === undefined) continue;
    if (typeof flagValue !== 'boolean') throw new FactsTextError(`${flag} must be true or false`);
    if (flagValue || flag === 'transient') facts[flag] = flagValue;
  }
  const { window, askedFrom, items } = record;
  if (window !== undefined) facts.window = windowOf(window);
  if (askedFrom !== undefined) {
    const { resource, line } = (askedFrom ?? {}) as Record<string, unknown>;
    if (typeof resource !== 'string' || typeof line !== 'number') throw new FactsTextError('askedFrom must be { resource, line }');
    facts.askedFrom = { resource, line };
  }
  if (items !== undefined) {
    // Item fingerprints are 53-bit integers (core/hash.ts hashItemText).
    if (!Array.isArray(items) || !items.every((item) => Number.isSafeInteger(item) && item >= 0)) throw new FactsTextError('items must be item fingerprints (non-negative integers)');
    facts.items = items as number[];
  }
  return facts;
}

function windowOf(value: unknown): NonNullable<PrehashedOutcome['window']> {
  const bad = (what: string): never => {
    throw new FactsTextError(`window${what}`);
  };
  if (value === null || typeof value !== 'object' || Array.isArray(value)) return bad(' must be an object');
  const { resource, numbered, ranges, lastLine } = value as Record<string, unknown>;
  if (typeof resource !== 'string') bad('.resource must be a string');
  if (typeof numbered !== 'boolean') bad('.numbered must be true or false');
  const window: NonNullable<PrehashedOutcome['window']> = { resource: resource as string, numbered: numbered as boolean, ranges: lineRangesOf(ranges, 'window.ranges') };
  if (lastLine !== undefined) {
    if (typeof lastLine !== 'number') bad('.lastLine must be a line number');
    window.lastLine = lastLine as number;
  }
  return window;
}
