// The app's DiagLogger is its code. One that throws turned the span processor's report of its
// own failure (diag.error inside the catch of onStart) into an exception inside the SDK's
// startSpan, in the middle of the app's tool call: "never throws into the SDK" held only while
// diag itself worked.
import { expect } from 'chai';
import { diag, DiagLogLevel } from '@opentelemetry/api';
import { failOpen, failOpenAsync } from '../../src/integrations/fail-open.js';
import type { SpanInterpreter } from '../../src/otel/span-roles.js';
import { GEN_AI, makeHarness } from './otel-test-helpers.js';

describe('LoopGuardSpanProcessor with a DiagLogger that throws', () => {
  const throwing = (): never => {
    throw new Error('diag transport closed');
  };
  const quiet = (): void => undefined;
  afterEach(() => diag.disable());

  it('a failure in onStart is reported to a diag that throws: the report is dropped, nothing reaches the SDK', () => {
    const exploding: SpanInterpreter = (name) => {
      if (name.includes('boom')) throw new Error('interpreter exploded');
      return undefined;
    };
    const h = makeHarness({ interpreters: [exploding] });
    diag.setLogger({ error: throwing, warn: throwing, info: quiet, debug: quiet, verbose: quiet }, { logLevel: DiagLogLevel.ALL, suppressOverrideMessage: true });
    expect(() => {
      const span = h.tracer.startSpan('execute_tool boom', { attributes: { [GEN_AI.op]: 'execute_tool' } });
      span.end();
    }).to.not.throw();
    expect(h.finished()).to.have.length(1);
  });

  it('a framework hook whose loopguard step failed still falls back (failOpen), its report dropped', async () => {
    diag.setLogger({ error: throwing, warn: throwing, info: quiet, debug: quiet, verbose: quiet }, { logLevel: DiagLogLevel.ALL, suppressOverrideMessage: true });
    const step = (): never => {
      throw new Error('guard bug');
    };
    expect(failOpen('isEnabled', step, true)).to.equal(true);
    expect(await failOpenAsync('claimCall', step, 'unguarded')).to.equal('unguarded');
  });
});
