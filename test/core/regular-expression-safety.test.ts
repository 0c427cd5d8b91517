import { expect } from 'chai';
import { checkSync } from 'recheck';
import { ATTEMPT_COUNTER } from '../../src/core/noise/attempt-counter-in-text.js';
import { AGO, DOCKER_UP, ISO_DATETIME, SHAPED_NOISE, SHAPED_NOISE_OWN_PASS, TABLE_AGE, TEXT_DURATION, TEXT_REQUEST_ID_PREFIX, UUID } from '../../src/core/noise/result-noise-rules.js';
import { SHORT_FLAGS_WITH_G } from '../../src/core/world-state/changes-state-elsewhere.js';
import { ELEMENT_ID } from '../../src/core/world-state/page-state.js';
import { MOVING_VALUE } from '../../src/core/world-state/says-in-progress.js';

/**
 * The regular expressions that read a whole tool result, page, status value or command word, whose
 * length nobody bounds but the result cap. One with polynomial backtracking stalls the host on a
 * long enough input (the span processor runs in the app's event loop): the request-id rule took
 * 8.4 s on 77 KB of spaces after `request id`, tox's rule 3.7 s on 80,000 digits. recheck decides it
 * from the expression's automaton, not by timing it, so the test is as fast on a loaded runner.
 */
const HOT_PATH: ReadonlyArray<{ name: string; source: string; flags: string }> = [
  ...[...SHAPED_NOISE, ...SHAPED_NOISE_OWN_PASS].map(({ literal, pattern }) => ({ name: `shaped noise ${JSON.stringify(literal)}`, source: pattern, flags: '' })),
  { name: 'AGO', source: AGO, flags: '' },
  { name: 'DOCKER_UP', source: DOCKER_UP, flags: '' },
  { name: 'TABLE_AGE', source: TABLE_AGE, flags: '' },
  { name: 'TEXT_DURATION', source: TEXT_DURATION, flags: '' },
  { name: 'ISO_DATETIME', source: ISO_DATETIME, flags: '' },
  { name: 'UUID', source: UUID, flags: '' },
  { name: 'request id in text', source: `(${TEXT_REQUEST_ID_PREFIX})[\\w:-]{6,}`, flags: '' },
  { name: 'ATTEMPT_COUNTER', source: ATTEMPT_COUNTER.source, flags: 'i' },
  { name: 'MOVING_VALUE', source: MOVING_VALUE.source, flags: 'i' },
  { name: 'ELEMENT_ID', source: ELEMENT_ID.source, flags: '' },
  { name: 'SHORT_FLAGS_WITH_G', source: SHORT_FLAGS_WITH_G.source, flags: '' },
];

describe('regular expressions on the hot path run in linear time (recheck)', function () {
  // recheck's native analyser takes up to a few seconds on a large case-insensitive alternation.
  this.timeout(180_000);

  it('every expression that reads a whole result, page, status or command word is safe from polynomial backtracking', () => {
    const unsafe = HOT_PATH.map(({ name, source, flags }) => ({ name, diagnostics: checkSync(source, flags, { timeout: 20_000 }) }))
      .filter(({ diagnostics }) => diagnostics.status !== 'safe')
      .map(({ name, diagnostics }) => `${name}: ${diagnostics.status}${diagnostics.status === 'vulnerable' ? ` (${diagnostics.complexity.type}, e.g. ${diagnostics.attack.pattern})` : ''}`);
    expect(unsafe).to.deep.equal([]);
  });

  it('the check finds the forms these replaced', () => {
    const before = [
      // tox's rule, led by an unbounded `\d+`.
      '\\d+(?:\\.\\d+)?=setup\\[\\d+(?:\\.\\d+)?\\]\\+cmd\\[\\d+(?:\\.\\d+)?\\]',
      // Two `\s*` around an optional separator.
      '(\\b(?:[rR]equest|REQUEST|[tT]race|TRACE|[cC]orrelation|req)[-_ ]?(?:[iI][dD])\\b"?\'?\\s*[:=]?\\s*"?\'?)[\\w:-]{6,}',
      // A ref read to the end of the page.
      '\\[ref=[^\\]]*\\]',
      '^-[A-Za-z]*G[A-Za-z]*$',
    ];
    for (const source of before) expect(checkSync(source, '', { timeout: 20_000 }).status, source).to.equal('vulnerable');
  });
});
