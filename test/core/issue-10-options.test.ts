import { expect } from 'chai';
import { LoopGuardConfigError } from '../../src/core/errors.js';
import { LoopGuard } from '../../src/core/loop-guard.js';

function rejectedField(options: unknown): { field: string; message: string } {
  try {
    new LoopGuard(options as ConstructorParameters<typeof LoopGuard>[0]);
  } catch (error) {
    expect(error, String(error)).to.be.instanceOf(LoopGuardConfigError);
    return { field: (error as LoopGuardConfigError).field, message: (error as Error).message };
  }
  throw new Error(`expected new LoopGuard(${String(options)}) to throw a LoopGuardConfigError`);
}

describe('LoopGuard constructor options (issue 10 #16)', () => {
  it('issue 10 #16: rejects every bad engine option at construction, naming the field', () => {
    const warnings: string[] = [];
    const logger = { warn: (message: string) => warnings.push(message) };
    const bad: Array<[Record<string, unknown>, string]> = [
      [{ maxOpenRuns: -5 }, 'maxOpenRuns'],
      [{ maxOpenRuns: 0 }, 'maxOpenRuns'],
      [{ maxOpenRuns: 1.5 }, 'maxOpenRuns'],
      [{ maxOpenRuns: Number.NaN }, 'maxOpenRuns'],
      [{ maxOpenRuns: '10' }, 'maxOpenRuns'],
      [{ maxOpenRuns: null }, 'maxOpenRuns'],
      [{ endedRunTtlMs: -1 }, 'endedRunTtlMs'],
      [{ endedRunTtlMs: Infinity }, 'endedRunTtlMs'],
      [{ maxIdleMs: 0 }, 'maxIdleMs'],
      [{ maxIdleMs: -Infinity }, 'maxIdleMs'],
      [{ maxIdleMs: '30m' }, 'maxIdleMs'],
      [{ listeners: 5 }, 'listeners'],
      [{ listeners: {} }, 'listeners'],
      [{ listeners: [null] }, 'listeners[0]'],
      [{ listeners: [{}, { runStarted: 'yes' }] }, 'listeners[1].runStarted'],
      [{ logger: {} }, 'logger'],
      [{ logger: 5 }, 'logger'],
      [{ logger: { warn: 'console' } }, 'logger'],
    ];
    for (const [options, field] of bad) {
      expect(rejectedField({ logger, ...options }).field, JSON.stringify(options)).to.equal(field);
    }
    expect(warnings, 'nothing falls back with a warning').to.deep.equal([]);
    expect(rejectedField(null).field).to.equal('(root)');
    expect(rejectedField(5).field).to.equal('(root)');
  });

  it('issue 10 #16: rejects bad policy options at construction too', () => {
    expect(rejectedField({ threshold: 0 }).field).to.equal('threshold');
    expect(rejectedField({ profile: 'planner' }).field).to.equal('profile');
    expect(rejectedField({ tools: { search: { retries: -1 } } }).field).to.equal('tools.search.retries');
    expect(rejectedField({ maxToolCalls: 10n }).field).to.equal('maxToolCalls');
    expect(rejectedField({ volatileArgs: [Symbol('x')] }).field).to.equal('volatileArgs');
    expect(rejectedField({ unknownOption: 1 }).field).to.equal('unknownOption');
  });

  it('issue 10 #16: reports the actual bad value, not its JSON rendering', () => {
    expect(rejectedField({ threshold: 1e999 }).message).to.include('got Infinity').and.not.include('null');
    expect(rejectedField({ threshold: Number.NaN }).message).to.include('got NaN');
    expect(rejectedField({ maxIdleMs: -Infinity }).message).to.include('got -Infinity');
    expect(rejectedField({ maxOpenRuns: 10n }).message).to.include('got 10n');
    expect(rejectedField({ threshold: '5' }).message).to.include('got "5"');
    const cyclic: Record<string, unknown> = {};
    cyclic.self = cyclic;
    expect(rejectedField({ threshold: cyclic }).field).to.equal('threshold');
  });

  it('issue 10 #16: accepts the good engine options it documents', () => {
    const guard = new LoopGuard({
      maxOpenRuns: 3,
      endedRunTtlMs: 0,
      maxIdleMs: Infinity,
      listeners: [{ runStarted() {} }, {}],
      logger: { warn() {} },
    });
    expect(guard.startRun('a')).to.exist;
    expect(new LoopGuard().startRun('b')).to.exist;
    expect(new LoopGuard(undefined).startRun('c')).to.exist;
  });
});
