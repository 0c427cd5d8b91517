import type { CallEffect } from '../types.js';
import { classifyShellCommand } from './classify-shell-command.js';
import { classifySqlStatement } from './classify-sql-statement.js';
import { SQL_STATEMENT_ARGUMENTS } from './well-known-tools.js';

/** What the world-state model knows about one call. */
export interface CallEffectInfo {
  effect: CallEffect;
  /** Shell and editor tools: the command family the escalation ladder may switch off. */
  family?: string;
  terminal: boolean;
  /** A shell poll (issue 24 #4): identical calls run until this deadline, counted from the first. */
  pollDeadlineMs?: number;
  /** An empty command: a wait on the command still running, if one is (world-state/says-command-still-running.ts). */
  waitsOnCommand?: boolean;
  /** A shell command known to change state elsewhere (world-state/changes-state-elsewhere.ts). */
  changesStateElsewhere?: boolean;
  /** A shell line that only waits (`sleep 5`): the look in the next round is a poll (run-guard.ts factsOf). */
  sleepsOnly?: boolean;
  /** A shell line that would be a poll after a wait: nothing on it writes a file or changes state elsewhere. */
  pollsAfterSleep?: boolean;
}

/** Shell polls as the options resolved them: the first matching pattern's deadline, else the default. */
export interface ShellPollRules {
  readonly rules: ReadonlyArray<{ readonly pattern: RegExp; readonly deadlineMs: number }>;
  readonly defaultDeadlineMs: number;
}

/** The part of a resolved tool policy this module reads (built once per tool at construction). */
export interface EffectPolicy {
  readonly effect: CallEffect;
  /** Shell tool: the argument that holds the command line. */
  readonly shellArg: string | undefined;
  /** A SQL tool: the argument that holds the statement, or '' to look for it (classify-sql-statement.ts). */
  readonly sqlArg: string | undefined;
  /** A file editor whose `command` argument is `view` for reads. */
  readonly editor: boolean;
  readonly terminal: boolean;
  /** A browser or GUI tool: it changes the page, not the workspace (page-state.ts). */
  readonly page: boolean;
  /** A browser tool whose argument names the action (`browser_action`'s `action`): the call's family. */
  readonly pageActionArg: string | undefined;
  /**
   * The tool's own name as the well-known tables know it, without a harness's prefix
   * (`mcp__playwright__browser_type` is `browser_type`, Goose's `developer__shell` is `shell`);
   * undefined for the policy of tools nobody named.
   */
  readonly ownName: string | undefined;
}

/** Argument text larger than this is not parsed to find a command (bounded time). */
const MAX_PARSED_ARGUMENT_LENGTH = 64 * 1024;

/**
 * The effect of one call. Tools with a fixed effect answer from the policy (a field read);
 * shell tools classify the command line, and editors read their `command` argument. Never
 * throws: arguments it cannot read leave the call `write` ("may write"), which only lets the
 * call run again.
 */
export function resolveCallEffect(policy: EffectPolicy, args: unknown, shellPolls?: ShellPollRules): CallEffectInfo {
  if (policy.shellArg === undefined && !policy.editor && policy.pageActionArg === undefined && policy.sqlArg === undefined) return { effect: policy.effect, terminal: policy.terminal };
  const value = parseArguments(args);
  if (policy.sqlArg !== undefined) {
    const statement = sqlStatementText(value, policy.sqlArg);
    const effect = statement === undefined ? undefined : classifySqlStatement(statement);
    return { effect: effect ?? policy.effect, terminal: policy.terminal };
  }
  if (policy.shellArg === undefined && !policy.editor) {
    // `browser_action {action: "scroll_down"}`: the action is the family the ladder may switch off.
    // OpenAI's computer tool names it by an object's type: `{action: {type: "scroll", …}}`.
    const named = isRecord(value) ? value[policy.pageActionArg!] : undefined;
    const action = isRecord(named) ? named.type : named;
    if (typeof action !== 'string' || action === '') return { effect: policy.effect, terminal: policy.terminal };
    // `computer {action: "wait"}` gives the screen time to change: a poll, like the browser waits (well-known-tools.ts).
    if (action === 'wait' && shellPolls !== undefined) return { effect: policy.effect, terminal: policy.terminal, family: action, pollDeadlineMs: shellPolls.defaultDeadlineMs };
    return { effect: policy.effect, terminal: policy.terminal, family: action };
  }
  if (policy.shellArg !== undefined) {
    const command = commandText(value, policy.shellArg);
    if (command === undefined) return { effect: 'write', terminal: policy.terminal };
    // An empty command runs nothing: OpenHands' way to wait on the command still running ("You may
    // wait longer to see additional output by sending empty command ''"). A poll of that command,
    // with the default deadline, while one runs (run-guard.ts factsOf); otherwise a read of nothing.
    if (command.trim() === '' && shellPolls !== undefined) {
      return { effect: 'read', terminal: policy.terminal, pollDeadlineMs: shellPolls.defaultDeadlineMs, waitsOnCommand: true };
    }
    const shell = classifyShellCommand(command);
    const info: CallEffectInfo = { effect: shell.effect, terminal: policy.terminal || shell.terminal };
    if (shell.family !== undefined) info.family = shell.family;
    if (shell.changesStateElsewhere) info.changesStateElsewhere = true;
    if (shell.pollsAfterSleep) info.pollsAfterSleep = true;
    if (shell.sleepsOnly) info.sleepsOnly = true;
    if (shellPolls !== undefined) {
      // A wait repeated is a wait, not a repeat: `sleep 5` in a loop of looks is bounded by the poll deadline.
      const deadlineMs = shellPollDeadline(command, shell.sleepsThenRuns || shell.sleepsOnly, shellPolls);
      if (deadlineMs !== undefined) info.pollDeadlineMs = deadlineMs;
    }
    return info;
  }
  const subcommand = isRecord(value) && typeof value.command === 'string' ? value.command : undefined;
  const info: CallEffectInfo = { effect: subcommand === 'view' ? 'read' : 'write', terminal: policy.terminal };
  if (subcommand !== undefined) info.family = subcommand;
  return info;
}

/**
 * A line that sleeps then runs something is a poll with the default deadline; a line that
 * matches a configured pattern is a poll with that pattern's deadline, sleep or not
 * (`gh run watch`-style commands wait inside the program).
 */
function shellPollDeadline(command: string, sleepsThenRuns: boolean, shellPolls: ShellPollRules): number | undefined {
  for (const rule of shellPolls.rules) {
    if (rule.pattern.test(command)) return rule.deadlineMs;
  }
  return sleepsThenRuns ? shellPolls.defaultDeadlineMs : undefined;
}

function parseArguments(args: unknown): unknown {
  if (typeof args !== 'string') return args;
  const trimmed = args.trimStart();
  if (!trimmed.startsWith('{') || args.length > MAX_PARSED_ARGUMENT_LENGTH) return args;
  try {
    return JSON.parse(args) as unknown;
  } catch {
    return args;
  }
}

/** The command line: the named argument, else `command` / `cmd`, else the only string argument. */
function commandText(value: unknown, argument: string): string | undefined {
  if (typeof value === 'string') return value;
  if (!isRecord(value)) return undefined;
  for (const key of [argument, 'command', 'cmd']) {
    const text = value[key];
    if (typeof text === 'string') return text;
    // Some tools take argv as a list (Codex's `["bash", "-lc", "grep x"]`): a shell's `-c` script
    // is its last element, quoted whole so the classifier reads it as the script it is; any
    // other argv is its words.
    if (Array.isArray(text) && text.length > 0 && text.every((part) => typeof part === 'string')) return argvLine(text as string[]);
  }
  return onlyStringArgument(value);
}

/** The statement: the named argument, else the first of SQL_STATEMENT_ARGUMENTS, else the only string argument. */
function sqlStatementText(value: unknown, argument: string): string | undefined {
  if (typeof value === 'string') return value;
  if (!isRecord(value)) return undefined;
  for (const key of argument === '' ? SQL_STATEMENT_ARGUMENTS : [argument]) {
    const text = value[key];
    if (typeof text === 'string') return text;
  }
  return onlyStringArgument(value);
}

/** The value's one string member, or undefined when it has none or several. */
function onlyStringArgument(value: Record<string, unknown>): string | undefined {
  let only: string | undefined;
  for (const key in value) {
    const text = value[key];
    if (typeof text !== 'string') continue;
    if (only !== undefined) return undefined;
    only = text;
  }
  return only;
}

/** An argv list as one command line: each word quoted for the shell, so `["bash","-lc","a | b"]` stays three words. */
function argvLine(argv: string[]): string {
  return argv.map((word) => (/^[\w@%+=:,./-]+$/.test(word) ? word : `'${word.replace(/'/g, `'\\''`)}'`)).join(' ');
}

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}
