import { expect } from 'chai';
import type { StopDecision } from '../../../src/core/types.js';
import { newRun, playRounds, playTakingTurns, sameDocuments, type ScriptedCall } from '../play.js';

const reworded = (round: number): ScriptedCall => ({ tool: 'search_docs', args: { query: `refund policy wording ${round}` }, outcome: { result: { ...sameDocuments, took_ms: round } } });

describe('checks/stale-rounds', () => {
  it('stops the reworded search of document 000 after 5 rounds of already-seen results (not 21)', () => {
    const run = newRun({ escalation: { enabled: false } });
    const log = playRounds(run, Array.from({ length: 21 }, (_, i) => [reworded(i + 1)]));
    // Round 1 is new; rounds 2-6 bring only seen results: the 5th stale round stops it.
    expect(log).to.have.length(6);
    const stop = log.at(-1)!.after as StopDecision;
    expect(stop).to.include({ action: 'stop', reason: 'stale_rounds', round: 6 });
    expect(stop.message).to.include('Tools are no longer available').and.include('from what you have gathered');
    expect(stop.partial).to.include({ rounds: 6, executed: 6, newFacts: 1, seenResults: 5 });
    expect(stop.partial.tools.search_docs).to.include({ calls: 6, newFacts: 1, seen: 5 });
  });

  it('counts per round, not per tool: a round where another tool finds something new made progress', () => {
    const run = newRun({ escalation: { enabled: false } });
    const rounds = Array.from({ length: 12 }, (_, i) => [
      reworded(i + 1),
      ...(i % 4 === 3 ? [{ tool: 'fetch_page', args: { url: `u${i}` }, outcome: { result: { body: `page ${i}` } } }] : []),
    ]);
    const log = playRounds(run, rounds);
    expect(log).to.have.length(12);
    expect(log.every((round) => round.after.action === 'continue')).to.equal(true);
  });

  it('any new fact resets the count', () => {
    const run = newRun({ escalation: { enabled: false } });
    const log = playRounds(run, [
      ...Array.from({ length: 5 }, (_, i) => [reworded(i)]),
      [{ tool: 'search_docs', args: { query: 'new angle' }, outcome: { result: { items: [{ id: 'doc-99' }] } } }],
      ...Array.from({ length: 3 }, (_, i) => [reworded(10 + i)]),
    ]);
    expect(log).to.have.length(9);
    expect(run.staleRoundStreak).to.equal(3);
  });

  it('counts empty results as new facts: exploring periods that turn up nothing is not a loop', () => {
    const run = newRun();
    const log = playRounds(
      run,
      Array.from({ length: 10 }, (_, i) => [{ tool: 'search_orders', args: { month: i + 1 }, outcome: { result: { items: [], count: 0 } } }]),
    );
    expect(log).to.have.length(10);
    expect(log.every((round) => round.after.action === 'continue')).to.equal(true);
  });

  it('counts results it cannot fingerprint as new (a new tool must not cut a healthy run)', () => {
    const cyclic: Record<string, unknown> = { v: 1 };
    cyclic.self = cyclic;
    const run = newRun();
    const log = playRounds(run, Array.from({ length: 8 }, (_, i) => [{ tool: 'odd_tool', args: { i }, outcome: { result: cyclic } }]));
    expect(log.every((round) => round.after.action === 'continue')).to.equal(true);
  });

  it('counts results of approval tools as new even when the response is the same', () => {
    const run = newRun({ tools: { create_ticket: { approval: true } } });
    const log = playRounds(run, Array.from({ length: 8 }, (_, i) => [{ tool: 'create_ticket', args: { title: `t${i}` }, outcome: { result: { ok: true } } }]));
    expect(log.every((round) => round.after.action === 'continue')).to.equal(true);
  });

  it('with failClosed (document 003) counts repeated empty and unfingerprintable results as seen', () => {
    const run = newRun({ failClosed: true, escalation: { enabled: false } });
    const log = playRounds(run, Array.from({ length: 10 }, (_, i) => [{ tool: 'search_orders', args: { month: i }, outcome: { result: { items: [] } } }]));
    expect(log).to.have.length(6);
    expect(log.at(-1)!.after).to.include({ reason: 'stale_rounds' });
  });

  it('does not judge a round whose calls are still running', () => {
    const run = newRun({ staleRounds: 1, escalation: { enabled: false } });
    playRounds(run, [[reworded(1)]]);
    run.beginRound();
    const ticket = run.startCall(reworded(2));
    expect(run.shouldStop().action).to.equal('continue');
    run.finishCall(ticket, reworded(2).outcome!);
    expect(run.shouldStop()).to.include({ action: 'stop', reason: 'stale_rounds' });
  });

  it('adds up the tokens of rounds that learned nothing', () => {
    const run = newRun({ escalation: { enabled: false } });
    for (let i = 1; i <= 3; i++) {
      run.beginRound({ inputTokens: 1000, outputTokens: 50 });
      run.recordCall(reworded(i), reworded(i).outcome!);
    }
    expect(run.partial().wastedTokens).to.equal(2 * 1050);
  });
});

describe('checks/refused-rounds', () => {
  it('stops after 5 rounds in a row in which every call was refused', () => {
    const run = newRun({ profile: 'researcher' });
    const call = { tool: 'get_site', args: { id: 1 }, outcome: { result: { site: 'S' } } };
    const log = playRounds(run, [[call], [call], [call], [call], [call], [call]]);
    expect(log.at(-1)!.after).to.include({ action: 'stop', reason: 'refused_rounds', round: 6 });
  });

  it('keeps its counter apart: refusals reset when a call runs, seen results keep counting', () => {
    const run = newRun({ escalation: { enabled: false } });
    const refusedRepeat = { tool: 'search_docs', args: { query: 'refund policy wording 1' } };
    // Alternate a round of a refused repeat with a round of seen results: merged into one
    // counter the seen side would be wiped; kept apart, the stale streak still reaches 5.
    const rounds: ScriptedCall[][] = [[reworded(1)]];
    for (let i = 2; i <= 6; i++) rounds.push([refusedRepeat], [reworded(i)]);
    const log = playRounds(run, rounds);
    expect(log.at(-1)!.after).to.include({ action: 'stop', reason: 'stale_rounds' });
    expect(run.refusedRoundStreak).to.equal(0);
  });

  // InterCode-SQL, the paper's ReAct agent (gpt-3.5), Spider task 417 (eval/WIDE.md): after reading the schema, four
  // versions of a malformed `execute[` each got the harness's same rejection, the last one twice (stale rounds), then
  // it again, refused as a repeat. Four stale rounds and then refused ones: neither count reached 5 before the
  // recording's 10-turn cap.
  const rejected = 'Error executing query: Your last `execute` action did not contain sql code';
  const select = 'execute[SELECT students.first_name, students.middle_name, students.last_name, students.student_id FROM student_enrolment INNER JOIN students ON student_enrol';
  const malformed = [
    select,
    `${select}ment.student_id = students.student_id WHERE student_enrolment.semester_id`,
    `${select}ment.student_id = students.student_id WHERE`,
    `${select}ment.student_id = students.student_id WHERE student_enrolment.semester_id GROUP BY student_enrolment.student_`,
  ];
  const sql = (query: string, result: string): ScriptedCall[] => [{ tool: 'execute_sql', args: { query }, outcome: { result } }];
  const task417 = [
    ...['SHOW TABLES', 'DESC student_enrolment', 'DESC students'].map((query, i) => sql(query, `table ${i}`)),
    ...malformed.map((query) => sql(query, rejected)),
    ...[1, 2, 3].map(() => sql(malformed[3]!, rejected)),
  ];

  it('a round of refused repeats inside a stale streak continues it: stopped at the first (InterCode-SQL ReAct task 417)', () => {
    const log = playRounds(newRun(), task417);
    expect(log.at(-1)!.decisions.map((decision) => decision.action)).to.deep.equal(['refuse']);
    expect(log.at(-1)!.after).to.include({ action: 'stop', reason: 'stale_rounds', round: 9 });
  });

  it('a repeat refused right after progress starts no stale streak: four stale rounds after it do not stop', () => {
    const read = (path: string, body: string): ScriptedCall[] => [{ tool: 'read_file', args: { path }, outcome: { result: body } }];
    const rounds = [read('a.md', 'alpha'), read('b.md', 'beta'), read('a.md', 'alpha'), ...['c.md', 'd.md', 'e.md', 'f.md'].map((path) => read(path, 'alpha'))];
    const log = playRounds(newRun(), rounds);
    expect(log[2]!.decisions.map((decision) => decision.action)).to.deep.equal(['refuse']);
    expect(log.map((round) => round.after.action)).to.deep.equal(Array(7).fill('continue'));
  });

  it("the researcher profile keeps document 000's two counts apart: the same run is not stopped", () => {
    const log = playRounds(newRun({ profile: 'researcher' }), task417);
    expect(log).to.have.length(task417.length);
    expect(log.at(-1)!.decisions.map((decision) => decision.action)).to.deep.equal(['refuse']);
    expect(log.at(-1)!.after.action).to.equal('continue');
  });

  it('two engines sharing the run through a store, taking turns, stop it alike', async () => {
    const steps = task417.map((round) => round[0]!);
    const turns = await playTakingTurns('sql-417', steps);
    expect(turns.at(-1)).to.equal('refuse/stop');
    expect(turns).to.have.length(9);
  });

  it('scattered refusals between productive rounds never stop a progressing run (the round-11 cut)', () => {
    const run = newRun();
    const rounds: ScriptedCall[][] = [];
    for (let i = 0; i < 15; i++) {
      rounds.push([{ tool: 'fetch', args: { page: i }, outcome: { result: { body: i } } }, { tool: 'fetch', args: { page: 0 } }]);
    }
    const log = playRounds(run, rounds);
    expect(log).to.have.length(15);
    expect(log.every((round) => round.after.action === 'continue')).to.equal(true);
  });
});

describe('checks/consecutive-failures', () => {
  it('stops when the same tool fails 5 times in a row, with different arguments and the same error', () => {
    const run = newRun();
    const log = playRounds(
      run,
      Array.from({ length: 8 }, (_, i) => [{ tool: 'query_db', args: { sql: `select ${i}` }, outcome: { error: new TypeError('permission denied') } }]),
    );
    expect(log).to.have.length(5);
    expect(log.at(-1)!.after).to.include({ action: 'stop', reason: 'consecutive_failures' });
    expect((log.at(-1)!.after as StopDecision).detail).to.include('query_db failed 5 times');
  });

  it('a success of that tool resets its count; another tool failing has its own', () => {
    const run = newRun();
    const fail = (tool: string, i: number): ScriptedCall => ({ tool, args: { i }, outcome: { error: { type: 'oops', message: `m${i}` } } });
    const log = playRounds(run, [
      [fail('a', 1)], [fail('a', 2)], [fail('a', 3)], [fail('a', 4)],
      [{ tool: 'a', args: { i: 9 }, outcome: { result: { ok: 1 } } }],
      [fail('a', 5)], [fail('b', 1)], [fail('a', 6)],
    ]);
    expect(log.every((round) => round.after.action === 'continue')).to.equal(true);
  });
});
