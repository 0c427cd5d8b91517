import { LoopGuardConfigError } from './errors.js';
import type { CallEffect, EscalationOptions, LoopGuardOptions, Profile, ToolPolicy } from './types.js';
import { DEFAULT_VOLATILE_ARGS, DEFAULT_VOLATILE_RESULT } from './volatile-fields.js';
import type { EffectPolicy, ShellPollRules } from './world-state/resolve-call-effect.js';
import {
  WELL_KNOWN_ANSWER_TOOLS,
  WELL_KNOWN_BROWSER_TOOLS,
  WELL_KNOWN_EDITOR_TOOLS,
  WELL_KNOWN_LABEL_ARGUMENTS,
  WELL_KNOWN_WAIT_TOOLS,
  WELL_KNOWN_POLL_TOOLS,
  WELL_KNOWN_READ_TOOLS,
  WELL_KNOWN_SHELL_TOOLS,
  WELL_KNOWN_SQL_TOOLS,
  WELL_KNOWN_TERMINAL_TOOLS,
  WELL_KNOWN_THOUGHT_TOOLS,
  WELL_KNOWN_WRITE_TOOLS,
  CODE_INTERPRETER_TOOLS,
} from './world-state/well-known-tools.js';
import { describeConfigValue } from './describe-config-value.js';
import { VolatileKeyMatcher } from './json-text-shape.js';
import { WELL_KNOWN_BOOKKEEPING_ARGUMENTS } from './noise/bookkeeping-arguments.js';
import { createNoiseFilter, defaultNoiseFilter, writeNoiseFilter, type NoiseFilter } from './noise/create-noise-filter.js';

/** Options with every default filled in, plus per-tool lookups built once at construction. */
export interface ResolvedOptions {
  readonly profile: Profile;
  readonly threshold: number;
  readonly staleRounds: number;
  readonly refusedRounds: number;
  readonly consecutiveFailures: number;
  readonly backToBackLimit: number;
  readonly runWideRepeat: boolean;
  readonly maxToolCalls: number;
  readonly maxRounds: number;
  readonly maxRunMs: number;
  readonly overloadedExemptMax: number;
  readonly maxStalled: number;
  readonly failClosed: boolean;
  readonly escalation: Required<EscalationOptions>;
  readonly maxFingerprintBytes: number;
  /** Shell polls: per-pattern deadlines, then the default (`shellPollDeadlineMs`). */
  readonly shellPolls: ShellPollRules;
  /** The clock, in epoch ms (`Date.now` unless the options gave one). */
  readonly now: () => number;
  readonly tools: Readonly<Record<string, ToolPolicy>>;
  /** Per-tool resolved lookups; tools without a policy share {@link ResolvedOptions.defaultTool}. */
  tool(name: string): ResolvedToolPolicy;
  readonly defaultTool: ResolvedToolPolicy;
}

/** A tool's policy after defaults were applied, as the checks read it. */
export interface ResolvedToolPolicy extends EffectPolicy {
  readonly exempt: boolean;
  readonly approval: boolean;
  /**
   * `maxUnchanged`: only on a poll inferred from a status still moving (run-guard.ts policyOf):
   * identical answers in a row past which a look is refused, as past its deadline, unless looks
   * average one per PACED_POLL_MS or slower since the first (checks/polling.ts).
   */
  readonly poll: { deadlineMs: number; minIntervalMs: number; maxUnchanged?: number } | undefined;
  readonly cursorArg: string | undefined;
  readonly retries: number;
  /** The tool declared `retries`: its budget covers deterministic failures too (document 003, condition 3). */
  readonly retriesDeclared: boolean;
  readonly timeoutMs: number | undefined;
  readonly volatileArgs: ReadonlySet<string>;
  readonly volatileResult: ReadonlySet<string>;
  /** Matches `"name":` of any volatile result field in JSON text; undefined when there are none. */
  readonly volatileResultPattern: RegExp | undefined;
  /**
   * @internal The volatile result fields as keys the one-pass JSON text scan can match
   * (json-text-shape.ts); undefined when there are none, or when a name cannot be matched as a
   * plain key (the pattern above is read then). Built with the policy, not looked up per result.
   */
  readonly volatileResultKeys: VolatileKeyMatcher | undefined;
  /** Removes durations, clocks, ids and scores from a result's text (noise/); undefined when `resultNoise: false`. */
  readonly noiseFilter: NoiseFilter | undefined;
  /** A tool the model thinks out loud with (`think`): its answer only acknowledges the thought (world-state/well-known-tools.ts). */
  readonly thought: boolean;
  /**
   * A tool that only waits (`wait(seconds=30)`, `sleep`: well-known-tools.ts WELL_KNOWN_WAIT_TOOLS,
   * general profile): the look in the round after it is a poll, as after a shell line that only sleeps.
   */
  readonly waits: boolean;
}

/** The one shared threshold: "stop after five tries that go nowhere" (document 000). */
export const DEFAULT_THRESHOLD = 5;
/**
 * A shell poll's default deadline: a CI run or a rollout usually settles within minutes, and a
 * Kubernetes CrashLoopBackOff's back-off caps at 5 minutes, so two full back-offs without a
 * change is stuck (issue 24 #4).
 */
export const DEFAULT_SHELL_POLL_DEADLINE_MS = 600_000;

/** Tool names whose resolved policy (or the lack of one) is cached beyond the configured tools. */
const MAX_CACHED_TOOL_NAMES = 1024;

/** Refused rounds in a row that stop a general-profile run (see resolveOptions). */
const GENERAL_REFUSED_ROUNDS = 3;
const PROFILES: readonly Profile[] = ['general', 'chat', 'researcher'];

/**
 * Fills in defaults. Every numeric option must be a positive integer (or Infinity for the
 * budgets); a bad value is a programming error in the caller and throws
 * {@link LoopGuardConfigError} naming the field.
 */
export function resolveOptions(options: LoopGuardOptions = {}): ResolvedOptions {
  const validated = validateOptions(options);
  const profile = validated.profile ?? 'general';
  const threshold = validated.threshold ?? DEFAULT_THRESHOLD;
  const researcher = profile === 'researcher';
  const general = profile === 'general';
  // General budgets are backstops well above healthy long runs (document 002: "set it high
  // enough for real work"): real resolved coding runs reach 160+ calls, and a ceiling that
  // cuts them cannot be undone. Loops are the loop rules' job, not the ceiling's.
  const maxToolCalls = validated.maxToolCalls ?? (researcher ? 100 : general ? 2000 : Infinity);
  const volatileArgs = validated.volatileArgs ?? DEFAULT_VOLATILE_ARGS;
  const volatileResult = validated.volatileResult ?? DEFAULT_VOLATILE_RESULT;
  const bookkeepingArgs = validated.bookkeepingArgs ?? [];
  const tools = validated.tools ?? {};
  const shellPollDeadlineMs = validated.shellPollDeadlineMs ?? DEFAULT_SHELL_POLL_DEADLINE_MS;

  const build = (policy: ToolPolicy, name: string | undefined): ResolvedToolPolicy => {
    const resultFields = new Set([...volatileResult, ...(policy.volatileResult ?? [])]);
    // Every well-known table is looked up by the tool's own name: Claude Code calls an MCP
    // server's tool `mcp__<server>__<tool>` (the filesystem server's `read_text_file`,
    // Playwright MCP's `browser_wait_for`).
    const own = name === undefined ? undefined : ownToolName(name);
    // `think(thought)`: the thought is the call, not a note about it; it stays in identity.
    const thoughtArguments = general && own !== undefined ? WELL_KNOWN_THOUGHT_TOOLS.get(own) : undefined;
    const isBookkeeping = (argument: string) => thoughtArguments === undefined || !thoughtArguments.includes(argument);
    const effect = resolveEffectPolicy(policy, own, profile);
    const writes = effect.effect === 'write' && effect.page !== true;
    return {
      ...effect,
      exempt: policy.exempt ?? false,
      approval: policy.approval ?? false,
      poll: policy.poll
        ? { deadlineMs: policy.poll.deadlineMs, minIntervalMs: policy.poll.minIntervalMs ?? 0 }
        : general && own !== undefined && policy.exempt !== true && isPollToolName(own)
          ? { deadlineMs: shellPollDeadlineMs, minIntervalMs: 0 }
          : undefined,
      cursorArg: policy.cursorArg,
      retries: policy.retries ?? threshold,
      retriesDeclared: policy.retries !== undefined,
      timeoutMs: policy.timeoutMs,
      volatileArgs: new Set([
        ...volatileArgs,
        ...(policy.volatileArgs ?? []),
        ...((own !== undefined && WELL_KNOWN_LABEL_ARGUMENTS.get(own)) || []),
        // Bookkeeping arguments (noise/bookkeeping-arguments.ts): the harness's, for its own tools; the user's, for every tool.
        ...(own !== undefined && isWellKnownTool(own) ? WELL_KNOWN_BOOKKEEPING_ARGUMENTS.filter(isBookkeeping) : []),
        ...bookkeepingArgs.filter(isBookkeeping),
      ]),
      volatileResult: resultFields,
      volatileResultPattern: volatileFieldPattern(resultFields),
      volatileResultKeys: resultFields.size === 0 ? undefined : VolatileKeyMatcher.of(resultFields),
      noiseFilter:
        policy.resultNoise === false
          ? undefined
          : policy.resultNoisePatterns === undefined || policy.resultNoisePatterns.length === 0
            ? writes
              ? writeNoiseFilter
              : defaultNoiseFilter
            : createNoiseFilter({ extraPatterns: policy.resultNoisePatterns, recordIdentities: writes }),
      thought: thoughtArguments !== undefined,
      waits: general && own !== undefined && isWaitToolName(own),
    };
  };
  const defaultTool = build({}, undefined);
  const perTool = new Map<string, ResolvedToolPolicy>();
  for (const [name, policy] of Object.entries(tools)) perTool.set(name, build(policy, name));
  // Well-known tool names (general profile) resolve once, on first use, and are cached with
  // the configured ones: the per-call path stays one Map lookup.
  // Label arguments (Claude Code's Bash `description`) are identity, not effect: every profile.
  const wellKnown = new Map<string, ResolvedToolPolicy>();
  // Every answer is cached by name, misses (tools with no policy, answered by defaultTool)
  // included: telling a miss costs six well-known-name Set tests and an `mcp__` prefix check
  // per call. Bounded: past MAX_CACHED_TOOL_NAMES names, a new name is resolved without
  // being kept (a host inventing tool names cannot grow it). Measured (.tmp node probe, interleaved
  // medians of 31 bursts, compiled, options.tool() of three tools without a policy): 55 ns
  // before, 9 ns cached.
  const resolvedByName = new Map<string, ResolvedToolPolicy>(perTool);
  const cacheLimit = perTool.size + MAX_CACHED_TOOL_NAMES;
  const lookup = (name: string): ResolvedToolPolicy => {
    const cached = resolvedByName.get(name);
    if (cached !== undefined) return cached;
    let resolved = defaultTool;
    // A write verb names the effect only (not bookkeeping arguments: `description` is content
    // for `update_ticket`, so isWellKnownTool stays false for it).
    const own = ownToolName(name);
    if (general ? isWellKnownTool(own) || namesAWrite(own) : WELL_KNOWN_LABEL_ARGUMENTS.has(own) || isAnswerToolName(own)) {
      resolved = wellKnown.get(name) ?? build({}, name);
      wellKnown.set(name, resolved);
    }
    if (resolvedByName.size < cacheLimit) resolvedByName.set(name, resolved);
    return resolved;
  };

  const escalation = validated.escalation ?? {};
  return {
    profile,
    threshold,
    // Document 000: result comparison applies to the researcher loop; a chat turn stops on
    // back-to-back repeats, failures and its round limit.
    staleRounds: validated.staleRounds ?? (profile === 'chat' ? Infinity : threshold),
    // General: a refusal comes only after the outcome confirmed the call changes nothing, and
    // tells the model what to do instead; a model that insists through three rounds in which
    // nothing could run has stopped listening. On the real runs in EVAL.md this stops the two
    // FEVER loops the 7-step recording cut short before a fifth refused round, and no healthy
    // run. Researcher and chat keep document 000's N.
    refusedRounds: validated.refusedRounds ?? (general ? Math.min(GENERAL_REFUSED_ROUNDS, threshold) : threshold),
    consecutiveFailures: validated.consecutiveFailures ?? threshold,
    // General: outcomes decide (outcome-confirmed repeats); a blind count of identical calls
    // would refuse an honest poll whose answer changes (document 003).
    backToBackLimit: validated.backToBackLimit ?? (general ? Infinity : 3),
    runWideRepeat: validated.runWideRepeat ?? profile !== 'chat',
    maxToolCalls,
    // A researcher's round limit is sized to its call budget (document 000): every round
    // runs at least one call, so it can never need more rounds than calls.
    maxRounds: validated.maxRounds ?? (researcher ? maxToolCalls : general ? 1000 : 40),
    maxRunMs: validated.maxRunMs ?? Infinity,
    overloadedExemptMax: validated.overloadedExemptMax ?? 3,
    maxStalled: validated.maxStalled ?? threshold,
    failClosed: validated.failClosed ?? false,
    escalation: {
      enabled: escalation.enabled ?? true,
      nudgeAfter: escalation.nudgeAfter ?? 1,
      disableAfter: escalation.disableAfter ?? 3,
    },
    maxFingerprintBytes: validated.maxFingerprintBytes ?? 16 * 1024 * 1024,
    shellPolls: {
      // Built once: strings become RegExps here, not per call.
      rules: (validated.shellPolls ?? []).map((rule) => ({ pattern: typeof rule.pattern === 'string' ? new RegExp(rule.pattern) : rule.pattern, deadlineMs: rule.deadlineMs })),
      defaultDeadlineMs: shellPollDeadlineMs,
    },
    now: validated.now ?? Date.now,
    tools,
    defaultTool,
    tool: lookup,
  };
}

/**
 * A tool name as the browser, answer and wait tables are also looked up by: lower case, without
 * `_` and `-`. Agents write the same action in their own case: WebVoyager answers `Click [5]`,
 * `GoBack`, `Wait`, `ANSWER; [text]` for BrowserGym's `click`, `go_back`, a wait and an answer.
 * Left unknown, its pages were judged as text (a list page with its items in another order was
 * new), its answer could be refused, and the third `Wait` on a page still loading was refused.
 * Only these tables fold, each in the direction that refuses less: a coding agent's `Read` and a
 * `READ` of some other tool are not the same tool, and a wrong "read" refuses a re-run.
 */
function foldToolName(name: string): string {
  return name.toLowerCase().replace(/[_-]/g, '');
}

// Folded once here; an exact name is in them too. No two browser names fold alike.
const FOLDED_ANSWER_TOOLS: ReadonlySet<string> = new Set([...WELL_KNOWN_TERMINAL_TOOLS, ...WELL_KNOWN_ANSWER_TOOLS].map(foldToolName));
const FOLDED_BROWSER_TOOLS: ReadonlyMap<string, string | undefined> = new Map([...WELL_KNOWN_BROWSER_TOOLS].map(([name, actionArg]) => [foldToolName(name), actionArg]));

/**
 * "Final answer" in the words agents' own answer tools use, folded: `submit_final_answer`,
 * `provideFinalAnswer`, `give_answer` (ToolBench's give-answer finish), `final_response`,
 * `final_output`. Whole names only: `get_final_answer_status` and `search_answers` are
 * lookups, and a lookup taken for an answer tool would never be refused.
 */
const FINAL_ANSWER_NAME = /^(?:(?:submit|provide|give|return|send|deliver)(?:the)?(?:final)?answer|(?:submit|provide|give|return|send|deliver)?(?:the)?final(?:answer|response|result|output))$/;

/**
 * A hand-off to another agent, folded, as the multi-agent frameworks name it: the OpenAI Agents
 * SDK's `transfer_to_<agent name>` (`transfer_to_refund_agent`), LangGraph's swarm and
 * supervisor `transfer_to_<agent>` / `transfer_back_to_supervisor`, Swarm's functions. Two
 * agents can pass a conversation back and forth with the same empty arguments and the same
 * acknowledgement; refused, the conversation is stuck with the agent that cannot finish it.
 * Only when the target is named as an agent: `transfer_to_savings` moves money and stays a write.
 */
const HANDOFF_NAME = /^(?:transfer(?:back)?to|handoffto)[a-z0-9]*(?:agents?|assistant|supervisor|specialist|expert|team|triage|human|humans|representative)$/;

/** `name`: the tool's own name (ownToolName), as for every table below. */
function isAnswerToolName(name: string): boolean {
  const folded = foldToolName(name);
  return FOLDED_ANSWER_TOOLS.has(folded) || FINAL_ANSWER_NAME.test(folded) || HANDOFF_NAME.test(folded);
}

const FOLDED_WAIT_TOOLS: ReadonlySet<string> = new Set([...WELL_KNOWN_WAIT_TOOLS].map(foldToolName));

/** `wait`, `sleep` in any case (WebVoyager's `Wait`, Open Operator's `WAIT`): a poll, and the look after it one too. */
function isWaitToolName(name: string): boolean {
  return FOLDED_WAIT_TOOLS.has(foldToolName(name));
}

/** A poll by name (well-known-tools.ts WELL_KNOWN_POLL_TOOLS), the waits in any case. */
function isPollToolName(name: string): boolean {
  return WELL_KNOWN_POLL_TOOLS.has(name) || isWaitToolName(name);
}

// Folded as foldToolName does, and without spaces (CrewAI's tool names are words).
const FOLDED_CODE_INTERPRETERS: ReadonlySet<string> = new Set(CODE_INTERPRETER_TOOLS.map((name) => foldToolName(name)));

/** A code interpreter (well-known-tools.ts CODE_INTERPRETER_TOOLS), in any case, with or without `_`, `-`, spaces. */
function isCodeInterpreterName(name: string): boolean {
  return FOLDED_CODE_INTERPRETERS.has(foldToolName(name).replace(/ /g, ''));
}

function isBrowserToolName(name: string): boolean {
  return FOLDED_BROWSER_TOOLS.has(foldToolName(name));
}

/** The argument naming a browser tool's action (`browser_action`'s `action`). */
function browserActionArgOf(name: string): string | undefined {
  return FOLDED_BROWSER_TOOLS.get(foldToolName(name));
}

/**
 * The tool's own name, as the well-known tables know it: what follows the last `__`. Claude
 * Code names an MCP server's tools `mcp__<server>__<tool>` (`mcp__playwright__browser_click`
 * is `browser_click`); Goose names an extension's tools `<extension>__<tool>`
 * (`developer__shell` is `shell`); an aggregating MCP server forwards `<server>__<tool>`, so
 * Claude Code shows `mcp__<hub>__<server>__<tool>`. Resolved once per name (the policy
 * lookup caches it), and every table is given the same own name. A name with nothing before
 * or after its `__` (`__proto__`) is its own.
 */
export function ownToolName(name: string): string {
  const start = name.lastIndexOf('__');
  return start < 1 || start + 2 >= name.length ? name : name.slice(start + 2);
}

/** `name`: the tool's own name (ownToolName). */
function isWellKnownTool(name: string): boolean {
  return (
    WELL_KNOWN_SHELL_TOOLS.has(name) ||
    WELL_KNOWN_SQL_TOOLS.has(name) ||
    WELL_KNOWN_READ_TOOLS.has(name) ||
    WELL_KNOWN_WRITE_TOOLS.has(name) ||
    isCodeInterpreterName(name) ||
    WELL_KNOWN_EDITOR_TOOLS.has(name) ||
    isAnswerToolName(name) ||
    isBrowserToolName(name) ||
    WELL_KNOWN_THOUGHT_TOOLS.has(name) ||
    isPollToolName(name) ||
    WELL_KNOWN_LABEL_ARGUMENTS.has(name)
  );
}

/**
 * A tool whose name starts with a verb that changes something (`update_ticket_to_new_flight`,
 * `cancel_pending_order`, `book_hotel`, `sendEmail`): a write, in the general profile, when
 * nothing more specific says otherwise. The customer-service agents people run (tau-bench
 * style, the LangGraph support bot) name their tools this way and declare no effects; left
 * unknown, a booking never counted as a change of the world (RunLedger.changeSerial), so the
 * reservation read again after it was judged stale. Only writes are inferred from a name: a
 * wrong "write" costs little (a write is refused only once its own outcomes confirm it
 * changes nothing, checks/outcome-confirmed-repeat.ts), a wrong "read" would refuse a re-run
 * after an edit (document 000: unclear leans to "new fact"). Verbs that start
 * work (`start_export_job`, `trigger_build`) name a write only with an object: a bare `stop` is
 * WebArena's answer action. Left out on purpose: `run_` and `execute_` (`run_query` reads), and
 * verbs that as often name a lookup (`open_`, `order_`, `top_`). The second line: device and
 * account actions (tau2-bench's telecom `toggle_airplane_mode`, `reboot_device`, `make_payment`;
 * support bots' `unlock_account`, `resend_activation`). Left unknown, a troubleshooting run of
 * seven such fixes, each followed by the same failing status check, was stopped at its fifth.
 */
const WRITE_VERB_NAME =
  /^(?:create|update|delete|remove|cancel|book|modify|insert|add|send|post|put|patch|write|edit|exchange|return|place|purchase|buy|pay|refund|assign|archive|move|rename|upload|reset|revoke|grant|schedule|reschedule|register|approve|reject|set|save|store|append|replace|apply|commit|push|deploy|publish|transfer|reserve|make|toggle|turn|enable|disable|activate|deactivate|suspend|resume|reboot|reseat|unseat|connect|disconnect|refuel|recharge|change|switch|install|uninstall|kill|terminate|close|reopen|merge|rerun|retry|restore|rollback|unlock|lock|clear|sync|resync|reissue|resend|reassign|unassign|mark|flag|pin|unpin|mute|unmute|block|unblock|subscribe|unsubscribe|enroll|invite|share|confirm|accept|decline|escalate|notify|reply|forward|checkout|charge|void|withdraw|deposit|link|unlink|attach|detach|dismiss|login|logout)(?:[_\-A-Z0-9]|$)|^(?:start|restart|stop|trigger|launch|enqueue)[_\-A-Z0-9]/;

/** `name`: the tool's own name (ownToolName). */
function namesAWrite(name: string): boolean {
  return WRITE_VERB_NAME.test(name);
}

/**
 * A tool's effect, most specific source first: the policy's `readOnly` / `writes` /
 * `approval`, then MCP annotations, then `shell`, then (general profile) the well-known tool
 * table and a write verb at the start of the name, else the profile's default. Researcher and
 * chat keep document 000's assumption that a tool nobody marked is a lookup ("researchers only
 * get tools that need no approval"); general leaves it unknown. `name`: the tool's own name
 * (ownToolName).
 */
function resolveEffectPolicy(policy: ToolPolicy, name: string | undefined, profile: Profile): EffectPolicy {
  const general = profile === 'general';
  const known = general && name !== undefined;
  // Answer tools are sacred in every profile (checks/terminal-tools.ts): a researcher's
  // `final_answer` is its whole output too.
  const terminal = policy.terminal ?? (name !== undefined && isAnswerToolName(name));
  let effect: CallEffect | undefined;
  if (policy.readOnly === true) effect = 'read';
  else if (policy.writes === true || policy.approval === true) effect = 'write';
  else if (policy.writes === false) effect = 'read';
  else if (policy.annotations !== undefined) {
    const hints = policy.annotations;
    if (hints.readOnlyHint === true) effect = 'read';
    else if (hints.destructiveHint === true || hints.readOnlyHint === false) effect = 'write';
  }
  let shellArg: string | undefined;
  if (effect === undefined) {
    if (typeof policy.shell === 'string') shellArg = policy.shell;
    else if (policy.shell === true) shellArg = (name !== undefined && WELL_KNOWN_SHELL_TOOLS.get(name)) || 'command';
    else if (policy.shell === undefined && known) shellArg = WELL_KNOWN_SHELL_TOOLS.get(name);
  }
  // A SQL tool's statement says whether it reads (world-state/classify-sql-statement.ts).
  let sqlArg: string | undefined;
  if (effect === undefined && shellArg === undefined) {
    if (typeof policy.sql === 'string') sqlArg = policy.sql;
    else if (policy.sql === true || (policy.sql === undefined && known && WELL_KNOWN_SQL_TOOLS.has(name))) sqlArg = '';
  }
  const editor = effect === undefined && shellArg === undefined && sqlArg === undefined && known && WELL_KNOWN_EDITOR_TOOLS.has(name);
  // Browser tools (world-state/page-state.ts): the page is their world, not the workspace.
  const page = policy.browser !== undefined ? policy.browser !== false : known && isBrowserToolName(name);
  if (effect === undefined && known) {
    if (WELL_KNOWN_READ_TOOLS.has(name)) effect = 'read';
    else if (WELL_KNOWN_WRITE_TOOLS.has(name) || isCodeInterpreterName(name)) effect = 'write';
    else if (!page && shellArg === undefined && sqlArg === undefined && !editor && namesAWrite(name)) effect = 'write';
  }
  const pageActionArg = typeof policy.browser === 'string' ? policy.browser : page && name !== undefined ? browserActionArgOf(name) : undefined;
  return { effect: effect ?? (general ? 'unknown' : 'read'), shellArg, sqlArg, editor, terminal, page, pageActionArg, ownName: name };
}

function escapeRegExp(text: string): string {
  return text.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
}

function volatileFieldPattern(fields: ReadonlySet<string>): RegExp | undefined {
  if (fields.size === 0) return undefined;
  return new RegExp(`"(?:${[...fields].map(escapeRegExp).join('|')})":`);
}

// ---------------------------------------------------------------------------------------
// Validation: used for options objects in code and for JSON policy files (replay --policy).

type Path = string;

function fail(field: Path, message: string, source?: string): never {
  throw new LoopGuardConfigError({ field, message, source });
}


function checkPositiveInteger(value: unknown, field: Path, source: string | undefined, allowInfinity = false): void {
  if (value === undefined) return;
  if (allowInfinity && value === Infinity) return;
  if (typeof value !== 'number' || !Number.isInteger(value) || value < 1) {
    fail(field, `must be a positive whole number${allowInfinity ? ' (or Infinity)' : ''}, got ${describeConfigValue(value)}`, source);
  }
}

function checkNonNegativeInteger(value: unknown, field: Path, source: string | undefined): void {
  if (value === undefined) return;
  if (typeof value !== 'number' || !Number.isInteger(value) || value < 0) {
    fail(field, `must be a whole number ≥ 0, got ${describeConfigValue(value)}`, source);
  }
}

function checkBoolean(value: unknown, field: Path, source: string | undefined): void {
  if (value !== undefined && typeof value !== 'boolean') fail(field, `must be true or false, got ${describeConfigValue(value)}`, source);
}

function checkStringList(value: unknown, field: Path, source: string | undefined): void {
  if (value === undefined) return;
  if (!Array.isArray(value) || value.some((item) => typeof item !== 'string')) {
    fail(field, `must be a list of field names (strings), got ${describeConfigValue(value)}`, source);
  }
}

function checkKnownKeys(value: Record<string, unknown>, known: readonly string[], path: Path, source: string | undefined): void {
  for (const key of Object.keys(value)) {
    if (!known.includes(key)) {
      const prefix = path ? `${path}.` : '';
      fail(`${prefix}${key}`, `is not a known option (known: ${known.join(', ')})`, source);
    }
  }
}

function isPlainObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

const TOP_LEVEL_KEYS = [
  'profile', 'threshold', 'staleRounds', 'refusedRounds', 'consecutiveFailures', 'backToBackLimit', 'runWideRepeat',
  'maxToolCalls', 'maxRounds', 'maxRunMs', 'overloadedExemptMax', 'maxStalled', 'failClosed', 'escalation', 'tools',
  'volatileArgs', 'volatileResult', 'bookkeepingArgs', 'maxFingerprintBytes', 'now', 'shellPollDeadlineMs', 'shellPolls',
  // Engine-level options accepted alongside (see LoopGuardEngineOptions).
  'listeners', 'maxOpenRuns', 'endedRunTtlMs', 'maxIdleMs', 'logger',
  // Shared ledger (shared-ledger/shared-ledger-options.ts checks them).
  'store', 'idempotentWrites', 'storeFailure', 'claimLeaseMs', 'ownedRuns',
] as const;
const TOOL_KEYS = [
  'exempt', 'approval', 'poll', 'cursorArg', 'retries', 'timeoutMs', 'volatileArgs', 'volatileResult',
  'readOnly', 'writes', 'shell', 'sql', 'terminal', 'annotations',
  'browser',
  // Noise (noise/, docs/concepts/noise-and-identity.md).
  'resultNoise', 'resultNoisePatterns',
] as const;
const ANNOTATION_KEYS = ['readOnlyHint', 'destructiveHint', 'idempotentHint', 'openWorldHint', 'title'] as const;
/** LoopGuardListener's methods: a listener may leave any out, but one it names must be callable. */
const LISTENER_EVENTS = ['runStarted', 'callDecided', 'callFinished', 'roundClosed', 'runStopped', 'runEnded', 'runEvicted', 'storeError'] as const;

/**
 * The engine's housekeeping options (LoopGuardEngineOptions), checked with the policy so a
 * bad one fails at construction (issue 10 #16): a fallback with a warning hid the mistake,
 * `listeners: 5` threw a TypeError and `logger: {}` threw later, from the first startRun.
 */
function checkEngineOptions(value: Record<string, unknown>, source: string | undefined): void {
  checkPositiveInteger(value.maxOpenRuns, 'maxOpenRuns', source);
  checkNonNegativeInteger(value.endedRunTtlMs, 'endedRunTtlMs', source);
  checkPositiveInteger(value.maxIdleMs, 'maxIdleMs', source, true);
  const logger = value.logger;
  if (logger !== undefined && (typeof logger !== 'object' || logger === null || typeof (logger as { warn?: unknown }).warn !== 'function')) {
    fail('logger', `must be an object with a warn(message) method, like console, got ${describeConfigValue(logger)}`, source);
  }
  const listeners = value.listeners;
  if (listeners === undefined) return;
  if (!Array.isArray(listeners)) fail('listeners', `must be a list of listener objects, got ${describeConfigValue(listeners)}`, source);
  listeners.forEach((listener: unknown, index) => {
    if (typeof listener !== 'object' || listener === null) {
      fail(`listeners[${index}]`, `must be an object with any of ${LISTENER_EVENTS.join(', ')}, got ${describeConfigValue(listener)}`, source);
    }
    for (const event of LISTENER_EVENTS) {
      const method = (listener as Record<string, unknown>)[event];
      if (method !== undefined && typeof method !== 'function') {
        fail(`listeners[${index}].${event}`, `must be a function, got ${describeConfigValue(method)}`, source);
      }
    }
  });
}

/**
 * Checks an options object (typed code or a parsed JSON policy file) and returns it typed.
 * Throws {@link LoopGuardConfigError} naming the first bad field and saying what it takes.
 * `source` (e.g. a file name) is prefixed to the message.
 */
export function validateOptions(value: unknown, source?: string): LoopGuardOptions {
  if (!isPlainObject(value)) fail('(root)', `must be an object of options, got ${describeConfigValue(value)}`, source);
  checkKnownKeys(value, TOP_LEVEL_KEYS, '', source);
  checkEngineOptions(value, source);
  if (value.profile !== undefined && !PROFILES.includes(value.profile as Profile)) {
    fail('profile', `must be one of ${PROFILES.map((p) => `"${p}"`).join(', ')}, got ${describeConfigValue(value.profile)}`, source);
  }
  for (const key of ['threshold', 'refusedRounds', 'consecutiveFailures', 'maxStalled'] as const) {
    checkPositiveInteger(value[key], key, source);
  }
  checkPositiveInteger(value.backToBackLimit, 'backToBackLimit', source, true);
  checkPositiveInteger(value.staleRounds, 'staleRounds', source, true);
  for (const key of ['maxToolCalls', 'maxRounds', 'maxRunMs', 'maxFingerprintBytes'] as const) {
    checkPositiveInteger(value[key], key, source, true);
  }
  checkNonNegativeInteger(value.overloadedExemptMax, 'overloadedExemptMax', source);
  checkBoolean(value.runWideRepeat, 'runWideRepeat', source);
  checkBoolean(value.failClosed, 'failClosed', source);
  checkStringList(value.volatileArgs, 'volatileArgs', source);
  checkStringList(value.volatileResult, 'volatileResult', source);
  checkStringList(value.bookkeepingArgs, 'bookkeepingArgs', source);
  if (value.now !== undefined && typeof value.now !== 'function') fail('now', 'must be a function returning epoch milliseconds', source);
  checkPositiveInteger(value.shellPollDeadlineMs, 'shellPollDeadlineMs', source);
  if (value.shellPolls !== undefined) {
    if (!Array.isArray(value.shellPolls)) fail('shellPolls', `must be a list like [{"pattern":"kubectl get pods","deadlineMs":300000}], got ${describeConfigValue(value.shellPolls)}`, source);
    value.shellPolls.forEach((rule: unknown, index) => {
      const path = `shellPolls[${index}]`;
      if (!isPlainObject(rule)) fail(path, `must be an object like {"pattern":"kubectl get pods","deadlineMs":300000}, got ${describeConfigValue(rule)}`, source);
      checkKnownKeys(rule, ['pattern', 'deadlineMs'], path, source);
      if (rule.pattern instanceof RegExp) {
        // A global or sticky RegExp keeps state between tests: it would match every other call.
        if (rule.pattern.global || rule.pattern.sticky) fail(`${path}.pattern`, 'must not carry the g or y flag (it would match only every other command)', source);
      } else if (typeof rule.pattern === 'string' && rule.pattern !== '') {
        try {
          new RegExp(rule.pattern);
        } catch (error) {
          fail(`${path}.pattern`, `is not a valid regular expression: ${(error as Error).message}`, source);
        }
      } else {
        fail(`${path}.pattern`, `must be a RegExp or a non-empty regular expression source, got ${describeConfigValue(rule.pattern)}`, source);
      }
      if (rule.deadlineMs === undefined) fail(`${path}.deadlineMs`, 'is required: how long identical polls of matching commands are allowed, in ms', source);
      checkPositiveInteger(rule.deadlineMs, `${path}.deadlineMs`, source);
    });
  }
  if (value.escalation !== undefined) {
    if (!isPlainObject(value.escalation)) fail('escalation', 'must be an object like {"nudgeAfter":1,"disableAfter":3}', source);
    checkKnownKeys(value.escalation, ['enabled', 'nudgeAfter', 'disableAfter'], 'escalation', source);
    checkBoolean(value.escalation.enabled, 'escalation.enabled', source);
    checkPositiveInteger(value.escalation.nudgeAfter, 'escalation.nudgeAfter', source);
    checkPositiveInteger(value.escalation.disableAfter, 'escalation.disableAfter', source);
  }
  if (value.tools !== undefined) {
    if (!isPlainObject(value.tools)) fail('tools', 'must be an object mapping tool names to policies, e.g. {"search":{"retries":2}}', source);
    for (const [name, policy] of Object.entries(value.tools)) {
      const path = `tools.${name}`;
      if (!isPlainObject(policy)) fail(path, 'must be an object (a tool policy)', source);
      checkKnownKeys(policy, TOOL_KEYS, path, source);
      checkBoolean(policy.exempt, `${path}.exempt`, source);
      checkBoolean(policy.approval, `${path}.approval`, source);
      checkBoolean(policy.readOnly, `${path}.readOnly`, source);
      checkBoolean(policy.writes, `${path}.writes`, source);
      checkBoolean(policy.terminal, `${path}.terminal`, source);
      if (policy.browser !== undefined && typeof policy.browser !== 'boolean' && (typeof policy.browser !== 'string' || policy.browser === '')) {
        fail(`${path}.browser`, `must be true, false or the name of the argument holding the action; got ${describeConfigValue(policy.browser)}`, source);
      }
      if (policy.readOnly === true && (policy.writes === true || policy.approval === true)) {
        fail(path, 'cannot be readOnly and also writes/approval: a tool that needs approval has side effects; keep one', source);
      }
      if (policy.shell !== undefined && typeof policy.shell !== 'boolean' && (typeof policy.shell !== 'string' || policy.shell === '')) {
        fail(`${path}.shell`, 'must be true or the name of the argument that holds the command line (e.g. "command")', source);
      }
      if (policy.sql !== undefined && typeof policy.sql !== 'boolean' && (typeof policy.sql !== 'string' || policy.sql === '')) {
        fail(`${path}.sql`, `must be true, false or the name of the argument that holds the statement (e.g. "query"); got ${describeConfigValue(policy.sql)}`, source);
      }
      if (policy.annotations !== undefined) {
        if (!isPlainObject(policy.annotations)) fail(`${path}.annotations`, 'must be an object of MCP tool annotations like {"readOnlyHint":true}', source);
        checkKnownKeys(policy.annotations, ANNOTATION_KEYS, `${path}.annotations`, source);
        for (const hint of ['readOnlyHint', 'destructiveHint', 'idempotentHint', 'openWorldHint'] as const) {
          checkBoolean(policy.annotations[hint], `${path}.annotations.${hint}`, source);
        }
      }
      checkNonNegativeInteger(policy.retries, `${path}.retries`, source);
      checkPositiveInteger(policy.timeoutMs, `${path}.timeoutMs`, source);
      checkStringList(policy.volatileArgs, `${path}.volatileArgs`, source);
      checkStringList(policy.volatileResult, `${path}.volatileResult`, source);
      checkBoolean(policy.resultNoise, `${path}.resultNoise`, source);
      checkStringList(policy.resultNoisePatterns, `${path}.resultNoisePatterns`, source);
      (policy.resultNoisePatterns as string[] | undefined)?.forEach((pattern, index) => {
        try {
          new RegExp(pattern);
        } catch (error) {
          fail(`${path}.resultNoisePatterns[${index}]`, `is not a valid regular expression (${(error as Error).message})`, source);
        }
      });
      if (policy.cursorArg !== undefined && (typeof policy.cursorArg !== 'string' || policy.cursorArg === '')) {
        fail(`${path}.cursorArg`, 'must be the name of the cursor argument (a non-empty string)', source);
      }
      if (policy.poll !== undefined) {
        if (!isPlainObject(policy.poll)) fail(`${path}.poll`, 'must be an object like {"deadlineMs":120000,"minIntervalMs":1000}', source);
        checkKnownKeys(policy.poll, ['deadlineMs', 'minIntervalMs'], `${path}.poll`, source);
        if (policy.poll.deadlineMs === undefined) fail(`${path}.poll.deadlineMs`, 'is required: how long identical polls are allowed, in ms', source);
        checkPositiveInteger(policy.poll.deadlineMs, `${path}.poll.deadlineMs`, source);
        checkNonNegativeInteger(policy.poll.minIntervalMs, `${path}.poll.minIntervalMs`, source);
      }
      if (policy.exempt === true && policy.poll !== undefined) {
        fail(path, 'cannot be both exempt and a polling tool: exempt already skips the repeat checks; keep one', source);
      }
    }
  }
  return value as LoopGuardOptions;
}
