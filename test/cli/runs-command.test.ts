// `loopguard runs --redis URL [RUN]` (issue 12 item 8) against a real redis-server: runs are
// recorded by engines on the Redis store (one stopped by a loop, one still running across two
// processes, one ended), then listed and printed by the command, which must show what the
// recording engines decided, read nothing wrong and write nothing.
import { createServer, type Server, type Socket } from 'node:net';
import { closeSync, mkdtempSync, openSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { PassThrough } from 'node:stream';
import { expect } from 'chai';
import type { Redis } from 'ioredis';
import { EXIT_REDIS_UNAVAILABLE, runRunsCommand, type RunsCommandOptions } from '../../src/cli/runs-command.js';
import { LoopGuard, type RunGuard } from '../../src/core/loop-guard.js';
import type { CallOutcome, LoopGuardOptions, PartialResults, ToolCall } from '../../src/core/types.js';
import { createRedisRunStore, type RedisRunStore } from '../../src/redis/index.js';
import { freePort, startRedisCluster, startRedisServer, type RedisServer } from '../helpers/redis-servers.js';
import { runCli } from './cli-test-helpers.js';

interface Captured {
  code: number;
  stdout: string;
  stderr: string;
}

async function runs(options: Omit<RunsCommandOptions, 'format'> & { format?: 'text' | 'json' }): Promise<Captured> {
  const stdout = new PassThrough();
  const stderr = new PassThrough();
  let out = '';
  let err = '';
  stdout.setEncoding('utf8').on('data', (chunk: string) => (out += chunk));
  stderr.setEncoding('utf8').on('data', (chunk: string) => (err += chunk));
  const code = await runRunsCommand({ format: 'text', ...options }, { stdin: new PassThrough(), stdout, stderr, env: {} });
  return { code, stdout: out, stderr: err };
}

/** What a recording engine decided, round by round: `allow:<kind>` or `refuse:<reason>`. */
type Decisions = string[][];

/** Plays rounds of calls through claimCall (the async, cross-process path), asking shouldStop after each round. */
async function play(run: RunGuard, rounds: Array<Array<{ call: ToolCall; outcome?: CallOutcome }>>, decisions: Decisions): Promise<void> {
  for (const calls of rounds) {
    run.beginRound({ inputTokens: 100, outputTokens: 10 });
    const seen: string[] = [];
    decisions.push(seen);
    for (const { call, outcome } of calls) {
      const ticket = await run.claimCall(call);
      seen.push(ticket.decision.action === 'allow' ? `allow:${ticket.decision.kind}` : `refuse:${ticket.decision.reason}`);
      if (ticket.decision.action === 'allow' && outcome !== undefined) run.finishCall(ticket, outcome);
    }
    if (run.shouldStop().action === 'stop') return;
  }
}

/** The timeline of the JSON report as the same strings. */
function timelineDecisions(report: { rounds: Array<{ calls: Array<{ decision: string; kind: string | null; reason: string | null }> }> }): Decisions {
  return report.rounds.map((round) => round.calls.map((call) => (call.decision === 'allow' ? `allow:${call.kind}` : `refuse:${call.reason}`)));
}

const escapeRegExp = (text: string) => text.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');

const LOOP_POLICY: LoopGuardOptions = { profile: 'researcher' };
const EVIL_RUN = 'tenant\u001b[2J\u202eevil';
const EVIL_TOOL = 'grep\u001b[31m';

describe('loopguard runs --redis URL [RUN] (issue 12 item 8)', function () {
  this.timeout(60_000);
  let server: RedisServer;
  let client: Redis;
  let store: RedisRunStore;
  const prefix = 'runscli';
  const recorded: Record<string, { decisions: Decisions; ledger: PartialResults }> = {};
  let logLengths: Record<string, number> = {};

  before(async () => {
    server = await startRedisServer();
    client = await server.client();
    store = createRedisRunStore({ client, keyPrefix: prefix, timeoutMs: 2000 });
    const quiet = { warn: () => undefined };
    const pause = () => new Promise((resolve) => setTimeout(resolve, 5)); // distinct creation times: a stable list order

    // 1. A researcher run that loops: the same answer for every reworded search, repeats refused, then a stop.
    const looping = new LoopGuard({ ...LOOP_POLICY, store, logger: quiet });
    const loopRun = looping.startRun('looping');
    const loopDecisions: Decisions = [];
    const same = { result: ['Paris is the capital of France'] };
    await play(
      loopRun,
      [
        [{ call: { tool: 'search', args: { q: 'capital of France' } }, outcome: same }, { call: { tool: 'fetch', args: { url: 'https://a.example' } }, outcome: { result: 'page a' } }],
        ...[1, 2, 3, 4, 5, 6, 7, 8].map((n) => [
          { call: { tool: 'search', args: { q: 'capital of France' } }, outcome: same },
          { call: { tool: 'search', args: { q: `capital of France, reworded ${n}` } }, outcome: same },
        ]),
      ],
      loopDecisions,
    );
    expect(loopRun.stopped, 'the looping run must be stopped by the guard').to.not.equal(undefined);
    // The model ignores the stop once: refused run.stopped, in the last round.
    const ignored = await loopRun.claimCall({ tool: 'search', args: { q: 'one more try' } });
    loopDecisions[loopDecisions.length - 1]!.push(`refuse:${ignored.decision.action === 'refuse' ? ignored.decision.reason : 'allowed?'}`);
    await looping.flush();
    recorded.looping = { decisions: loopDecisions, ledger: loopRun.partial() };
    await pause();

    // 2. A run still going, made by two processes (two engines): B's call is in flight, so A's identical call is refused.
    const processA = new LoopGuard({ store, logger: quiet });
    const processB = new LoopGuard({ store, logger: quiet });
    const liveA = processA.startRun('live');
    const liveDecisions: Decisions = [];
    await play(liveA, [[{ call: { tool: 'lookup', args: { id: 1 } }, outcome: { result: { id: 1, name: 'one' } } }]], liveDecisions);
    await processA.flush();
    const liveB = await processB.resumeRun('live');
    liveB.beginRound();
    const inFlight = await liveB.claimCall({ tool: 'lookup', args: { id: 2 }, callId: 'call_b1' });
    expect(inFlight.decision.action).to.equal('allow');
    const refused = await liveA.claimCall({ tool: 'lookup', args: { id: 2 } });
    liveDecisions.push([`allow:${inFlight.decision.action === 'allow' ? inFlight.decision.kind : ''}`, `refuse:${refused.decision.action === 'refuse' ? refused.decision.reason : 'allowed?'}`]);
    await processA.flush();
    await processB.flush();
    recorded.live = { decisions: liveDecisions, ledger: liveA.partial() };
    await pause();

    // 3. A run that failed once, succeeded, and was ended.
    const finisher = new LoopGuard({ store, logger: quiet });
    const endedRun = finisher.startRun('finished');
    const endedDecisions: Decisions = [];
    await play(
      endedRun,
      [[{ call: { tool: 'send_report', args: { to: 'ops' } }, outcome: { error: new TypeError('boom') } }], [{ call: { tool: 'send_report', args: { to: 'ops', retry: true } }, outcome: { result: 'sent' } }]],
      endedDecisions,
    );
    endedRun.end();
    await finisher.flush();
    recorded.finished = { decisions: endedDecisions, ledger: endedRun.partial() };
    await pause();

    // 4. A run whose id and tool name carry terminal escapes and a bidi override.
    const evil = new LoopGuard({ store, logger: quiet });
    const evilRun = evil.startRun(EVIL_RUN);
    await play(evilRun, [[{ call: { tool: EVIL_TOOL, args: { pattern: 'x' } }, outcome: { result: 'match' } }]], []);
    await evil.flush();

    logLengths = {};
    for (const id of ['looping', 'live', 'finished', EVIL_RUN]) logLengths[id] = (await store.describeRun(id))!.events;
  });
  after(async () => server?.stop());

  const text = (options: Partial<RunsCommandOptions> = {}) => runs({ redis: server.url, keyPrefix: prefix, ...options });
  const json = async (options: Partial<RunsCommandOptions> = {}) => {
    const result = await runs({ redis: server.url, keyPrefix: prefix, format: 'json', ...options });
    expect(result.stderr, 'nothing on stderr').to.equal('');
    expect(result.code).to.equal(0);
    return JSON.parse(result.stdout);
  };

  it('lists the stored runs newest first: id, created, last change, log entries, state (stopped with its reason, running, ended)', async () => {
    const result = await text();
    expect(result.code).to.equal(0);
    expect(result.stderr).to.equal('');
    const lines = result.stdout.split('\n');
    expect(lines[0]).to.match(/^RUN +CREATED +LAST CHANGE +EVENTS +STATE$/);
    const rows = lines.slice(1, 5).map((line) => line.split(/ {2,}/));
    expect(rows.map((row) => row[0])).to.deep.equal(['tenant\\x1b[2J\\u202eevil', 'finished', 'live', 'looping']);
    expect(rows.map((row) => row[3])).to.deep.equal(['3', '7', '6', '25']);
    expect(rows.map((row) => row[4])).to.deep.equal(['running', 'ended', 'running', 'stopped: stale_rounds']);
    for (const row of rows) {
      expect(row[1]).to.match(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$/);
      expect(Date.parse(row[2]!)).to.be.at.least(Date.parse(row[1]!));
    }
    expect(lines[6]).to.equal(`4 runs under key prefix "${prefix}" at ${server.url} (newest first). \`loopguard runs --redis URL RUN\` prints one run's ledger.`);
    // Each log's length is what the engines wrote: a round, a call and an outcome each, plus a stop or an end.
    const { looping, live, finished } = recorded;
    expect(logLengths.looping).to.equal(looping!.ledger.rounds + looping!.ledger.toolCalls + looping!.ledger.executed + 1);
    expect(logLengths.live).to.equal(live!.ledger.rounds + live!.ledger.toolCalls + live!.ledger.executed - 1); // B's call is still in flight
    expect(logLengths.finished).to.equal(finished!.ledger.rounds + finished!.ledger.toolCalls + finished!.ledger.executed + 1);
  });

  it('lists as one JSON object, and --limit keeps the newest runs and says so', async () => {
    const body = await json();
    expect(body).to.include({ redis: server.url, keyPrefix: prefix, limit: 100 });
    expect(body.runs.map((run: { runId: string; state: string; stopReason: string | null; ended: boolean; events: number }) => [run.runId, run.state, run.stopReason, run.ended, run.events])).to.deep.equal([
      [EVIL_RUN, 'running', null, false, 3],
      ['finished', 'ended', null, true, 7],
      ['live', 'running', null, false, 6],
      ['looping', 'stopped', 'stale_rounds', false, 25],
    ]);
    const limited = await text({ limit: 2 });
    expect(limited.stdout.split('\n').slice(1, 3).map((line) => line.split(/ {2,}/)[0])).to.deep.equal(['tenant\\x1b[2J\\u202eevil', 'finished']);
    expect(limited.stdout).to.include('2 runs under key prefix "runscli"').and.include('(the newest 2; --limit shows more)');
    expect((await json({ limit: 2 })).runs).to.have.length(2);
  });

  it('prints a stopped run: state and stop, the ledger the recording engine had, refusals by reason, and every round as decided', async () => {
    const { ledger, decisions } = recorded.looping!;
    // The recording: 6 rounds, 13 calls (5 run, 8 refused), stopped for stale rounds.
    expect([ledger.rounds, ledger.toolCalls, ledger.executed, ledger.refused]).to.deep.equal([6, 13, 5, 8]);
    const body = await json({ run: 'looping' });
    expect(body).to.include({ runId: 'looping', state: 'stopped', events: 25 });
    expect(body.ledger, 'the log applied to a fresh engine is the recording engine\'s ledger').to.deep.equal(ledger);
    expect(body.stop).to.include({ reason: 'stale_rounds', round: 6 });
    expect(body.stop.detail).to.be.a('string').and.not.equal('');
    expect(timelineDecisions(body), 'every call, in its round, with the decision the engine made').to.deep.equal(decisions);
    const refusals: Record<string, number> = {};
    for (const decision of decisions.flat()) if (decision.startsWith('refuse:')) refusals[decision.slice(7)] = (refusals[decision.slice(7)] ?? 0) + 1;
    expect(body.refusals).to.deep.equal(refusals);
    expect(Object.values(refusals).reduce((a, b) => a + b, 0)).to.equal(8);
    // Executed calls carry their outcome; every search returned the same fingerprint (the loop).
    const executed = body.rounds.flatMap((round: { calls: Array<{ decision: string; tool: string; outcome: { resultHash: string } | null }> }) => round.calls.filter((call) => call.decision === 'allow'));
    expect(executed).to.have.length(5);
    const searchHashes = new Set(executed.filter((call: { tool: string }) => call.tool === 'search').map((call: { outcome: { resultHash: string } }) => call.outcome.resultHash));
    expect(searchHashes.size).to.equal(1);
    expect(body.rounds[5].stop).to.include({ reason: 'stale_rounds', round: 6 });

    const result = await text({ run: 'looping' });
    expect(result.code).to.equal(0);
    expect(result.stderr).to.equal('');
    const out = result.stdout;
    expect(out).to.include(`Run "looping" under key prefix "${prefix}" at ${server.url}\n  state        stopped: stale_rounds at round 6\n               ${body.stop.detail}\n`);
    expect(out).to.include('  log          25 entries, written by 1 process\n');
    expect(out).to.include(
      `  rounds 6, tool calls 13 (executed 5, refused 8)\n  new facts ${ledger.newFacts}, seen results ${ledger.seenResults}, last new fact in round ${ledger.lastNewFactRound}\n` +
        `  stale-round streak ${ledger.staleRoundStreak}, refused-round streak ${ledger.refusedRoundStreak}, wasted tokens ${ledger.wastedTokens}\n`,
    );
    const search = ledger.tools.search!;
    expect(out).to.match(new RegExp(`\\n  search +${search.calls} +${search.executed} +${search.refused} +${search.newFacts} +${search.seen} +${search.failures}\\n`));
    for (const [reason, count] of Object.entries(refusals)) expect(out).to.match(new RegExp(`\\n  ${reason.replace('.', '\\.')} +${count}\\n`));
    expect(out).to.include('Timeline (6 rounds)\n  round 1  ');
    // One line per call under its round, in order.
    const callLines = out.split('Timeline')[1]!.split('\n').filter((line) => line.startsWith('    '));
    expect(callLines.map((line) => (/ allowed (\w+)/.exec(line)?.[1] !== undefined ? `allow:${/ allowed (\w+)/.exec(line)![1]}` : `refuse:${/ refused (\S+)/.exec(line)![1]}`))).to.deep.equal(decisions.flat());
    expect(out).to.match(/\n  STOP stale_rounds at round 6: .+\n$/);
  });

  it('prints a live run of two processes: B\'s call in flight (no outcome yet), A\'s identical call refused as in flight', async () => {
    const body = await json({ run: 'live' });
    expect(body).to.include({ state: 'running', events: 6 });
    expect(body.stop).to.equal(null);
    expect(body.processes).to.have.length(2);
    expect(body.ledger).to.deep.equal(recorded.live!.ledger);
    expect(timelineDecisions(body)).to.deep.equal([['allow:new'], ['allow:new', 'refuse:repeat.in_flight']]);
    const [inFlight, refused] = body.rounds[1].calls;
    expect(inFlight).to.include({ callId: 'call_b1', outcome: null });
    expect(inFlight.process, 'made by the other process').to.not.equal(refused.process);
    expect(refused.message).to.be.a('string').and.not.equal('');

    const { stdout } = await text({ run: 'live' });
    expect(stdout).to.include('  state        running\n');
    expect(stdout).to.include('written by 2 processes');
    expect(stdout).to.match(/\n {4}lookup {2}\(call_b1\) {2}\[[\w-]+\] {2}allowed new {2}-> no outcome logged \(running, or its process died\)\n {4}lookup {2}\[[\w-]+\] {2}refused repeat\.in_flight\n/);
  });

  it('prints an ended run: outcomes (error type, result), the retry, and when it ended', async () => {
    const body = await json({ run: 'finished' });
    expect(body).to.include({ state: 'ended', events: 7 });
    expect(body.ledger).to.deep.equal(recorded.finished!.ledger);
    expect(timelineDecisions(body)).to.deep.equal([['allow:new'], ['allow:retry']]);
    expect(body.rounds[0].calls[0].outcome).to.include({ outcome: 'error', errorType: 'TypeError' });
    expect(body.rounds[1].calls[0].outcome).to.include({ outcome: 'success' });
    expect(body.rounds[1].ended).to.match(/Z$/);
    const { stdout } = await text({ run: 'finished' });
    expect(stdout).to.include('  state        ended\n');
    expect(stdout).to.match(/\n {4}send_report {2}allowed new {2}-> error TypeError {2}result \S{8}\n/);
    expect(stdout).to.match(/\n {2}ENDED \d{4}-\d\d-\d\dT[\d:.]+Z\n$/);
  });

  it('prints where the model\'s context was compacted (RunGuard.contextCompacted), in text and JSON', async () => {
    const compactedStore = createRedisRunStore({ client, keyPrefix: 'runscli-compacted', timeoutMs: 2000 });
    const engine = new LoopGuard({ store: compactedStore, logger: { warn: () => undefined } });
    const run = engine.startRun('compacted');
    const readme = { call: { tool: 'Read', args: { file_path: '/work/README.md' } }, outcome: { result: '# app' } };
    const decisions: Decisions = [];
    await play(run, [[readme]], decisions);
    run.beginRound();
    run.contextCompacted();
    const again = await run.claimCall(readme.call);
    decisions.push([again.decision.action === 'allow' ? `allow:${again.decision.kind}` : `refuse:${again.decision.reason}`]);
    run.finishCall(again, readme.outcome);
    await engine.flush();
    expect(decisions).to.deep.equal([['allow:new'], ['allow:reread']]);
    const body = await json({ keyPrefix: 'runscli-compacted', run: 'compacted' });
    expect(body.rounds.map((round: { compactions: string[] }) => round.compactions.length)).to.deep.equal([0, 1]);
    expect(body.rounds[1].compactions[0]).to.match(/Z$/);
    const { stdout } = await text({ keyPrefix: 'runscli-compacted', run: 'compacted' });
    expect(stdout).to.match(/\n {2}round 2 .*\n {4}context compacted {2}\d{4}-\d\d-\d\dT[\d:.]+Z\n {4}Read {2}allowed reread/);
  });

  it('--limit with a run prints only its last rounds, and says how many were left out', async () => {
    const { stdout } = await text({ run: 'looping', limit: 2 });
    expect(stdout).to.include('Timeline (6 rounds)\n  … 4 earlier rounds not shown (--limit)\n  round 5  ');
    expect(stdout).to.not.include('  round 4  ');
    const body = await json({ run: 'looping', limit: 2 });
    expect(body.roundsOmitted).to.equal(4);
    expect(body.rounds.map((round: { round: number }) => round.round)).to.deep.equal([5, 6]);
    expect(body.ledger.rounds, 'the ledger is still the whole run').to.equal(6);
  });

  it('escapes run ids and tool names: a stored id cannot clear the screen or reorder a line', async () => {
    const list = await text();
    const one = await text({ run: EVIL_RUN });
    const body = await runs({ redis: server.url, keyPrefix: prefix, run: EVIL_RUN, format: 'json' });
    for (const output of [list.stdout, one.stdout, body.stdout]) {
      expect(output).to.not.match(/[\u001b\u202e]/);
    }
    expect(one.stdout).to.include('Run "tenant\\x1b[2J\\u202eevil"');
    expect(one.stdout).to.include('    grep\\x1b[31m  allowed new');
    // Still valid JSON with the same values.
    expect(JSON.parse(body.stdout)).to.include({ runId: EVIL_RUN });
    expect(JSON.parse(body.stdout).rounds[0].calls[0].tool).to.equal(EVIL_TOOL);
  });

  it('only reads: printing runs changes no log and adds no key', async () => {
    const keysBefore = (await client.keys('*')).sort();
    for (const id of ['looping', 'live', 'finished', EVIL_RUN]) {
      await text({ run: id });
      await json({ run: id });
    }
    await text();
    expect((await client.keys('*')).sort()).to.deep.equal(keysBefore);
    for (const id of ['looping', 'live', 'finished', EVIL_RUN]) expect((await store.describeRun(id))!.events, id).to.equal(logLengths[id]);
  });

  it('--policy FILE rebuilds the ledger under the run\'s own policy (a declared write\'s acknowledgements are not "seen" results)', async () => {
    const policy: LoopGuardOptions = { tools: { jot_down: { writes: true } } };
    const policyPrefix = 'runscli-policy';
    const policyStore = createRedisRunStore({ client, keyPrefix: policyPrefix, timeoutMs: 2000 });
    const guard = new LoopGuard({ ...policy, store: policyStore, logger: { warn: () => undefined } });
    const run = guard.startRun('notes');
    await play(
      run,
      [0, 1, 2].map((n) => [
        { call: { tool: 'jot_down', args: { text: `note ${n}` } }, outcome: { result: 'ok' } },
        { call: { tool: 'read_note', args: { id: 1 } }, outcome: { result: `version ${n}` } },
      ]),
      [],
    );
    await guard.flush();
    const directory = mkdtempSync(join(tmpdir(), 'loopguard-runs-'));
    const file = join(directory, 'policy.json');
    writeFileSync(file, JSON.stringify(policy));
    const withPolicy = await json({ run: 'notes', keyPrefix: policyPrefix, policy: file });
    expect(withPolicy.ledger).to.deep.equal(run.partial());
    expect(withPolicy.policy).to.equal(file);
    expect(withPolicy.ledger.seenResults).to.equal(0);
    const withDefaults = await json({ run: 'notes', keyPrefix: policyPrefix });
    expect(withDefaults.ledger.seenResults, 'under the defaults jot_down is not known to write (no write verb leads its name): its "ok"s count as seen').to.equal(2);
    expect((await text({ run: 'notes', keyPrefix: policyPrefix, policy: file })).stdout).to.include(`Ledger (the log applied to a fresh engine, policy ${file})`);
    const bad = await text({ run: 'notes', keyPrefix: policyPrefix, policy: join(directory, 'missing.json') });
    expect(bad.code).to.equal(2);
    expect(bad.stderr).to.match(/^loopguard runs: .*missing\.json: cannot read policy file \(ENOENT\)\n$/);
  });

  it('a log entry it cannot read (a newer writer, or not loopguard) is skipped and named; the rest of the run still prints', async () => {
    const futurePrefix = 'runscli-future';
    const futureStore = createRedisRunStore({ client, keyPrefix: futurePrefix, timeoutMs: 2000 });
    const guard = new LoopGuard({ store: futureStore, logger: { warn: () => undefined } });
    const run = guard.startRun('future');
    await play(run, [[{ call: { tool: 'search', args: { q: 'a' } }, outcome: { result: 'a' } }]], []);
    await guard.flush();
    await client.rpush(futureStore.keysOf('future').log, '["z",1]', 'not json');
    const result = await text({ run: 'future', keyPrefix: futurePrefix });
    expect(result.code).to.equal(0);
    expect(result.stderr, 'named once, in the report, not again by the engine').to.equal('');
    expect(result.stdout).to.include('  log          5 entries (2 unreadable, skipped), written by 1 process\n');
    expect(result.stdout).to.include('  rounds 1, tool calls 1 (executed 1, refused 0)\n');
    // The real key (prefix included), so an SRE can LINDEX it.
    expect(result.stdout).to.include('  unreadable: run log entry runscli-future:{future}:log[3]: unknown event type "z" (written by a newer loopguard?)\n');
    expect(result.stdout).to.include('  unreadable: run log entry runscli-future:{future}:log[4]: not JSON\n');
    const body = await json({ run: 'future', keyPrefix: futurePrefix });
    expect(body.unreadableEntries.map((entry: { index: number }) => entry.index)).to.deep.equal([3, 4]);
    expect(body.ledger).to.deep.equal(run.partial());
  });

  it('a log entry it cannot read is named by its real key (the --key-prefix, the escaped id), not a made-up one', async () => {
    const oddPrefix = 'runscli-keyname';
    const oddStore = createRedisRunStore({ client, keyPrefix: oddPrefix, timeoutMs: 2000 });
    const runId = 'a{b}%';
    await oddStore.appendRunEvents(runId, 0, [`["r",${Date.now()}]`, 'not json']);
    const logKey = oddStore.keysOf(runId).log;
    expect(logKey, 'braces and % are escaped in the key').to.equal('runscli-keyname:{a%7Bb%7D%25}:log');
    const result = await text({ run: runId, keyPrefix: oddPrefix });
    expect(result.code).to.equal(0);
    expect(result.stdout).to.include(`  unreadable: run log entry ${logKey}[1]: not JSON\n`);
  });

  // Audit d3/p03: another writer (or a hand edit) left values loopguard never writes. Each used
  // to throw out of main() with a stack (RangeError: Invalid time value, TypeError from String()),
  // and one such run hid every healthy run of the list.
  describe('stored values loopguard never writes: "-" and a warning naming the key, never a stack', () => {
    const oddPrefix = 'runscli-odd';
    let oddStore: RedisRunStore;
    let now = 0;
    const call = (time: number) => `["c","X.1",${time},"get_order","H1",0,0,0,0,"a","new"]`;
    before(async () => {
      oddStore = createRedisRunStore({ client, keyPrefix: oddPrefix, timeoutMs: 2000 });
      now = Date.now();
      const make = async (runId: string, ...extra: string[]) => {
        await oddStore.appendRunEvents(runId, 0, [`["r",${now}]`, call(now + 1), ...extra]);
        // The server's clock wrote created: a fixed one keeps the expected times exact.
        await client.hset(oddStore.keysOf(runId).run, 'created', String(now));
      };
      await make('healthy');
      await make('created-huge');
      await client.hset(oddStore.keysOf('created-huge').run, 'created', '100000000000000000000');
      await make('created-text');
      await client.hset(oddStore.keysOf('created-text').run, 'created', 'abc');
      await make('entry-huge', '["r",1e20]');
      await make('stop-object', '["t",{"action":"stop","reason":{"toString":1},"detail":"d","round":1}]');
    });

    it('the list: every run listed, a created time that is not a date read as absent (the log tells it) and named on stderr', async () => {
      const result = await text({ keyPrefix: oddPrefix });
      expect(result.code, result.stderr).to.equal(0);
      expect(result.stderr).to.not.match(/\n\s+at /);
      const rows = Object.fromEntries(result.stdout.split('\n').slice(1, 6).map((line) => line.split(/ {2,}/)).map((row) => [row[0], row]));
      expect(Object.keys(rows).sort()).to.deep.equal(['created-huge', 'created-text', 'entry-huge', 'healthy', 'stop-object']);
      const iso = (ms: number) => new Date(ms).toISOString();
      // A created field that is not a time is read as absent: the log's first entry tells it.
      expect(rows['created-huge']!.slice(1, 3)).to.deep.equal([iso(now), iso(now + 1)]);
      // p03 c3: NaN used to hide the last change too, though the log has timed entries.
      expect(rows['created-text']!.slice(1, 3)).to.deep.equal([iso(now), iso(now + 1)]);
      // An entry time outside the Date range is no last change: the newest real one is.
      expect(rows['entry-huge']![2]).to.equal(iso(now + 1));
      expect(result.stderr).to.include(`loopguard runs: run "created-huge": ${oddStore.keysOf('created-huge').run} field created is "100000000000000000000", not a time (ms since the epoch); read as absent\n`);
      expect(result.stderr).to.include(`loopguard runs: run "created-text": ${oddStore.keysOf('created-text').run} field created is "abc", not a time (ms since the epoch); read as absent\n`);
      const body = JSON.parse((await text({ keyPrefix: oddPrefix, format: 'json' })).stdout);
      expect(body.runs).to.have.length(5);
    });

    it('one run: an entry with a time outside epoch milliseconds, or a stop whose reason is not a string, is an unreadable entry named by its key; the rest prints', async () => {
      // Before: a RangeError (Invalid time value) and a TypeError (String of {"toString":1}) with a stack.
      const huge = await text({ run: 'entry-huge', keyPrefix: oddPrefix });
      expect(huge.code, huge.stderr).to.equal(0);
      expect(huge.stdout).to.include('    get_order  allowed new');
      expect(huge.stdout).to.include(`  unreadable: run log entry ${oddStore.keysOf('entry-huge').log}[2]: time must be epoch milliseconds`);
      expect(huge.stderr).to.not.match(/\n\s+at /);
      const body = JSON.parse((await text({ run: 'entry-huge', keyPrefix: oddPrefix, format: 'json' })).stdout);
      expect(body.rounds.map((round: { time: string | null }) => round.time)).to.deep.equal([new Date(now).toISOString()]);
      const created = await text({ run: 'created-huge', keyPrefix: oddPrefix });
      expect(created.code, created.stderr).to.equal(0);
      expect(created.stdout).to.include(`  created      ${new Date(now).toISOString()}\n`);
      expect(created.stderr).to.include(`field created is "100000000000000000000", not a time`);
      const stop = await text({ run: 'stop-object', keyPrefix: oddPrefix });
      expect(stop.code, stop.stderr).to.equal(0);
      expect(stop.stdout).to.include(`  unreadable: run log entry ${oddStore.keysOf('stop-object').log}[2]: not a stop decision (reason)\n`);
      expect(stop.stdout).to.not.include('STOP');
      expect(stop.stderr).to.not.match(/\n\s+at /);
    });
  });

  // Audit d9: one run key of the wrong Redis type made the whole list fail, blamed on "the run
  // index", naming no key, with every healthy run hidden.
  it('a run key of the wrong Redis type: the other runs are listed, the broken run named on stderr with its key and the Redis error, exit 1', async () => {
    const brokenPrefix = 'runscli-wrongtype';
    const brokenStore = createRedisRunStore({ client, keyPrefix: brokenPrefix, timeoutMs: 2000 });
    for (const id of ['ok1', 'bad', 'ok2', 'badhash']) await brokenStore.appendRunEvents(id, 0, [`["r",${Date.now()}]`]);
    await client.del(brokenStore.keysOf('bad').log);
    await client.set(brokenStore.keysOf('bad').log, 'x');
    await client.del(brokenStore.keysOf('badhash').run);
    await client.sadd(brokenStore.keysOf('badhash').run, 'x');
    const result = await text({ keyPrefix: brokenPrefix });
    expect(result.code).to.equal(EXIT_REDIS_UNAVAILABLE);
    expect(result.stdout.split('\n').slice(1, 3).map((line) => line.split(/ {2,}/)[0]).sort()).to.deep.equal(['ok1', 'ok2']);
    expect(result.stdout).to.include('2 runs under key prefix "runscli-wrongtype"');
    const lines = result.stderr.split('\n').filter(Boolean).sort();
    expect(lines).to.have.length(2);
    expect(lines[0]).to.match(new RegExp(`^loopguard runs: cannot read run "bad" at ${server.url}: ${escapeRegExp(brokenStore.keysOf('bad').log)}: WRONGTYPE `));
    expect(lines[1]).to.match(new RegExp(`^loopguard runs: cannot read run "badhash" at ${server.url}: ${escapeRegExp(brokenStore.keysOf('badhash').run)}: WRONGTYPE `));
    expect(result.stderr).to.not.include('run index');
    const body = JSON.parse((await text({ keyPrefix: brokenPrefix, format: 'json' })).stdout);
    expect(body.runs.map((run: { runId: string }) => run.runId).sort()).to.deep.equal(['ok1', 'ok2']);
    expect(body.unreadableRuns.map((run: { runId: string; key: string }) => [run.runId, run.key]).sort()).to.deep.equal([
      ['bad', brokenStore.keysOf('bad').log],
      ['badhash', brokenStore.keysOf('badhash').run],
    ]);
    // The run itself: exit 1, and the key at fault is named.
    const one = await text({ run: 'bad', keyPrefix: brokenPrefix });
    expect(one.code).to.equal(EXIT_REDIS_UNAVAILABLE);
    expect(one.stderr).to.match(new RegExp(`^loopguard runs: reading run "bad" from Redis at ${server.url} failed: ${escapeRegExp(brokenStore.keysOf('bad').log)}: WRONGTYPE `));
  });

  it('a run that is not stored: exit 2, a message naming the run and the key prefix, nothing on stdout', async () => {
    const result = await text({ run: 'no-such-run' });
    expect(result.code).to.equal(2);
    expect(result.stdout).to.equal('');
    expect(result.stderr).to.include(`loopguard runs: no run "no-such-run" under key prefix "${prefix}" at ${server.url}`);
    expect(result.stderr).to.include('Check --key-prefix');
    // The right run under the wrong prefix is the usual mistake.
    const wrongPrefix = await text({ run: 'looping', keyPrefix: 'loopguard' });
    expect(wrongPrefix.code).to.equal(2);
    expect(wrongPrefix.stderr).to.include('no run "looping" under key prefix "loopguard"');
    // An empty store lists nothing, successfully.
    const empty = await text({ keyPrefix: 'nothing-here' });
    expect(empty.code).to.equal(0);
    expect(empty.stdout).to.equal(`No runs stored under key prefix "nothing-here" at ${server.url} (runs expire after their last change).\n`);
  });

  it('bad input is refused before connecting: a URL that is not redis://, a prefix with braces, a limit of 0', async () => {
    const cases: Array<[Partial<RunsCommandOptions>, RegExp]> = [
      [{ redis: 'http://127.0.0.1:6379' }, /^loopguard runs: --redis must be a redis:\/\/ or rediss:\/\/ URL \(redis:\/\/host:6379\), got "http:\/\/127\.0\.0\.1:6379"\n$/],
      [{ keyPrefix: 'a{b}' }, /^loopguard runs: --key-prefix must be a non-empty prefix without braces/],
      [{ limit: 0 }, /^loopguard runs: --limit must be a whole number ≥ 1, got "0"\n$/],
      [{ run: '' }, /^loopguard runs: the run id is empty/],
    ];
    for (const [options, message] of cases) {
      const started = Date.now();
      const result = await runs({ redis: 'redis://192.0.2.1:6379', keyPrefix: prefix, ...options });
      expect(result.code, JSON.stringify(options)).to.equal(2);
      expect(result.stderr).to.match(message);
      expect(Date.now() - started, 'no connection attempt (192.0.2.1 is unroutable)').to.be.below(200);
    }
  });

  // [needs main.ts wiring] Passes once src/cli/main.ts has the `runs` subcommand (the snippet in
  // the report of this change); until then commander answers "unknown command 'runs'" (exit 2).
  it('[needs main.ts wiring] through the CLI process: `loopguard runs --redis URL --key-prefix P --format json RUN`, and exit 2 for a missing run', async () => {
    const result = await runCli(['runs', '--redis', server.url, '--key-prefix', prefix, '--format', 'json', 'looping']);
    expect(result.stderr).to.equal('');
    expect(result.code).to.equal(0);
    const body = JSON.parse(result.stdout);
    expect(body.ledger).to.deep.equal(recorded.looping!.ledger);
    expect(timelineDecisions(body)).to.deep.equal(recorded.looping!.decisions);
    const list = await runCli(['runs', '--redis', server.url, '--key-prefix', prefix, '--limit', '1']);
    expect(list.code).to.equal(0);
    expect(list.stdout.split('\n')[1]).to.match(/^tenant\\x1b\[2J\\u202eevil +\S+ +\S+ +3 +running$/);
    const missing = await runCli(['runs', '--redis', server.url, '--key-prefix', prefix, 'no-such-run']);
    expect(missing.code).to.equal(2);
    expect(missing.stderr).to.include('no run "no-such-run"');
    const unreachable = await runCli(['runs', '--redis', `redis://127.0.0.1:${await freePort()}`]);
    expect(unreachable.code).to.equal(EXIT_REDIS_UNAVAILABLE);
    expect(unreachable.stderr).to.match(/^loopguard runs: cannot reach Redis at redis:\/\/127\.0\.0\.1:\d+: connect ECONNREFUSED [\d.:]+\n$/);
  });
});

describe('loopguard runs when Redis cannot be reached (issue 12 item 8)', function () {
  this.timeout(20_000);

  it('nothing listening: exit 1 at once with one line naming the server and the cause, no stack trace', async () => {
    const port = await freePort();
    for (const run of [undefined, 'looping']) {
      const started = Date.now();
      const result = await runs({ redis: `redis://127.0.0.1:${port}`, ...(run === undefined ? {} : { run }) });
      expect(result.code).to.equal(EXIT_REDIS_UNAVAILABLE);
      expect(result.stdout).to.equal('');
      expect(result.stderr).to.equal(`loopguard runs: cannot reach Redis at redis://127.0.0.1:${port}: connect ECONNREFUSED 127.0.0.1:${port}\n`);
      expect(Date.now() - started).to.be.below(1000);
    }
  });

  it('a server that accepts and never answers: exit 1 after about timeoutMs, not a hang', async () => {
    const sockets = new Set<Socket>();
    let hungUp = 0;
    const silent: Server = createServer((socket) => {
      sockets.add(socket);
      socket.on('error', () => undefined);
      socket.on('end', () => (hungUp += 1));
      socket.resume(); // reads (and drops) the client's INFO, so its hang-up is seen
    });
    await new Promise<void>((resolve) => silent.listen(0, '127.0.0.1', resolve));
    const port = (silent.address() as { port: number }).port;
    try {
      const started = Date.now();
      const result = await runs({ redis: `redis://127.0.0.1:${port}`, run: 'looping', timeoutMs: 300 });
      const elapsed = Date.now() - started;
      expect(result.code).to.equal(EXIT_REDIS_UNAVAILABLE);
      expect(result.stderr).to.equal(`loopguard runs: cannot reach Redis at redis://127.0.0.1:${port}: connecting took longer than 300 ms\n`);
      expect(elapsed).to.be.at.least(290).and.below(1500);
      // The command let go of its connection: the server sees it closed.
      await new Promise((resolve) => setTimeout(resolve, 100));
      expect(sockets.size).to.equal(1);
      expect(hungUp).to.equal(1);
    } finally {
      for (const socket of sockets) socket.destroy();
      await new Promise((resolve) => silent.close(resolve));
    }
  });

  it('a server that turns us away: a wrong password, a database that does not exist (never a silent fall back to database 0)', async () => {
    const guarded = await startRedisServer();
    try {
      const admin = await guarded.client();
      await admin.config('SET', 'requirepass', 's3cret');
      const wrong = await runs({ redis: `redis://:wrong@127.0.0.1:${guarded.port}` });
      expect(wrong.code).to.equal(EXIT_REDIS_UNAVAILABLE);
      expect(wrong.stderr).to.match(new RegExp(`^loopguard runs: cannot reach Redis at redis://:\\*\\*\\*@127\\.0\\.0\\.1:${guarded.port}: WRONGPASS .*\\n$`));
      const right = await runs({ redis: `redis://:s3cret@127.0.0.1:${guarded.port}` });
      expect(right.code, right.stderr).to.equal(0);
      const noDatabase = await runs({ redis: `redis://:s3cret@127.0.0.1:${guarded.port}/99` });
      expect(noDatabase.code).to.equal(EXIT_REDIS_UNAVAILABLE);
      expect(noDatabase.stderr).to.include('ERR DB index is out of range');
      expect(noDatabase.stdout).to.equal('');
    } finally {
      await guarded.stop();
    }
  });

  it('never prints the password of the URL', async () => {
    const port = await freePort();
    const result = await runs({ redis: `redis://admin:hunter2@127.0.0.1:${port}/0` });
    expect(result.code).to.equal(EXIT_REDIS_UNAVAILABLE);
    expect(result.stderr).to.not.include('hunter2');
    expect(result.stderr).to.include(`redis://admin:***@127.0.0.1:${port}/0`);
    const bad = await runs({ redis: 'redis://admin:hunter2@127.0.0.1:1', keyPrefix: '' });
    expect(bad.code).to.equal(2);
    expect(bad.stderr).to.not.include('hunter2');
  });
});

describe('loopguard runs on a three-node Redis Cluster (issue 12 item 8)', function () {
  this.timeout(120_000);

  it('given any node\'s URL, follows the cluster: lists the run and prints its ledger though its keys live on another node', async () => {
    const cluster = await startRedisCluster();
    try {
      const client = await cluster.client();
      const store = createRedisRunStore({ client, keyPrefix: 'runscluster', timeoutMs: 2000 });
      const guard = new LoopGuard({ ...LOOP_POLICY, store, logger: { warn: () => undefined } });
      const run = guard.startRun('clustered');
      const decisions: Decisions = [];
      const same = { result: ['same'] };
      await play(
        run,
        [1, 2, 3].map((n) => [
          { call: { tool: 'search', args: { q: 'x' } }, outcome: same },
          { call: { tool: 'search', args: { q: `x${n}` } }, outcome: same },
        ]),
        decisions,
      );
      await guard.flush();
      const slot = Number(await client.cluster('KEYSLOT', store.keysOf('clustered').log));
      const home = cluster.nodeForSlot(slot);
      const elsewhere = cluster.ports[(home + 1) % cluster.ports.length]!;
      const url = `redis://127.0.0.1:${elsewhere}`;

      const list = await runs({ redis: url, keyPrefix: 'runscluster', format: 'json' });
      expect(list.stderr).to.equal('');
      expect(JSON.parse(list.stdout).runs.map((entry: { runId: string; state: string }) => [entry.runId, entry.state])).to.deep.equal([['clustered', 'running']]);
      const one = await runs({ redis: url, keyPrefix: 'runscluster', run: 'clustered', format: 'json' });
      expect(one.code).to.equal(0);
      const body = JSON.parse(one.stdout);
      expect(body.ledger).to.deep.equal(run.partial());
      expect(timelineDecisions(body)).to.deep.equal(decisions);
    } finally {
      await cluster.stop();
    }
  });
});

/**
 * A local TCP server that accepts and never answers, or (`answerHandshake`) answers what
 * ioredis sends to connect (HELLO: refused as by a Redis 5, CLIENT SETINFO, INFO: not a
 * cluster) and then nothing else: a connection that works and reads that hang. It never
 * closes a connection itself.
 */
async function startMuteServer(options: { answerHandshake?: boolean } = {}): Promise<{ port: number; stop(): Promise<void> }> {
  const sockets = new Set<Socket>();
  const info = '# Server\r\nloading:0\r\n# Cluster\r\ncluster_enabled:0\r\n';
  const mute: Server = createServer((socket) => {
    sockets.add(socket);
    socket.on('error', () => undefined);
    let pending = '';
    socket.on('data', (chunk: Buffer) => {
      if (!options.answerHandshake) return;
      pending += chunk.toString('latin1');
      // Whole RESP commands only (*N then N bulk strings); their first word decides the answer.
      for (;;) {
        const command = /^\*(\d+)\r\n((?:\$\d+\r\n[^\r]*\r\n)*)/.exec(pending);
        if (command === null) return;
        const words = [...command[2]!.matchAll(/\$\d+\r\n([^\r]*)\r\n/g)].map((match) => match[1]!);
        if (words.length < Number(command[1])) return;
        const taken = words.slice(0, Number(command[1]));
        const length = taken.reduce((sum, word) => sum + `$${word.length}\r\n${word}\r\n`.length, `*${command[1]}\r\n`.length);
        pending = pending.slice(length);
        const name = taken[0]!.toLowerCase();
        if (name === 'hello') socket.write("-ERR unknown command 'HELLO'\r\n");
        else if (name === 'client') socket.write('+OK\r\n');
        else if (name === 'info') socket.write(`$${info.length}\r\n${info}\r\n`);
      }
    });
  });
  await new Promise<void>((resolve) => mute.listen(0, '127.0.0.1', resolve));
  return {
    port: (mute.address() as { port: number }).port,
    stop: async () => {
      for (const socket of sockets) socket.destroy();
      await new Promise((resolve) => mute.close(resolve));
    },
  };
}

describe('issue 23: loopguard runs rejects bad options and is bounded by --timeout-ms', function () {
  this.timeout(120_000);
  let server: RedisServer;
  before(async () => (server = await startRedisServer()));
  after(async () => server?.stop());

  it('issue 23 #7: --timeout-ms of 2^31 or more is refused with exit 2 and one line naming the flag (it became 1 ms)', async () => {
    const result = await runCli(['runs', '--redis', server.url, '--timeout-ms', '2147483648']);
    expect(result.code, result.stderr).to.equal(2);
    expect(result.stdout).to.equal('');
    expect(result.stderr).to.equal('loopguard runs: --timeout-ms must be a whole number of milliseconds from 1 to 2147483647, got "2147483648"\n');
    // In process too: the command, not only its argument parser, holds the bound.
    for (const timeoutMs of [2 ** 31, 2 ** 32, Number.MAX_SAFE_INTEGER]) {
      const inProcess = await runs({ redis: server.url, timeoutMs });
      expect(inProcess.code, String(timeoutMs)).to.equal(2);
      expect(inProcess.stderr).to.equal(`loopguard runs: --timeout-ms must be a whole number of milliseconds from 1 to 2147483647, got "${timeoutMs}"\n`);
    }
    // The largest timer Node keeps is accepted and works.
    const largest = await runCli(['runs', '--redis', server.url, '--timeout-ms', '2147483647']);
    expect(largest.stderr).to.equal('');
    expect(largest.code).to.equal(0);
  });

  it('issue 23 #19: stdout on a full disk (/dev/full) is one line naming ENOSPC and exit 1, for the list and for a run', async () => {
    const guard = new LoopGuard({ store: createRedisRunStore({ client: await server.client(), keyPrefix: 'full' }), logger: { warn: () => undefined } });
    const run = guard.startRun('written');
    await play(run, [[{ call: { tool: 'search', args: { q: 'x' } }, outcome: { result: 'y' } }]], []);
    await guard.flush();
    const full = openSync('/dev/full', 'w');
    try {
      for (const args of [[], ['written'], ['--format', 'json', 'written']]) {
        const result = await runCli(['runs', '--redis', server.url, '--key-prefix', 'full', '--timeout-ms', '20000', ...args], { stdoutFd: full });
        expect(result.stderr, args.join(' ')).to.equal('loopguard runs: cannot write the report to stdout (ENOSPC: no space left on device)\n');
        expect(result.code).to.equal(1);
      }
    } finally {
      closeSync(full);
    }
  });

  it('issue 23 #8: a --redis URL that cannot be used is one line naming the problem, exit 2, no stack trace, no connection', async () => {
    const cases: Array<[string, RegExp]> = [
      ['redis://127.0.0.1:99999', /port 99999/],
      ['redis://[::1', /not a valid URL/],
      ['redis://u:p%zz@host', /password that is not valid percent-encoding/],
      ['redis://user%zz:p@host', /user name that is not valid percent-encoding/],
      [`redis://127.0.0.1:${server.port}/abc`, /database "abc"/],
      [`redis://127.0.0.1:${server.port}/0abc`, /database "0abc"/],
      [`redis://127.0.0.1:${server.port}/-1`, /database "-1"/],
      [`redis://127.0.0.1:${server.port}/?db=abc`, /database "abc"/],
      ['redis://:6379', /not a valid URL/],
      ['redis:///0', /names no host/],
      ['redis://127.0.0.1:0', /port 0/],
    ];
    for (const [url, problem] of cases) {
      const result = await runs({ redis: url });
      expect(result.code, `${url}: ${result.stderr}`).to.equal(2);
      expect(result.stdout, url).to.equal('');
      expect(result.stderr, url).to.match(/^loopguard runs: --redis [^\n]*\n$/);
      expect(result.stderr, url).to.match(problem);
    }
    // Through the process: no stack trace (ioredis threw TypeError: Invalid URL), and no secret.
    const spawned = await runCli(['runs', '--redis', 'redis://admin:hunter2@127.0.0.1:99999']);
    expect(spawned.code, spawned.stderr).to.equal(2);
    expect(spawned.stderr).to.equal('loopguard runs: --redis has port 99999, which is not a TCP port (1-65535), in "redis://***@127.0.0.1:99999"\n');
  });

  it('issue 23 #8: a failure is bounded by --timeout-ms, exit included (refused, a mute server, reads that hang)', async () => {
    const mute = await startMuteServer();
    const handshakeOnly = await startMuteServer({ answerHandshake: true });
    try {
      const refusedUrl = `redis://127.0.0.1:${await freePort()}`;
      const muteUrl = `redis://127.0.0.1:${mute.port}`;
      const hangingUrl = `redis://127.0.0.1:${handshakeOnly.port}`;
      // Generous bounds: the point is one budget for the whole command (connect, INFO and each
      // read had one each) and no wait after the answer (ioredis held a closed socket 2 s).
      const scenarios: Array<[string, number, RegExp]> = [
        [refusedUrl, 600, /cannot reach Redis at .*: connect ECONNREFUSED/],
        [muteUrl, 600, /cannot reach Redis at .*: connecting took longer than 600 ms$/],
        // Long enough for ioredis to finish its handshake on a busy machine: the reads then hang.
        [hangingUrl, 3000, /reading (the run index|run "some-run") from Redis at .* failed: .*3000 ms/],
      ];
      for (const [url, timeoutMs, message] of scenarios) {
        for (const run of [undefined, 'some-run']) {
          const started = Date.now();
          const result = await runs({ redis: url, timeoutMs, ...(run === undefined ? {} : { run }) });
          const elapsed = Date.now() - started;
          expect(result.code, result.stderr).to.equal(EXIT_REDIS_UNAVAILABLE);
          expect(result.stderr.split('\n'), result.stderr).to.have.length(2);
          expect(result.stderr.trimEnd()).to.match(message);
          expect(elapsed, `${url} ${run ?? ''}`).to.be.below(timeoutMs + 1500);
        }
      }
      // The process ends when it has answered: nothing holds it after the message.
      for (const [url, timeoutMs] of scenarios) {
        const result = await runCli(['runs', '--redis', url, '--timeout-ms', String(timeoutMs), 'some-run']);
        expect(result.code, result.stderr).to.equal(EXIT_REDIS_UNAVAILABLE);
        expect(result.exitAfterOutputMs, `${url}: exit after the message`).to.be.below(1000);
      }
    } finally {
      await mute.stop();
      await handshakeOnly.stop();
    }
  });
});
