import { expect } from 'chai';
import { CliOptionError } from '../../src/cli/cli-option-error.js';
import { requireRedisFor } from '../../src/cli/require-redis-for.js';

describe('requireRedisFor', () => {
  it('refuses a Redis-only option given without --redis, naming it', () => {
    expect(() => requireRedisFor('serve', undefined, { '--key-prefix': 'fleet' }))
      .to.throw(CliOptionError, '--key-prefix needs --redis')
      .with.property('flag', '--key-prefix');
  });

  it('lets it through with --redis, and says nothing when it was not given', () => {
    expect(() => requireRedisFor('serve', 'redis://localhost:6379', { '--key-prefix': 'fleet' })).to.not.throw();
    expect(() => requireRedisFor('serve', undefined, { '--key-prefix': undefined })).to.not.throw();
  });
});
