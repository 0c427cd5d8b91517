/**
 * What one call of a SQL tool does to the database: `read` for a statement that can only look
 * (`SELECT`, `SHOW`, `DESCRIBE`, `EXPLAIN`, a schema `PRAGMA`), `write` for one that changes it
 * (`INSERT`, `UPDATE`, `CREATE`, …), undefined when the text cannot say (the tool's own effect
 * stands: unknown, which may run again). Left undefined was the cost measured on InterCode-SQL:
 * a query repeated word for word with nothing written since was "unknown" and ran again, so
 * two loops that alternate between the same two queries ran to the recording's end.
 *
 * A `read` may lead to a refusal (an identical statement with nothing written since), so it is
 * kept to what cannot change anything or answer differently on its own, in any dialect:
 * - every statement of the text leads with a read word, and no word anywhere in it (outside
 *   strings and quoted names) writes, locks or runs code: `INTO` (`SELECT … INTO`), `UPDATE`
 *   (`FOR UPDATE`), `CALL`, a data-modifying `WITH x AS (DELETE … RETURNING *)`;
 * - every function called is a built-in that only computes (`COUNT`, `LOWER`, `COALESCE`, …):
 *   a user's function may write (`SELECT create_user('x')`), so any other name leaves it
 *   unknown, and so does a schema-qualified or quoted one;
 * - nothing reads a clock or a random source (`NOW()`, `CURRENT_DATE`, `random()`, SQLite's
 *   `'now'`): the same statement answering differently is no repeat.
 * Anything the scan does not know (a dollar-quoted body, an unclosed string, a text over 16 KB)
 * leaves the call unknown: document 000, every unclear case leans toward "new fact".
 */
export function classifySqlStatement(text: string): 'read' | 'write' | undefined {
  if (text.length > MAX_STATEMENT_LENGTH) return undefined;
  const tokens = sqlTokens(text);
  if (tokens === undefined) return undefined;
  let statements = 0;
  let lead = true;
  let reads = true;
  let pragma = false;
  for (let index = 0; index < tokens.length; index += 1) {
    const token = tokens[index];
    if (token === ';') {
      lead = true;
      pragma = false;
      continue;
    }
    if (lead) {
      if (token === '(') continue;
      lead = false;
      statements += 1;
      const word = token.toUpperCase();
      if (WRITE_LEADS.has(word)) return 'write';
      if (!READ_LEADS.has(word)) reads = false;
      if (word === 'PRAGMA') {
        // `PRAGMA table_info(users)` reads the schema; `PRAGMA journal_mode = WAL` and most others change settings.
        const name = (tokens[index + 1] ?? '').toLowerCase();
        if (!READ_PRAGMAS.has(name)) reads = false;
        pragma = true;
        index += 1;
      }
      continue;
    }
    if (token.startsWith("'")) {
      // SQLite's clock: date('now'), strftime('%s', 'now', 'localtime').
      if (CLOCK_STRINGS.has(token.toLowerCase())) reads = false;
      continue;
    }
    if (token === ':=' || (pragma && token === '=')) reads = false;
    else if (token === '(') {
      const previous = tokens[index - 1] ?? '';
      const word = previous.toUpperCase();
      const qualified = tokens[index - 2] === '.';
      if (isWord(previous) && !PAREN_KEYWORDS.has(word) && !pragma && (qualified || !PURE_FUNCTIONS.has(previous.toLowerCase()))) reads = false;
      else if (previous.startsWith('"') || previous.startsWith('`')) reads = false;
    } else if (isWord(token)) {
      const word = token.toUpperCase();
      // A read word's statement that writes inside (`WITH x AS (DELETE … RETURNING *) SELECT`,
      // `SELECT … INTO t`, `EXPLAIN ANALYZE UPDATE`) may write: unknown, not read.
      if (WRITE_WORDS.has(word) || CLOCK_WORDS.has(word)) reads = false;
    }
  }
  if (statements === 0) return undefined;
  return reads ? 'read' : undefined;
}

/** Longer texts are not scanned (bounded time on the hot path). */
const MAX_STATEMENT_LENGTH = 16 * 1024;

const READ_LEADS: ReadonlySet<string> = new Set(['SELECT', 'WITH', 'SHOW', 'DESCRIBE', 'DESC', 'EXPLAIN', 'VALUES', 'TABLE', 'PRAGMA']);

/** Statements that change data, schema, rights or settings. */
const WRITE_LEADS: ReadonlySet<string> = new Set([
  'INSERT', 'UPDATE', 'DELETE', 'MERGE', 'UPSERT', 'REPLACE', 'CREATE', 'DROP', 'ALTER', 'TRUNCATE', 'RENAME', 'GRANT',
  'REVOKE', 'COPY', 'LOAD', 'IMPORT', 'ATTACH', 'DETACH', 'VACUUM', 'REINDEX', 'CLUSTER', 'COMMENT',
]);

/**
 * Words that, inside a statement that leads with a read word, write, lock, or run code. Not the
 * leads that are as often a column's name (`comment`, `copy`) or a function (`replace(…)`).
 */
const WRITE_WORDS: ReadonlySet<string> = new Set([
  'INSERT', 'UPDATE', 'DELETE', 'MERGE', 'UPSERT', 'CREATE', 'DROP', 'ALTER', 'TRUNCATE', 'GRANT', 'REVOKE',
  'INTO', 'CALL', 'EXEC', 'EXECUTE', 'DO', 'SET', 'LOCK', 'UNLOCK', 'ANALYZE', 'ANALYSE', 'REFRESH', 'OUTFILE', 'DUMPFILE',
  'NEXTVAL', 'SETVAL', 'PREPARE', 'DEALLOCATE', 'LISTEN', 'NOTIFY', 'BEGIN', 'COMMIT', 'ROLLBACK', 'SAVEPOINT',
  'RELEASE', 'HANDLER',
]);

/** Words that read a clock or a random source: the same statement may answer differently. */
const CLOCK_WORDS: ReadonlySet<string> = new Set([
  'NOW', 'CURRENT_TIMESTAMP', 'CURRENT_DATE', 'CURRENT_TIME', 'LOCALTIME', 'LOCALTIMESTAMP', 'SYSDATE', 'SYSTIMESTAMP',
  'GETDATE', 'GETUTCDATE', 'SYSDATETIME', 'SYSUTCDATETIME', 'CLOCK_TIMESTAMP', 'STATEMENT_TIMESTAMP',
  'TRANSACTION_TIMESTAMP', 'TIMEOFDAY', 'UNIX_TIMESTAMP', 'UTC_TIMESTAMP', 'UTC_DATE', 'UTC_TIME', 'CURDATE', 'CURTIME',
  'RANDOM', 'RAND', 'RANDOMBLOB', 'UUID', 'GEN_RANDOM_UUID', 'UUID_GENERATE_V4', 'NEWID', 'SLEEP', 'PG_SLEEP', 'BENCHMARK',
  'AGE', 'CHANGES', 'TOTAL_CHANGES', 'LAST_INSERT_ID', 'LAST_INSERT_ROWID', 'FOUND_ROWS', 'ROW_COUNT',
]);

const CLOCK_STRINGS: ReadonlySet<string> = new Set(["'now'", "'localtime'", "'utc'", "'today'", "'tomorrow'", "'yesterday'"]);

/** Schema reads among SQLite's pragmas; the others change or check settings. */
const READ_PRAGMAS: ReadonlySet<string> = new Set([
  'table_info', 'table_xinfo', 'table_list', 'index_list', 'index_info', 'index_xinfo', 'foreign_key_list', 'database_list',
  'collation_list', 'function_list', 'pragma_list', 'module_list',
]);

/** Keywords a parenthesis may follow: sub-queries, lists, window and type syntax. */
const PAREN_KEYWORDS: ReadonlySet<string> = new Set([
  'IN', 'EXISTS', 'VALUES', 'AS', 'OVER', 'FILTER', 'USING', 'ON', 'AND', 'OR', 'NOT', 'WHERE', 'SELECT', 'FROM', 'JOIN',
  'ANY', 'ALL', 'SOME', 'WHEN', 'THEN', 'ELSE', 'BY', 'HAVING', 'LIKE', 'BETWEEN', 'IS', 'WITHIN', 'GROUP', 'DISTINCT',
  'LATERAL', 'UNION', 'INTERSECT', 'EXCEPT', 'MINUS', 'RETURN', 'CASE', 'END', 'WITH', 'TABLE', 'ROW', 'ARRAY', 'INTERVAL',
  'DECIMAL', 'NUMERIC', 'VARCHAR', 'CHAR', 'NCHAR', 'NVARCHAR', 'VARBINARY', 'BINARY', 'FLOAT', 'DOUBLE', 'REAL',
  'DATETIME2', 'TIMESTAMP', 'TIME', 'INT', 'INTEGER', 'BIGINT', 'SMALLINT', 'BIT', 'TEXT', 'LIMIT', 'OFFSET', 'TOP',
]);

/** Built-in functions that only compute from their arguments (aggregates, text, numbers, dates, JSON, windows). */
const PURE_FUNCTIONS: ReadonlySet<string> = new Set([
  'count', 'sum', 'avg', 'min', 'max', 'total', 'group_concat', 'string_agg', 'array_agg', 'json_agg', 'jsonb_agg',
  'json_object_agg', 'json_group_array', 'json_group_object', 'bool_and', 'bool_or', 'every', 'stddev', 'stddev_pop',
  'stddev_samp', 'variance', 'var_pop', 'var_samp', 'median', 'percentile_cont', 'percentile_disc', 'mode', 'listagg',
  'lower', 'upper', 'lcase', 'ucase', 'length', 'char_length', 'character_length', 'octet_length', 'bit_length', 'len',
  'substr', 'substring', 'trim', 'ltrim', 'rtrim', 'btrim', 'replace', 'concat', 'concat_ws', 'coalesce', 'ifnull',
  'isnull', 'nullif', 'nvl', 'iif', 'if', 'cast', 'try_cast', 'convert', 'round', 'floor', 'ceil', 'ceiling', 'abs',
  'sign', 'mod', 'power', 'pow', 'sqrt', 'exp', 'ln', 'log', 'log10', 'log2', 'greatest', 'least', 'pi', 'radians',
  'degrees', 'sin', 'cos', 'tan', 'asin', 'acos', 'atan', 'atan2', 'cot', 'div', 'trunc', 'width_bucket', 'date',
  'time', 'datetime', 'julianday', 'unixepoch', 'strftime', 'date_part', 'datepart', 'date_trunc', 'extract', 'year',
  'month', 'day', 'hour', 'minute', 'second', 'dayofweek', 'dayofmonth', 'dayofyear', 'weekday', 'week', 'quarter',
  'to_char', 'to_date', 'to_timestamp', 'to_number', 'date_format', 'str_to_date', 'datediff', 'date_add', 'date_sub',
  'timestampdiff', 'dateadd', 'instr', 'position', 'locate', 'charindex', 'strpos', 'left', 'right', 'lpad', 'rpad',
  'reverse', 'repeat', 'format', 'printf', 'quote', 'hex', 'unhex', 'typeof', 'row_number', 'rank', 'dense_rank',
  'ntile', 'lag', 'lead', 'first_value', 'last_value', 'nth_value', 'percent_rank', 'cume_dist', 'json_extract',
  'json_value', 'json_query', 'json_array_length', 'json_each', 'json_tree', 'json_object', 'json_array', 'json_type',
  'jsonb_extract_path', 'json_extract_path', 'json_extract_path_text', 'jsonb_extract_path_text', 'to_json', 'to_jsonb',
  'row_to_json', 'regexp_replace', 'regexp_matches', 'regexp_like', 'regexp_substr', 'regexp_instr', 'split_part',
  'array_length', 'array_to_string', 'string_to_array', 'unnest', 'generate_series', 'cardinality', 'md5', 'sha1',
  'sha2', 'crc32', 'unicode', 'char', 'chr', 'ascii', 'ord', 'soundex', 'translate', 'initcap', 'decode', 'encode',
  'glob', 'like', 'field', 'elt', 'find_in_set', 'space', 'zeroblob', 'total_seconds', 'epoch', 'any_value',
]);

function isWord(token: string): boolean {
  return isWordStart(token.charCodeAt(0));
}

// Character codes, not a regular expression per character: a statement is scanned on every call of a SQL
// tool. A 160-character query with a sub-query takes about 3 µs (tsx probe, 100,000 calls, three passes).
function isWordStart(code: number): boolean {
  return (code >= 65 && code <= 90) || (code >= 97 && code <= 122) || code === 95;
}

function isWordPart(code: number): boolean {
  return isWordStart(code) || (code >= 48 && code <= 57) || code === 36;
}

/**
 * The statement's tokens: words, `'strings'` (kept whole, quotes included), quoted names,
 * numbers and punctuation; comments dropped. undefined for what the scan does not read: an
 * unclosed string or comment, a dollar-quoted body (`$$ … $$`, where a function's code lives).
 */
function sqlTokens(text: string): string[] | undefined {
  const tokens: string[] = [];
  let index = 0;
  while (index < text.length) {
    const char = text[index];
    if (char === ' ' || char === '\n' || char === '\t' || char === '\r') {
      index += 1;
    } else if (char === '-' && text[index + 1] === '-') {
      const end = text.indexOf('\n', index);
      index = end < 0 ? text.length : end + 1;
    } else if (char === '/' && text[index + 1] === '*') {
      const end = text.indexOf('*/', index + 2);
      if (end < 0) return undefined;
      index = end + 2;
    } else if (char === "'" || char === '"' || char === '`') {
      // '' (or "") inside doubles the quote; a backslash escapes in MySQL.
      let end = index + 1;
      for (;;) {
        if (end >= text.length) return undefined;
        const next = text[end];
        if (next === '\\') end += 2;
        else if (next === char && text[end + 1] === char) end += 2;
        else if (next === char) break;
        else end += 1;
      }
      tokens.push(text.slice(index, end + 1));
      index = end + 1;
    } else if (char === '$') {
      return undefined;
    } else if (isWordStart(text.charCodeAt(index))) {
      let end = index + 1;
      while (end < text.length && isWordPart(text.charCodeAt(end))) end += 1;
      tokens.push(text.slice(index, end));
      index = end;
    } else if (char === ':' && text[index + 1] === '=') {
      tokens.push(':=');
      index += 2;
    } else {
      tokens.push(char);
      index += 1;
    }
  }
  return tokens;
}
