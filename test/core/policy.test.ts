import { expect } from 'chai';
import { LoopGuardConfigError } from '../../src/core/errors.js';
import { resolveOptions, validateOptions } from '../../src/core/policy.js';

describe('resolveOptions', () => {
  it('fills the documented defaults per profile from the one shared threshold', () => {
    const general = resolveOptions();
    // The default is the general profile (issue 9): budgets are backstops well above healthy
    // long runs, and only a repeat whose outcome confirmed nothing changes is refused.
    // General: three refused rounds in a row stop (a refusal there already needed a confirmed outcome).
    expect(general).to.include({ profile: 'general', threshold: 5, staleRounds: 5, refusedRounds: 3, consecutiveFailures: 5, backToBackLimit: Infinity });
    expect(resolveOptions({ threshold: 2 })).to.include({ refusedRounds: 2 });
    expect(resolveOptions({ refusedRounds: 5 })).to.include({ refusedRounds: 5 });
    expect(general).to.include({ runWideRepeat: true, maxToolCalls: 2000, maxRounds: 1000 });
    const researcher = resolveOptions({ profile: 'researcher' });
    expect(researcher).to.include({ profile: 'researcher', threshold: 5, staleRounds: 5, refusedRounds: 5, consecutiveFailures: 5, backToBackLimit: 3 });
    expect(researcher).to.include({ runWideRepeat: true, maxToolCalls: 100, maxRounds: 100, overloadedExemptMax: 3, maxStalled: 5, failClosed: false });
    const chat = resolveOptions({ profile: 'chat' });
    expect(chat).to.include({ runWideRepeat: false, maxToolCalls: Infinity, maxRounds: 40 });
    const tuned = resolveOptions({ profile: 'researcher', threshold: 3, staleRounds: 7 });
    expect(tuned).to.include({ staleRounds: 7, refusedRounds: 3, consecutiveFailures: 3 });
    expect(tuned.defaultTool.retries).to.equal(3);
  });

  it('answers tool lookups the same whether cached or not, past the cache bound too (issue 20: misses are cached, up to 1,024 names)', () => {
    const options = resolveOptions({ tools: { search: { exempt: true } } });
    expect(options.tool('search').exempt).to.equal(true);
    expect(options.tool('lookup_order')).to.equal(options.defaultTool);
    expect(options.tool('lookup_order'), 'a cached miss').to.equal(options.defaultTool);
    for (let index = 0; index < 2000; index++) expect(options.tool(`invented_${index}`)).to.equal(options.defaultTool);
    // Names first seen past the bound still resolve by the rules: a well-known shell tool is not the default.
    const bash = options.tool('bash');
    expect(bash).to.not.equal(options.defaultTool);
    expect(bash.shellArg).to.equal('command');
    expect(options.tool('bash'), 'the same resolved policy on every lookup').to.equal(bash);
    expect(options.tool('search').exempt).to.equal(true);
  });

  it('sizes the researcher round limit from its call budget', () => {
    expect(resolveOptions({ profile: 'researcher', maxToolCalls: 30 }).maxRounds).to.equal(30);
  });
});

describe('validateOptions', () => {
  function fieldOf(value: unknown): string {
    try {
      validateOptions(value, 'policy.json');
    } catch (error) {
      expect(error).to.be.instanceOf(LoopGuardConfigError);
      expect((error as Error).message).to.match(/^policy\.json: /);
      return (error as LoopGuardConfigError).field;
    }
    throw new Error('expected a LoopGuardConfigError');
  }

  it('names the offending field, however deep', () => {
    expect(fieldOf({ profile: 'planner' })).to.equal('profile');
    expect(fieldOf({ threshold: 0 })).to.equal('threshold');
    expect(fieldOf({ staleRounds: 2.5 })).to.equal('staleRounds');
    expect(fieldOf({ tools: { search: { poll: { deadlineMs: -1 } } } })).to.equal('tools.search.poll.deadlineMs');
    expect(fieldOf({ tools: { search: { poll: {} } } })).to.equal('tools.search.poll.deadlineMs');
    expect(fieldOf({ tools: { search: { retry: 2 } } })).to.equal('tools.search.retry');
    expect(fieldOf({ tools: { search: { volatileArgs: 'ts' } } })).to.equal('tools.search.volatileArgs');
    expect(fieldOf({ escalation: { disableAfter: 'x' } })).to.equal('escalation.disableAfter');
    expect(fieldOf({ tools: { wait: { exempt: true, poll: { deadlineMs: 10 } } } })).to.equal('tools.wait');
    expect(fieldOf([])).to.equal('(root)');
  });

  it('says what the field takes', () => {
    expect(() => validateOptions({ profile: 'x' })).to.throw(/must be one of "general", "chat", "researcher"/);
    expect(() => validateOptions({ tools: { a: { retry: 1 } } })).to.throw(/not a known option \(known: exempt, approval/);
  });

  it('names a write from a verb; a verb that starts work needs its object (a bare `stop` is WebArena\'s answer)', () => {
    const general = resolveOptions();
    const effects = (names: string[]) => names.map((name) => general.tool(name).effect);
    expect(effects(['update_ticket', 'cancelOrder', 'start_export_job', 'trigger-build', 'launchInstance', 'enqueue_job', 'restart_service'])).to.deep.equal(Array(7).fill('write'));
    expect(effects(['stop', 'start', 'startup_info', 'stoplight', 'run_query', 'get_or_create_user'])).to.deep.equal(Array(6).fill('unknown'));
    expect(general.tool('stop').terminal).to.equal(true);
  });

  it('accepts the example policy of the replay command', () => {
    const policy = { profile: 'researcher', tools: { wait_for_subagent: { exempt: true }, send_email: { approval: true }, check_job_status: { poll: { deadlineMs: 120000 } } } };
    expect(validateOptions(policy)).to.equal(policy);
  });
});
