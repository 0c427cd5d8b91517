import { LoopGuardConfigError } from './errors.js';
import type { EscalationOptions, LoopGuardOptions, Profile, ToolPolicy } from './types.js';
import { DEFAULT_VOLATILE_ARGS, DEFAULT_VOLATILE_RESULT } from './volatile-fields.js';

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
  readonly now: () => number;
  readonly tools: Readonly<Record<string, ToolPolicy>>;
  /** Per-tool resolved lookups; tools without a policy share {@link ResolvedOptions.defaultTool}. */
  tool(name: string): ResolvedToolPolicy;
  readonly defaultTool: ResolvedToolPolicy;
}

export interface ResolvedToolPolicy {
  readonly exempt: boolean;
  readonly approval: boolean;
  readonly poll: { deadlineMs: number; minIntervalMs: number } | undefined;
  readonly cursorArg: string | undefined;
  readonly retries: number;
  readonly timeoutMs: number | undefined;
  readonly volatileArgs: ReadonlySet<string>;
  readonly volatileResult: ReadonlySet<string>;
  /** Matches `"name":` of any volatile result field in JSON text; undefined when there are none. */
  readonly volatileResultPattern: RegExp | undefined;
}

/** The one shared threshold: "stop after five tries that go nowhere" (document 000). */
export const DEFAULT_THRESHOLD = 5;

const PROFILES: readonly Profile[] = ['chat', 'researcher'];

/**
 * Fills in defaults. Every numeric option must be a positive integer (or Infinity for the
 * budgets); a bad value is a programming error in the caller and throws
 * {@link LoopGuardConfigError} naming the field.
 */
export function resolveOptions(options: LoopGuardOptions = {}): ResolvedOptions {
  const validated = validateOptions(options);
  const profile = validated.profile ?? 'researcher';
  const threshold = validated.threshold ?? DEFAULT_THRESHOLD;
  const researcher = profile === 'researcher';
  const maxToolCalls = validated.maxToolCalls ?? (researcher ? 100 : Infinity);
  const volatileArgs = validated.volatileArgs ?? DEFAULT_VOLATILE_ARGS;
  const volatileResult = validated.volatileResult ?? DEFAULT_VOLATILE_RESULT;
  const tools = validated.tools ?? {};

  const build = (policy: ToolPolicy): ResolvedToolPolicy => {
    const resultFields = new Set([...volatileResult, ...(policy.volatileResult ?? [])]);
    return {
      exempt: policy.exempt ?? false,
      approval: policy.approval ?? false,
      poll: policy.poll ? { deadlineMs: policy.poll.deadlineMs, minIntervalMs: policy.poll.minIntervalMs ?? 0 } : undefined,
      cursorArg: policy.cursorArg,
      retries: policy.retries ?? threshold,
      timeoutMs: policy.timeoutMs,
      volatileArgs: new Set([...volatileArgs, ...(policy.volatileArgs ?? [])]),
      volatileResult: resultFields,
      volatileResultPattern: volatileFieldPattern(resultFields),
    };
  };
  const defaultTool = build({});
  const perTool = new Map<string, ResolvedToolPolicy>();
  for (const [name, policy] of Object.entries(tools)) perTool.set(name, build(policy));

  const escalation = validated.escalation ?? {};
  return {
    profile,
    threshold,
    // Document 000: result comparison applies to the researcher loop; a chat turn stops on
    // back-to-back repeats, failures and its round limit.
    staleRounds: validated.staleRounds ?? (researcher ? threshold : Infinity),
    refusedRounds: validated.refusedRounds ?? threshold,
    consecutiveFailures: validated.consecutiveFailures ?? threshold,
    backToBackLimit: validated.backToBackLimit ?? 3,
    runWideRepeat: validated.runWideRepeat ?? researcher,
    maxToolCalls,
    // A researcher's round limit is sized to its call budget (document 000): every round
    // runs at least one call, so it can never need more rounds than calls.
    maxRounds: validated.maxRounds ?? (researcher ? maxToolCalls : 40),
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
    now: validated.now ?? Date.now,
    tools,
    defaultTool,
    tool: (name: string) => perTool.get(name) ?? defaultTool,
  };
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
    fail(field, `must be a positive whole number${allowInfinity ? ' (or Infinity)' : ''}, got ${JSON.stringify(value)}`, source);
  }
}

function checkNonNegativeInteger(value: unknown, field: Path, source: string | undefined): void {
  if (value === undefined) return;
  if (typeof value !== 'number' || !Number.isInteger(value) || value < 0) {
    fail(field, `must be a whole number ≥ 0, got ${JSON.stringify(value)}`, source);
  }
}

function checkBoolean(value: unknown, field: Path, source: string | undefined): void {
  if (value !== undefined && typeof value !== 'boolean') fail(field, `must be true or false, got ${JSON.stringify(value)}`, source);
}

function checkStringList(value: unknown, field: Path, source: string | undefined): void {
  if (value === undefined) return;
  if (!Array.isArray(value) || value.some((item) => typeof item !== 'string')) {
    fail(field, `must be a list of field names (strings), got ${JSON.stringify(value)}`, source);
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
  'volatileArgs', 'volatileResult', 'maxFingerprintBytes', 'now',
  // Engine-level options accepted alongside (see LoopGuardEngineOptions).
  'listeners', 'maxOpenRuns', 'endedRunTtlMs', 'maxIdleMs', 'logger',
] as const;
const TOOL_KEYS = ['exempt', 'approval', 'poll', 'cursorArg', 'retries', 'timeoutMs', 'volatileArgs', 'volatileResult'] as const;

/**
 * Checks an options object (typed code or a parsed JSON policy file) and returns it typed.
 * Throws {@link LoopGuardConfigError} naming the first bad field and saying what it takes.
 * `source` (e.g. a file name) is prefixed to the message.
 */
export function validateOptions(value: unknown, source?: string): LoopGuardOptions {
  if (!isPlainObject(value)) fail('(root)', `must be an object of options, got ${JSON.stringify(value)}`, source);
  checkKnownKeys(value, TOP_LEVEL_KEYS, '', source);
  if (value.profile !== undefined && !PROFILES.includes(value.profile as Profile)) {
    fail('profile', `must be one of ${PROFILES.map((p) => `"${p}"`).join(', ')}, got ${JSON.stringify(value.profile)}`, source);
  }
  for (const key of ['threshold', 'refusedRounds', 'consecutiveFailures', 'backToBackLimit', 'maxStalled'] as const) {
    checkPositiveInteger(value[key], key, source);
  }
  checkPositiveInteger(value.staleRounds, 'staleRounds', source, true);
  for (const key of ['maxToolCalls', 'maxRounds', 'maxRunMs', 'maxFingerprintBytes'] as const) {
    checkPositiveInteger(value[key], key, source, true);
  }
  checkNonNegativeInteger(value.overloadedExemptMax, 'overloadedExemptMax', source);
  checkBoolean(value.runWideRepeat, 'runWideRepeat', source);
  checkBoolean(value.failClosed, 'failClosed', source);
  checkStringList(value.volatileArgs, 'volatileArgs', source);
  checkStringList(value.volatileResult, 'volatileResult', source);
  if (value.now !== undefined && typeof value.now !== 'function') fail('now', 'must be a function returning epoch milliseconds', source);
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
      checkNonNegativeInteger(policy.retries, `${path}.retries`, source);
      checkPositiveInteger(policy.timeoutMs, `${path}.timeoutMs`, source);
      checkStringList(policy.volatileArgs, `${path}.volatileArgs`, source);
      checkStringList(policy.volatileResult, `${path}.volatileResult`, source);
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
