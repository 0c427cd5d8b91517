import { expect } from 'chai';
import { CliOptionError } from '../../src/cli/cli-option-error.js';
import { MAX_TIMER_MS, wholeNumberOption } from '../../src/cli/whole-number-option.js';

describe('wholeNumberOption', () => {
  const port = wholeNumberOption('serve', '--port', { min: 0, max: 65535 });

  it('takes plain digits within the range, edges included', () => {
    expect(port('0')).to.equal(0);
    expect(port('65535')).to.equal(65535);
    expect(wholeNumberOption('runs', '--timeout-ms', { min: 1, max: MAX_TIMER_MS })(String(MAX_TIMER_MS))).to.equal(2 ** 31 - 1);
  });

  it('refuses what Number() would take but no one means as a count, with a CliOptionError naming the flag', () => {
    for (const value of ['', ' 7', '7 ', '1e3', '0x10', '1.5', '-1', '65536', 'abc', '9007199254740993']) {
      let thrown: unknown;
      try {
        port(value);
      } catch (error) {
        thrown = error;
      }
      expect(thrown, JSON.stringify(value)).to.be.instanceOf(CliOptionError);
      const error = thrown as CliOptionError;
      expect(error.command).to.equal('serve');
      expect(error.flag).to.equal('--port');
      expect(error.message).to.equal(`--port must be a whole number from 0 to 65535, got ${JSON.stringify(value)}`);
    }
  });

  it('says the unit, and "≥ min" when there is no upper bound', () => {
    expect(() => wholeNumberOption('runs', '--limit', { min: 1 })('0')).to.throw('--limit must be a whole number ≥ 1, got "0"');
    expect(() => wholeNumberOption('mcp-proxy', '--round-gap-ms', { min: 0, max: 10, unit: 'milliseconds' })('11')).to.throw(
      '--round-gap-ms must be a whole number of milliseconds from 0 to 10, got "11"',
    );
  });
});
