// SQL tools (issue 18): a statement that can only look is a read, so the same SELECT with
// nothing written since is a repeat; anything the scan cannot vouch for stays unknown.
import { expect } from 'chai';
import { validateOptions } from '../../../src/core/policy.js';
import { LoopGuardConfigError } from '../../../src/core/errors.js';
import { classifySqlStatement } from '../../../src/core/world-state/classify-sql-statement.js';
import { judgeEachCall, kinds, newRun, playRounds, type ScriptedCall } from '../play.js';

describe('SQL statements (world-state/classify-sql-statement.ts)', () => {
  it('reads: SELECT, WITH, SHOW, DESCRIBE, EXPLAIN, a schema PRAGMA, with built-in functions, sub-queries and comments', () => {
    for (const statement of [
      'SELECT * FROM country',
      "select Name, MAX(GNP) as g from country where Continent = 'Europe' group by Name -- the richest",
      'SELECT count(*) FROM t WHERE a IN (SELECT b FROM c) AND EXISTS (SELECT 1 FROM d)',
      'WITH big AS (SELECT * FROM country WHERE SurfaceArea > 1e6) SELECT Name FROM big',
      'SHOW TABLES',
      'DESCRIBE templates',
      'EXPLAIN SELECT 1',
      'PRAGMA table_info(users)',
      "SELECT replace(lower(name), 'a', 'b'), CAST(x AS DECIMAL(10,2)) FROM t /* block */ ORDER BY 1 DESC",
      'SELECT rank() OVER (PARTITION BY dept ORDER BY pay) FROM staff',
      '(SELECT 1) UNION (SELECT 2);',
      "SELECT 'it''s; DROP TABLE t' FROM t",
    ]) {
      expect(classifySqlStatement(statement), statement).to.equal('read');
    }
  });

  it('writes: a statement that changes data, schema or rights, first or after a read', () => {
    for (const statement of ['INSERT INTO t VALUES (1)', 'update t set a = 1', 'CREATE TABLE t (a int)', 'DROP TABLE t', 'SELECT 1; DELETE FROM t', 'TRUNCATE t', 'VACUUM']) {
      expect(classifySqlStatement(statement), statement).to.equal('write');
    }
  });

  it('unknown: what may write inside a read, a function that is not a built-in, a clock or a random source, what the scan cannot read', () => {
    for (const statement of [
      'SELECT * INTO backup FROM t',
      'WITH gone AS (DELETE FROM t RETURNING *) SELECT * FROM gone',
      'EXPLAIN ANALYZE DELETE FROM t',
      'SELECT * FROM jobs FOR UPDATE',
      "SELECT create_user('x')",
      'SELECT billing.close_month(1)',
      'SELECT "Count"(1)',
      'SELECT now()',
      'SELECT CURRENT_DATE',
      "SELECT date('now')",
      'SELECT random()',
      'PRAGMA journal_mode = WAL',
      'SELECT @x := 1',
      'SELECT $$ body $$',
      "SELECT 'unclosed",
      'SELECT 1 /* unclosed',
      '',
      ' ; ',
      `SELECT ${'a, '.repeat(6000)}1`,
    ]) {
      expect(classifySqlStatement(statement), statement).to.equal(undefined);
    }
  });

  it('a long hostile text is classified in linear time', () => {
    for (const filler of ["'", '(', '-', '/*', 'a'.repeat(100) + ' ']) {
      const text = `SELECT ${filler.repeat(Math.floor(16_000 / filler.length))}`;
      const started = process.hrtime.bigint();
      classifySqlStatement(text);
      // Generous: a linear scan of 16 KB takes well under a millisecond; a quadratic one, seconds.
      expect(Number(process.hrtime.bigint() - started) / 1e6, filler).to.be.below(500);
    }
  });
});

const sql = (query: string, result: unknown, tool = 'execute_sql'): ScriptedCall => ({ tool, args: { query }, outcome: { result } });

describe('SQL tools in the engine (general profile, no policy)', () => {
  it('InterCode-SQL: the same SELECT with nothing written since is refused, as an identical read', () => {
    // gpt-4 on InterCode-SQL task 482 alternated between two queries for the last four turns.
    const codes = "[('AFG',), ('AGO',), ('ALB',)]";
    const { judged } = judgeEachCall([
      sql("SELECT Code FROM country WHERE Code NOT IN (SELECT CountryCode FROM countrylanguage WHERE Language = 'English')", codes),
      sql("SELECT Code FROM country WHERE Code NOT IN (SELECT CountryCode FROM countrylanguage WHERE Language = 'English' AND IsOfficial = 'T')", codes),
      sql("SELECT Code FROM country WHERE Code NOT IN (SELECT CountryCode FROM countrylanguage WHERE Language = 'English')", codes),
    ]);
    expect(judged).to.deep.equal(['new', 'seen', 'refused:repeat.run_wide']);
  });

  it('a write in between lets the same SELECT run again; a SELECT that reads the clock always may', () => {
    const log = playRounds(newRun(), [
      [sql('SELECT count(*) FROM orders', '[(3,)]')],
      [sql("INSERT INTO orders VALUES (4, 'pending')", '1 row affected')],
      [sql('SELECT count(*) FROM orders', '[(4,)]')],
      [sql('SELECT now()', '2026-12-07 22:00:01')],
      [sql('SELECT now()', '2026-12-07 22:00:09')],
    ]);
    expect(kinds(log.flatMap((round) => round.decisions))).to.deep.equal(['allow:new', 'allow:new', 'allow:reread', 'allow:new', 'allow:repeat']);
  });

  it('the reference Postgres MCP server: `query` with `sql`; a policy names the argument, or turns it off', () => {
    const postgres = (statement: string): ScriptedCall => ({ tool: 'mcp__postgres__query', args: { sql: statement }, outcome: { result: '[]' } });
    const wellKnown = playRounds(newRun(), [[postgres('SELECT 1')], [postgres('SELECT 1')]]);
    expect(kinds(wellKnown.flatMap((round) => round.decisions))).to.deep.equal(['allow:new', 'refuse:repeat.run_wide']);
    const named: ScriptedCall = { tool: 'warehouse', args: { text: 'SELECT 1', limit: 10 }, outcome: { result: '[(1,)]' } };
    const declared = playRounds(newRun({ tools: { warehouse: { sql: 'text' } } }), [[named], [named]]);
    expect(kinds(declared.flatMap((round) => round.decisions))).to.deep.equal(['allow:new', 'refuse:repeat.run_wide']);
    const off = playRounds(newRun({ tools: { execute_sql: { sql: false } } }), [[sql('SELECT 1', '[(1,)]')], [sql('SELECT 1', '[(1,)]')]]);
    expect(kinds(off.flatMap((round) => round.decisions))).to.deep.equal(['allow:new', 'allow:repeat']);
  });

  it('a read answered with an error is judged as the thrown error it stands for: the identical third attempt is refused, not the second', () => {
    // text-davinci-003 on InterCode-SQL task 536 ran the same failing query four times, then fixed
    // it. Refused at the first repeat, three refused rounds stopped it one turn before the fix.
    const failing = sql("SELECT name FROM contestants WHERE name LIKE '%Al%'", "Error executing query: Unknown column 'name' in 'field list'");
    const fixed = sql("SELECT contestant_name FROM contestants WHERE contestant_name LIKE '%Al%'", "[('Jessie Alloway',), ('Alana Bregman',)]");
    const log = playRounds(newRun(), [[failing], [failing], [failing], [failing], [fixed]]);
    expect(kinds(log.flatMap((round) => round.decisions))).to.deep.equal(['allow:new', 'allow:repeat', 'refuse:repeat.unchanged', 'refuse:repeat.unchanged', 'allow:new']);
    expect(log.map((round) => round.after.action)).to.not.include('stop');
    // Rows are a fact: the same SELECT answered with rows is refused at its first repeat.
    const rows = sql('SELECT count(*) FROM contestants', '[(11,)]');
    expect(kinds(playRounds(newRun(), [[rows], [rows]]).flatMap((round) => round.decisions))).to.deep.equal(['allow:new', 'refuse:repeat.run_wide']);
    // So is an error from a shell read: its output is a program's (`grep error app.log`).
    const grep: ScriptedCall = { tool: 'bash', args: { command: 'grep -m1 error app.log' }, outcome: { result: 'error: disk full\n' } };
    expect(kinds(playRounds(newRun(), [[grep], [grep]]).flatMap((round) => round.decisions))).to.deep.equal(['allow:new', 'refuse:repeat.run_wide']);
  });

  it('a SELECT of one row whose status still moves is a poll, not a repeat: the job is looked at until it ends', () => {
    const look = (status: string, at: number): ScriptedCall => ({ tool: 'execute_sql', args: { query: 'SELECT status FROM jobs WHERE id = 5' }, outcome: { result: JSON.stringify([{ status }]) }, at });
    const { judged, stop } = judgeEachCall([look('running', 0), look('running', 30_000), look('running', 60_000), look('succeeded', 90_000), look('succeeded', 120_000)]);
    expect(judged).to.deep.equal(['new', 'neutral', 'neutral', 'new', 'refused:repeat.run_wide']);
    expect(stop).to.equal(undefined);
  });

  it('the researcher profile keeps document 000: any identical call is refused, an error answer included', () => {
    const failing = sql('SELECT nme FROM t', "Error executing query: Unknown column 'nme'");
    const log = playRounds(newRun({ profile: 'researcher', tools: { execute_sql: { sql: true } } }), [[failing], [failing]]);
    expect(kinds(log.flatMap((round) => round.decisions))).to.deep.equal(['allow:new', 'refuse:repeat.run_wide']);
  });

  it('a bad `sql` policy value is rejected at construction, naming the field', () => {
    try {
      validateOptions({ tools: { warehouse: { sql: '' } } });
      expect.fail('expected a LoopGuardConfigError');
    } catch (error) {
      expect(error).to.be.instanceOf(LoopGuardConfigError);
      expect((error as LoopGuardConfigError).field).to.equal('tools.warehouse.sql');
      expect((error as Error).message).to.match(/name of the argument that holds the statement/);
    }
  });
});
