import { expect } from 'chai';
import { newRun, playRounds, playTakingTurns, type ScriptedCall } from '../play.js';

const missing = (bid: string) => ({ error: { type: 'ActionError', message: `Could not find element with bid "${bid}"` } });

describe('checks: failures that teach (issue 18 #3)', () => {
  it('a browser agent clicking six different missing elements, then one that exists, is narrowing down: not stopped', () => {
    const rounds: ScriptedCall[][] = ['252', '269', '251', 'a85', 'a86', 'a90'].map((bid) => [{ tool: 'click', args: { bid }, outcome: missing(bid) }]);
    rounds.push([{ tool: 'click', args: { bid: 'a91' }, outcome: { result: 'clicked' } }]);
    const log = playRounds(newRun(), rounds);
    expect(log).to.have.length(7);
    expect(log.every((round) => round.after.action === 'continue')).to.equal(true);
  });

  it('the same lookups answered "not found" past 2 x consecutiveFailures in a row count again', () => {
    const rounds: ScriptedCall[][] = Array.from({ length: 20 }, (_, i) => [{ tool: 'find_user_id_by_email', args: { email: `u${i}@example.com` }, outcome: { error: { type: 'Error', message: 'Error: user not found' } } }]);
    const stop = playRounds(newRun(), rounds).at(-1)!.after;
    expect(stop).to.include({ action: 'stop' });
  });

  // tau-bench's tools, LangChain's ToolNode and the OpenAI Agents SDK hand a tool's error back as
  // the tool message's text: the call "succeeds" with "Error: user not found". Six different
  // emails answered with the same text are six wrong guesses, not a stale result six times.
  const notFoundText = (i: number): ScriptedCall[] => [{ tool: 'find_user_id_by_email', args: { email: `u${i}@example.com` }, outcome: { result: 'Error: user not found' } }];

  it('lookups of six different emails answered with the text "Error: user not found", then found: not stopped', () => {
    const rounds = Array.from({ length: 6 }, (_, i) => notFoundText(i));
    rounds.push([{ tool: 'find_user_id_by_email', args: { email: 'yusuf.rossi@example.com' }, outcome: { result: 'yusuf_rossi_9620' } }]);
    const log = playRounds(newRun(), rounds);
    expect(log.map((round) => round.after.action)).to.deep.equal(Array(7).fill('continue'));
    expect(log.flatMap((round) => round.decisions.map((decision) => decision.action))).to.deep.equal(Array(7).fill('allow'));
  });

  it('a "not found" answer as a JSON error object ({"error": "Order not found"}) narrows down too', () => {
    const rounds: ScriptedCall[][] = Array.from({ length: 6 }, (_, i) => [{ tool: 'get_order_details', args: { order_id: `#W${i}` }, outcome: { result: { error: 'Order not found' } } }]);
    const log = playRounds(newRun(), rounds);
    expect(log.map((round) => round.after.action)).to.deep.equal(Array(6).fill('continue'));
  });

  // WorkBench, mistral-8x7B, analytics query 80 (eval/corpus/scripts/src-workbench.mjs): the plot
  // tool answered "Value to plot must be one of …" to three wrong values; the escalation ladder
  // switched it off and refused the call with the value it accepts, the run's only plot.
  it('a tool that rejected three different argument values still runs the fourth value (WorkBench analytics 80)', () => {
    const rejected = "Value to plot must be one of 'total_visits', 'session_duration_seconds', 'user_engaged'";
    const plot = (value: string, result: string): ScriptedCall[] => [{ tool: 'analytics.create_plot', args: { value_to_plot: value, plot_type: 'line' }, outcome: { result } }];
    const invalidTool = (name: string): ScriptedCall[] => [{ tool: name, args: {}, outcome: { result: `${name} is not a valid tool, try one of [analytics.create_plot]` } }];
    const rounds = [
      [{ tool: 'analytics.get_average_session_duration', args: { time_min: '2023-11-20' }, outcome: { result: { '2023-11-20': 28.9 } } }],
      plot('average_session_duration', rejected),
      plot('average_session_duration', rejected),
      invalidTool('analytics.get_available_plot_values'),
      invalidTool('analytics.get_available_plot_values'),
      plot('average_session_duration_seconds', rejected),
      plot('average_session_duration_seconds', rejected),
      plot('session_duration_seconds', 'plots/2023-11-20_2023-11-27_session_duration_seconds_line.png'),
    ];
    const log = playRounds(newRun(), rounds);
    expect(log.at(-1)!.decisions.map((decision) => decision.action)).to.deep.equal(['allow']);
    expect(log.map((round) => round.after.action)).to.deep.equal(Array(rounds.length).fill('continue'));
  });

  it('"not found" texts past 2 x consecutiveFailures in a row count again: stopped', () => {
    const log = playRounds(newRun(), Array.from({ length: 20 }, (_, i) => notFoundText(i)));
    expect(log.at(-1)!.after).to.include({ action: 'stop', reason: 'stale_rounds' });
    expect(log.length).to.be.within(11, 16);
  });

  it('the same lookup answered the same "not found" text again learns nothing: stopped as before', () => {
    const log = playRounds(newRun(), Array.from({ length: 12 }, () => notFoundText(0)));
    expect(log.at(-1)!.after.action).to.equal('stop');
    expect(log.length).to.be.at.most(6);
  });

  it('an error text that is not about its arguments ("Error: the order is archived") is judged as any result', () => {
    const rounds: ScriptedCall[][] = Array.from({ length: 8 }, (_, i) => [{ tool: 'get_order_details', args: { order_id: `#W${i}` }, outcome: { result: 'Error: the order is archived' } }]);
    const log = playRounds(newRun(), rounds);
    expect(log.at(-1)!.after).to.include({ action: 'stop' });
  });

  // InterCode-SQL, text-davinci-003, Spider task 69 (eval/corpus/scripts/src-intercode-sql.mjs): ten
  // rewordings of one query, every one on the table `teachers` the database does not have, each
  // answered with the same error naming it. The error taught the agent once; after that the call
  // still carried the rejected name. Before: each answer counted as narrowing down (a different
  // query, its first answer), the ten rounds passed without a stop.
  const teachersQueries = [
    'SELECT name FROM teachers WHERE id IN (SELECT teacher_id FROM courses GROUP BY teacher_id HAVING COUNT(*) >= 2)',
    'SELECT name FROM teachers WHERE id IN (SELECT teacher_id FROM courses GROUP BY teacher_id HAVING COUNT(*) > 1)',
    'SELECT name FROM teachers WHERE id IN (SELECT teacher_id FROM course_teach GROUP BY teacher_id HAVING COUNT(*) > 1)',
    'SELECT name FROM course_teach.teachers WHERE id IN (SELECT teacher_id FROM course_teach.courses GROUP BY teacher_id HAVING COUNT(*) > 1)',
    'SELECT name FROM course_teach.teachers WHERE id IN (SELECT teacher_id FROM course_teach.courses GROUP BY teacher_id HAVING COUNT(*) >= 2)',
    'SELECT name FROM course_teach.teachers WHERE id IN (SELECT teacher_id FROM course_teach.courses GROUP BY teacher_id HAVING COUNT(*) > 1) ',
    'SELECT name FROM course_teach.teachers WHERE id IN (SELECT teacher_id FROM course_teach.courses GROUP BY teacher_id HAVING COUNT(*) >= 2) ',
  ];
  const missingTable = "Error executing query: Table 'course_teach.teachers' doesn't exist";

  it('reworded queries on a missing table, each answered with the error naming it, are stopped within 5 stale calls (InterCode-SQL task 69)', () => {
    const rounds = teachersQueries.map((query): ScriptedCall[] => [{ tool: 'execute_sql', args: { query }, outcome: { result: missingTable } }]);
    const log = playRounds(newRun(), rounds);
    expect(log.at(-1)!.after).to.include({ action: 'stop', reason: 'stale_rounds' });
    // The first answer is new; the five that repeat it word for word are the stale rounds.
    expect(log).to.have.length(6);
  });

  it('two engines sharing the run through a store, taking turns on those queries, stop it alike', async () => {
    const steps = teachersQueries.map((query): ScriptedCall => ({ tool: 'execute_sql', args: { query }, outcome: { result: missingTable } }));
    expect(await playTakingTurns('sql-69', steps)).to.deep.equal([...Array(5).fill('allow/continue'), 'allow/stop']);
  });

  it('the same as a thrown error naming the table: counted, not narrowing', () => {
    const rounds = teachersQueries.map((query): ScriptedCall[] => [{ tool: 'execute_sql', args: { query }, outcome: { error: { type: 'ProgrammingError', message: "Table 'course_teach.teachers' doesn't exist" } } }]);
    const log = playRounds(newRun(), rounds);
    expect(log.at(-1)!.after.action).to.equal('stop');
    expect(log.length).to.be.at.most(6);
  });

  // The ReAct Wikipedia environment (HotpotQA, FEVER): a search that finds no page lists similar titles.
  const wikiSearch = (entity: string, similar: string[]): ScriptedCall[] => [{ tool: 'Search', args: { entity }, outcome: { result: `Could not find [${entity}]. Similar: [${similar.map((title) => `'${title}'`).join(', ')}].` } }];

  it('reworded searches each answered "Could not find [X]. Similar: [the same titles]" are stale: stopped within 5 (document 000 in ReAct)', () => {
    const titles = ['Adam Clayton Powell III', 'Adam Powell', 'Powell (surname)', 'Colin Powell', 'Jerome Powell'];
    const log = playRounds(newRun(), ['Powell film', 'Powell film documentary', 'Powell film 1989', 'Powell film RKO', 'Powell film movie', 'Powell film biopic', 'Powell documentary 1989', 'Powell (film)'].map((entity) => wikiSearch(entity, titles)));
    expect(log.at(-1)!.after).to.include({ action: 'stop', reason: 'stale_rounds' });
    expect(log).to.have.length(6);
  });

  it('searches answered with new similar titles each time are new, and a search with no similar title is an empty result', () => {
    const log = playRounds(newRun(), [
      wikiSearch('Powell film', ['Adam Clayton Powell III', 'Adam Powell']),
      wikiSearch('Adam Clayton Powell (film)', ['Adam Clayton Powell Jr.', 'Adam Clayton Powell IV']),
      wikiSearch('Powell 1989 documentary', ['Adam Clayton Powell (film)', 'Powell (documentary)']),
      wikiSearch('Powell RKO documentary', []),
      wikiSearch('Powell PBS documentary', []),
      [{ tool: 'Search', args: { entity: 'Adam Clayton Powell Jr.' }, outcome: { result: 'Adam Clayton Powell Jr. (November 29, 1908 – April 4, 1972) was an American Baptist pastor and politician.' } }],
    ]);
    expect(log.map((round) => round.after.action)).to.deep.equal(Array(6).fill('continue'));
    expect(log.flatMap((round) => round.decisions).every((decision) => decision.action === 'allow')).to.equal(true);
  });

  it('lookups that each name another missing user are still narrowing down: not stopped', () => {
    const rounds: ScriptedCall[][] = Array.from({ length: 6 }, (_, i) => [{ tool: 'get_user', args: { email: `u${i}@example.com` }, outcome: { result: `Error: user 'u${i}@example.com' not found` } }]);
    rounds.push([{ tool: 'get_user', args: { email: 'yusuf.rossi@example.com' }, outcome: { result: 'yusuf_rossi_9620' } }]);
    const log = playRounds(newRun(), rounds);
    expect(log.map((round) => round.after.action)).to.deep.equal(Array(7).fill('continue'));
  });

  it('in the researcher profile document 000 holds: the same tool failing 5 times in a row stops, whatever the arguments', () => {
    const rounds: ScriptedCall[][] = ['1', '2', '3', '4', '5', '6'].map((bid) => [{ tool: 'click', args: { bid }, outcome: missing(bid) }]);
    const log = playRounds(newRun({ profile: 'researcher' }), rounds);
    expect(log.at(-1)!.after).to.include({ action: 'stop', reason: 'consecutive_failures' });
    expect(log).to.have.length(5);
  });
});
