import { expect } from 'chai';
import type { RefuseDecision } from '../../../src/core/types.js';
import { newRun, playRounds, sameDocuments } from '../play.js';

describe('checks/run-wide-repeat', () => {
  it('refuses a call identical to one already run in this run, before it runs, pointing at the earlier result', () => {
    const run = newRun({ profile: 'researcher' });
    const log = playRounds(run, [
      [{ tool: 'lookup_site', args: { connector: 'jira' }, callId: 'call_1', outcome: { result: { siteId: 'S-9' } } }],
      [{ tool: 'search', args: { q: 'x' }, outcome: { result: sameDocuments } }],
      [{ tool: 'lookup_site', args: '{ "connector" : "jira" }', callId: 'call_3' }],
    ]);
    const refusal = log[2]!.decisions[0] as RefuseDecision;
    expect(refusal).to.include({ action: 'refuse', reason: 'repeat.run_wide', previousCallId: 'call_1', previousRound: 1 });
    // Never a bare code (document 000): what happened, where the value is, what to do next.
    expect(refusal.message).to.include('call_1').and.include('already in the conversation').and.include('change the arguments or the approach');
  });

  it('refuses a repeat of an empty result too (empty counts as new once, not forever)', () => {
    const run = newRun({ profile: 'researcher' });
    const log = playRounds(run, [
      [{ tool: 'search', args: { q: 'nothing' }, outcome: { result: { items: [], count: 0 } } }],
      [{ tool: 'search', args: { q: 'nothing' } }],
    ]);
    expect(log[1]!.decisions[0]).to.include({ action: 'refuse', reason: 'repeat.run_wide' });
  });

  it('is off in the chat profile (back-to-back applies there)', () => {
    const run = newRun({ profile: 'chat' });
    const log = playRounds(run, [[{ tool: 'a', args: { q: 1 } }], [{ tool: 'b' }], [{ tool: 'a', args: { q: 1 } }]]);
    expect(log[2]!.decisions[0]).to.include({ action: 'allow', kind: 'repeat' });
  });

  it('refuses a pagination call whose cursor did not advance, in every profile', () => {
    for (const profile of ['chat', 'researcher'] as const) {
      const run = newRun({ profile, tools: { list_issues: { cursorArg: 'cursor' } } });
      const log = playRounds(run, [
        [{ tool: 'list_issues', args: { cursor: null }, outcome: { result: { items: [1, 2], next: 'c2' } } }],
        [{ tool: 'list_issues', args: { cursor: 'c2' }, outcome: { result: { items: [3, 4], next: 'c3' } } }],
        [{ tool: 'list_issues', args: { cursor: 'c2' } }],
      ]);
      expect(log[1]!.decisions[0], profile).to.include({ action: 'allow' });
      expect(log[2]!.decisions[0], profile).to.include({ action: 'refuse', reason: 'pagination.cursor_not_advanced' });
      expect((log[2]!.decisions[0] as RefuseDecision).message).to.include('next cursor');
    }
  });
});

describe('checks/in-flight-repeat', () => {
  it('refuses an identical call still running in the same round (two identical calls in one response)', () => {
    const run = newRun({ profile: 'chat' });
    run.beginRound();
    const first = run.startCall({ tool: 'search', args: { q: 'x' }, callId: 'a' });
    const second = run.startCall({ tool: 'search', args: { q: 'x' }, callId: 'b' });
    expect(first.decision.action).to.equal('allow');
    expect(second.decision).to.include({ action: 'refuse', reason: 'repeat.in_flight', previousCallId: 'a' });
    run.finishCall(first, { result: sameDocuments });
    run.recordCall({ tool: 'other' }, { result: { n: 1 } });
    // Once it finished, the chat profile allows a later identical call (no run-wide check).
    expect(run.startCall({ tool: 'search', args: { q: 'x' } }).decision.action).to.equal('allow');
  });
});

describe('checks/back-to-back-repeat', () => {
  it('refuses the 3rd consecutive identical call; another tool in between starts the count over', () => {
    const run = newRun({ profile: 'chat' });
    const same = { tool: 'get_site', args: { id: 1 }, outcome: { result: { site: 'S' } } };
    const log = playRounds(run, [[same], [same], [same], [{ tool: 'other', outcome: { result: { n: 1 } } }], [same], [same]]);
    expect(log.map((round) => round.decisions[0]!.action)).to.deep.equal(['allow', 'allow', 'refuse', 'allow', 'allow', 'allow']);
    expect(log[2]!.decisions[0]).to.include({ reason: 'repeat.back_to_back' });
    expect((log[2]!.decisions[0] as RefuseDecision).message).to.include('use that value');
  });

  it('keeps refusing a model that insists, and counts the refusals as failures of that tool in chat', () => {
    const run = newRun({ profile: 'chat' });
    const same = { tool: 'get_site', args: { id: 1 }, outcome: { result: { site: 'S' } } };
    const log = playRounds(run, [[same], [same], [same], [same], [same], [same], [same], [same]]);
    expect(log.slice(2).every((round) => round.decisions[0]!.action === 'refuse')).to.equal(true);
    const stop = log.at(-1)!.after;
    expect(stop.action).to.equal('stop');
    // Rounds 3-7 were all refused: the refused-round streak reaches 5 at round 7, the same
    // round the 5 insisted refusals reach 5 consecutive failures of get_site.
    expect(log.length).to.equal(7);
    expect(stop).to.include({ reason: 'refused_rounds' });
    expect(run.partial().tools.get_site!.failures).to.equal(5);
  });

  it('honours a tuned limit', () => {
    const run = newRun({ profile: 'chat', backToBackLimit: 2 });
    const same = { tool: 't', args: {}, outcome: { result: { v: 1 } } };
    const log = playRounds(run, [[same], [same]]);
    expect(log[1]!.decisions[0]!.action).to.equal('refuse');
  });
});

describe('checks/exempt-tools', () => {
  it('lets an exempt tool repeat its arguments, and its unchanged answers never make a round stale', () => {
    const run = newRun({ tools: { wait_for_subagent: { exempt: true } } });
    const wait = { tool: 'wait_for_subagent', args: { agent: 'r-1' }, outcome: { result: { status: 'running' } } };
    const log = playRounds(run, Array.from({ length: 12 }, () => [wait]));
    expect(log).to.have.length(12);
    expect(log.every((round) => round.decisions[0]!.action === 'allow' && round.after.action === 'continue')).to.equal(true);
    expect(run.staleRoundStreak).to.equal(0);
  });

  it('is still bounded by the budgets', () => {
    const run = newRun({ maxToolCalls: 4, tools: { wait_for_subagent: { exempt: true } } });
    const wait = { tool: 'wait_for_subagent', args: { agent: 'r-1' }, outcome: { result: { status: 'running' } } };
    const log = playRounds(run, Array.from({ length: 10 }, () => [wait]));
    expect(log.at(-1)!.after).to.include({ action: 'stop', reason: 'max_tool_calls' });
    expect(log).to.have.length(4);
  });
});

describe('checks/outcome-confirmed-repeat', () => {
  it('refuses the third identical shell command once two runs gave one outcome; the message says how to wait instead (a command that sleeps first)', () => {
    const pods = (age: string) => `NAME    READY   STATUS              RESTARTS   AGE\nweb-1   0/1     ContainerCreating   0          ${age}`;
    const run = newRun();
    const log = playRounds(run, [
      [{ tool: 'bash', args: { command: 'kubectl get pods' }, outcome: { result: pods('5s') } }],
      [{ tool: 'bash', args: { command: 'kubectl get pods' }, outcome: { result: pods('12s') } }],
      [{ tool: 'bash', args: { command: 'kubectl get pods' } }],
      [{ tool: 'bash', args: { command: 'sleep 15 && kubectl get pods' }, outcome: { result: pods('30s') } }],
    ]);
    const refusal = log[2]!.decisions[0] as RefuseDecision;
    expect(refusal).to.include({ action: 'refuse', reason: 'repeat.unchanged' });
    expect(refusal.message).to.include('returned the same result each time').and.include('`sleep 30 && …`');
    // The wait it suggests is a poll, and runs.
    expect(log[3]!.decisions[0]).to.include({ action: 'allow' });
  });

  it('says nothing of waiting for a tool that is not a shell', () => {
    const run = newRun({ tools: { deploy_status: { writes: true } } });
    const log = playRounds(run, [
      [{ tool: 'deploy_status', args: { id: 7 }, outcome: { result: { state: 'failed' } } }],
      [{ tool: 'deploy_status', args: { id: 7 }, outcome: { result: { state: 'failed' } } }],
      [{ tool: 'deploy_status', args: { id: 7 } }],
    ]);
    const refusal = log[2]!.decisions[0] as RefuseDecision;
    expect(refusal).to.include({ action: 'refuse', reason: 'repeat.unchanged' });
    expect(refusal.message).to.not.include('sleep');
  });
});

describe('checks/outcome-confirmed-repeat: a write answering with a new record each time', () => {
  const ticket = (id: number, title = 'Login broken') => ({ result: { id: `T-${id}`, title, status: 'open', created_at: `2026-12-01T10:00:0${id % 10}Z` } });

  it('the same create_ticket again answers the same but for the new id: the third identical create is refused, the run stops', () => {
    const run = newRun();
    const log = playRounds(run, Array.from({ length: 6 }, (_, i) => [{ tool: 'create_ticket', args: { title: 'Login broken', priority: 'high' }, outcome: ticket(1001 + i) }]));
    expect(log.map((round) => round.decisions[0]!.action).slice(0, 3)).to.deep.equal(['allow', 'allow', 'refuse']);
    expect(log[2]!.decisions[0]).to.include({ reason: 'repeat.unchanged' });
    expect(run.shouldStop()).to.include({ action: 'stop', reason: 'refused_rounds' });
  });

  it('fifteen different tickets created in a row are neither refused nor a stop', () => {
    const run = newRun();
    const log = playRounds(run, Array.from({ length: 15 }, (_, i) => [{ tool: 'create_ticket', args: { title: `Bug ${i}` }, outcome: { result: { id: `T-${1001 + i}`, status: 'open' } } }]));
    expect(log.every((round) => round.decisions[0]!.action === 'allow')).to.equal(true);
    expect(run.shouldStop().action).to.equal('continue');
  });
});
