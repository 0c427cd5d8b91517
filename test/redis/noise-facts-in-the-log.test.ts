// Issue 24: facts about a failure that the engine derives when it records the outcome (the
// error is about the run's state, or about the arguments) decide same-failure-across-tools and
// the narrowing lookups of issue 18 #3. With a shared store every replica rebuilds the run from
// the log, so those facts must travel in it: two engines sharing one run through a real Redis,
// calls alternating between them, must decide exactly as one engine in one process does.
import { expect } from 'chai';
import { LoopGuard } from '../../src/core/loop-guard.js';
import type { CallOutcome, LoopGuardOptions } from '../../src/core/types.js';
import { createRedisRunStore } from '../../src/redis/index.js';
import { startRedisServer, type RedisServer } from '../helpers/redis-servers.js';

interface ScriptedCall {
  tool: string;
  args: Record<string, unknown>;
  outcome: CallOutcome;
}

/** What one engine decides, call by call, with the stop verdict after each round. */
function inOneProcess(policy: LoopGuardOptions, calls: readonly ScriptedCall[]): string[] {
  const run = new LoopGuard(policy).startRun('reference');
  const trace: string[] = [];
  for (const call of calls) {
    run.beginRound();
    const ticket = run.startCall({ tool: call.tool, args: call.args });
    trace.push(ticket.decision.action === 'allow' ? 'allow' : ticket.decision.reason);
    if (ticket.decision.action === 'allow') run.finishCall(ticket, call.outcome);
    const verdict = run.shouldStop();
    trace.push(verdict.action === 'stop' ? `stop:${verdict.reason}` : 'continue');
    if (verdict.action === 'stop') break;
  }
  return trace;
}

// A GitHub token expired mid-run: every tool answers the same 401, each with its own request id
// (noise, issue 24 #1). The shape is the REST API's error body.
function expiredToken(requestId: string): CallOutcome {
  return {
    error: {
      name: 'HttpError',
      status: 401,
      message: `Bad credentials - https://docs.github.com/rest (x-github-request-id: ${requestId})`,
    },
  };
}

const SAME_401_ACROSS_TOOLS: ScriptedCall[] = [
  { tool: 'list_issues', args: { repo: 'acme/api', state: 'open' }, outcome: expiredToken('C1F2:3A9B:1D7E0F:2B4C61:6760A1B2') },
  { tool: 'get_user', args: { login: 'octocat' }, outcome: expiredToken('C1F2:3A9B:1D7E3A:2B4C88:6760A1B5') },
  { tool: 'search_code', args: { q: 'refresh_token repo:acme/api' }, outcome: expiredToken('C1F2:3A9B:1D7E51:2B4CA0:6760A1B9') },
  { tool: 'list_issues', args: { repo: 'acme/api', state: 'closed' }, outcome: expiredToken('C1F2:3A9B:1D7E77:2B4CC3:6760A1BC') },
  { tool: 'get_user', args: { login: 'hubot' }, outcome: expiredToken('C1F2:3A9B:1D7E9C:2B4CE9:6760A1C0') },
  { tool: 'search_code', args: { q: 'token expiry repo:acme/api' }, outcome: expiredToken('C1F2:3A9B:1D7EC2:2B4D10:6760A1C4') },
  { tool: 'list_issues', args: { repo: 'acme/web', state: 'open' }, outcome: expiredToken('C1F2:3A9B:1D7EE8:2B4D35:6760A1C7') },
];

// tau-bench's retail tools: an agent looking a customer up by other emails and names, each
// lookup failing for the first time that no such user exists. Narrowing down (issue 18 #3):
// no stop, however many (up to 2 × consecutiveFailures). Eleven, so each engine sees at least
// consecutiveFailures of the other's; the eleventh is past the bound and counts again, one failure.
const NARROWING_LOOKUPS: ScriptedCall[] = [
  'yusuf.rossi@example.com',
  'yusuf.rossi19@example.com',
  'y.rossi@example.com',
  'yusuf_rossi@example.com',
  'rossi.yusuf@example.com',
  'yrossi@example.com',
  'yusuf@rossi.example.com',
  'yusuf.r@example.com',
  'rossi@example.com',
  'yusuf.rossi@example.org',
  'yusuf.rossi@mail.example.com',
].map((email) => ({ tool: 'find_user_id_by_email', args: { email }, outcome: { error: { name: 'Error', message: 'Error: user not found' } } }));

describe('issue 24: noise facts travel in the shared run log (real Redis)', function () {
  this.timeout(30_000);
  let server: RedisServer;
  let trial = 0;
  before(async () => {
    server = await startRedisServer();
  });
  after(async () => {
    await server.stop();
  });

  /** Two engines, one run: call i is claimed, finished and judged by engine i mod 2. */
  async function alternating(policy: LoopGuardOptions, calls: readonly ScriptedCall[]): Promise<string[]> {
    trial += 1;
    const keyPrefix = `noise-facts-${trial}`;
    const engines = await Promise.all(
      [0, 1].map(async () => new LoopGuard({ ...policy, store: createRedisRunStore({ client: await server.client(), keyPrefix, timeoutMs: 2000 }), logger: { warn: () => undefined } })),
    );
    const trace: string[] = [];
    for (const [index, call] of calls.entries()) {
      const engine = engines[index % 2]!;
      // Each engine catches up with what the other logged before it acts.
      const run = await engine.resumeRun('shared');
      run.beginRound();
      const ticket = await run.claimCall({ tool: call.tool, args: call.args });
      trace.push(ticket.decision.action === 'allow' ? 'allow' : ticket.decision.reason);
      if (ticket.decision.action === 'allow') run.finishCall(ticket, call.outcome);
      const verdict = run.shouldStop();
      trace.push(verdict.action === 'stop' ? `stop:${verdict.reason}` : 'continue');
      await engine.flush();
      if (verdict.action === 'stop') break;
    }
    return trace;
  }

  it('the same 401 from three tools in turn stops at the same call as in one process', async () => {
    const reference = inOneProcess({}, SAME_401_ACROSS_TOOLS);
    // The in-process engine stops at the fifth failure (the scenario would be meaningless otherwise).
    expect(reference.at(-1)).to.equal('stop:consecutive_failures');
    expect(reference.filter((step) => step === 'allow')).to.have.length(5);
    expect(await alternating({}, SAME_401_ACROSS_TOOLS)).to.deep.equal(reference);
  });

  it('lookups narrowing down by other emails are not stopped, as in one process', async () => {
    const reference = inOneProcess({}, NARROWING_LOOKUPS);
    expect(reference).not.to.include('stop:consecutive_failures');
    expect(await alternating({}, NARROWING_LOOKUPS)).to.deep.equal(reference);
  });

  it('a replica joining afterwards holds the same failure streak (a stop latched by neither engine)', async () => {
    // Four failures: below the limit, so no stop entry carries the verdict; the fifth, judged
    // by a third engine that has only the log, must stop.
    trial += 1;
    const keyPrefix = `noise-facts-${trial}`;
    const engine = async () => new LoopGuard({ store: createRedisRunStore({ client: await server.client(), keyPrefix, timeoutMs: 2000 }), logger: { warn: () => undefined } });
    const writer = await engine();
    const run = writer.startRun('joined');
    for (const call of SAME_401_ACROSS_TOOLS.slice(0, 4)) {
      run.beginRound();
      run.finishCall(await run.claimCall({ tool: call.tool, args: call.args }), call.outcome);
      expect(run.shouldStop().action).to.equal('continue');
    }
    await writer.flush();
    const joined = await (await engine()).resumeRun('joined');
    joined.beginRound();
    const fifth = SAME_401_ACROSS_TOOLS[4]!;
    joined.finishCall(await joined.claimCall({ tool: fifth.tool, args: fifth.args }), fifth.outcome);
    expect(joined.shouldStop()).to.include({ action: 'stop', reason: 'consecutive_failures' });
  });
});
