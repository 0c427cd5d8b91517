// The vocabulary of the pure core. No OpenTelemetry imports anywhere under src/core:
// the span processor, the replay CLI and the framework adapters all translate into these
// types, so one set of rules decides every path.

/**
 * Which loop the guard protects. See docs/concepts/profiles-and-policies.md for the table of defaults.
 * - `general` (the default): any agent nobody configured — coding and shell agents whose
 *   calls change the world, MCP tools, research agents. Repetition of a call is not the
 *   signal; repetition of an outcome without a state change is (document 003).
 * - `researcher`: document 000's read-only researcher: every call that ran once is refused.
 * - `chat`: document 000's chat turn: back-to-back repeats, failures and a 40-round limit.
 */
export type Profile = 'general' | 'chat' | 'researcher';

/**
 * What a call may do to the world the agent observes (world-state model):
 * - `read`: cannot change it; the same read with nothing written since returns the same.
 * - `write`: may change it (declared, an MCP annotation, or a shell command that may write).
 * - `unknown`: nothing says either way. May run again until its own outcomes confirm that
 *   nothing changes; its results are compared like a read's (document 000: a lookup tool
 *   that leaves out its read-only hint must still have its results compared).
 */
export type CallEffect = 'read' | 'write' | 'unknown';

/** MCP tool annotations (`tools/list`), hints from the tool's server. */
export interface ToolAnnotations {
  title?: string;
  readOnlyHint?: boolean;
  destructiveHint?: boolean;
  idempotentHint?: boolean;
  openWorldHint?: boolean;
}

/**
 * What happened when a call ran (or did not).
 * - `success`: returned a result with at least one fact in it.
 * - `empty`: returned only empty containers, "", 0, false or null (counts as a new fact).
 * - `error`: threw / returned an error.
 * - `overloaded`: rate limited (429 / 503 / "overloaded"); a failure that may come off the budget.
 * - `timeout`: exceeded its `timeoutMs` or the transport timed out; a failure.
 * - `refused`: the guard refused it before it ran.
 */
export type OutcomeClass = 'success' | 'empty' | 'error' | 'overloaded' | 'timeout' | 'refused';

/** A tool call as the model asked for it. `args` may be an object or JSON text. */
export interface ToolCall {
  tool: string;
  args?: unknown;
  /** Overrides the effect the policy derives for this call (e.g. an adapter that knows better). */
  effect?: CallEffect;
  /** The framework's id for this call (shown to the model in refusal messages). */
  callId?: string;
  /** Epoch ms when the call starts; defaults to the guard's clock. Replay passes recorded times. */
  startTime?: number;
  /**
   * The caller only watches (a callback of a framework that runs the tool anyway): recorded as
   * `would_refuse` when refused. Default false.
   */
  observeOnly?: boolean;
}

/**
 * A call whose argument identity was computed elsewhere (span attributes, a replayed trace).
 * `argsHash` must come from {@link callSignature} / the `loopguard.tool.args_hash` attribute.
 */
export interface PrehashedToolCall {
  tool: string;
  argsHash: string;
  callId?: string;
  startTime?: number;
  /** What the call may do to the world; default: the tool's effect under the policy. */
  effect?: CallEffect;
  /**
   * For shell tools: the command family (`grep`, `git diff`), so the escalation ladder can
   * switch off one family instead of the only tool the agent has.
   */
  family?: string;
  /** The call submits or finishes the task (never refused by the repeat checks). */
  terminal?: boolean;
  /** A shell poll (`sleep 30 && gh run view 123`): the poll rule applies with this deadline. */
  pollDeadlineMs?: number;
  /**
   * A shell command known to change state elsewhere (`curl -X POST`, `gh workflow run`:
   * world-state/changes-state-elsewhere.ts): never a poll, not even when its answer says `queued`.
   */
  changesStateElsewhere?: boolean;
  /**
   * An empty shell command (OpenHands' wait on a running command): a poll with
   * `pollDeadlineMs` only while the tool's last answer said its command is still running.
   */
  waitsOnCommand?: boolean;
  /**
   * A shell line that only waits (`sleep 5`). Agents wait in a call of its own as often as in
   * front of the look (`sleep 5`, then `curl localhost:3000/health`): the call after it, in the
   * next round, is a poll as `sleep 5 && curl …` is, when it `pollsAfterSleep`.
   */
  sleepsOnly?: boolean;
  /** A shell line that is a poll when it follows a wait: nothing on it writes a file or changes state elsewhere. */
  pollsAfterSleep?: boolean;
  /** A paged call: the listing it reads, whatever the page (world-state/listing-key-of.ts). */
  listingKey?: string;
  /**
   * A read of part of a file (issue 24 #6, world-state/read-window-request-of.ts): the file and
   * lines its arguments ask for, and whether its output numbers its lines. The range it
   * returned is read from the output when the call finishes (`PrehashedOutcome.window`).
   */
  readWindow?: {
    /** The file, when the arguments name it (SWE-agent's `goto` names none: its output does). */
    resource?: string;
    /** Lines asked for, 1-based and inclusive; absent: the whole file, or what the output shows. */
    ranges?: Array<[number, number]>;
    /** The output prints line numbers (`cat -n`, `nl -ba`, Read, `view`, SWE-agent's window). */
    numbered: boolean;
  };
  /**
   * The caller only watches (spans of another instrumentation): nothing stops a refused call,
   * so telemetry records the decision as `would_refuse`, not as an enforced refusal.
   */
  observeOnly?: boolean;
}

/** Error details recorded for a failed call. */
export interface ToolErrorInfo {
  /** e.g. `overloaded`, `timeout`, `ValidationError`. */
  type?: string;
  message?: string;
}

/** What a call returned: exactly one of `result` or `error`. */
export type CallOutcome =
  | { result: unknown; error?: undefined; endTime?: number }
  | { error: unknown; result?: undefined; endTime?: number };

/** An outcome that was already fingerprinted (span attributes, replayed trace). */
export interface PrehashedOutcome {
  outcome: Exclude<OutcomeClass, 'refused'>;
  /**
   * Result fingerprint. `undefined` means "no fingerprint": empty or not fingerprintable,
   * which counts as a new fact unless `failClosed` is set.
   */
  resultHash?: string;
  /** True when the result could not be fingerprinted (cycle, function, BigInt, over the cap). */
  unfingerprintable?: boolean;
  /**
   * The result only acknowledges the call (`{"ok":true}`, `"OK"`): the same acknowledgement for
   * another call is no stale result (issue 24 #5, world-state/is-acknowledgement.ts).
   */
  acknowledgement?: boolean;
  /**
   * A browser action answered with one line about itself ("Clicked button with index 31:
   * More", "Scrolled down the page by one page"), not with the page it led to: browser-use
   * hands the page to the model in its next step instead (world-state/page-state.ts).
   */
  describesAction?: boolean;
  /** A shell tool's answer saying its command is still running (world-state/says-command-still-running.ts). */
  commandRunning?: boolean;
  /** The listing says it has no further page (`has_more: false`, `next_cursor: null`): issue 24 #2. */
  lastPage?: boolean;
  /**
   * The lines of a file this read returned (issue 24 #6, world-state/returned-window-of.ts):
   * a window already covered by earlier reads of the same file, with nothing written since,
   * teaches nothing. `numbered`: the lines came with their numbers.
   */
  window?: {
    resource: string;
    numbered: boolean;
    ranges: Array<[number, number]>;
    /** The file ends at this line: the read asked for more than it had (world-state/returned-window-of.ts). */
    lastLine?: number;
  };
  /**
   * An empty answer to a window read: the file and the first line it asked for. Past the file's
   * known end, with nothing written since, it is the same nothing again (run-guard.ts finishCall).
   */
  askedFrom?: { resource: string; line: number };
  /**
   * Item fingerprints when the result is a list of items (a top-level array, the one array
   * of an envelope object, JSON inside MCP text content): novelty is judged item by item, so
   * the same documents in another order or subset are already seen.
   */
  items?: number[];
  errorType?: string;
  /**
   * For `error`: the failure may pass by itself (a 5xx, a dropped connection), so an
   * identical retry is honest within the retry budget. Deterministic errors (a 404, a
   * validation error, a syntax error) are not: repeating them unchanged is recursion.
   */
  transient?: boolean;
  /**
   * For a failure: the error says the run's state is wrong, not this call's arguments (an
   * expired token, a 401/403, a spent quota) or the service is down, so any call would fail
   * alike. Such failures from different tools add up to one stuck state (issue 24 #3).
   */
  argumentIndependent?: boolean;
  /**
   * For a failure: the error says what the arguments name does not exist ("user not found",
   * a 404). A different call failing so is an agent narrowing down (issue 18 #3).
   */
  aboutArguments?: boolean;
  /**
   * With `aboutArguments`: the error names what it rejects before saying so ("Table
   * 'shop.teachers' doesn't exist"). The same text again for another call narrows nothing.
   */
  namesRejected?: boolean;
  /**
   * For a failure: the harness rejected the step before running anything (BrowserGym's
   * "Received a multi-action, only single-actions are allowed."; world-state/is-step-rejection.ts).
   */
  stepRejected?: boolean;
  /**
   * For a success: the result reports a state still moving (`{"status": "running"}`;
   * world-state/says-in-progress.ts). The same answer to the same call again is a poll.
   */
  inProgress?: boolean;
  /**
   * For a success of a call that may write: the tool says it changed nothing (an editor's "No
   * replacement was performed", SWE-agent's "Your changes have NOT been applied"). It advances
   * no write epoch, so the tests run again after it are a repeat, not a re-run after an edit.
   */
  wroteNothing?: boolean;
  /**
   * For a success of a tool that is not a shell: the result is a short text written as an error
   * (`Error executing query: Unknown column 'name'`, `ERROR: …`): the tool handed
   * a failure back as its answer. A read so answered is no fact to refuse run-wide; the same
   * answer twice confirms it, as a thrown error's third attempt is refused (checks/run-wide-repeat.ts).
   */
  errorAnswer?: boolean;
  endTime?: number;
}

/** Per-tool policy, declared once per tool (never per feature). */
export interface ToolPolicy {
  /**
   * The tool never changes the world state (a lookup). An identical call with nothing
   * written since is refused run-wide (profiles `general` and `researcher`). Default: from
   * `writes`/`approval`, MCP `annotations`, the shell classifier, the well-known tool
   * table (docs/concepts/world-state.md), else unknown.
   */
  readOnly?: boolean;
  /**
   * The tool may change the world state (files, tickets, messages). After it runs, earlier
   * reads may run again; it may itself run again until its outcomes confirm that nothing
   * changes. Implied by `approval`. Default: see `readOnly`.
   */
  writes?: boolean;
  /**
   * A shell tool: each call's command line is classified (reads such as `grep`, `cat`,
   * `git diff` vs commands that may write). `true` reads the command from the argument
   * `command` (or `cmd`, or a string argument); a string names the argument. Default: on
   * for well-known shell tool names (`bash`, `shell`, `execute_bash`, `run_shell_command`,
   * `Bash`, …) in the general profile.
   */
  shell?: boolean | string;
  /**
   * A SQL tool: each call's statement is classified — `SELECT`, `SHOW`, `DESCRIBE` and
   * `EXPLAIN` that call only built-in functions and read no clock are reads; `INSERT`,
   * `UPDATE`, `CREATE` … are writes; anything else keeps the tool's effect.
   * `true` reads the statement from `sql`, `query`, `statement` or the only string argument;
   * a string names the argument; `false` turns it off. Default: on for well-known SQL tool
   * names (`execute_sql`, `sql_db_query`, `read_query`, `query`, …) in the general profile.
   */
  sql?: boolean | string;
  /**
   * Delivers the answer, hands off, submits or finishes the task (`send_msg_to_user`,
   * `respond`, `transfer_to_human_agents`, `final_answer`, `submit`): never refused (not by
   * the repeat checks, the ladder or a budget), and a stop never swallows it — after a stop
   * the model may still give its answer once. Default: well-known names, in every profile
   * (docs/concepts/answer-tools-and-browser-agents.md).
   */
  terminal?: boolean;
  /**
   * A browser or GUI action: its result is the page it leads to, judged node by node, and
   * it changes the page, never the workspace, so reads of files stay repeats across it.
   * `true`; or the name of the argument that holds the action (`action` for a tool like
   * `browser_action`). Default: well-known names in the general profile (BrowserGym
   * actions, Playwright MCP `browser_*`, browser-use, `browser_action`, `computer`).
   */
  browser?: boolean | string;
  /** MCP tool annotations, when the tool comes from an MCP server (see CallEffect). */
  annotations?: ToolAnnotations;
  /**
   * Skips both repeat checks and never makes a round stale (e.g. waiting for a subagent).
   * Still bounded by the round, call and time limits. Default false.
   */
  exempt?: boolean;
  /**
   * The tool has side effects and needs approval (set by the admin, not the tool's own hint):
   * its results always count as new, and once it runs, earlier reads may run again.
   * Default false.
   */
  approval?: boolean;
  /**
   * A polling tool: identical calls are allowed until `deadlineMs` after the first one, and
   * until then an unchanged answer does not make a round stale. Past the deadline identical
   * calls are refused. `minIntervalMs` refuses polls that come sooner than that after the last.
   */
  poll?: { deadlineMs: number; minIntervalMs?: number };
  /**
   * Name of the pagination cursor argument. A call whose arguments (cursor included) match
   * one already executed is refused as "cursor did not advance" in every profile.
   */
  cursorArg?: string;
  /** Identical retries allowed after a failed execution. Default: the shared threshold (5). */
  retries?: number;
  /** Per-call timeout enforced by the instrumentation with an AbortSignal. Default none. */
  timeoutMs?: number;
  /** Extra argument field names that carry no meaning (stripped at every depth). */
  volatileArgs?: string[];
  /** Extra result field names that carry no meaning (stripped at every depth). */
  volatileResult?: string[];
  /**
   * Judge this tool's results after removing noise: durations (`in 1.53s`), clock times,
   * request ids, UUIDs in text and jittering relevance scores (docs/concepts/noise-and-identity.md).
   * Set false for a tool whose timings are the answer (a benchmark). Default true.
   */
  resultNoise?: boolean;
  /**
   * Extra regular expressions (source text) whose matches in this tool's results are noise,
   * e.g. `"build #\\d+"`. Must not match a `"` of JSON structure. Default none.
   */
  resultNoisePatterns?: string[];
}

/** The options object of {@link LoopGuard}. Every field is optional; defaults per profile. */
export interface LoopGuardOptions {
  /** Default `'general'`. */
  profile?: Profile;
  /** The one shared "tries that go nowhere" threshold N. Default 5. */
  threshold?: number;
  /** Stale rounds in a row that stop the run. Default: general and researcher N, chat off (Infinity; document 000). */
  staleRounds?: number;
  /** Rounds in a row where every call was refused that stop the run. Default N. */
  refusedRounds?: number;
  /** The same tool failing this many times in a row stops the run. Default N. */
  consecutiveFailures?: number;
  /** The k-th consecutive identical call is refused (chat check). Default: chat and researcher 3, general off (Infinity: outcomes decide). */
  backToBackLimit?: number;
  /**
   * Refuse repeats run-wide. Researcher: any call identical to one already executed. General:
   * a read with nothing written since; a write or unknown call once its own outcomes confirmed
   * that nothing changes. Default: general and researcher true, chat false.
   */
  runWideRepeat?: boolean;
  /** Executed tool calls allowed in the run (a backstop). Default: general 2000, researcher 100, chat unlimited. */
  maxToolCalls?: number;
  /** Rounds allowed in the run (a backstop). Default: general 1000, chat 40, researcher = maxToolCalls. */
  maxRounds?: number;
  /** Wall-clock budget of the run in ms. Default unlimited. */
  maxRunMs?: number;
  /** Overloaded calls per run that come off the call budget and grow the round limit. Default 3. */
  overloadedExemptMax?: number;
  /** Rounds without a change of the reported progress state that stop the run. Default N. */
  maxStalled?: number;
  /**
   * Ambiguity stance. false (default, documents 000/002): empty and unfingerprintable
   * results count as new facts. true (document 003): they count as already seen.
   */
  failClosed?: boolean;
  /** Escalation ladder before the stop. See {@link EscalationOptions}. */
  escalation?: EscalationOptions;
  /** Per-tool policies by tool name. */
  tools?: Record<string, ToolPolicy>;
  /** Replaces the default volatile argument field names (see DEFAULT_VOLATILE_ARGS). */
  volatileArgs?: string[];
  /** Replaces the default volatile result field names (see DEFAULT_VOLATILE_RESULT). */
  volatileResult?: string[];
  /**
   * Bookkeeping arguments your harness adds to every tool call (`thought`, `plan`…): dropped
   * from every tool's call identity. The well-known tools already drop Cline's
   * `task_progress`, `thought`, `reasoning`, `explanation`, `intent` (WELL_KNOWN_BOOKKEEPING_ARGUMENTS).
   * Default none.
   */
  bookkeepingArgs?: string[];
  /** Results larger than this many bytes (as JSON text) are not fingerprinted. Default 16 MiB. */
  maxFingerprintBytes?: number;
  /**
   * How long a shell poll may repeat (issue 24 #4): a shell command that sleeps then runs
   * something (`sleep 30 && gh run view 123`) gets the poll rule — identical calls run, an
   * unchanged answer is neutral, and past this many ms after the first identical call they
   * are refused. Default 600000 (10 minutes).
   */
  shellPollDeadlineMs?: number;
  /**
   * Per-command shell poll deadlines, first match wins: `pattern` (a RegExp, or its source
   * text in a JSON policy file) is tested against the whole command line. A matching line is
   * a poll even without a leading `sleep`. Default none.
   */
  shellPolls?: Array<{ pattern: string | RegExp; deadlineMs: number }>;
  /** Clock in epoch ms. Default Date.now. */
  now?: () => number;
}

/** Escalation ladder (document 002): nudge, then disable the looping tool, then stop. */
export interface EscalationOptions {
  /** Stale rounds in a row after which shouldStop carries a nudge for the model. Default 1. */
  nudgeAfter?: number;
  /** Rounds in a row in which one tool returned only seen results before it is disabled. Default 3. */
  disableAfter?: number;
  /** Set false to turn the ladder off (stop only). Default true. */
  enabled?: boolean;
}

/** Stable machine reasons for a refusal. */
export type RefusalReason =
  | 'repeat.back_to_back'
  | 'repeat.run_wide'
  | 'repeat.in_flight'
  | 'repeat.unchanged'
  | 'repeat.same_error'
  | 'pagination.cursor_not_advanced'
  | 'retry.budget_exhausted'
  | 'poll.deadline_passed'
  | 'poll.too_soon'
  | 'tool.disabled'
  | 'budget.tool_calls'
  | 'budget.rounds'
  | 'budget.run_time'
  | 'run.stopped'
  /** An identical write after a timeout: it may have gone through, so check before re-running it (document 001). */
  | 'write.outcome_unknown'
  /** A write with a business key that was already done, by this run or another (shared store, document 001). */
  | 'write.already_done'
  /** The shared store cannot be reached and this call needs it (a business-key write, or `storeFailure.calls: 'closed'`). */
  | 'store.unavailable';

/** Stable machine reasons for a stop. */
export type StopReason =
  | 'stale_rounds'
  | 'refused_rounds'
  | 'consecutive_failures'
  | 'max_tool_calls'
  | 'max_rounds'
  | 'max_run_ms'
  | 'stalled_progress'
  /**
   * Not a loop verdict: the run was ended (`run.end()` / `guard.endRun(id)`), so its calls are
   * refused `run.stopped` and shouldStop says so. Never latched into `run.stopped`, never a
   * `runStopped` event.
   */
  | 'run_ended';

/** How an allowed call relates to earlier ones. */
export type AllowKind = 'new' | 'retry' | 'poll' | 'exempt' | 'reread' | 'repeat' | 'terminal' | 'unguarded';

/**
 * Why the engine let go of a run that nobody ended, to bound its memory: the open-run cap
 * (`maxOpenRuns`) or inactivity (`maxIdleMs`). An evicted run fails open: its later calls are
 * allowed with kind `unguarded`, never refused for the eviction.
 */
export type EvictionCause = 'max_open_runs' | 'max_idle';

/**
 * The call may run. `kind` says why: a new call, a retry, a poll inside its window, an exempt or
 * terminal tool, a re-read after a write, a repeat whose outcome may still change, or `unguarded`
 * (its run was evicted).
 */
export interface AllowDecision {
  action: 'allow';
  kind: AllowKind;
  tool: string;
  argsHash: string;
}

/**
 * The call must not run. `message` is what the model reads instead of the result: why, and what to
 * do instead.
 */
export interface RefuseDecision {
  action: 'refuse';
  reason: RefusalReason;
  tool: string;
  argsHash: string;
  /** What the model is told instead of the tool's result: what happened and what to do next. */
  message: string;
  /** The earlier call whose result is already in the conversation, when there is one. */
  previousCallId?: string;
  previousRound?: number;
}

/** What `shouldRefuse` / `startCall` / `claimCall` answer for one tool call. */
export type CallDecision = AllowDecision | RefuseDecision;

/** Per-tool counts reported with a stop. */
export interface ToolTally {
  calls: number;
  executed: number;
  refused: number;
  newFacts: number;
  seen: number;
  failures: number;
}

/** What the run learned, returned with a stop so the caller keeps the partial work. */
export interface PartialResults {
  rounds: number;
  toolCalls: number;
  executed: number;
  refused: number;
  /** Distinct result fingerprints plus empty / unfingerprintable / approval results. */
  newFacts: number;
  /** Executed calls whose result had been seen before. */
  seenResults: number;
  staleRoundStreak: number;
  refusedRoundStreak: number;
  /** Round in which the last new fact arrived (0 = none yet). */
  lastNewFactRound: number;
  /** Tokens of model calls in rounds that learned nothing — stale or all refused (when usage was reported). */
  wastedTokens: number;
  tools: Record<string, ToolTally>;
}

/** The run may go on; `nudge`, when set, goes to the model before its next call. */
export interface ContinueDecision {
  action: 'continue';
  /** Ladder step 1: a message to inject before the next model call, when the run is going stale. */
  nudge?: string;
  /** Ladder step 2: tools the next model call should not be offered. */
  disabledTools: string[];
}

/**
 * The run must stop: offer the model no tools and let it answer from `partial`, what was learned.
 * The first stop is latched.
 */
export interface StopDecision {
  action: 'stop';
  reason: StopReason;
  /** Tells the model tools are gone and to answer from what it gathered. */
  message: string;
  /** Human/SRE-facing one-line explanation. */
  detail: string;
  round: number;
  partial: PartialResults;
}

/** What `shouldStop` answers between rounds. */
export type RunDecision = ContinueDecision | StopDecision;

/** Token usage of one model call. */
export interface ModelUsage {
  inputTokens?: number;
  outputTokens?: number;
}

/** How a round was judged when it closed. */
export type RoundVerdict = 'new' | 'stale' | 'refused' | 'neutral' | 'empty';

/** A closed round as listeners see it: its verdict and the counts behind it. */
export interface RoundSummary {
  round: number;
  verdict: RoundVerdict;
  calls: number;
  executed: number;
  refused: number;
  newFacts: number;
  seen: number;
  usage?: ModelUsage;
}

/** Whether an executed call's result taught the run something. */
export type Novelty = 'new' | 'seen' | 'neutral';

/**
 * Observers of the engine (telemetry, progress output). Every method is optional and is
 * called inside a try/catch: a listener can never break the agent loop.
 */
export interface LoopGuardListener {
  /** A run was opened (`startRun`, `resumeRun`, or a span processor seeing its first span). */
  runStarted?(run: RunView): void;
  /** A call was decided, allowed or refused, in `round`. */
  callDecided?(run: RunView, call: PrehashedToolCall, decision: CallDecision, round: number): void;
  /** An allowed call finished: its outcome class and whether its result was new. */
  callFinished?(run: RunView, call: PrehashedToolCall, outcome: OutcomeClass, novelty: Novelty, round: number): void;
  /** A round was judged (when the next one opened, or at a stop or end). */
  roundClosed?(run: RunView, summary: RoundSummary): void;
  /** The run stopped for a loop or a budget (not for `run.end()`): once per run. */
  runStopped?(run: RunView, decision: StopDecision): void;
  /** The run was ended (`run.end()`, `guard.endRun()`, idled out). */
  runEnded?(run: RunView): void;
  /** The engine evicted a run nobody ended (after its `runEnded`): count it, it now runs unguarded. */
  runEvicted?(run: RunView, cause: EvictionCause): void;
  /**
   * The shared store failed (`operation`: claim, append, read, business_key) for a run; the
   * engine behaves as `storeFailure` says. Count it: it is what an SRE alerts on.
   */
  storeError?(operation: string, runId: string, error: unknown): void;
}

/** Read-only facts about a run, handed to listeners. */
export interface RunView {
  readonly id: string;
  readonly profile: Profile;
  readonly round: number;
  readonly staleRoundStreak: number;
  readonly refusedRoundStreak: number;
  readonly stopped: StopDecision | undefined;
  readonly attributes: Readonly<Record<string, string | number | boolean>>;
}
