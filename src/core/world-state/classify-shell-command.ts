/**
 * Classifies one shell command line (the argument of a `bash`-style tool: SWE-agent,
 * mini-swe-agent, OpenHands, Claude Code's Bash, gemini-cli's run_shell_command) as a read,
 * which cannot change the world, or a write, which may.
 *
 * Every unclear case leans to 'write' ("may write"), because a write lets an identical call
 * run again: that is the safe direction (document 000). A run that keeps going is still cut
 * off by other checks; a healthy run cut off cannot be brought back. So 'read' needs proof:
 * every simple command is a known read-only program used without writing options, and
 * nothing redirects output to a file. Unknown programs, interpreters, build and test runners,
 * session-state changes (`cd`, `export`, `source`, SWE-agent's `open`/`goto`/`scroll_*`)
 * and anything this module cannot parse confidently are 'write'.
 *
 * Tokenizing is done by `shell-quote` (small, synchronous, no dependencies). It reads words,
 * quotes and operators well but does not know newlines as separators, heredocs, command
 * substitution, backslash-newline continuations, comments in mid-word or `N>` file
 * descriptors; a quote-aware pre-pass here (`prepare`) handles exactly those and hands it a
 * single-line text it can read.
 */
import { changesStateElsewhere } from './changes-state-elsewhere.js';
import { programName } from './program-name.js';
import parseShell from 'shell-quote/parse.js';

export type ShellCommandEffect = 'read' | 'write';

export interface ShellCommandClass {
  /** 'read' only when every simple command in the line is a known read-only command used read-only and nothing redirects output to a file. Everything else — unknown commands, interpreters, build/test runners, redirections, sed -i, tee, cp/mv/rm/mkdir/touch/patch, git commit/checkout/apply..., cd and other session-state changes — is 'write' ("may write"). Unparseable input is 'write'. */
  effect: ShellCommandEffect;
  /** The command family used to group calls for the escalation ladder: the first simple command's program name (basename, e.g. 'grep', 'python', 'sed', 'find'); for `git`/`npm`/`str_replace_editor`-style multiplexers include the subcommand ('git diff', 'str_replace_editor view'). undefined for an empty command. */
  family: string | undefined;
  /** The line submits/finishes the task (SWE-agent `submit`, mini-swe-agent's `echo COMPLETE_TASK_AND_SUBMIT_FINAL_OUTPUT ...` / `echo MINI_SWE_AGENT_FINAL_OUTPUT`). */
  terminal: boolean;
  /**
   * The line waits and runs something (`sleep 30 && gh run view 123`, `sleep 20; kubectl get
   * pods`, `kubectl get pods; sleep 10`, a loop with a sleep in it), or runs a program that waits
   * by itself (`kubectl rollout status`, `kubectl wait`, `gh run watch`, `docker wait`, `aws …
   * wait`, `wait-on`): a poll of state that changes over time, not a repeat (issue 24 #4). Only
   * when nothing writes to a file: `sleep 1; echo x > f` is a write like any other.
   */
  sleepsThenRuns: boolean;
  /**
   * The line only waits (`sleep 5`): it writes nothing, and the look that follows it in the
   * next round is a poll, as `sleep 5 && <look>` in one line is (run-guard.ts factsOf).
   */
  sleepsOnly: boolean;
  /**
   * Run after a wait, the line would be a poll: nothing on it writes to a file or is known to
   * change state elsewhere (the condition of `sleepsThenRuns` without the leading sleep).
   */
  pollsAfterSleep: boolean;
  /**
   * A command on the line is known to change state elsewhere (`curl -X POST`, `git push`, `gh
   * workflow run`: world-state/changes-state-elsewhere.ts): run again, it does it again. Such a
   * line is no poll, sleep or not.
   */
  changesStateElsewhere: boolean;
}

/** Past this the line is not tokenized, so one call costs bounded time whatever the agent sends. */
const MAX_PARSED_LENGTH = 64 * 1024;

/**
 * Agents repeat command lines verbatim, often many times a run, so answers are cached. The
 * map is cleared whole once it passes CACHE_LIMIT entries: simpler than LRU, and a long run
 * only re-parses after a clear. Only short lines are kept (the repeated ones are short; long
 * ones are heredoc file writes), so the cache holds at most ~4096 × 1 KiB of text.
 */
const CACHE_LIMIT = 4096;
const MAX_CACHED_LENGTH = 1024;
const cache = new Map<string, ShellCommandClass>();

/** Nested `$(...)` deeper than this is not followed: 'write'. */
const MAX_SUBSTITUTION_DEPTH = 4;

/** Stands in for the output of a command substitution, whose inner command is classified on its own. */
const SUBSTITUTION_WORD = '__loopguard_substitution__';
const HEREDOC_WORD = '__loopguard_heredoc__';

const TERMINAL_MARKERS = ['COMPLETE_TASK_AND_SUBMIT_FINAL_OUTPUT', 'MINI_SWE_AGENT_FINAL_OUTPUT'];

/** Thrown inside the parser for input it cannot read confidently; always becomes 'write'. */
class Unparseable extends Error {}

export function classifyShellCommand(command: string): ShellCommandClass {
  try {
    const cached = cache.get(command);
    if (cached !== undefined) return cached;
    const result = Object.freeze(classifyUncached(command));
    if (command.length <= MAX_CACHED_LENGTH) {
      if (cache.size >= CACHE_LIMIT) cache.clear();
      cache.set(command, result);
    }
    return result;
  } catch {
    return Object.freeze({ effect: 'write', family: safeFirstWordFamily(command), terminal: false, sleepsThenRuns: false, sleepsOnly: false, pollsAfterSleep: false, changesStateElsewhere: false });
  }
}

function classifyUncached(command: string, depth = 0): ShellCommandClass {
  if (command.length > MAX_PARSED_LENGTH) {
    const family = firstWordFamily(command);
    return { effect: 'write', family, terminal: family === 'submit', sleepsThenRuns: false, sleepsOnly: false, pollsAfterSleep: false, changesStateElsewhere: false };
  }
  let analysis: LineAnalysis;
  try {
    analysis = analyze(command, 0);
  } catch (error) {
    if (!(error instanceof Unparseable)) throw error;
    return { effect: 'write', family: firstWordFamily(command), terminal: false, sleepsThenRuns: false, sleepsOnly: false, pollsAfterSleep: false, changesStateElsewhere: false };
  }
  // `bash -lc '<script>'` runs the script: it is judged, not the shell that runs it. Codex and
  // other harnesses wrap every command this way; judged as `bash`, every line was a write of
  // one family, so no read was ever a repeat and the ladder could only switch the shell off.
  const script = analysis.commands.length === 1 && !analysis.writesFile ? shellScriptOf(analysis.commands[0]!) : undefined;
  if (script !== undefined && depth < MAX_SUBSTITUTION_DEPTH) return classifyUncached(script, depth + 1);
  const lead = leadingCommand(analysis.commands);
  // A read-only line runs nothing on the list; only lines that may write are asked.
  const elsewhere = !analysis.readOnly && analysis.commands.some(isKnownWriteElsewhere);
  const pollsAfterSleep = !analysis.writesFile && !elsewhere;
  // Waiting changes no file: a line of sleeps alone is a read, not a write that moves the run's epoch.
  const sleepsOnly = pollsAfterSleep && analysis.commands.length > 0 && analysis.commands.every(isSleep);
  return {
    effect: analysis.readOnly || sleepsOnly ? 'read' : 'write',
    family: lead === undefined ? undefined : familyOf(lead),
    terminal: (lead !== undefined && programName(lead[0]) === 'submit') || analysis.commands.some(echoesMarker),
    // The wait anywhere on the line: `kubectl get pods; sleep 10` re-run is a paced look as much as
    // `sleep 10; kubectl get pods`, and so is `for i in 1 2 3; do curl …; sleep 2; done`.
    // A program that waits by itself (`kubectl rollout status`, `gh run watch`) is the sleep and the look in one.
    sleepsThenRuns: pollsAfterSleep && ((analysis.commands.length > 1 && analysis.commands.some(isSleep)) || analysis.commands.some(waitsInsideProgram)),
    sleepsOnly,
    pollsAfterSleep,
    changesStateElsewhere: elsewhere,
  };
}

const SHELLS = new Set(['bash', 'sh', 'zsh', 'dash', 'ksh']);

/**
 * The script of `bash -c '<script>'` (`-lc`, `-c`, `-ec`; `--login -c`; behind `timeout 60` or
 * `env X=1`): the word after the option cluster holding `c`. Words after it are the script's
 * `$0`, `$1`…, not commands. undefined for anything else (`bash script.sh` runs a file).
 */
function shellScriptOf(words: string[]): string | undefined {
  const effective = effectiveWords(words);
  if (effective === 'none' || effective === 'write' || !SHELLS.has(programName(effective[0]))) return undefined;
  for (let i = 1; i < effective.length; i += 1) {
    const word = effective[i]!;
    if (word === '--login' || word === '--noprofile' || word === '--norc') continue;
    if (!/^-[a-z]+$/.test(word)) return undefined;
    if (word.endsWith('c')) return effective[i + 1];
  }
  return undefined;
}

function isKnownWriteElsewhere(words: string[]): boolean {
  const effective = effectiveWords(words);
  if (effective === 'none') return false;
  if (effective !== 'write') return changesStateElsewhere(effective);
  // A wrapper whose options are not read: any command after it counts, the safe side.
  for (let at = 1; at < words.length; at++) if (changesStateElsewhere(words.slice(at))) return true;
  return false;
}

/** `sleep 30`, `sleep 0.5`, `sleep 2m`: a wait before the rest of the line. */
function isSleep(words: readonly string[]): boolean {
  return words.length >= 2 && programName(words[0]) === 'sleep' && words.slice(1).every((word) => /^\d+(\.\d+)?[smhd]?$/.test(word));
}

/**
 * Programs that block until a condition holds or their timeout passes: `kubectl rollout status`
 * and `kubectl wait` (and OpenShift's `oc`), `gh run watch` and `gh pr checks --watch`, `docker
 * wait`, the cloud CLIs' `aws <service> wait <condition>`, `az <group> wait`, `gcloud …
 * operations wait`, and `wait-on` / `wait-for-it`. Re-run with the same answer ("1 of 3 updated
 * replicas are available", "timed out waiting for the condition"), each is a paced look at a
 * rollout, a job or a stack that moves by itself, as `sleep 60 && kubectl get pods` is.
 */
function waitsInsideProgram(words: string[]): boolean {
  const effective = effectiveWords(words);
  if (effective === 'none' || effective === 'write') return false;
  const program = programName(effective[0]);
  // Subcommands and conditions only: `-n prod`'s value may sit among them, which never names a wait.
  const operands = effective.slice(1).filter((word) => !word.startsWith('-'));
  switch (program) {
    case 'kubectl':
    case 'oc': {
      const rollout = operands.indexOf('rollout');
      return operands.includes('wait') || (rollout >= 0 && operands[rollout + 1] === 'status');
    }
    case 'gh':
      return (operands[0] === 'run' && operands[1] === 'watch') || (operands[0] === 'pr' && operands[1] === 'checks' && effective.includes('--watch'));
    case 'docker':
    case 'podman':
      return operands[0] === 'wait';
    case 'aws':
    case 'az':
      return operands.slice(0, 3).includes('wait');
    case 'gcloud':
      return operands.includes('operations') && operands.includes('wait');
    case 'wait-on':
    case 'wait-for-it':
    case 'wait-for-it.sh':
      return true;
    case 'npx':
      return operands[0] === 'wait-on';
    default:
      return false;
  }
}

// ---------------------------------------------------------------------------------------------
// Pre-pass: what shell-quote does not read.

interface Heredoc {
  delimiter: string;
  stripTabs: boolean;
  /** Unquoted delimiter: the body undergoes `$(...)` expansion, which runs commands. */
  expands: boolean;
}

const BLANKS = new Set([' ', '\t', '\r', '\n']);
const META = new Set(['|', '&', ';', '(', ')', '<', '>']);

/**
 * Rewrites a command line into one shell-quote reads correctly: unquoted newlines become `;`
 * (shell-quote would join the lines into one command), heredoc bodies are cut out (they are
 * data, not commands), comments are dropped and mid-word `#` escaped (shell-quote would
 * comment out the rest of the whole line), `N>` fd numbers are dropped (it would make them an
 * argument), continuations are joined, and `$(...)` / backticks become a placeholder word,
 * their inner command lines collected for classification on their own.
 */
function prepare(src: string, substitutions: string[]): string {
  const n = src.length;
  const pending: Heredoc[] = [];
  let out = '';
  let i = 0;
  let wordStart = true;
  while (i < n) {
    const c = src[i];
    const next = src[i + 1];
    if (c === '\\') {
      if (next === undefined) throw new Unparseable('trailing backslash');
      i += 2;
      if (next === '\n') continue;
      out += c + next;
      wordStart = false;
    } else if (c === "'") {
      const end = src.indexOf("'", i + 1);
      if (end < 0) throw new Unparseable('unterminated single quote');
      out += src.slice(i, end + 1);
      i = end + 1;
      wordStart = false;
    } else if (c === '$' && next === "'") {
      const end = ansiCQuoteEnd(src, i + 2);
      out += src.slice(i, end + 1);
      i = end + 1;
      wordStart = false;
    } else if (c === '"') {
      const [text, end] = doubleQuoted(src, i, substitutions);
      out += text;
      i = end;
      wordStart = false;
    } else if (c === '`' || (c === '$' && next === '(')) {
      const [word, end] = substitution(src, i, substitutions);
      out += word;
      i = end;
      wordStart = false;
    } else if (c === '\n') {
      i = skipHeredocBodies(src, i + 1, pending);
      out += ' ; ';
      wordStart = true;
    } else if (c === '#' && wordStart) {
      const newline = src.indexOf('\n', i);
      i = newline < 0 ? n : newline;
    } else if (c === '#') {
      out += '\\#';
      i += 1;
    } else if (wordStart && c >= '0' && c <= '9' && fdRedirectEnd(src, i) !== i) {
      i = fdRedirectEnd(src, i);
    } else if (c === '<' && next === '<' && src[i + 2] !== '<') {
      i = heredocOperator(src, i, pending);
      out += ` ${src[i - 1] === '-' ? '<<-' : '<<'} ${HEREDOC_WORD} `;
      out = out.replace(/ <<-? __loopguard_heredoc__ $/, (m) => m); // kept simple: operator then word
      wordStart = true;
    } else {
      out += c;
      i += 1;
      wordStart = BLANKS.has(c) || META.has(c);
    }
  }
  // A heredoc whose body never came: bash would read it from the next input, which we cannot see.
  if (pending.length > 0) throw new Unparseable('heredoc without a body');
  return out;
}

/** Index after the digits of an `N>` / `N<` fd prefix, or `start` when the digits are a word. */
function fdRedirectEnd(src: string, start: number): number {
  let j = start;
  while (j < src.length && src[j] >= '0' && src[j] <= '9') j += 1;
  return src[j] === '>' || src[j] === '<' ? j : start;
}

/** Reads `<<[-]DELIM`, registers the heredoc, returns the index after the delimiter word. */
function heredocOperator(src: string, start: number, pending: Heredoc[]): number {
  let j = start + 2;
  const stripTabs = src[j] === '-';
  if (stripTabs) j += 1;
  while (src[j] === ' ' || src[j] === '\t') j += 1;
  let delimiter = '';
  let quoted = false;
  while (j < src.length && !BLANKS.has(src[j]) && !META.has(src[j])) {
    const c = src[j];
    if (c === "'" || c === '"') {
      const end = src.indexOf(c, j + 1);
      if (end < 0) throw new Unparseable('unterminated heredoc delimiter');
      delimiter += src.slice(j + 1, end);
      quoted = true;
      j = end + 1;
    } else if (c === '\\') {
      delimiter += src[j + 1] ?? '';
      quoted = true;
      j += 2;
    } else if (c === '$' || c === '`') {
      throw new Unparseable('expanding heredoc delimiter');
    } else {
      delimiter += c;
      j += 1;
    }
  }
  if (delimiter === '') throw new Unparseable('heredoc without delimiter');
  pending.push({ delimiter, stripTabs, expands: !quoted });
  // Mark the position so the caller can tell `<<-` from `<<` (it reads src[i - 1] only for that).
  return stripTabs && j === start + 3 ? j : j;
}

/** Skips the bodies of the heredocs opened on the line that just ended; returns where commands resume. */
function skipHeredocBodies(src: string, start: number, pending: Heredoc[]): number {
  let pos = start;
  while (pending.length > 0) {
    const heredoc = pending.shift()!;
    for (;;) {
      if (pos >= src.length) throw new Unparseable('unterminated heredoc');
      const newline = src.indexOf('\n', pos);
      const lineEnd = newline < 0 ? src.length : newline;
      const line = src.slice(pos, lineEnd);
      pos = lineEnd + 1;
      if ((heredoc.stripTabs ? line.replace(/^\t+/, '') : line) === heredoc.delimiter) break;
      // An unquoted delimiter expands `$(...)` and backticks in the body: commands run there.
      if (heredoc.expands && (line.includes('$(') || line.includes('`'))) {
        throw new Unparseable('command substitution in heredoc body');
      }
    }
  }
  return Math.min(pos, src.length);
}

/** A `"..."` string with continuations joined and substitutions replaced; returns [text, index after]. */
function doubleQuoted(src: string, start: number, substitutions: string[]): [string, number] {
  let out = '"';
  let j = start + 1;
  while (j < src.length) {
    const c = src[j];
    if (c === '\\') {
      const next = src[j + 1];
      if (next === undefined) break;
      if (next !== '\n') out += c + next;
      j += 2;
    } else if (c === '"') {
      return [out + '"', j + 1];
    } else if (c === '`' || (c === '$' && src[j + 1] === '(')) {
      const [word, end] = substitution(src, j, substitutions);
      out += word;
      j = end;
    } else {
      out += c;
      j += 1;
    }
  }
  throw new Unparseable('unterminated double quote');
}

/** `$(...)`, `` `...` `` or `$((...))` at `start`; returns [replacement word, index after]. */
function substitution(src: string, start: number, substitutions: string[]): [string, number] {
  if (src[start] === '`') {
    let body = '';
    let j = start + 1;
    while (j < src.length) {
      const c = src[j];
      if (c === '\\' && (src[j + 1] === '`' || src[j + 1] === '\\' || src[j + 1] === '$')) {
        body += src[j + 1];
        j += 2;
      } else if (c === '`') {
        substitutions.push(body);
        return [SUBSTITUTION_WORD, j + 1];
      } else {
        body += c;
        j += 1;
      }
    }
    throw new Unparseable('unterminated backtick');
  }
  const close = matchingParen(src, start + 1);
  if (src[start + 2] === '(') {
    // Arithmetic `$((...))`: harmless unless it assigns or runs a command.
    if (src[close - 1] !== ')') throw new Unparseable('ambiguous $((');
    const expression = src.slice(start + 3, close - 1);
    if (/\$\(|`|\+\+|--|(^|[^=!<>])=(?!=)/.test(expression)) throw new Unparseable('arithmetic with side effects');
    return ['0', close + 1];
  }
  substitutions.push(src.slice(start + 2, close));
  return [SUBSTITUTION_WORD, close + 1];
}

/** Index of the `)` matching the `(` at `open`, skipping quoted text and nested substitutions. */
function matchingParen(src: string, open: number): number {
  let depth = 0;
  let j = open;
  while (j < src.length) {
    const c = src[j];
    if (c === '\\') {
      j += 2;
      continue;
    }
    if (c === "'") {
      j = src.indexOf("'", j + 1);
      if (j < 0) throw new Unparseable('unterminated single quote');
    } else if (c === '$' && src[j + 1] === "'") {
      j = ansiCQuoteEnd(src, j + 2);
    } else if (c === '"') {
      j = doubleQuoteEnd(src, j);
    } else if (c === '`') {
      j = backtickEnd(src, j);
    } else if (c === '<' && src[j + 1] === '<' && src[j + 2] !== '<') {
      // A heredoc body inside `$(...)` may hold any `)`: the end cannot be found reliably.
      throw new Unparseable('heredoc inside command substitution');
    } else if (c === '(') {
      depth += 1;
    } else if (c === ')') {
      depth -= 1;
      if (depth === 0) return j;
    }
    j += 1;
  }
  throw new Unparseable('unbalanced parenthesis');
}

function doubleQuoteEnd(src: string, open: number): number {
  let j = open + 1;
  while (j < src.length) {
    const c = src[j];
    if (c === '\\') j += 2;
    else if (c === '"') return j;
    else if (c === '$' && src[j + 1] === '(') j = matchingParen(src, j + 1) + 1;
    else if (c === '`') j = backtickEnd(src, j) + 1;
    else j += 1;
  }
  throw new Unparseable('unterminated double quote');
}

function backtickEnd(src: string, open: number): number {
  let j = open + 1;
  while (j < src.length) {
    if (src[j] === '\\') j += 2;
    else if (src[j] === '`') return j;
    else j += 1;
  }
  throw new Unparseable('unterminated backtick');
}

/** Index of the `'` closing a `$'...'` string whose body starts at `start`. */
function ansiCQuoteEnd(src: string, start: number): number {
  let j = start;
  while (j < src.length) {
    if (src[j] === '\\') j += 2;
    else if (src[j] === "'") return j;
    else j += 1;
  }
  throw new Unparseable('unterminated $\'...\'');
}

// ---------------------------------------------------------------------------------------------
// Tokens to simple commands.

interface LineAnalysis {
  /** Simple commands in source order, as words (substitution outputs are placeholders). */
  commands: string[][];
  readOnly: boolean;
  /** Some output is redirected to a file (not a sink like /dev/null). */
  writesFile: boolean;
}

const SEPARATORS = new Set(['||', '&&', ';', '&', '|', '|&', ';;', ';;&', ';&']);
const GROUP_OPEN = new Set(['(', '<(', '>(']);
const OUTPUT_REDIRECTS = new Set(['>', '>>', '>|', '&>', '&>>', '<>']);
const INPUT_REDIRECTS = new Set(['<', '<<', '<<-', '<<<', '<&']);
/** Redirect targets that write nothing anyone can read back. */
const SINKS = new Set(['/dev/null', '/dev/stdout', '/dev/stderr', '/dev/fd/1', '/dev/fd/2']);

function analyze(command: string, depth: number): LineAnalysis {
  if (depth > MAX_SUBSTITUTION_DEPTH) throw new Unparseable('substitutions nested too deep');
  const substitutions: string[] = [];
  const text = prepare(command, substitutions);
  // Variables are kept as `$NAME` words: shell-quote would expand them to '' and make
  // `$EDITOR file` look like no command at all.
  const tokens = parseShell(text, (key) => `$${key}`);
  const commands: string[][] = [];
  let current: string[] = [];
  let writesFile = false;
  let groupDepth = 0;
  for (let k = 0; k < tokens.length; k += 1) {
    const token = tokens[k];
    if (typeof token === 'string') {
      current.push(token);
      continue;
    }
    if ('comment' in token) throw new Unparseable('comment reached the tokenizer');
    if (token.op === 'glob') {
      current.push(token.pattern);
      continue;
    }
    const op = token.op;
    if (SEPARATORS.has(op) || GROUP_OPEN.has(op) || op === ')') {
      if (GROUP_OPEN.has(op)) groupDepth += 1;
      if (op === ')') groupDepth -= 1;
      if (groupDepth < 0) throw new Unparseable('unbalanced parenthesis');
      commands.push(current);
      current = [];
      continue;
    }
    const next = tokens[k + 1];
    const target = typeof next === 'string' ? next : next !== undefined && 'op' in next && next.op === 'glob' ? next.pattern : undefined;
    if (target === undefined) throw new Unparseable(`redirection ${op} without a target`);
    k += 1;
    if (OUTPUT_REDIRECTS.has(op)) {
      if (!SINKS.has(target)) writesFile = true;
    } else if (op === '>&') {
      // `>&2` and `>&-` duplicate or close a descriptor; `>&file` is bash for `&>file`.
      if (!/^\d+$|^-$/.test(target) && !SINKS.has(target)) writesFile = true;
    } else if (!INPUT_REDIRECTS.has(op)) {
      throw new Unparseable(`operator ${op}`);
    }
  }
  commands.push(current);
  if (groupDepth !== 0) throw new Unparseable('unbalanced parenthesis');
  const nonEmpty = commands.filter((words) => words.length > 0);
  let readOnly = !writesFile && nonEmpty.every(isReadOnlyCommand);
  for (const inner of substitutions) {
    if (!readOnly) break;
    readOnly = analyze(inner, depth + 1).readOnly;
  }
  return { commands: nonEmpty, readOnly, writesFile };
}

// ---------------------------------------------------------------------------------------------
// Simple commands.

/** Words that open or close compound commands; what follows them is the command. */
const RESERVED_PREFIXES = new Set(['!', 'time', '{', '}', 'if', 'then', 'else', 'elif', 'fi', 'while', 'until', 'do', 'done']);
const ASSIGNMENT = /^[A-Za-z_][A-Za-z0-9_]*(\[[^\]]*\])?\+?=/;

/**
 * The words of the command that actually runs, past reserved words, `VAR=value` prefixes and
 * wrappers (`timeout 60 pytest` runs pytest); 'write' when that is a session-state change or
 * unclear, 'none' when nothing runs.
 */
function effectiveWords(words: string[]): string[] | 'write' | 'none' {
  let i = 0;
  let assigned = false;
  for (;;) {
    const word = words[i];
    // Bare `VAR=value` changes the session's variables.
    if (word === undefined) return assigned ? 'write' : 'none';
    if (RESERVED_PREFIXES.has(word)) {
      i += word === 'time' && words[i + 1] === '-p' ? 2 : 1;
      continue;
    }
    // A `for NAME in ...` header only names the loop variable; the body is its own command.
    if (word === 'for' && i === 0) return 'none';
    if (ASSIGNMENT.test(word)) {
      assigned = true;
      i += 1;
      continue;
    }
    const inner = wrappedCommand(programName(word), words, i);
    if (inner === 'write') return 'write';
    if (inner === 'self') return words.slice(i);
    i = inner;
  }
}

/**
 * For a wrapper program at `words[at]`: the index of the command it runs, 'self' when it runs
 * none (classify the wrapper itself), 'write' when its options are not understood. Programs
 * that are not wrappers are 'self'.
 */
function wrappedCommand(program: string, words: string[], at: number): number | 'self' | 'write' {
  let j = at + 1;
  const end = words.length;
  switch (program) {
    case 'env':
      while (j < end) {
        const word = words[j];
        if (word === '-i' || word === '-' || word === '-0' || word === '--null' || word === '--ignore-environment') j += 1;
        else if (word === '-u' || word === '--unset') j += 2;
        else if (word.startsWith('--unset=') || /^-u./.test(word)) j += 1;
        else if (word === '--') {
          j += 1;
          break;
        } else if (word.startsWith('-')) return 'write'; // -C, -S: changes directory, splits strings
        else if (ASSIGNMENT.test(word)) j += 1;
        else break;
      }
      return j < end ? j : 'self';
    case 'xargs':
      while (j < end) {
        const word = words[j];
        if (/^-[0rtpxo]+$/.test(word) || ['--null', '--no-run-if-empty', '--verbose', '--interactive', '--exit', '--open-tty'].includes(word)) j += 1;
        else if (['-n', '-I', '-P', '-L', '-d', '-a', '-E', '-s'].includes(word)) j += 2;
        else if (/^-[nIPLdaEsil]./.test(word) || /^--(max-args|max-procs|max-lines|delimiter|arg-file|eof|max-chars|replace)=/.test(word)) j += 1;
        else if (word === '-i' || word === '-l') j += 1;
        else if (word === '--') {
          j += 1;
          break;
        } else if (word.startsWith('-')) return 'write';
        else break;
      }
      return j < end ? j : 'self';
    case 'timeout': {
      while (j < end && words[j].startsWith('-')) {
        const word = words[j];
        if (word === '-s' || word === '-k' || word === '--signal' || word === '--kill-after') j += 2;
        else if (/^-[sk]./.test(word) || /^--(signal|kill-after)=/.test(word) || ['--preserve-status', '--foreground', '-v', '--verbose'].includes(word)) j += 1;
        else return 'write';
      }
      j += 1; // the duration
      return j < end ? j : 'write';
    }
    case 'nice':
      if (words[j] === '-n' || words[j] === '--adjustment') j += 2;
      else if (words[j] !== undefined && /^(-n.|-\d+$|--adjustment=)/.test(words[j])) j += 1;
      else if (words[j]?.startsWith('-')) return 'write';
      return j < end ? j : 'self';
    case 'nohup':
      if (words[j] === '--') j += 1;
      return j < end ? j : 'write';
    case 'stdbuf':
      while (j < end && words[j].startsWith('-')) {
        if (['-i', '-o', '-e'].includes(words[j])) j += 2;
        else if (/^(-[ioe].|--(input|output|error)=)/.test(words[j])) j += 1;
        else return 'write';
      }
      return j < end ? j : 'write';
    case 'command':
      // `command -v NAME` looks a program up, like `which`.
      if (words[j] === '-v' || words[j] === '-V') return 'self';
      if (words[j] === '-p') j += 1;
      return j < end ? j : 'self';
    case 'builtin':
      return j < end ? j : 'self';
    case 'exec':
      // Replaces the session's shell or rewires its descriptors for every later command.
      return 'write';
    default:
      return 'self';
  }
}

/** A program path we trust to be the system's tool and not, say, a `./grep` script in the repo. */
function isTrustedProgramWord(word: string): boolean {
  return !word.includes('/') || /^\/(usr\/(local\/)?)?s?bin\/[^/]+$/.test(word);
}

function isReadOnlyCommand(words: string[]): boolean {
  const effective = effectiveWords(words);
  if (effective === 'none') return true;
  if (effective === 'write') return false;
  const [word, ...args] = effective;
  if (!isTrustedProgramWord(word)) return false;
  const name = programName(word);
  // Python interpreters go by many names (python, python3, python3.11): matched by shape.
  const rule = READ_RULES.get(name) ?? (PYTHON_PROGRAM.test(name) ? pythonRule(name) : undefined);
  return rule !== undefined && rule(args);
}

type ReadRule = (args: string[]) => boolean;

const always: ReadRule = () => true;

/** Whether any argument is one of `options`, or `--long=...` for a long one in the list. */
function hasOption(args: string[], options: readonly string[]): boolean {
  return args.some((arg) => options.includes(arg) || (arg.startsWith('--') && options.some((option) => option.startsWith('--') && arg.startsWith(`${option}=`))));
}

/** Whether a short-option cluster (`-ni`, `-i.bak`) contains `letter` before any non-letter. */
function hasShortFlag(args: string[], letter: string): boolean {
  const pattern = new RegExp(`^-[A-Za-z]*${letter}`);
  return args.some((arg) => !arg.startsWith('--') && pattern.test(arg));
}

function positionals(args: string[]): string[] {
  const dashDash = args.indexOf('--');
  const before = (dashDash < 0 ? args : args.slice(0, dashDash)).filter((arg) => !arg.startsWith('-') || arg === '-');
  return dashDash < 0 ? before : [...before, ...args.slice(dashDash + 1)];
}

const atMostOneFile: ReadRule = (args) => positionals(args).length <= 1;

const VERSION_FLAGS: ReadonlyMap<string, readonly string[]> = new Map([
  ['node', ['--version', '-v']],
  ['ruby', ['--version', '-v']],
  ['perl', ['--version', '-v']],
  ['php', ['--version', '-v']],
  ['java', ['--version', '-version']],
  ['npm', ['--version', '-v']],
  ['yarn', ['--version', '-v']],
  ['pnpm', ['--version', '-v']],
  ['pip', ['--version', '-V']],
  ['pip3', ['--version', '-V']],
  ['pytest', ['--version', '-V']],
]);

/** Interpreters, runners and compilers: 'read' only as a version query (`node --version`). */
const VERSION_ONLY = [
  'node', 'deno', 'bun', 'ruby', 'perl', 'php', 'java', 'javac', 'go', 'cargo', 'rustc', 'gcc', 'g++', 'cc', 'clang',
  'make', 'cmake', 'mvn', 'gradle', 'pytest', 'tox', 'nox', 'tsc', 'uv', 'poetry', 'conda', 'docker', 'ruff', 'black',
  'mypy', 'flake8', 'bash', 'sh', 'zsh',
];

function isVersionQuery(program: string, args: string[]): boolean {
  if (args.length !== 1) return false;
  const flags = VERSION_FLAGS.get(program) ?? (/^python[\d.]*$/.test(program) ? ['--version', '-V', '-VV'] : ['--version']);
  return flags.includes(args[0]) || (program === 'go' && args[0] === 'version');
}

const PIP_READS = new Set(['show', 'list', 'freeze', 'check']);

const pipRule: ReadRule = (args) => PIP_READS.has(args[0]) || hasOption(args, ['--version', '-V']) && args.length === 1;

const PYTHON_PROGRAM = /^python[\d.]*$/;

/**
 * Python reads as a version query, `-m pip list|show|freeze|check`, or `-c` with code that can
 * only compute and read (isComputingSnippet); a script or any other `-c` may do anything.
 */
const pythonRule = (program: string): ReadRule => (args) =>
  isVersionQuery(program, args) ||
  (args[0] === '-m' && (args[1] === 'pip' || args[1] === 'pip3') && PIP_READS.has(args[2])) ||
  (args[0] === '-c' && args[1] !== undefined && isComputingSnippet(args[1]));

/**
 * Standard-library modules that only compute: `python3 -c "import hashlib; print(hashlib.md5(b'x').hexdigest())"`
 * prints the same for the same code. Not `time`, `random`, `datetime` (the same code answers
 * differently), nor anything that reaches files, processes or the network.
 */
const COMPUTING_MODULES: ReadonlySet<string> = new Set([
  'hashlib', 'json', 'math', 'cmath', 're', 'base64', 'binascii', 'string', 'itertools', 'functools', 'collections',
  'struct', 'decimal', 'fractions', 'statistics', 'textwrap', 'unicodedata', 'codecs', 'zlib', 'operator', 'heapq',
  'bisect', 'sys', 'keyword', 'difflib', 'html', 'hmac', 'array', 'ipaddress', 'pprint', 'typing',
]);

/** Names that write, run code, reach the system or the network, or hide a name from this check (dunders, eval). */
const NOT_COMPUTING = /\b(?:exec|eval|compile|getattr|setattr|delattr|globals|locals|vars|breakpoint|input|os|subprocess|shutil|pathlib|socket|tempfile|pickle|shelve|sqlite3|urllib|requests|http|ctypes|importlib|signal|threading|multiprocessing|asyncio|write\w*|remove|unlink|rename|mkdir|makedirs|rmdir|rmtree|system|popen|kill|chmod|chown|truncate|dump)\b|__/;

/** `import a, b.c` and `from a.b import …`: the modules a snippet loads. */
const SNIPPET_IMPORTS = /\b(?:from\s+([\w.]+)\s+import|import\s+([\w.]+(?:\s*,\s*[\w.]+)*))/g;

const OPEN_CALL = /\bopen\(/;

/** `open` with a quoted path and no mode or a read mode. */
const OPEN_FOR_READING = /\bopen\(\s*(['"])[^'"\\\n]{1,200}\1\s*(?:,\s*(['"])[rbt]{1,2}\2\s*)?\)/g;

/**
 * `-c` code that only computes, and reads files it names: every import is of a computing
 * standard module, every `open(` opens a quoted path for reading, and no name that writes,
 * runs code or reaches the system appears anywhere, strings included (an f-string can call
 * anything). Measured on InterCode-CTF: gpt-4 trying one password per turn with
 * `python3 -c "import hashlib; print(hashlib.md5(b'password3').digest() == open('level3.hash.bin', 'rb').read())"`,
 * each printing `False`, was unknown and ran until the turn cap; as reads of the same answer
 * they are stale rounds. Anything unclear stays unknown: document 000, unclear leans to "new fact".
 */
function isComputingSnippet(code: string): boolean {
  if (code.length > 4096 || NOT_COMPUTING.test(code)) return false;
  for (const match of code.matchAll(SNIPPET_IMPORTS)) {
    const modules = (match[1] ?? match[2]!).split(',');
    if (!modules.every((module) => COMPUTING_MODULES.has(module.trim().split('.')[0]!))) return false;
  }
  // Every `open(` must be one that reads: remove those, and none may be left.
  return !OPEN_CALL.test(code.replace(OPEN_FOR_READING, ''));
}

/** sed reads unless it edits in place (`-i`), runs a script file we cannot see, or writes/executes from the script (`w`, `e`). */
const sedRule: ReadRule = (args) => {
  const scripts: string[] = [];
  const files: string[] = [];
  let explicitScript = false;
  for (let j = 0; j < args.length; j += 1) {
    const arg = args[j];
    if (arg === '--') {
      files.push(...args.slice(j + 1));
      break;
    }
    if (arg.startsWith('--in-place') || (!arg.startsWith('--') && /^-[A-Za-z]*i/.test(arg))) return false;
    if (arg === '-f' || arg.startsWith('--file') || (!arg.startsWith('--') && /^-[A-Za-z]*f/.test(arg))) return false;
    if (arg === '-e' || arg === '--expression') {
      scripts.push(args[j + 1] ?? '');
      explicitScript = true;
      j += 1;
    } else if (arg.startsWith('--expression=')) {
      scripts.push(arg.slice('--expression='.length));
      explicitScript = true;
    } else if (/^-[nErsuz]*e./.test(arg)) {
      scripts.push(arg.slice(arg.indexOf('e') + 1));
      explicitScript = true;
    } else if (arg === '-l') {
      j += 1;
    } else if (arg.startsWith('-') && arg !== '-') {
      // other flags (-n, -E, -r, -s, -u, -z, --posix, --debug...) do not write
    } else {
      files.push(arg);
    }
  }
  if (!explicitScript) {
    if (files.length === 0) return false;
    scripts.push(files[0]);
  }
  // `w FILE`, `W FILE`, `e CMD` commands and the `w`/`e` flags of `s///` write or execute.
  return !scripts.some((script) => /(^|[\s;{}0-9$/!,gpiImM])[wWe](\s|$)/.test(script));
};

/** awk reads unless it edits in place, loads a program we cannot see, or the program runs commands or writes files. */
const awkRule: ReadRule = (args) => {
  let program: string | undefined;
  for (let j = 0; j < args.length; j += 1) {
    const arg = args[j];
    if (arg === '--') {
      program = args[j + 1];
      break;
    }
    if (arg === '-i' || arg.startsWith('-i') || arg === '-f' || arg.startsWith('-f') || arg.startsWith('--file') || arg.startsWith('--include')) return false;
    if (arg === '-F' || arg === '-v' || arg === '--assign' || arg === '--field-separator') j += 1;
    else if (arg === '-e' || arg === '--source') {
      program = args[j + 1];
      break;
    } else if (arg.startsWith('-') && arg !== '-') {
      // attached -F: / -vX=1 and other flags
    } else {
      program = arg;
      break;
    }
  }
  if (program === undefined) return false;
  return !/system\s*\(|>|\|\s*getline|\|&|\bprintf?\b[^;}\n]*\|/.test(program);
};

/** find's actions that write a file or delete one. */
const FIND_WRITE_ACTIONS = new Set(['-delete', '-fprint', '-fprint0', '-fprintf', '-fls']);
/** find's actions that run a command: up to `;` (written `\;` or `';'`) or `{} +`. */
const FIND_EXEC_ACTIONS = new Set(['-exec', '-execdir', '-ok', '-okdir']);

/**
 * find reads, unless an action writes or a command it runs may: `find . -name '*.py' -exec
 * md5sum {} \;` is as much a read as `md5sum`, `-exec rm {} \;` a write. Each command is judged
 * as if it were run on its own; one without its terminator is not understood (write). Before,
 * every -exec was a write: 5,241 of InterCode-Bash's 8,462 command lines were read as writes,
 * most of them finds running cat, md5sum, ls or grep.
 */
const findRule: ReadRule = (args) => {
  for (let j = 0; j < args.length; j += 1) {
    const arg = args[j];
    if (FIND_WRITE_ACTIONS.has(arg)) return false;
    if (!FIND_EXEC_ACTIONS.has(arg)) continue;
    let end = j + 1;
    while (end < args.length && args[end] !== ';' && !(args[end] === '+' && args[end - 1] === '{}')) end += 1;
    if (end >= args.length || end === j + 1 || !isReadOnlyCommand(args.slice(j + 1, end))) return false;
    j = end;
  }
  return true;
};

/** `mount` alone, or `-l`, lists what is mounted; with anything else it mounts. */
const mountRule: ReadRule = (args) => args.every((arg) => arg === '-l' || arg === '--show-labels');

const teeRule: ReadRule = (args) => positionals(args).every((file) => SINKS.has(file));

const dateRule: ReadRule = (args) => {
  for (let j = 0; j < args.length; j += 1) {
    const arg = args[j];
    if (arg === '-s' || arg.startsWith('--set') || /^-[A-Za-z]*s/.test(arg) && !arg.startsWith('--')) return false;
    if (['-d', '--date', '-r', '--reference', '-f', '--file'].includes(arg)) j += 1;
    else if (!arg.startsWith('-') && !arg.startsWith('+')) return false; // `date MMDDhhmm` sets the clock
  }
  return true;
};

const GIT_READS = new Set([
  'status', 'log', 'diff', 'show', 'blame', 'annotate', 'grep', 'ls-files', 'ls-tree', 'rev-parse', 'rev-list', 'describe',
  'shortlog', 'cat-file', 'show-ref', 'merge-base', 'for-each-ref', 'name-rev', 'whatchanged', 'count-objects', 'version',
  'help', 'var', 'check-ignore', 'diff-tree', 'diff-files', 'diff-index',
]);

const GIT_BRANCH_LIST_FLAGS = new Set(['-a', '-r', '--all', '--remotes', '--list', '-l', '-v', '-vv', '--verbose', '--show-current', '--no-color', '--color']);

const GIT_CONFIG_READ_FLAGS = ['--get', '--get-all', '--get-regexp', '--get-urlmatch', '--list', '-l'];
const GIT_CONFIG_WRITE_FLAGS = ['--unset', '--unset-all', '--add', '--replace-all', '--rename-section', '--remove-section', '-e', '--edit'];

/** The git subcommand and its arguments, past global options; undefined when a global option is not understood. */
function gitSubcommand(args: string[]): { name: string | undefined; rest: string[] } | undefined {
  let j = 0;
  while (j < args.length && args[j].startsWith('-')) {
    const arg = args[j];
    if (arg === '-C' || arg === '--git-dir' || arg === '--work-tree' || arg === '--namespace') j += 2;
    else if (['--no-pager', '-P', '--paginate', '-p', '--no-optional-locks', '--bare', '--literal-pathspecs', '--no-replace-objects', '--version', '--help'].includes(arg)) j += 1;
    else if (/^--(git-dir|work-tree|namespace)=/.test(arg)) j += 1;
    // `-c` can set an alias, pager or diff driver that runs any command.
    else return undefined;
  }
  if (j > args.length) return undefined;
  const name = args[j];
  if (name === undefined) return { name: args.includes('--version') || args.includes('--help') ? '--version' : undefined, rest: [] };
  return { name, rest: args.slice(j + 1) };
}

const gitRule: ReadRule = (args) => {
  const sub = gitSubcommand(args);
  if (sub === undefined || sub.name === undefined) return false;
  const { name, rest } = sub;
  if (name === '--version') return true;
  // `--output=FILE` (diff, log, show) writes a file.
  if (rest.some((arg) => arg === '--output' || arg.startsWith('--output='))) return false;
  if (GIT_READS.has(name)) {
    return !(name === 'grep' && rest.some((arg) => arg === '-O' || arg.startsWith('--open-files-in-pager')));
  }
  const positional = positionals(rest);
  switch (name) {
    case 'branch':
      return rest.every((arg) => GIT_BRANCH_LIST_FLAGS.has(arg) || (rest.includes('--list') && !arg.startsWith('-')));
    case 'remote':
      return positional.length === 0 ? rest.every((arg) => arg === '-v' || arg === '--verbose') : positional[0] === 'show' || positional[0] === 'get-url';
    case 'stash':
      return positional[0] === 'list' || positional[0] === 'show';
    case 'tag':
      return rest.length === 0 || rest.every((arg) => arg === '-l' || arg === '--list' || (rest.includes('-l') || rest.includes('--list')) && !arg.startsWith('-'));
    case 'worktree':
      return positional[0] === 'list';
    case 'reflog':
      return positional[0] !== 'expire' && positional[0] !== 'delete';
    case 'config':
      if (hasOption(rest, GIT_CONFIG_WRITE_FLAGS)) return false;
      return hasOption(rest, GIT_CONFIG_READ_FLAGS) || positional[0] === 'get' || positional[0] === 'list' || positional.length === 1;
    default:
      return false;
  }
};

const NPM_READS = new Set(['ls', 'list', 'la', 'll', 'view', 'v', 'info', 'show', 'explain', 'why', 'root', 'prefix', 'help']);

const npmRule: ReadRule = (args) => {
  if (isVersionQuery('npm', args)) return true;
  const [sub, next] = positionals(args);
  return NPM_READS.has(sub) || (sub === 'config' && (next === 'get' || next === 'list' || next === 'ls'));
};

const READ_RULES: ReadonlyMap<string, ReadRule> = new Map<string, ReadRule>([
  ...['grep', 'egrep', 'fgrep', 'ag', 'ack', 'cat', 'head', 'tail', 'ls', 'll', 'wc', 'stat', 'du', 'df', 'pwd', 'echo',
    'which', 'whereis', 'type', 'realpath', 'readlink', 'basename', 'dirname', 'diff', 'cmp', 'cut', 'tr', 'nl', 'column',
    'jq', 'od', 'hexdump', 'strings', 'printenv', 'whoami', 'id', 'uname', 'true', 'false', 'test', '[', '[[',
    // Write only to stdout, whatever their options (InterCode-Bash's pipelines).
    'paste', 'md5sum', 'sha1sum', 'sha224sum', 'sha256sum', 'sha384sum', 'sha512sum', 'b2sum', 'cksum',
    // SWE-agent's search and viewing commands that keep no state.
    'search_dir', 'search_file', 'find_file', 'filemap',
  ].map((name): [string, ReadRule] => [name, always]),
  ['rg', (args) => !hasOption(args, ['--pre'])], // --pre runs a command per file
  ['less', (args) => !args.some((arg) => /^-[A-Za-z]*[oO]/.test(arg) || arg.startsWith('--log-file') || arg.startsWith('--LOG-FILE'))],
  ['more', always],
  ['tree', (args) => !args.some((arg) => arg === '-o' || arg === '-R')],
  ['file', (args) => !hasOption(args, ['-C', '--compile'])],
  ['find', findRule],
  ['mount', mountRule],
  ['printf', (args) => args[0] !== '-v'], // -v assigns a shell variable
  ['sort', (args) => !hasShortFlag(args, 'o') && !hasOption(args, ['--output', '--compress-program'])],
  ['uniq', atMostOneFile], // `uniq IN OUT` writes OUT
  ['xxd', atMostOneFile], // `xxd IN OUT` writes OUT
  ['yq', (args) => !hasShortFlag(args, 'i') && !hasOption(args, ['--inplace'])],
  ['awk', awkRule], ['gawk', awkRule], ['mawk', awkRule], ['nawk', awkRule],
  ['sed', sedRule], ['gsed', sedRule],
  ['tee', teeRule],
  ['env', always], // reached only without a command: the wrapper case classifies the command
  ['nice', always], // likewise: prints the niceness
  ['xargs', always], // likewise: defaults to echo
  ['command', always], // `command -v NAME`
  ['date', dateRule],
  ['hostname', (args) => positionals(args).length === 0 && !hasOption(args, ['-F', '--file', '-b', '--boot'])],
  ['git', gitRule],
  ['npm', npmRule],
  ['yarn', (args) => isVersionQuery('yarn', args) || ['list', 'info', 'why'].includes(args[0])],
  ['pnpm', (args) => isVersionQuery('pnpm', args) || ['ls', 'list', 'why'].includes(args[0])],
  ['pip', pipRule], ['pip3', pipRule],
  ['str_replace_editor', (args) => args[0] === 'view'],
  ...VERSION_ONLY.map((name): [string, ReadRule] => [name, (args) => isVersionQuery(name, args)]),
]);

// ---------------------------------------------------------------------------------------------
// Family and terminal.

/** Commands that only set up the session for the next one (`cd /testbed && pytest`). */
const SETUP_PROGRAMS = new Set(['cd', 'pushd', 'popd', 'source', '.', 'export', 'set']);

/**
 * The command that names the line: the first that runs, past setup prefixes, because agents
 * such as mini-swe-agent start nearly every line with `cd /testbed &&` and a `cd` family
 * would group (and let the ladder switch off) all their commands at once.
 */
function leadingCommand(commands: string[][]): string[] | undefined {
  let fallback: string[] | undefined;
  for (const words of commands) {
    const effective = effectiveWords(words);
    if (effective === 'none' || effective === 'write' && words.every((word) => ASSIGNMENT.test(word))) continue;
    const resolved = effective === 'write' ? words : effective;
    if (SETUP_PROGRAMS.has(programName(resolved[0]))) {
      fallback ??= resolved;
      continue;
    }
    return resolved;
  }
  return fallback;
}

const MULTIPLEXERS = new Set([
  'git', 'npm', 'pnpm', 'yarn', 'pip', 'pip3', 'uv', 'poetry', 'conda', 'cargo', 'go', 'docker', 'kubectl', 'gh', 'apt',
  'apt-get', 'brew', 'str_replace_editor',
]);

const MAX_FAMILY_PART = 64;

function familyOf(words: string[]): string | undefined {
  const program = programName(words[0]).slice(0, MAX_FAMILY_PART);
  if (program === '') return undefined;
  if (!MULTIPLEXERS.has(program)) return program;
  const args = words.slice(1);
  const sub = program === 'git' ? gitSubcommand(args)?.name : args[0];
  return sub !== undefined && /^[A-Za-z][\w.-]*$/.test(sub) ? `${program} ${sub.slice(0, MAX_FAMILY_PART)}` : program;
}

function echoesMarker(words: string[]): boolean {
  const effective = effectiveWords(words);
  if (effective === 'none' || effective === 'write') return false;
  const program = programName(effective[0]);
  return (program === 'echo' || program === 'printf') && effective.slice(1).some((word) => TERMINAL_MARKERS.some((marker) => word.includes(marker)));
}

/** Family from the first one or two words without tokenizing: for lines too long or too broken to parse. */
function firstWordFamily(command: string): string | undefined {
  const match = /^\s*([^\s|&;()<>'"`\\]+)(?:[ \t]+([A-Za-z][\w.-]*))?/.exec(command.slice(0, 512));
  if (match === null || ASSIGNMENT.test(match[1])) return undefined;
  const program = programName(match[1]).slice(0, MAX_FAMILY_PART);
  if (program === '') return undefined;
  return MULTIPLEXERS.has(program) && match[2] !== undefined ? `${program} ${match[2].slice(0, MAX_FAMILY_PART)}` : program;
}

function safeFirstWordFamily(command: unknown): string | undefined {
  try {
    return typeof command === 'string' ? firstWordFamily(command) : undefined;
  } catch {
    return undefined;
  }
}
