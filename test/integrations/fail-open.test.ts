// The adapters' one safety net: a guard step that throws must leave the agent running as if
// loopguard were not installed, and say so on OpenTelemetry's diagnostic channel.
import { expect } from 'chai';
import { diag, DiagLogLevel, type DiagLogger } from '@opentelemetry/api';

import { failOpen } from '../../src/integrations/fail-open.js';

describe('failOpen (adapters)', () => {
  const warnings: string[] = [];
  const logger: DiagLogger = {
    error: () => {},
    warn: (message: string) => warnings.push(message),
    info: () => {},
    debug: () => {},
    verbose: () => {},
  };
  before(() => diag.setLogger(logger, { logLevel: DiagLogLevel.WARN, suppressOverrideMessage: true }));
  after(() => diag.disable());

  it('returns the step result when the step works', () => {
    expect(failOpen('startCall(search)', () => 42, 0)).to.equal(42);
    expect(warnings).to.deep.equal([]);
  });

  it('returns the fallback and warns on diag when the step throws', () => {
    const result = failOpen<string | undefined>('startCall(search)', () => {
      throw new Error('ledger corrupted');
    }, undefined);
    expect(result).to.equal(undefined);
    expect(warnings).to.deep.equal(['loopguard: startCall(search) failed; continuing without the guard for this step']);
  });
});
