import { expect } from 'chai';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { CliOptionError } from '../../src/cli/cli-option-error.js';
import { createCliGuard, type CreateCliGuardOptions } from '../../src/cli/create-cli-guard.js';

describe('createCliGuard (the one door serve and mcp-proxy build their guard through)', () => {
  const folder = mkdtempSync(join(tmpdir(), 'loopguard-cli-guard-'));
  after(() => rmSync(folder, { recursive: true, force: true }));
  const said: string[] = [];
  const base = (options: Partial<CreateCliGuardOptions>): CreateCliGuardOptions => ({
    command: 'serve',
    serviceName: 'loopguard-serve',
    exportSpans: false,
    env: {},
    say: (text) => said.push(text),
    ...options,
  });
  const refusal = async (options: Partial<CreateCliGuardOptions>): Promise<CliOptionError> => {
    try {
      await createCliGuard(base(options));
    } catch (error) {
      if (error instanceof CliOptionError) return error;
      throw error;
    }
    throw new Error('createCliGuard accepted it');
  };

  it('builds the guard under the policy file, and says each stopped run on stderr with the command name', async () => {
    const policy = join(folder, 'policy.json');
    writeFileSync(policy, JSON.stringify({ maxRounds: 1 }));
    said.length = 0;
    const { guard, close } = await createCliGuard(base({ command: 'mcp-proxy', policy }));
    const run = guard.startRun('r1');
    for (let round = 0; round < 3 && run.shouldStop().action === 'continue'; round++) {
      run.beginRound();
      run.recordCall({ tool: 'search', args: { q: round } }, { result: `page ${round}` });
    }
    expect(run.stopped?.reason).to.equal('max_rounds');
    expect(said.some((line) => /^loopguard mcp-proxy: stopped run r1 at round \d+ \(max_rounds\)/.test(line)), said.join('\n')).to.equal(true);
    await close();
  });

  it('refuses, naming the flag: a Redis-only option without --redis, a bad --redis URL, a bad prefix, a bad policy field', async () => {
    expect((await refusal({ keyPrefix: 'fleet' })).flag).to.equal('--key-prefix');
    expect((await refusal({ redis: 'http://localhost:6379' })).flag).to.equal('--redis');
    expect((await refusal({ redis: 'redis://localhost:6379', keyPrefix: '{x}' })).flag).to.equal('--key-prefix');
    const bad = join(folder, 'bad.json');
    writeFileSync(bad, JSON.stringify({ maxRounds: 'ten' }));
    const policyError = await refusal({ policy: bad });
    expect(policyError.flag).to.equal('--policy');
    expect(policyError.message).to.match(new RegExp(`^${bad.replace(/[.*+?^${}()|[\]\\/]/g, '\\$&')}: maxRounds: `));
  });
});
