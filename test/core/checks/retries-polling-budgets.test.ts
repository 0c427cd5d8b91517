import { expect } from 'chai';
import type { RefuseDecision } from '../../../src/core/types.js';
import { LoopGuard } from '../../../src/core/loop-guard.js';
import { createMemoryRunStore } from '../../../src/core/shared-ledger/create-memory-run-store.js';
import { kinds, newRun, playRounds, type ScriptedCall } from '../play.js';

describe('checks/retry-budget', () => {
  const unavailable = { error: { status: 503, type: 'ServiceUnavailable', message: '503 Service Unavailable' } };

  it('lets an honest retry through: 503 four times then success on the fifth (document 003)', () => {
    const run = newRun({ overloadedExemptMax: 0 });
    const call = (outcome: ScriptedCall['outcome']): ScriptedCall => ({ tool: 'billing_rpc', args: { invoice: 'INV-7' }, outcome });
    const log = playRounds(run, [[call(unavailable)], [call(unavailable)], [call(unavailable)], [call(unavailable)], [call({ result: { paid: true } })]]);
    expect(log.map((round) => round.decisions[0]!.action)).to.deep.equal(['allow', 'allow', 'allow', 'allow', 'allow']);
    expect(log.slice(1).map((round) => round.decisions[0])).to.satisfy((ds: Array<{ kind?: string }>) => ds.every((d) => d.kind === 'retry'));
    expect(log.at(-1)!.after.action).to.equal('continue');
    // Repeated errors are a retry, not a stale answer: no "try a different approach" nudge.
    expect(log.some((round) => round.after.action === 'continue' && round.after.nudge !== undefined)).to.equal(false);
  });

  it('lets the same retry through when the tool reports the 503 in its result, as chat transcripts and tool wrappers do', () => {
    const reports: unknown[] = [
      { error: '503 Service Unavailable' },
      { error: { code: 429, message: 'Rate limit exceeded, retry later' } },
      { status: 503, message: 'Service Unavailable' },
      'Error: 503 Service Unavailable',
      JSON.stringify({ error: 'upstream request timed out' }),
      { content: [{ type: 'text', text: 'Error: the billing service is temporarily unavailable' }] },
    ];
    for (const report of reports) {
      const call = (outcome: ScriptedCall['outcome']): ScriptedCall => ({ tool: 'billing_rpc', args: { invoice: 'INV-7' }, outcome });
      const log = playRounds(newRun({ overloadedExemptMax: 0 }), [1, 2, 3, 4].map(() => [call({ result: report })]).concat([[call({ result: { paid: true } })]]));
      expect(kinds(log.flatMap((round) => round.decisions)), JSON.stringify(report)).to.deep.equal(['allow:new', 'allow:retry', 'allow:retry', 'allow:retry', 'allow:retry']);
      expect(log.at(-1)!.after.action, JSON.stringify(report)).to.equal('continue');
    }
    // Past the budget it is refused and stopped like a thrown 503.
    const stuck = playRounds(newRun({ overloadedExemptMax: 0 }), Array.from({ length: 8 }, () => [{ tool: 'billing_rpc', args: { invoice: 'INV-7' }, outcome: { result: 'Error: 503 Service Unavailable' } }]));
    expect(stuck.at(-1)!.after.action).to.equal('stop');
  });

  it('keeps a deterministic error in a result, a shell program saying "timed out" and an answer carrying an error member as answers', () => {
    const repeat = (tool: string, args: Record<string, unknown>, result: unknown) =>
      kinds(playRounds(newRun(), [1, 2, 3].map(() => [{ tool, args, outcome: { result } }])).flatMap((round) => round.decisions));
    // The same lookup answering the same "not found" twice: the third is a confirmed repeat.
    expect(repeat('find_user_id_by_email', { email: 'a@b.c' }, 'Error: user not found')).to.deep.equal(['allow:new', 'allow:repeat', 'refuse:repeat.unchanged']);
    // A failing test that times out is the program's answer.
    expect(repeat('bash', { command: 'pytest tests/test_net.py' }, 'Error: test_fetch timed out after 5.0 seconds')).to.deep.equal(['allow:new', 'allow:repeat', 'refuse:repeat.unchanged']);
    // Data with an error member among many others is an answer.
    const report = { id: 7, name: 'nightly', state: 'failed', error: 'worker timed out', started: '2026-12-01', steps: 4 };
    expect(repeat('get_job', { id: 7 }, report)).to.deep.equal(['allow:new', 'allow:repeat', 'refuse:repeat.unchanged']);
  });

  it('holds the identical write whose result reports a timeout until the model looks, as a thrown timeout', () => {
    const create = { tool: 'create_order', args: { sku: 'A1', qty: 1 }, outcome: { result: { error: 'Gateway Timeout', status: 504 } } };
    const log = playRounds(newRun(), [[create], [create], [{ tool: 'list_orders', args: {}, outcome: { result: [{ id: 'o-1', sku: 'A1' }] } }], [create]]);
    expect(kinds(log.flatMap((round) => round.decisions))).to.deep.equal(['allow:new', 'refuse:write.outcome_unknown', 'allow:new', 'allow:retry']);
  });

  it('stops the attempt-counter retry of document 003 within 5 iterations, not 340', () => {
    const run = newRun();
    const log = playRounds(
      run,
      Array.from({ length: 340 }, (_, i) => [
        { tool: 'search_docs', args: { query: 'quarterly report', attempt: i + 1 }, outcome: { error: { type: 'UpstreamError', message: 'index unavailable' } } },
      ]),
    );
    expect(log.length).to.be.at.most(6);
    expect(log.at(-1)!.after).to.include({ action: 'stop', reason: 'consecutive_failures' });
  });

  it('refuses unchanged retries past the tool budget, with a message saying to change something', () => {
    const run = newRun({ tools: { flaky: { retries: 2 } }, consecutiveFailures: 10 });
    const fail: ScriptedCall = { tool: 'flaky', args: { id: 1 }, outcome: { error: { type: 'Bad', message: 'bad id' } } };
    const log = playRounds(run, [[fail], [fail], [fail], [fail]]);
    expect(log.map((round) => round.decisions[0]!.action)).to.deep.equal(['allow', 'allow', 'allow', 'refuse']);
    const refusal = log[3]!.decisions[0] as RefuseDecision;
    expect(refusal.reason).to.equal('retry.budget_exhausted');
    expect(refusal.message).to.include('fix the arguments');
  });

  it('a success ends the retry: repeating it afterwards is a repeat again', () => {
    const run = newRun({ profile: 'researcher' });
    const log = playRounds(run, [
      [{ tool: 't', args: { a: 1 }, outcome: { error: { type: 'x', message: 'y' } } }],
      [{ tool: 't', args: { a: 1 }, outcome: { result: { v: 1 } } }],
      [{ tool: 't', args: { a: 1 } }],
    ]);
    expect(log[2]!.decisions[0]).to.include({ action: 'refuse', reason: 'repeat.run_wide' });
  });
});

describe('checks/read-after-write', () => {
  it('lets earlier reads run again once a tool with side effects has run', () => {
    const run = newRun({ profile: 'researcher', tools: { update_ticket: { approval: true } } });
    const read: ScriptedCall = { tool: 'get_ticket', args: { id: 7 }, outcome: { result: { status: 'open' } } };
    const log = playRounds(run, [
      [read],
      [read],
      [{ tool: 'update_ticket', args: { id: 7, status: 'closed' }, outcome: { result: { ok: true } } }],
      [{ ...read, outcome: { result: { status: 'closed' } } }],
      [read],
    ]);
    expect(log[1]!.decisions[0]).to.include({ action: 'refuse', reason: 'repeat.run_wide' });
    expect(log[3]!.decisions[0]).to.include({ action: 'allow', kind: 'reread' });
    expect(log[4]!.decisions[0]).to.include({ action: 'refuse', reason: 'repeat.run_wide' });
  });

  it('a failed write changes nothing', () => {
    const run = newRun({ profile: 'researcher', tools: { update_ticket: { approval: true } } });
    const read: ScriptedCall = { tool: 'get_ticket', args: { id: 7 }, outcome: { result: { status: 'open' } } };
    const log = playRounds(run, [[read], [{ tool: 'update_ticket', args: { id: 7 }, outcome: { error: { type: 'Denied', message: 'no' } } }], [read]]);
    expect(log[2]!.decisions[0]).to.include({ action: 'refuse' });
  });
});

describe('checks/polling', () => {
  const poll = (at: number, status = 'running'): ScriptedCall => ({ tool: 'check_job_status', args: { job: 'J1' }, at, outcome: { result: { status } } });

  it('allows identical polls until the deadline, and unchanged answers do not make rounds stale', () => {
    const run = newRun({ tools: { check_job_status: { poll: { deadlineMs: 60_000 } } } });
    const log = playRounds(run, [...Array.from({ length: 10 }, (_, i) => [poll(1_000 + i * 5_000)]), [poll(52_000, 'done')]]);
    expect(log).to.have.length(11);
    expect(log.every((round) => round.decisions[0]!.action === 'allow' && round.after.action === 'continue')).to.equal(true);
    expect(run.staleRoundStreak).to.equal(0);
  });

  it('refuses identical polls past the deadline, telling the model to report the last status', () => {
    const run = newRun({ tools: { check_job_status: { poll: { deadlineMs: 10_000 } } } });
    const log = playRounds(run, [[poll(0)], [poll(5_000)], [poll(10_001)]]);
    const refusal = log[2]!.decisions[0] as RefuseDecision;
    expect(refusal).to.include({ action: 'refuse', reason: 'poll.deadline_passed' });
    expect(refusal.message).to.include('report the last status');
  });

  it('refuses polls that come sooner than minIntervalMs', () => {
    const run = newRun({ tools: { check_job_status: { poll: { deadlineMs: 60_000, minIntervalMs: 2_000 } } } });
    const log = playRounds(run, [[poll(0)], [poll(500)], [poll(2_600)]]);
    expect(log.map((round) => round.decisions[0]!.action)).to.deep.equal(['allow', 'refuse', 'allow']);
    expect(log[1]!.decisions[0]).to.include({ reason: 'poll.too_soon' });
  });

  it('judges a reworded poll that returns an answer already seen like any other call', () => {
    const run = newRun({ tools: { check_job_status: { poll: { deadlineMs: 3_000 } } }, escalation: { enabled: false } });
    // Different arguments each time: never an identical poll, so never neutral.
    const log = playRounds(run, Array.from({ length: 12 }, (_, i) => [{ tool: 'check_job_status', args: { job: 'J1', verbose: i }, at: i * 1_000, outcome: { result: { status: 'running' } } }]));
    expect(log.at(-1)!.after).to.include({ action: 'stop', reason: 'stale_rounds' });
  });
});

describe('checks/polling: shell polls (issue 24 #4)', () => {
  const shell = (command: string, at: number, result = 'STATUS: Pending'): ScriptedCall => ({ tool: 'bash', args: { command }, at, outcome: { result } });

  it('a shell command that sleeps then reads is a poll: identical calls run until the default 10-minute deadline, then are refused', () => {
    const run = newRun();
    const log = playRounds(run, Array.from({ length: 26 }, (_, i) => [shell('sleep 20; kubectl get pods', i * 25_000)]));
    const actions = log.map((round) => round.decisions[0]!.action);
    // 600 s / 25 s: calls 0..24 are inside the deadline.
    expect(actions.slice(0, 25).every((action) => action === 'allow')).to.equal(true);
    expect(log[25]!.decisions[0]).to.include({ action: 'refuse', reason: 'poll.deadline_passed' });
  });

  it('a line that looks then sleeps, or loops with a sleep in it, paces its looks the same way: a poll', () => {
    for (const command of ['kubectl get pods; sleep 20', 'for i in 1 2 3; do kubectl get pods; sleep 5; done']) {
      const log = playRounds(newRun(), Array.from({ length: 6 }, (_, i) => [shell(command, i * 25_000, 'STATUS: CrashLoopBackOff')]));
      expect(kinds(log.flatMap((round) => round.decisions)), command).to.deep.equal(['allow:new', ...Array(5).fill('allow:poll')]);
    }
  });

  it('the same command without the sleep is no poll: an unchanged answer is refused as a confirmed repeat', () => {
    const run = newRun();
    const log = playRounds(run, Array.from({ length: 4 }, (_, i) => [shell('kubectl get pods', i * 25_000, 'STATUS: CrashLoopBackOff')]));
    expect(log.some((round) => round.decisions[0]!.action === 'refuse')).to.equal(true);
  });

  it('… unless its answer says the state is still moving (`STATUS: Pending`): then it polls', () => {
    const run = newRun();
    const log = playRounds(run, Array.from({ length: 4 }, (_, i) => [shell('kubectl get pods', i * 25_000)]));
    expect(log.map((round) => round.decisions[0]!.action)).to.deep.equal(['allow', 'allow', 'allow', 'allow']);
  });

  it('a line that sleeps then triggers or posts is no poll: the same trigger again is judged by its outcome, not run to the deadline', () => {
    // `gh workflow run` answers the same line each time; read as a poll, each minute for ten
    // minutes was another CI run. Refused at the third, as a confirmed repeat.
    const triggered = 'Created workflow_dispatch event for ci.yml at main\n\nTo see runs for this workflow, try: gh run list --workflow=ci.yml\n';
    const log = playRounds(newRun(), Array.from({ length: 5 }, (_, i) => [shell('sleep 60 && gh workflow run ci.yml', i * 65_000, triggered)]));
    expect(log.map((round) => round.decisions[0]!.action).slice(0, 3)).to.deep.equal(['allow', 'allow', 'refuse']);
    expect(log[2]!.decisions[0]).to.include({ reason: 'repeat.unchanged' });
    // A POST answering a status still moving is no status poll either.
    const posted = playRounds(newRun(), Array.from({ length: 4 }, (_, i) => [shell('curl -s -X POST https://api.example.com/exports -d \'{"month":"2026-10"}\'', i * 5_000, '{"status":"queued"}')]));
    expect(posted[2]!.decisions[0]).to.include({ action: 'refuse', reason: 'repeat.unchanged' });
    // The status check of the same export is one.
    const checked = playRounds(newRun(), Array.from({ length: 4 }, (_, i) => [shell('curl -s https://api.example.com/exports/7', i * 5_000, '{"status":"queued"}')]));
    expect(checked.map((round) => round.decisions[0]!.action)).to.deep.equal(['allow', 'allow', 'allow', 'allow']);
  });

  it('a line that sleeps then writes to a file is not a poll', () => {
    const run = newRun({ shellPollDeadlineMs: 3_600_000 });
    const log = playRounds(run, Array.from({ length: 4 }, (_, i) => [shell('sleep 5; date > stamp.txt', i * 10_000, '')]));
    expect(log.every((round) => (round.decisions[0] as { kind?: string }).kind !== 'poll')).to.equal(true);
  });

  it('a wait in a call of its own makes the look in the next round a poll, as `sleep 5 && <look>` is: a server starting is waited on', () => {
    // Claude Code and OpenHands wait as often in a call of their own as in front of the look.
    // Judged as repeats, the same empty health check after each wait was refused and the run stopped.
    const rounds = Array.from({ length: 6 }, (_, i) => [
      [shell('sleep 5', i * 7_000, '')],
      [shell('curl -s localhost:3000/api/health', i * 7_000 + 5_500, i < 5 ? '' : '{"ok":true}')],
    ]).flat();
    const log = playRounds(newRun(), rounds);
    expect(log.every((round) => round.decisions[0]!.action === 'allow')).to.equal(true);
    expect(log.at(-1)!.after.action).to.equal('continue');
    expect(log.slice(3).filter((_, i) => i % 2 === 0).every((round) => (round.decisions[0] as { kind?: string }).kind === 'poll')).to.equal(true);
    // In one line, a look that answers nothing while the server starts waits too (it was seen at its third empty answer).
    const oneLine = playRounds(newRun(), Array.from({ length: 7 }, (_, i) => [shell('sleep 5 && curl -s localhost:3000/api/health', i * 6_000, i < 6 ? '' : '{"ok":true}')]));
    expect(oneLine.every((round) => round.decisions[0]!.action === 'allow' && round.after.action === 'continue')).to.equal(true);
    // The same look asked again at once, with no wait before it, is a repeat as before.
    const atOnce = playRounds(newRun(), [[shell('sleep 5', 0, '')], ...Array.from({ length: 4 }, (_, i) => [shell('tail -n 5 server.log', 6_000 + i * 1_000, 'compiling...')])]);
    expect(atOnce.some((round) => round.decisions[0]!.action === 'refuse')).to.equal(true);
    // After a wait, a POST is no look: the same post again is judged by its outcome.
    const posts = playRounds(
      newRun(),
      Array.from({ length: 4 }, (_, i) => [[shell('sleep 2', i * 3_000, '')], [shell('curl -s -X POST localhost:3000/api/jobs -d "{}"', i * 3_000 + 2_100, '{"error":"queue full"}')]]).flat(),
    );
    expect(posts.some((round) => round.decisions[0]!.action === 'refuse')).to.equal(true);
  });

  it("a wait tool (`wait`, `sleep`) makes the look in the next round a poll, for agents without a shell: a Slack reply waited on, to the deadline", () => {
    const look = (i: number, reply: boolean): ScriptedCall => ({ tool: 'get_channel_history', args: { channel: 'C1' }, at: i * 40_000, outcome: { result: { messages: reply ? [{ text: 'Approved' }, { text: 'Can someone approve?' }] : [{ text: 'Can someone approve?' }] } } });
    for (const tool of ['wait', 'sleep']) {
      const wait = (i: number): ScriptedCall => ({ tool, args: { seconds: 30 }, at: i * 40_000 + 5_000, outcome: { result: `Waited 30 seconds` } });
      const waited = playRounds(newRun(), Array.from({ length: 6 }, (_, i) => (i < 5 ? [[look(i, false)], [wait(i)]] : [[look(i, true)]])).flat());
      expect(waited.every((round) => round.decisions[0]!.action === 'allow' && round.after.action === 'continue'), tool).to.equal(true);
      // Waited on forever, it is refused past the poll deadline and stopped.
      const forever = playRounds(newRun(), Array.from({ length: 25 }, (_, i) => [[look(i, false)], [wait(i)]]).flat());
      expect(forever.at(-1)!.after.action, tool).to.equal('stop');
      expect(forever.findIndex((round) => round.decisions[0]!.action === 'refuse'), tool).to.be.above(28);
    }
    // Without a wait before it, the same look asked again is a repeat as before.
    const atOnce = playRounds(newRun(), Array.from({ length: 4 }, (_, i) => [look(i, false)]));
    expect(atOnce.some((round) => round.decisions[0]!.action === 'refuse')).to.equal(true);
  });

  it('a wait and a look after it run to the poll deadline, not forever', () => {
    const rounds = Array.from({ length: 44 }, (_, i) => [i % 2 === 0 ? shell('sleep 30', i * 16_000, '') : shell('curl -s localhost:3000/api/health', i * 16_000, '{"ok":false,"db":"down"}')]);
    const log = playRounds(newRun(), rounds);
    const refusedAt = log.findIndex((round) => round.decisions[0]!.action === 'refuse');
    // The look's first answer came at 16 s: past 616 s it is refused.
    expect(refusedAt).to.be.within(38, 39);
    expect(log.at(-1)!.after.action).to.equal('stop');
  });

  it('shellPolls gives matching commands their own deadline, first match wins, sleep or not', () => {
    const run = newRun({ shellPolls: [{ pattern: /gh run view/, deadlineMs: 30_000 }, { pattern: 'kubectl rollout status', deadlineMs: 120_000 }] });
    const log = playRounds(run, [
      [shell('sleep 10 && gh run view 123', 0)],
      [shell('sleep 10 && gh run view 123', 20_000)],
      [shell('sleep 10 && gh run view 123', 40_000)],
      [shell('kubectl rollout status deploy/api', 50_000)],
      [shell('kubectl rollout status deploy/api', 100_000)],
    ]);
    expect(log.map((round) => round.decisions[0]!.action)).to.deep.equal(['allow', 'allow', 'refuse', 'allow', 'allow']);
    expect(log[4]!.decisions[0]).to.include({ kind: 'poll' });
  });

  it('rejects a bad shellPolls entry at construction, naming the field', () => {
    expect(() => newRun({ shellPolls: [{ pattern: '(unclosed', deadlineMs: 1_000 }] })).to.throw(/shellPolls\[0\]\.pattern/);
    expect(() => newRun({ shellPolls: [{ pattern: /x/g, deadlineMs: 1_000 }] })).to.throw(/shellPolls\[0\]\.pattern/);
    expect(() => newRun({ shellPolls: [{ pattern: 'x' } as never] })).to.throw(/shellPolls\[0\]\.deadlineMs/);
    expect(() => newRun({ shellPolls: [{ pattern: 'x', deadlineMs: -5 }] })).to.throw(/shellPolls\[0\]\.deadlineMs/);
    expect(() => newRun({ shellPollDeadlineMs: 0 })).to.throw(/shellPollDeadlineMs/);
  });
});

// The harness's own way to wait on a command still running is a poll, like a line that sleeps
// then reads. OpenHands (CodeActAgent's execute_bash) answers a command quiet for 30 s with
// "[The command has no new output after 30 seconds. You may wait longer to see additional
// output by sending empty command '', …]"; Claude Code reads a background shell with BashOutput.
describe('checks/polling: waiting on a running command, the harness\'s way', () => {
  const quiet =
    "\n[The command has no new output after 30 seconds. You may wait longer to see additional output by sending empty command '', send other commands to interact with the current process, send keys to interrupt/kill the command, or use the timeout parameter in execute_bash for future commands.]";

  it("OpenHands: an empty command waits on the running process; the same 'no new output' runs until the 10-minute deadline", () => {
    const start: ScriptedCall = { tool: 'execute_bash', args: { command: 'pip install -e . && python -m pytest tests/ -x' }, at: 0, outcome: { result: `Installing build dependencies ... done${quiet}` } };
    const wait = (at: number): ScriptedCall => ({ tool: 'execute_bash', args: { command: '', is_input: 'true' }, at, outcome: { result: quiet } });
    const rounds = [[start], ...Array.from({ length: 21 }, (_, i) => [wait(31_000 * (i + 1))])];
    const log = playRounds(newRun(), rounds);
    const decisions = log.map((round) => round.decisions[0]!);
    // The deadline counts from the first wait (31 s): the waits up to 620 s run, the one at 651 s is refused.
    expect(decisions.slice(1, 21).every((decision) => decision.action === 'allow')).to.equal(true);
    expect(decisions.slice(2, 21).every((decision) => decision.action === 'allow' && decision.kind === 'poll')).to.equal(true);
    expect(log.slice(0, 21).every((round) => round.after.action === 'continue')).to.equal(true);
    expect(decisions[21]).to.include({ action: 'refuse', reason: 'poll.deadline_passed' });
  });

  it('Claude Code: BashOutput polling a quiet background build is a poll; the build finishing is news', () => {
    const output = (at: number) => `<status>running</status>\n\n<stdout>\nCompiling project...\n</stdout>\n\n<timestamp>${new Date(at).toISOString()}</timestamp>`;
    const rounds: ScriptedCall[][] = [[{ tool: 'Bash', args: { command: 'npm run build', run_in_background: true }, at: 0, outcome: { result: 'Command running in background with ID: bash_1' } }]];
    for (let i = 1; i <= 8; i++) rounds.push([{ tool: 'BashOutput', args: { bash_id: 'bash_1' }, at: i * 15_000, outcome: { result: output(i * 15_000) } }]);
    rounds.push([{ tool: 'BashOutput', args: { bash_id: 'bash_1' }, at: 140_000, outcome: { result: '<status>completed</status>\n\n<exit_code>0</exit_code>\n\n<stdout>\nCompiling project...\nDone in 120s\n</stdout>' } }]);
    const log = playRounds(newRun(), rounds);
    expect(log.map((round) => round.decisions[0]!.action)).to.deep.equal(Array(10).fill('allow'));
    expect(log.map((round) => round.after.action)).to.deep.equal(Array(10).fill('continue'));
  });

  it('Claude Code: TaskOutput, BashOutput\'s later name, waiting on a background task is a poll too', () => {
    const rounds: ScriptedCall[][] = Array.from({ length: 6 }, (_, i) => [
      { tool: 'TaskOutput', args: { task_id: 'bb7e208', block: true, timeout: 30_000 }, at: i * 31_000, outcome: { result: '<retrieval_status>timeout</retrieval_status>\n<task_id>bb7e208</task_id>\n<status>running</status>' } },
    ]);
    const log = playRounds(newRun(), rounds);
    expect(log.map((round) => round.decisions[0]!.action)).to.deep.equal(Array(6).fill('allow'));
    expect(log.slice(1).every((round) => round.decisions[0]!.action === 'allow' && round.decisions[0]!.kind === 'poll')).to.equal(true);
  });

  // Codex CLI starts a long command with exec_command ("Process running with session ID 7") and
  // waits on it with write_stdin {session_id, chars: ""}; each answer opens with a fresh Chunk ID.
  it('Codex: write_stdin waiting on a running session is a poll, its chunk ids noise: allowed until the deadline, refused after', () => {
    let chunk = 0xa1b2c3;
    const answer = (status: string, output: string) => `Chunk ID: ${(chunk += 7).toString(16)}\nWall time: 30.0021 seconds\n${status}\nOriginal token count: 0\nOutput:\n${output}`;
    const rounds: ScriptedCall[][] = [[{ tool: 'exec_command', args: { cmd: 'cargo build --release' }, at: 0, outcome: { result: answer('Process running with session ID 7', '   Compiling foo v0.1.0') } }]];
    for (let i = 1; i <= 25; i++) rounds.push([{ tool: 'write_stdin', args: { session_id: 7, chars: '' }, at: i * 31_000, outcome: { result: answer('Process running with session ID 7', '') } }]);
    const log = playRounds(newRun(), rounds);
    const decisions = log.map((round) => round.decisions[0]!);
    expect(decisions.slice(0, 21).every((decision) => decision.action === 'allow')).to.equal(true);
    expect(log.slice(0, 21).every((round) => round.after.action === 'continue')).to.equal(true);
    expect(decisions.some((decision) => decision.action === 'refuse' && decision.reason === 'poll.deadline_passed')).to.equal(true);
  });

  // Desktop Commander's MCP server starts a command with start_process and reads it with read_process_output,
  // which answers "No new output available" while a quiet build runs: refused the third time, stopped at round 6.
  it('Desktop Commander: read_process_output waiting on a quiet build is a poll; the build finishing is news', () => {
    const mcp = (text: string) => ({ content: [{ type: 'text', text }] });
    const rounds: ScriptedCall[][] = [[{ tool: 'start_process', args: { command: 'npm run build', timeout_ms: 5000 }, at: 0, outcome: { result: mcp('Process started with PID 4242 (shell: /bin/bash)\nInitial output:\n> tsc && vite build\n\n⏳ Process is running. Use read_process_output to get more output.') } }]];
    for (let i = 1; i <= 7; i++) rounds.push([{ tool: 'mcp__desktop-commander__read_process_output', args: { pid: 4242, timeout_ms: 5000 }, at: i * 6_000, outcome: { result: mcp('No new output available') } }]);
    rounds.push([{ tool: 'read_process_output', args: { pid: 4242, timeout_ms: 5000 }, at: 48_000, outcome: { result: mcp('✓ built in 41.2s\nProcess completed with exit code 0') } }]);
    const log = playRounds(newRun(), rounds);
    expect(log.map((round) => round.decisions[0]!.action)).to.deep.equal(Array(9).fill('allow'));
    expect(log.map((round) => round.after.action)).to.deep.equal(Array(9).fill('continue'));
  });

  it('Firecrawl: a crawl polled while it is still scraping, 10 of 50 pages for a minute, is waited on until the deadline', () => {
    const status = (completed: number, state = 'scraping') => ({ content: [{ type: 'text', text: JSON.stringify({ success: true, status: state, completed, total: 50, creditsUsed: completed, expiresAt: '2026-12-08T12:00:00.000Z', data: [] }) }] });
    const rounds: ScriptedCall[][] = [[{ tool: 'firecrawl_crawl', args: { url: 'https://docs.example.com', limit: 50 }, at: 0, outcome: { result: { content: [{ type: 'text', text: '{"success":true,"id":"crawl-123"}' }] } } }]];
    for (let i = 1; i <= 6; i++) rounds.push([{ tool: 'firecrawl_check_crawl_status', args: { id: 'crawl-123' }, at: i * 10_000, outcome: { result: status(10) } }]);
    rounds.push([{ tool: 'firecrawl_check_crawl_status', args: { id: 'crawl-123' }, at: 70_000, outcome: { result: status(50, 'completed') } }]);
    const healthy = playRounds(newRun(), rounds);
    expect(healthy.map((round) => round.decisions[0]!.action)).to.deep.equal(Array(8).fill('allow'));
    expect(healthy.map((round) => round.after.action)).to.deep.equal(Array(8).fill('continue'));
    // Stuck at 10 of 50: past the poll deadline (10 minutes) the same look is refused.
    const stuck: ScriptedCall[][] = [rounds[0]!];
    for (let i = 1; i <= 25; i++) stuck.push([{ tool: 'firecrawl_check_crawl_status', args: { id: 'crawl-123' }, at: i * 31_000, outcome: { result: status(10) } }]);
    const decisions = playRounds(newRun(), stuck).map((round) => round.decisions[0]!);
    expect(decisions.slice(0, 20).every((decision) => decision.action === 'allow')).to.equal(true);
    expect(decisions.some((decision) => decision.action === 'refuse' && decision.reason === 'poll.deadline_passed')).to.equal(true);
  });

  it('Windsurf: command_status waiting on a background command is a poll', () => {
    const rounds: ScriptedCall[][] = Array.from({ length: 6 }, (_, i) => [
      { tool: 'command_status', args: { CommandId: 'c-12', OutputCharacterCount: 500, WaitDurationSeconds: 30 }, at: i * 31_000, outcome: { result: 'Status: RUNNING\nOutput:\nCompiling...' } },
    ]);
    const log = playRounds(newRun(), rounds);
    expect(log.map((round) => round.decisions[0]!.action)).to.deep.equal(Array(6).fill('allow'));
    expect(log.map((round) => round.after.action)).to.deep.equal(Array(6).fill('continue'));
  });

  it('a policy for BashOutput wins over the well-known poll', () => {
    const run = newRun({ tools: { BashOutput: { poll: { deadlineMs: 20_000 } } } });
    const log = playRounds(run, Array.from({ length: 3 }, (_, i) => [{ tool: 'BashOutput', args: { bash_id: 'b' }, at: i * 15_000, outcome: { result: 'running' } }]));
    expect(log[2]!.decisions[0]).to.include({ action: 'refuse', reason: 'poll.deadline_passed' });
  });

  it('an empty command when no command runs waits on nothing: a read of nothing, refused when repeated (InterCode-Bash\'s empty actions)', () => {
    const rounds: ScriptedCall[][] = [[{ tool: 'bash', args: { command: 'ls /testbed' }, at: 0, outcome: { result: 'dir1\ndir2' } }]];
    for (let i = 1; i <= 4; i++) rounds.push([{ tool: 'bash', args: { command: '' }, at: i * 10_000, outcome: { result: '' } }]);
    const decisions = playRounds(newRun(), rounds).map((round) => round.decisions[0]!);
    expect(decisions.some((decision) => decision.action === 'allow' && decision.kind === 'poll')).to.equal(false);
    expect(decisions.some((decision) => decision.action === 'refuse')).to.equal(true);
  });

  it('once the command completes, an empty command is no wait any more', () => {
    const rounds: ScriptedCall[][] = [
      [{ tool: 'execute_bash', args: { command: 'make test' }, at: 0, outcome: { result: `running...${quiet}` } }],
      [{ tool: 'execute_bash', args: { command: '' }, at: 31_000, outcome: { result: 'ok\n[The command completed with exit code 0.]' } }],
      [{ tool: 'execute_bash', args: { command: '' }, at: 40_000, outcome: { result: 'ERROR: No previous running command to retrieve logs from.' } }],
    ];
    const decisions = playRounds(newRun(), rounds).map((round) => round.decisions[0]!);
    expect(decisions[1]).to.include({ action: 'allow' });
    expect(decisions[2]).to.not.include({ kind: 'poll' });
  });

  it('a non-empty command is classified as before: `C-c` sent to the process is no poll', () => {
    const log = playRounds(newRun(), [[{ tool: 'execute_bash', args: { command: 'C-c', is_input: 'true' }, at: 0, outcome: { result: '^C' } }]]);
    expect(log[0]!.decisions[0]).to.not.include({ kind: 'poll' });
  });
});

describe('checks/budgets', () => {
  it('refuses calls past maxToolCalls before they run, and stops the run', () => {
    const run = newRun({ maxToolCalls: 3 });
    run.beginRound();
    const decisions = [1, 2, 3, 4].map((i) => run.recordCall({ tool: 't', args: { i } }, { result: { i } }).decision);
    expect(decisions.map((d) => d.action)).to.deep.equal(['allow', 'allow', 'allow', 'refuse']);
    expect(decisions[3]).to.include({ reason: 'budget.tool_calls' });
    expect(run.shouldStop()).to.include({ action: 'stop', reason: 'max_tool_calls' });
  });

  it('stops at maxRounds (chat default 40) without cutting a run that is under it', () => {
    const run = newRun({ profile: 'chat' });
    const log = playRounds(run, Array.from({ length: 50 }, (_, i) => [{ tool: 't', args: { i }, outcome: { result: { i } } }]));
    expect(log).to.have.length(40);
    expect(log.at(-1)!.after).to.include({ action: 'stop', reason: 'max_rounds' });
  });

  it('stops at maxRunMs, measured on recorded times when the run is fed them', () => {
    const run = newRun({ maxRunMs: 10_000 });
    const log = playRounds(run, Array.from({ length: 5 }, (_, i) => [{ tool: 't', args: { i }, at: i * 4_000, outcome: { result: { i } } }]));
    // The call at 12 s is past the 10 s budget: refused before it runs, then the run stops.
    expect(log).to.have.length(4);
    expect(log[3]!.decisions[0]).to.include({ action: 'refuse', reason: 'budget.run_time' });
    expect(log.at(-1)!.after).to.include({ action: 'stop', reason: 'max_run_ms' });
  });

  it('takes up to overloadedExemptMax overloaded calls off the budget and grows the round limit by their rounds', () => {
    const overloaded = { error: { status: 429, message: 'rate limited' } };
    const run = newRun({ maxToolCalls: 4, maxRounds: 4, consecutiveFailures: 10, escalation: { enabled: false }, staleRounds: 10 });
    const log = playRounds(run, [
      [{ tool: 'search', args: { q: 1 }, outcome: overloaded }],
      [{ tool: 'search', args: { q: 1 }, outcome: overloaded }],
      ...Array.from({ length: 6 }, (_, i) => [{ tool: 'search', args: { q: i + 10 }, outcome: { result: { i } } }]),
    ]);
    // 2 overloaded calls came off the 4-call budget and added 2 rounds: 6 rounds ran.
    expect(log).to.have.length(6);
    expect(log.at(-1)!.after).to.include({ action: 'stop' });
    expect(run.partial().tools.search!.failures).to.equal(2);
  });

  it('still counts overloaded calls as failures and their repeated error as a seen result', () => {
    const run = newRun({ escalation: { enabled: false } });
    const log = playRounds(run, Array.from({ length: 10 }, () => [{ tool: 'search', args: { q: 1 }, outcome: { error: { type: 'overloaded', message: 'busy' } } }]));
    expect(log.at(-1)!.after).to.include({ action: 'stop', reason: 'consecutive_failures' });
    expect(run.partial().seenResults).to.be.greaterThan(0);
  });
});

describe('checks/stalled-progress', () => {
  it('stops after maxStalled reports of an unchanged progress state, even while every call looks new', () => {
    const run = newRun({ maxStalled: 3 });
    let stop;
    for (let i = 0; i < 10; i++) {
      run.beginRound();
      run.recordCall({ tool: 'fill_field', args: { i } }, { result: { accepted: i } });
      run.reportState({ fieldsFilled: ['name'] });
      stop = run.shouldStop();
      if (stop.action === 'stop') break;
    }
    expect(stop).to.include({ action: 'stop', reason: 'stalled_progress' });
    expect(run.round).to.equal(4);
  });

  it('a long string state (a document, not a digest) is kept and logged as its hash, and stalls and changes as the string does', async () => {
    const store = createMemoryRunStore();
    const guard = new LoopGuard({ maxStalled: 2, store });
    const run = await guard.resumeRun('state-doc');
    const document = (version: number) => `facts gathered so far, version ${version}: ${'x'.repeat(3_000_000)}`;
    for (const [round, version] of [[1, 1], [2, 2], [3, 2]] as const) {
      run.beginRound();
      run.recordCall({ tool: 't', args: { round } }, { result: { round } });
      run.reportState(document(version));
      expect(run.shouldStop().action, `round ${round}`).to.equal('continue');
    }
    run.beginRound();
    run.recordCall({ tool: 't', args: { round: 4 } }, { result: { round: 4 } });
    run.reportState(document(2));
    expect(run.shouldStop()).to.include({ action: 'stop', reason: 'stalled_progress' });
    await guard.flush();
    // Before: each report's 3 MB string went into the ledger and, whole, into the shared log.
    const logged = await store.readRunEvents('state-doc', 0);
    expect(Math.max(...logged.map((entry) => entry.length))).to.be.below(10_000);
  });

  it('is off until the app reports state, and a change resets it', () => {
    const run = newRun({ maxStalled: 2 });
    for (let i = 0; i < 6; i++) {
      run.beginRound();
      run.recordCall({ tool: 't', args: { i } }, { result: { i } });
      run.reportState({ facts: Math.floor(i / 2) });
      expect(run.shouldStop().action).to.equal('continue');
    }
  });
});

describe('checks/escalation-ladder', () => {
  it('nudges after the first stale round, disables the repeating tool after 3, stops last', () => {
    const run = newRun({ profile: 'researcher' });
    const call = (i: number): ScriptedCall => ({ tool: 'search_kb', args: { q: `variant ${i}` }, outcome: { result: { answer: 'no exact match, more results may be available' } } });
    // The run has a second tool, so disabling search_kb leaves it something to do.
    const browse: ScriptedCall = { tool: 'browse', args: { url: 'https://kb.example/sso' }, outcome: { result: { body: 'SSO admin guide' } } };
    const log = playRounds(run, [[browse, call(0)], ...Array.from({ length: 11 }, (_, i) => [call(i + 1)])]);
    const afters = log.map((round) => round.after);
    expect(afters[0]).to.deep.equal({ action: 'continue', disabledTools: [] });
    expect(afters[1]).to.have.property('nudge').that.includes('search_kb').and.includes('Try a different approach');
    expect(afters[3]).to.deep.include({ action: 'continue', disabledTools: ['search_kb'] });
    expect(log[4]!.decisions[0]).to.include({ action: 'refuse', reason: 'tool.disabled' });
    // The ladder never postpones the stop: still the 5th stale round.
    expect(afters.at(-1)).to.include({ action: 'stop', reason: 'stale_rounds' });
    expect(log).to.have.length(6);
  });

  it('never disables the only tool the run uses: the stop rule decides instead (issue 9, item 6)', () => {
    for (const profile of ['general', 'researcher', 'chat'] as const) {
      const run = newRun({ profile });
      const call = (i: number): ScriptedCall => ({ tool: 'search_kb', args: { q: `variant ${i}` }, outcome: { result: { answer: 'no exact match' } } });
      const log = playRounds(run, Array.from({ length: 12 }, (_, i) => [call(i)]));
      expect(log.flatMap((round) => round.decisions).filter((decision) => decision.action === 'refuse'), profile).to.deep.equal([]);
      expect(run.disabledTools(), profile).to.deep.equal([]);
      // chat has no stale-round stop (document 000): its rounds are turns of a conversation.
      if (profile === 'chat') expect(log.at(-1)!.after, profile).to.include({ action: 'continue' });
      else expect(log.at(-1)!.after, profile).to.include({ action: 'stop', reason: 'stale_rounds' });
    }
  });

  it('re-enables disabled tools once a round brings something new', () => {
    const run = newRun({ staleRounds: 10 });
    const stale = (i: number): ScriptedCall => ({ tool: 'search_kb', args: { q: i }, outcome: { result: { answer: 'same' } } });
    playRounds(run, [[{ tool: 'browse', args: { url: 'a' }, outcome: { result: { body: 'first' } } }, stale(0)], [stale(1)], [stale(2)], [stale(3)]]);
    expect(run.disabledTools()).to.deep.equal(['search_kb']);
    playRounds(run, [[{ tool: 'browse', args: { url: 'x' }, outcome: { result: { body: 'fresh' } } }]]);
    expect(run.disabledTools()).to.deep.equal([]);
  });

  it('never disables exempt or polling tools', () => {
    const run = newRun({ tools: { wait: { exempt: true } }, staleRounds: 20 });
    playRounds(run, Array.from({ length: 6 }, () => [{ tool: 'wait', args: { id: 1 }, outcome: { result: { s: 'running' } } }]));
    expect(run.disabledTools()).to.deep.equal([]);
  });
});

describe('incidents from the documents', () => {
  it('stops the same call made 73 times (document 002) at the first repeat and ends the run within 6 rounds', () => {
    const run = newRun({ profile: 'researcher' });
    const call: ScriptedCall = { tool: 'search_knowledge_base', args: { query: 'reset SSO for contractor accounts' }, outcome: { result: { answer: 'No exact match, more results may be available.' } } };
    const log = playRounds(run, Array.from({ length: 73 }, () => [call]));
    expect(log[1]!.decisions[0]).to.include({ action: 'refuse', reason: 'repeat.run_wide' });
    expect(log.length).to.equal(6);
    expect(log.at(-1)!.after).to.include({ action: 'stop', reason: 'refused_rounds' });
    expect(run.partial().executed).to.equal(1);
  });
});

describe('run lifecycle edge cases', () => {
  it('refuses a write tool repeating itself: only reads may run again after a write', () => {
    for (const profile of ['chat', 'researcher'] as const) {
      const run = newRun({ profile, tools: { send_email: { approval: true } } });
      const email: ScriptedCall = { tool: 'send_email', args: { to: 'a@example.com', body: 'hi' }, outcome: { result: { sent: true } } };
      const log = playRounds(run, Array.from({ length: 6 }, () => [email]));
      expect(log.some((round) => round.decisions[0]!.action === 'refuse'), profile).to.equal(true);
      expect(run.partial().executed, profile).to.be.at.most(profile === 'chat' ? 2 : 1);
    }
  });

  it('counts a result that arrives after its round closed in the round open now', () => {
    const run = newRun({ escalation: { enabled: false } });
    let stop;
    for (let i = 0; i < 12; i++) {
      run.beginRound();
      const ticket = run.startCall({ tool: 'slow_search', args: { q: `variant ${i}` } });
      run.beginRound();
      run.finishCall(ticket, { result: { docs: ['doc-1', 'doc-2'] } });
      stop = run.shouldStop();
      if (stop.action === 'stop') break;
    }
    expect(stop).to.include({ action: 'stop', reason: 'stale_rounds' });
  });

  it('a call that never finishes does not hold back the verdict of later rounds', () => {
    const run = newRun({ escalation: { enabled: false } });
    run.beginRound();
    run.startCall({ tool: 'hung', args: {} });
    const log = playRounds(run, Array.from({ length: 8 }, (_, i) => [{ tool: 'search', args: { q: i }, outcome: { result: { docs: [1] } } }]));
    expect(log.at(-1)!.after).to.include({ action: 'stop', reason: 'stale_rounds' });
  });

  it('starts the run clock at the first model call, not the first tool call', () => {
    let now = 0;
    const run = newRun({ maxRunMs: 1_000, now: () => now });
    run.beginRound();
    now = 5_000;
    expect(run.startCall({ tool: 't', args: {} }).decision).to.include({ action: 'refuse', reason: 'budget.run_time' });
  });

  it('refuses calls once the run ended, and a late beginRound does not reopen it', () => {
    const run = newRun();
    playRounds(run, [[{ tool: 't', args: { a: 1 }, outcome: { result: { v: 1 } } }]]);
    run.end();
    const rounds = run.round;
    expect(run.beginRound()).to.equal(rounds);
    expect(run.startCall({ tool: 't', args: { a: 2 } }).decision).to.include({ action: 'refuse', reason: 'run.stopped' });
  });

  it('a result whose getter throws is recorded as unfingerprintable, never thrown into the host', () => {
    const run = newRun();
    run.beginRound();
    const ticket = run.startCall({ tool: 'lazy', args: {} });
    const result = { count: 0, get items(): unknown[] { throw new Error('lazy field failed'); } };
    expect(() => run.finishCall(ticket, { result })).to.not.throw();
    expect(run.partial().newFacts).to.equal(1);
  });

  it('does not count a duplicate in one response as an insisted failure in chat', () => {
    const run = newRun({ profile: 'chat' });
    run.beginRound();
    run.startCall({ tool: 'get_site', args: { id: 1 } });
    expect(run.startCall({ tool: 'get_site', args: { id: 1 } }).decision).to.include({ reason: 'repeat.in_flight' });
    expect(run.partial().tools.get_site!.failures).to.equal(0);
  });
});

// A status still moving (world-state/says-in-progress.ts) makes the same call again a poll, with
// no `poll` declared: document 001's valid polling case, and doc 002's check_job_status.
describe('checks/polling: a call whose answer says its state is still moving', () => {
  const status = (state: string) => ({ job_id: 'job-42', status: state });

  it('polls an undeclared status tool until the job is done: no refusal, no stale round', () => {
    const run = newRun();
    const rounds = Array.from({ length: 8 }, (_, i) => [{ tool: 'check_job_status', args: { job_id: 'job-42' }, outcome: { result: status(i < 7 ? 'running' : 'succeeded') } }]);
    const log = playRounds(run, rounds);
    expect(log.map((round) => round.decisions[0]!.action)).to.deep.equal(Array(8).fill('allow'));
    expect(log.slice(1, 7).map((round) => (round.decisions[0] as { kind?: string }).kind)).to.deep.equal(Array(6).fill('poll'));
    expect(run.shouldStop().action).to.equal('continue');
  });

  it('refuses the poll after 2 × threshold unchanged answers, saying so, and the run stops', () => {
    const run = newRun();
    const log = playRounds(run, Array.from({ length: 14 }, () => [{ tool: 'check_job_status', args: { job_id: 'job-42' }, outcome: { result: status('running') } }]));
    const actions = log.map((round) => round.decisions[0]!.action);
    expect(actions.slice(0, 10)).to.deep.equal(Array(10).fill('allow'));
    const refusal = log[10]!.decisions[0] as RefuseDecision;
    expect(refusal).to.include({ action: 'refuse', reason: 'poll.deadline_passed' });
    expect(refusal.message).to.include('same status 10 times in a row').and.include('report the last status');
    expect(run.shouldStop()).to.include({ action: 'stop', reason: 'refused_rounds' });
  });

  it('lets a paced poll run past 2 × threshold unchanged answers, to the deadline: a CI run waited on with a sleep between looks', () => {
    // Document 001: "set a polling interval and deadline". The count bounds a model asking again
    // at once; a look 30 s after the last one is the interval the document asks for.
    const run = newRun();
    const looks = Array.from({ length: 16 }, (_, i) => [{ tool: 'get_workflow_run', args: { run_id: 30433642 }, at: 1_000 + i * 30_000, outcome: { result: { id: 30433642, status: i < 15 ? 'in_progress' : 'completed' } } }]);
    const log = playRounds(run, looks);
    expect(log.map((round) => round.decisions[0]!.action)).to.deep.equal(Array(16).fill('allow'));
    expect(run.shouldStop().action).to.equal('continue');
  });

  it('past 2 × threshold, refuses looks asked more often than one per 20 s since the first, and waiting out the refusals gives no look back', () => {
    // Looks every 5 s: the eleventh is refused (ten unchanged answers); refused asks do not move the clock the pace is
    // counted by, so the refusals run on and stop the run (a look every 5 s forever was a loop).
    const run = newRun();
    const log = playRounds(run, Array.from({ length: 16 }, (_, i) => [{ tool: 'get_workflow_run', args: { run_id: 1 }, at: 1_000 + i * 5_000, outcome: { result: { id: 1, status: 'queued' } } }]));
    expect(log.slice(0, 10).map((round) => round.decisions[0]!.action)).to.deep.equal(Array(10).fill('allow'));
    const refusal = log[10]!.decisions[0] as RefuseDecision;
    expect(refusal).to.include({ action: 'refuse', reason: 'poll.deadline_passed' });
    expect(refusal.message).to.include('same status 10 times in a row').and.include('one look every 20 s');
    expect(log.slice(10).every((round) => round.decisions[0]!.action === 'refuse')).to.equal(true);
    expect(run.shouldStop()).to.include({ action: 'stop', reason: 'refused_rounds' });
  });

  it('AWS: a CloudFormation stack polled while it is created runs to CREATE_COMPLETE; a tau-bench order read again while pending does not', () => {
    // describe-stacks answers a list of one stack; before, the list read as data and the fifth unchanged look stopped the run.
    const stack = (status: string) => JSON.stringify({ Stacks: [{ StackName: 'web', Parameters: [{ ParameterKey: 'Env', ParameterValue: 'prod' }], StackStatus: status }] });
    const polled = newRun();
    const looks = playRounds(polled, Array.from({ length: 9 }, (_, i) => [{ tool: 'describe_stacks', args: { stack_name: 'web' }, at: 1_000 + i * 15_000, outcome: { result: stack(i < 8 ? 'CREATE_IN_PROGRESS' : 'CREATE_COMPLETE') } }]));
    expect(looks.map((round) => round.decisions[0]!.action)).to.deep.equal(Array(9).fill('allow'));
    expect(polled.shouldStop().action).to.equal('continue');
    // A pending order is an order not yet shipped: reading it again learns nothing, and is refused as before.
    const order = JSON.stringify({ order_id: '#W2378156', items: [{ name: 'Keyboard', item_id: '1151293680' }], status: 'pending' });
    const reread = playRounds(newRun(), Array.from({ length: 4 }, (_, i) => [{ tool: 'get_order_details', args: { order_id: '#W2378156' }, at: 1_000 + i * 15_000, outcome: { result: order } }]));
    expect(reread.map((round) => round.decisions[0]!.action)).to.include('refuse');
  });

  it('bounds a slow model asking again every turn (16 s) by the count, as a model asking at once', () => {
    const log = playRounds(newRun(), Array.from({ length: 12 }, (_, i) => [{ tool: 'get_workflow_run', args: { run_id: 2 }, at: 1_000 + i * 16_000, outcome: { result: { id: 2, status: 'in_progress' } } }]));
    expect(log.slice(0, 10).every((round) => round.decisions[0]!.action === 'allow')).to.equal(true);
    expect(log[10]!.decisions[0]).to.include({ action: 'refuse', reason: 'poll.deadline_passed' });
  });

  it('refuses it past the poll deadline (shellPollDeadlineMs) when polls are slow', () => {
    const run = newRun({ shellPollDeadlineMs: 60_000 });
    const log = playRounds(run, Array.from({ length: 5 }, (_, i) => [{ tool: 'get_deployment', args: { id: 'dep-1' }, at: 1_000 + i * 25_000, outcome: { result: { id: 'dep-1', state: 'in_progress' } } }]));
    expect(log.map((round) => round.decisions[0]!.action)).to.deep.equal(['allow', 'allow', 'allow', 'refuse', 'refuse']);
    expect(log[3]!.decisions[0]).to.include({ reason: 'poll.deadline_passed' });
  });

  it('once the state is final, the same call again is a repeat as before; a list of jobs with statuses is no poll', () => {
    const done = playRounds(newRun(), Array.from({ length: 3 }, () => [{ tool: 'check_job_status', args: { job_id: 'job-42' }, outcome: { result: status('succeeded') } }]));
    expect(done[2]!.decisions[0]).to.include({ action: 'refuse' });
    const list = { jobs: [{ id: 1, status: 'running' }, { id: 2, status: 'queued' }] };
    const listed = playRounds(newRun(), Array.from({ length: 3 }, () => [{ tool: 'list_jobs', args: {}, outcome: { result: list } }]));
    expect(listed[2]!.decisions[0]).to.include({ action: 'refuse' });
  });

  it('a write whose answer says pending is no poll: the same create again is a confirmed repeat, never run ten times', () => {
    // GitHub's "create a deployment" answers {"status": "pending"} with a new id each time. Read
    // as a poll, the same create ran until 10 unchanged answers: ten deployments. Calls that write
    // are judged by their outcomes, as before the status reading (outcome-confirmed-repeat.ts).
    const deployment = (i: number) => ({ id: 1000 + i, sha: 'a84d88e', ref: 'main', environment: 'production', status: 'pending', created_at: `2026-12-06T03:0${i}:00Z` });
    const created = playRounds(newRun(), Array.from({ length: 6 }, (_, i) => [{ tool: 'create_deployment', args: { ref: 'main', environment: 'production' }, at: 1_000 + i * 5_000, outcome: { result: deployment(i) } }]));
    expect(created.map((round) => round.decisions[0]!.action).slice(0, 3)).to.deep.equal(['allow', 'allow', 'refuse']);
    expect(created[2]!.decisions[0]).to.include({ reason: 'repeat.unchanged' });
    // A tool declared a write, whatever its name.
    const declared = playRounds(newRun({ tools: { export_orders: { writes: true } } }), Array.from({ length: 4 }, () => [{ tool: 'export_orders', args: { month: '2026-10' }, outcome: { result: { status: 'queued' } } }]));
    expect(declared[2]!.decisions[0]).to.include({ action: 'refuse', reason: 'repeat.unchanged' });
    // The same status check, undeclared, is a poll.
    const check = playRounds(newRun(), Array.from({ length: 4 }, () => [{ tool: 'orders_export_status', args: { month: '2026-10' }, outcome: { result: { status: 'queued' } } }]));
    expect(check.map((round) => round.decisions[0]!.action)).to.deep.equal(['allow', 'allow', 'allow', 'allow']);
  });

  it('a tool of unknown effect polls only when its name says it looks: an action answering "processing" is refused at the third', () => {
    // process_refund answering {"status":"processing"} read as a poll ran the same refund ten times.
    const refund = playRounds(newRun(), Array.from({ length: 4 }, (_, i) => [{ tool: 'process_refund', args: { order_id: '#W1', amount: 53.27 }, at: 1_000 + i * 5_000, outcome: { result: { refund_id: 'r-9', status: 'processing' } } }]));
    expect(refund.map((round) => round.decisions[0]!.action).slice(0, 3)).to.deep.equal(['allow', 'allow', 'refuse']);
    expect(refund[2]!.decisions[0]).to.include({ reason: 'repeat.unchanged' });
    // Names that look, an MCP client's prefix included; and any tool declared read-only.
    for (const tool of ['check_job_status', 'get_export', 'jobStatus', 'mcp__ci__poll_build', 'deployment_state']) {
      const looked = playRounds(newRun(), Array.from({ length: 4 }, (_, i) => [{ tool, args: { id: 7 }, at: 1_000 + i * 5_000, outcome: { result: { id: 7, status: 'running' } } }]));
      expect(looked.map((round) => round.decisions[0]!.action), tool).to.deep.equal(['allow', 'allow', 'allow', 'allow']);
    }
    const declared = playRounds(newRun({ tools: { process_export: { readOnly: true } } }), Array.from({ length: 4 }, (_, i) => [{ tool: 'process_export', args: { id: 7 }, at: 1_000 + i * 5_000, outcome: { result: { status: 'running' } } }]));
    expect(declared.map((round) => round.decisions[0]!.action)).to.deep.equal(['allow', 'allow', 'allow', 'allow']);
  });

  it('a declared poll keeps its own deadline and no count', () => {
    const run = newRun({ tools: { check_job_status: { poll: { deadlineMs: 3_600_000 } } } });
    const log = playRounds(run, Array.from({ length: 14 }, () => [{ tool: 'check_job_status', args: { job_id: 'job-42' }, outcome: { result: status('running') } }]));
    expect(log.every((round) => round.decisions[0]!.action === 'allow')).to.equal(true);
  });
});
