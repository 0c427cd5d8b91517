import { expect } from 'chai';
import { LoopGuardConfigError } from '../../src/core/errors.js';

/** One bad setup of an integration: its label, the call, the field it must name, its message. */
export type SetupCase = [setup: string, call: () => unknown, field: string, message: RegExp];

/** Each setup throws a LoopGuardConfigError naming its field, with its message (src/integrations/require-setup-option.ts). */
export function expectSetupErrors(setups: readonly SetupCase[]): void {
  for (const [setup, call, field, message] of setups) {
    let error: unknown;
    try {
      call();
    } catch (thrown) {
      error = thrown;
    }
    expect(error, setup).to.be.instanceOf(LoopGuardConfigError).with.property('field', field);
    expect((error as Error).message, setup).to.match(message);
  }
}
