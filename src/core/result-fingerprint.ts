import { readableText } from './readable-text.js';
import { isAcknowledgement } from './world-state/is-acknowledgement.js';
import { isStepRejection } from './world-state/is-step-rejection.js';
import { isEmptyResultNotice } from './world-state/is-empty-result-notice.js';
import { saysNoMorePages } from './world-state/says-no-more-pages.js';
import { hashItemRanges, hashPrefixed, hashText } from './hash.js';
import { inTestRunnerOrder } from './noise/in-test-runner-order.js';
import { withoutAttemptCounter } from './noise/attempt-counter-in-text.js';
import type { ResolvedToolPolicy } from './policy.js';
import type { CallOutcome, OutcomeClass, PrehashedOutcome, ToolErrorInfo } from './types.js';
import { defaultNoiseFilter } from './noise/create-noise-filter.js';
import { describesAction, failureReportedBy, fingerprintPage, showsNoPage } from './world-state/page-state.js';
import { saysCommandStillRunning } from './world-state/says-command-still-running.js';
import { isPartListKey, objectSaysInProgress, textSaysInProgress } from './world-state/says-in-progress.js';
import { codexShellOutput, isSilentCommandAnswer, isSilentExitMessage, withoutShellEnvelopeNoise } from './world-state/shell-answer-envelope.js';
import { jsonTextShape, readJsonTextShape, VolatileKeyMatcher } from './json-text-shape.js';
import { KEYED_MEMBER_NAMES } from './noise/keyed-member-names.js';

/** JSON text up to this length is parsed so it is judged by structure like an object result. */
export const MAX_PARSED_RESULT_LENGTH = 1024 * 1024;

/** Longer results carry data: not looked at as acknowledgements (a length read, nothing parsed). */
const MAX_ACKNOWLEDGEMENT_LENGTH = 96;

/**
 * Does the value carry no facts at all? Walks the whole value (document 000: a list of
 * "if this key is empty" keys silently goes wrong each time a tool is added): only empty
 * containers, "", 0, false and null, at any depth. Returns at the first fact, so a
 * non-empty result costs a walk down one branch, not of the whole value.
 */
export function isEmptyResult(value: unknown, depth = 0): boolean {
  if (value === null || value === undefined || value === false || value === 0 || value === '') return true;
  if (typeof value !== 'object') return false;
  if (depth > 64) return false;
  if (Array.isArray(value)) {
    for (const item of value) if (!isEmptyResult(item, depth + 1)) return false;
    return true;
  }
  for (const key in value as Record<string, unknown>) {
    if (!isEmptyResult((value as Record<string, unknown>)[key], depth + 1)) return false;
  }
  return true;
}

function dropFields(value: unknown, fields: ReadonlySet<string>): unknown {
  if (typeof value !== 'object' || value === null) return value;
  if (Array.isArray(value)) return value.map((item) => dropFields(item, fields));
  const out: Record<string, unknown> = {};
  for (const key of Object.keys(value)) {
    if (!fields.has(key)) out[key] = dropFields((value as Record<string, unknown>)[key], fields);
  }
  return out;
}

/** Lists longer than this are judged as a whole (bounded per-call work). */
const MAX_ITEMS = 256;
/** How deep single-object wrappers (`{"data": {"hits": {"hits": [...]}}}`) are followed. */
const MAX_ENVELOPE_DEPTH = 3;

/**
 * The value an MCP `CallToolResult` means: its `structuredContent` when present, else its
 * text content, with JSON text parsed (an MCP search tool returns `[]` or a list as text).
 * Several text parts are a list of items. Anything else is returned as it is.
 */
function unwrapToolResultEnvelope(value: unknown): unknown {
  if (typeof value !== 'object' || value === null || Array.isArray(value)) return value;
  const record = value as Record<string, unknown>;
  const content = record.content;
  if (!Array.isArray(content)) return value;
  if (record.structuredContent !== undefined && record.structuredContent !== null) return record.structuredContent;
  const texts: unknown[] = [];
  for (const part of content) {
    if (typeof part !== 'object' || part === null) return value;
    const typed = part as Record<string, unknown>;
    if (typed.type !== 'text' || typeof typed.text !== 'string') return value;
    texts.push(parseJsonText(typed.text));
  }
  return texts.length === 1 ? texts[0] : texts;
}

/** The value of an object's only member when it is a string (`{"content": "No matches found"}`). */
function soleStringMember(value: unknown): string | undefined {
  if (typeof value !== 'object' || value === null || Array.isArray(value)) return undefined;
  const keys = Object.keys(value);
  if (keys.length !== 1) return undefined;
  const member = (value as Record<string, unknown>)[keys[0]!];
  return typeof member === 'string' ? member : undefined;
}

/**
 * The value a result stands for: a string holding a JSON object or array (up to 1 MiB) is that
 * value, so a tool result given as JSON text and the same result given parsed are judged alike
 * everywhere — the page model and read windows included, which read the value's parts (an MCP
 * result's `content`, a shell result's `output`) — and a span's recorded result text need not be
 * parsed before the engine sees it.
 */
export function jsonTextValue(result: unknown): unknown {
  return typeof result === 'string' ? parseJsonText(result) : result;
}

function parseJsonText(text: string): unknown {
  const trimmed = text.trimStart();
  if (!(trimmed.startsWith('{') || trimmed.startsWith('[')) || text.length > MAX_PARSED_RESULT_LENGTH) return text;
  try {
    return JSON.parse(text) as unknown;
  } catch {
    return text;
  }
}

/**
 * The list of items a result carries, found by structure (document 000: a list of key names
 * silently goes wrong each time a tool is added): a top-level array, or the one array
 * property of an envelope object, following single-object wrappers a few levels down.
 * `path` names the keys from the top down to the array. Whether an envelope's array is most
 * of it is judged later, from the text (itemFingerprints).
 */
function findItems(value: unknown): { items: unknown[]; path: string[] } | undefined {
  if (Array.isArray(value)) return { items: value, path: [] };
  let node: unknown = value;
  const path: string[] = [];
  for (let depth = 0; depth < MAX_ENVELOPE_DEPTH; depth++) {
    if (typeof node !== 'object' || node === null || Array.isArray(node)) return undefined;
    let array: unknown[] | undefined;
    let arrayKey = '';
    let wrapper: unknown;
    let wrapperKey = '';
    let objects = 0;
    for (const key in node as Record<string, unknown>) {
      const child = (node as Record<string, unknown>)[key];
      if (Array.isArray(child)) {
        // A sibling empty list (`"images": []`) carries nothing: the other list is still the main one (issue 24 #1).
        if (child.length === 0 && array !== undefined) continue;
        if (array !== undefined && array.length > 0) return undefined; // two lists: no single main list
        array = child;
        arrayKey = key;
      } else if (typeof child === 'object' && child !== null) {
        objects += 1;
        wrapper = child;
        wrapperKey = key;
      }
    }
    if (array !== undefined) {
      path.push(arrayKey);
      return { items: array, path };
    }
    if (objects !== 1) return undefined;
    path.push(wrapperKey);
    node = wrapper;
  }
  return undefined;
}

/**
 * Fingerprints of the items, read straight from the result's JSON text: the items are
 * contiguous there, so each is hashed over its range of `text` — no JSON.stringify per item
 * and no substring. Undefined when the list is an envelope's and not most of the result (over
 * half of its text: a record with a short `tags` list is one fact, not a list), or when the
 * text does not show the expected items (a `toJSON` somewhere): then the result is judged
 * whole, as before item-level novelty.
 *
 * Items are hashed with {@link hashItemRanges} (53 bits, in JS over a UTF-16 copy of the
 * text), not SHA-256: a result holds tens of items, and a native hash call plus a stringify
 * per item made item-level novelty cost more than the whole result's fingerprint. Measured
 * (/tmp probe on the 2-core runner, 2 KB search result of 9 hits, fingerprintResult alone,
 * interleaved best of 7; the runner was loaded, so read ratios): without item novelty 1.00;
 * SHA-256 + stringify per item ×4.5; JS hash + stringify per item ×2.1; ranges of the text
 * hashed over the UTF-16 copy ×1.4–1.7. Per guarded call: BENCHMARKS.md.
 */
function itemFingerprints(text: string, itemCount: number, path: readonly string[]): number[] | undefined {
  if (itemCount > MAX_ITEMS) return undefined;
  let position = 0;
  for (const key of path) {
    position = memberValueStart(text, position, key);
    if (position < 0) return undefined;
  }
  if (text.charCodeAt(position) !== 91 /* [ */) return undefined;
  const starts: number[] = new Array(itemCount);
  const ends: number[] = new Array(itemCount);
  let count = 0;
  let index = position + 1;
  if (text.charCodeAt(index) !== 93 /* ] */) {
    for (;;) {
      const end = jsonValueEnd(text, index);
      if (end < 0 || count >= itemCount) return undefined;
      starts[count] = index;
      ends[count++] = end;
      const next = text.charCodeAt(end);
      if (next === 93 /* ] */) {
        index = end;
        break;
      }
      if (next !== 44 /* , */) return undefined;
      index = end + 1;
    }
  }
  if (count !== itemCount) return undefined;
  const listLength = index + 1 - position;
  if (path.length > 0 && listLength * 2 <= text.length) return undefined;
  const fingerprints: number[] = new Array(count);
  hashItemRanges(text, starts, ends, fingerprints);
  return fingerprints;
}

/** Index just past the JSON string that opens at `start` (a `"`), or -1. */
function jsonStringEnd(text: string, start: number): number {
  let from = start + 1;
  for (;;) {
    const quote = text.indexOf('"', from);
    if (quote < 0) return -1;
    let backslashes = 0;
    for (let at = quote - 1; text.charCodeAt(at) === 92 /* \ */; at--) backslashes++;
    if ((backslashes & 1) === 0) return quote + 1;
    from = quote + 1;
  }
}

/**
 * Index just past the JSON value that starts at `start`, in text written by JSON.stringify
 * (no whitespace), or -1. Strings are skipped with indexOf, so the JS loop only walks the
 * structure and the numbers.
 */
function jsonValueEnd(text: string, start: number): number {
  const first = text.charCodeAt(start);
  if (first === 34 /* " */) return jsonStringEnd(text, start);
  if (first !== 123 /* { */ && first !== 91 /* [ */) {
    let at = start;
    for (; at < text.length; at++) {
      const code = text.charCodeAt(at);
      if (code === 44 || code === 93 || code === 125) break;
    }
    return at;
  }
  let depth = 0;
  for (let at = start; at < text.length; ) {
    const code = text.charCodeAt(at);
    if (code === 34) {
      at = jsonStringEnd(text, at);
      if (at < 0) return -1;
      continue;
    }
    if (code === 123 || code === 91) depth++;
    else if ((code === 125 || code === 93) && --depth === 0) return at + 1;
    at++;
  }
  return -1;
}

/** Where the value of member `keyToken` (a JSON-encoded key) of the object at `start` begins, or -1. */
function memberValueStart(text: string, start: number, keyToken: string): number {
  if (text.charCodeAt(start) !== 123 /* { */) return -1;
  let at = start + 1;
  while (at > 0 && at < text.length && text.charCodeAt(at) !== 125 /* } */) {
    const keyEnd = jsonStringEnd(text, at);
    if (keyEnd < 0) return -1;
    const valueStart = keyEnd + 1; // past the ':'
    if (keyEnd - at === keyToken.length && text.startsWith(keyToken, at)) return valueStart;
    at = jsonValueEnd(text, valueStart);
    if (at < 0) return -1;
    if (text.charCodeAt(at) === 44 /* , */) at++;
  }
  return -1;
}

/**
 * The fingerprint of a successful result: a hash of its content after volatile fields are
 * dropped, or no fingerprint when it is empty or cannot be fingerprinted. A result that is a
 * list of items also gets one fingerprint per item (novelty is judged item by item).
 *
 * Results are hashed from JSON.stringify text, not canonical JSON: a result's key order is
 * the tool's own and stable between calls, and native stringify keeps large results at
 * near raw-sha256 speed (issue 6). Only when a volatile field name occurs in the text is
 * the value rebuilt without it. Strings that hold JSON are parsed (up to 1 MiB) so the same
 * result as text and as an object fingerprint alike; other strings are hashed as they are.
 * An MCP `CallToolResult` is judged by what it carries, not by its envelope.
 */
export function fingerprintResult(result: unknown, policy: ResolvedToolPolicy, maxBytes: number): PrehashedOutcome {
  const prehashed = policy.page ? fingerprintBrowserResult(result, policy, maxBytes) : fingerprintResultValue(result, policy, maxBytes);
  if (prehashed.outcome !== 'success') return prehashed;
  // What the text says is read the same whether the tool returned it plainly or as an MCP text part.
  const said = typeof result === 'string' ? result : soleTextPart(result);
  // A shell's output is a program's, not the tool's answer about its arguments: "xxd: command not
  // found" says the machine lacks a program, and ten reworded pipelines around it are a loop.
  const rejection = argumentErrorAnswerOf(said ?? result, policy.shellArg === undefined);
  if (rejection !== undefined) {
    prehashed.aboutArguments = true;
    if (namesWhatItRejects(rejection)) prehashed.namesRejected = true;
  }
  if (policy.shellArg !== undefined && said !== undefined && saysCommandStillRunning(said)) prehashed.commandRunning = true;
  // A failure handed back as the answer, by a tool that is not a shell (a shell's output is a
  // program's: `grep error app.log` prints data that starts with "error").
  if (policy.shellArg === undefined && !policy.page && isErrorAnswer(said ?? result)) prehashed.errorAnswer = true;
  if (said !== undefined && EDIT_NOT_APPLIED.test(said)) {
    // Its old_str or its text was wrong: another edit after it is narrowing down, as after a "not found".
    prehashed.wroteNothing = true;
    prehashed.aboutArguments = true;
  }
  return prehashed;
}

/**
 * An editor's answer that it left the file as it was, as its first words: str_replace_editor's
 * (Anthropic's, SWE-agent's; OpenHands' behind `ERROR:`) "No replacement was performed" when
 * old_str is missing or not unique; OpenHands' rejected parameters ("ERROR:\nInvalid `path`
 * parameter: … File already exists at: … Cannot overwrite files using command `create`",
 * "ERROR:\nParameter `old_str` is required"; with the first, 51 answers in 17 of the corpus's
 * 40 OpenHands runs), which SWE-agent 1.x's own editor prints bare ("File already exists at: …
 * Cannot overwrite files using command `create`.", "Parameter `old_str` is required for command:
 * str_replace"); SWE-agent's linted `edit` refusing a syntax error ("Your proposed edit has
 * introduced new syntax error(s)… Your changes have NOT been applied"). Without it such an answer
 * counted as a change of the workspace: a cycle of failed edits and the same test run was
 * "re-runs after an edit", caught only once the failed edits themselves repeated (8–13 calls in,
 * issue 18). Anchored: a file or a log that quotes it further in is data.
 */
const EDIT_NOT_APPLIED =
  /^(?:ERROR:\s*)?(?:No replacement was performed\b|Your proposed edit has introduced new syntax error|File already exists at: [^\n]*Cannot overwrite files using command `create`|Parameter `\w+` is required for command\b)|^ERROR:\s*(?:Invalid `\w+` parameter|Parameter `\w+` is required)/;

/** The text of an MCP `CallToolResult` with one text part and no structured content, else undefined. */
function soleTextPart(result: unknown): string | undefined {
  if (typeof result !== 'object' || result === null) return undefined;
  const record = result as { content?: unknown; structuredContent?: unknown; isError?: unknown };
  const content = record.content;
  if (!Array.isArray(content) || content.length !== 1 || record.isError === true) return undefined;
  if (record.structuredContent !== undefined && record.structuredContent !== null) return undefined;
  const part = content[0] as { type?: unknown; text?: unknown } | null;
  return part !== null && typeof part === 'object' && part.type === 'text' && typeof part.text === 'string' ? part.text : undefined;
}

/**
 * A browser tool's result: the page it leads to, judged node by node (world-state/page-state.ts),
 * else judged as any result is, marked when it is one line about the action itself. The JSON text
 * is read once for both. A page is not asked for its items here: they are computed on first read,
 * and a page seen whole never needs them.
 */
function fingerprintBrowserResult(result: unknown, policy: ResolvedToolPolicy, maxBytes: number): PrehashedOutcome {
  const value = jsonTextValue(result);
  // An MCP tool error (Playwright MCP's failed click: `isError: true`) is a failure, as the same
  // error thrown is, not the page it prints: read as a page, BrowserGym's rejected steps were seen
  // pages and a healthy WorkArena run was stopped at round 9 instead of 27.
  if (isToolErrorEnvelope(value)) return fingerprintResultValue(result, policy, maxBytes);
  const failure = failureReportedBy(value);
  if (failure !== undefined) return fingerprintError({ type: 'tool_error', message: failure });
  if (showsNoPage(value)) return { outcome: 'empty' };
  const page = fingerprintPage(value, maxBytes, policy.noiseFilter);
  if (page !== undefined) return page;
  const prehashed = fingerprintResultValue(result, policy, maxBytes);
  if (prehashed.outcome === 'success' && describesAction(value) && prehashed.items === undefined) prehashed.describesAction = true;
  return prehashed;
}

/** An MCP `CallToolResult` that reports the tool's failure (`isError: true`). */
function isToolErrorEnvelope(value: unknown): boolean {
  return typeof value === 'object' && value !== null && (value as { isError?: unknown }).isError === true;
}

/**
 * A text that is only the number zero (`wc -l` finding nothing: "0\n"): the count 0, which as a
 * number is already no fact (isEmptyResult). Zero for another query is exploration (document 000).
 */
function isZeroText(trimmed: string): boolean {
  return trimmed.charCodeAt(0) === 48 /* 0 */ && trimmed.trimEnd() === '0';
}

function fingerprintResultValue(result: unknown, policy: ResolvedToolPolicy, maxBytes: number): PrehashedOutcome {
  let value = result;
  if (typeof result === 'string') {
    if (result.length > maxBytes) return { outcome: 'success', unfingerprintable: true };
    // Codex's and gemini-cli's per-call ids around a shell answer (world-state/shell-answer-envelope.ts),
    // also on a poll of a running command (Codex's write_stdin answers with the same header).
    if (policy.shellArg !== undefined || policy.poll !== undefined) {
      const output = codexShellOutput(result);
      if (output === 'empty') return { outcome: 'empty' };
      if (output !== undefined) return fingerprintResultValue(output, policy, maxBytes);
      const unwrapped = withoutShellEnvelopeNoise(result);
      if (unwrapped === 'empty') return { outcome: 'empty' };
      if (unwrapped !== result) return textOutcome(hashPrefixed('s:', withoutNoise(unwrapped, policy)), unwrapped, policy);
    }
    const trimmed = result.trimStart();
    if (trimmed === '' || isZeroText(trimmed) || isEmptyResultNotice(result)) return { outcome: 'empty' };
    const looksLikeJson = trimmed.startsWith('{') || trimmed.startsWith('[');
    if (!looksLikeJson) {
      const failure = readsFailures(policy) ? transientFailureInText(trimmed) : undefined;
      if (failure !== undefined) return fingerprintError(failure);
      const suggested = suggestionsOf(trimmed);
      if (suggested !== undefined) return suggested === '[]' ? { outcome: 'empty' } : textOutcome(hashPrefixed('s:', `Similar: ${suggested}`), result, policy);
      return textOutcome(hashPrefixed('s:', withoutNoise(result, policy)), result, policy);
    }
    if (result.length > MAX_PARSED_RESULT_LENGTH) return { outcome: 'success', resultHash: hashPrefixed('s:', withoutNoise(result, policy)) };
    // A short object that may report a failure is parsed and read below, not hashed as text.
    const mayReportFailure = result.length <= MAX_REPORTED_FAILURE_LENGTH && readsFailures(policy) && FAILURE_HINT.test(result);
    // Text exactly as JSON.stringify writes it is read once and hashed as it is.
    const volatileKeys = policy.volatileResultKeys;
    if (!mayReportFailure && readJsonTextShape(result, volatileKeys, policy.noiseFilter === undefined ? undefined : KEYED_NAMES)) {
      const judged = fingerprintJsonText(result, policy, volatileKeys !== undefined);
      if (judged !== undefined) return judged;
    }
    try {
      value = JSON.parse(result);
    } catch {
      return { outcome: 'success', resultHash: hashPrefixed('s:', withoutNoise(result, policy)) };
    }
  }
  if (typeof value === 'function' || typeof value === 'symbol' || typeof value === 'bigint') {
    return { outcome: 'success', unfingerprintable: true };
  }
  if (isEmptyResult(value) || (policy.shellArg !== undefined && isSilentCommandAnswer(value))) return { outcome: 'empty' };
  const unwrapped = unwrapToolResultEnvelope(value);
  if (unwrapped !== value) {
    if (isToolErrorEnvelope(value)) return fingerprintError({ type: 'tool_error', message: readableText(unwrapped, 'an error result that cannot be read') });
    value = unwrapped;
    // One text part is the text a plain tool would return: the same door (the count zero, the
    // shell harnesses' ids). unwrapToolResultEnvelope already tried it as JSON, so this ends in the text checks.
    if (typeof value === 'string') return fingerprintResultValue(value, policy, maxBytes);
    // Structured content that only repeats the text (the MCP filesystem server's `{content: text}`).
    if (isEmptyResultNotice(soleStringMember(value) ?? '')) return { outcome: 'empty' };
    if (isEmptyResult(value)) return { outcome: 'empty' };
  }
  if (readsFailures(policy)) {
    const failure = transientFailureInObject(value);
    if (failure !== undefined) return fingerprintError(failure);
  }
  let text: string | undefined;
  try {
    text = JSON.stringify(value);
  } catch {
    // Cycles and BigInt land here.
    return { outcome: 'success', unfingerprintable: true };
  }
  if (text === undefined || text.length > maxBytes) return { outcome: 'success', unfingerprintable: true };
  if (policy.volatileResultPattern?.test(text)) {
    const stripped = dropFields(value, policy.volatileResult);
    if (isEmptyResult(stripped)) return { outcome: 'empty' };
    value = stripped;
    text = JSON.stringify(stripped);
  }
  // Durations, clocks, ids and scores (noise/): replaced in the text, which stays valid JSON
  // with the same items at the same nesting, so the items below are hashed without them too.
  text = withoutNoise(text, policy);
  let list = findItems(value);
  // An envelope around zero items carries no facts: `{"status":"ok","results":[]}` is the
  // same "nothing found" as `[]` (document 000's zero results). A record with an empty list
  // among its fields (a new GitHub issue's `"labels": []`) is a record, not an empty answer;
  // nor is a job still moving with nothing to show yet (a Firecrawl crawl `scraping`, `data: []`):
  // a status, polled below. Read as "nothing found", its third identical look was refused.
  let moving: boolean | undefined;
  if (list !== undefined && list.items.length === 0) {
    moving = !policy.page && objectSaysInProgress(value);
    if (!moving && (text.length <= MAX_EMPTY_ENVELOPE_TEXT || !isRecordAround(value, list.path))) return saysNoMorePages(value) ? { outcome: 'empty', lastPage: true } : { outcome: 'empty' };
    list = undefined;
  }
  // Prefix and text hashed as two updates when large (hash.ts): a 2 MB result no longer
  // copies itself into a concatenated string first.
  const prehashed: PrehashedOutcome = { outcome: 'success', resultHash: hashPrefixed('j:', text) };
  if (text.length <= MAX_ACKNOWLEDGEMENT_LENGTH && list === undefined && isAcknowledgement(value)) prehashed.acknowledgement = true;
  if (saysNoMorePages(value)) prehashed.lastPage = true;
  // A status still moving (a job `running`): the same answer again is a poll. Never a page's, nor
  // a list's but of the parts of the thing whose status it is (says-in-progress.ts).
  if (list !== undefined) {
    const listed = new ListedOutcome(prehashed.resultHash!, prehashed.acknowledgement, prehashed.lastPage, text, list.items.length, list.path, '', 0, 0, 0, 0);
    // Asked only of a list of parts or a list of one: a for-in over every listed result cost
    // 0.3–0.5 µs on the bench's 2 KB object (interleaved medians of 9 × 20,000 fingerprints).
    if (!policy.page && list.path.length <= 1 && (list.items.length === 1 || isPartListKey(list.path[0] ?? '')) && objectSaysInProgress(value)) listed.inProgress = true;
    return listed;
  }
  if (moving ?? (!policy.page && objectSaysInProgress(value))) prehashed.inProgress = true;
  return prehashed;
}

/** A plain-text success, marked when it is a short status answer still moving (`Status: Processing`). */
function textOutcome(resultHash: string, text: string, policy: ResolvedToolPolicy): PrehashedOutcome {
  const prehashed: PrehashedOutcome = { outcome: 'success', resultHash };
  if (!policy.page && textSaysInProgress(text)) prehashed.inProgress = true;
  return prehashed;
}

/**
 * A key token's place in a text as one number, start × 2²¹ + length: texts scanned are at
 * most 1 MiB (MAX_PARSED_RESULT_LENGTH), so both fit a safe integer. Up to three keys lead to
 * a list (MAX_ENVELOPE_DEPTH): three numbers instead of an array per listed result.
 */
const KEY_PLACE_SHIFT = 2 ** 21;

function keyPlace(start: number, end: number): number {
  return start * KEY_PLACE_SHIFT + (end - start);
}

/**
 * A success whose result is a list: its item fingerprints are computed on first read of
 * `items`. The ledger reads items only when the whole result is new (a result seen whole had
 * its items recorded the first time), so a tool answering the same list again — the common
 * case in a loop — pays nothing for item novelty. Measured (bench overhead, 150 B args + the
 * same 2 KB list result every call, paired runs with the commit before item novelty): eager
 * items +24–37 % per call, lazy +3–8 %.
 *
 * `items` stays an own enumerable property, as on a plain outcome (spread, deep equality and
 * the shared log read it alike), but its getter is one shared function and its state private
 * fields: no closure and no descriptor per call. Measured (/tmp probe, node 20, interleaved
 * medians): defineProperty with a per-call closure 495 ns per outcome, this 128 ns (a plain
 * literal 20 ns); the closure version also left a dictionary-mode object per call to the GC.
 */
class ListedOutcome implements PrehashedOutcome {
  outcome: PrehashedOutcome['outcome'] = 'success';
  resultHash: string;
  declare acknowledgement?: boolean;
  declare lastPage?: boolean;
  declare inProgress?: boolean;
  declare items?: number[];
  #text: string;
  #itemCount: number;
  /** The keys down to the list (found from the parsed value), or empty when the key places hold them. */
  #path: readonly string[];
  /** The text the key places point into (the result as given, before noise was replaced). */
  #keyText: string;
  /** How many keys the one-pass scan found down to the list, and their tokens' places in `#keyText` ({@link keyPlace}). */
  #keyCount: number;
  #key0: number;
  #key1: number;
  #key2: number;
  #fingerprints: number[] | undefined | null = null;

  static readonly #itemsDescriptor: PropertyDescriptor = {
    enumerable: true,
    configurable: true,
    get(this: ListedOutcome) {
      return ListedOutcome.#read(this);
    },
  };

  static #read(outcome: ListedOutcome): number[] | undefined {
    if (outcome.#fingerprints !== null) return outcome.#fingerprints;
    const tokens: string[] = [];
    for (const key of outcome.#path) tokens.push(JSON.stringify(key));
    for (let index = 0; index < outcome.#keyCount; index++) {
      const place = index === 0 ? outcome.#key0 : index === 1 ? outcome.#key1 : outcome.#key2;
      const start = Math.floor(place / KEY_PLACE_SHIFT);
      tokens.push(outcome.#keyText.slice(start, start + (place % KEY_PLACE_SHIFT)));
    }
    return (outcome.#fingerprints = itemFingerprints(outcome.#text, outcome.#itemCount, tokens));
  }

  constructor(
    resultHash: string,
    acknowledgement: boolean | undefined,
    lastPage: boolean | undefined,
    text: string,
    itemCount: number,
    path: readonly string[],
    keyText: string,
    keyCount: number,
    key0: number,
    key1: number,
    key2: number,
  ) {
    this.resultHash = resultHash;
    if (acknowledgement === true) this.acknowledgement = true;
    if (lastPage === true) this.lastPage = true;
    this.#text = text;
    this.#itemCount = itemCount;
    this.#path = path;
    this.#keyText = keyText;
    this.#keyCount = keyCount;
    this.#key0 = key0;
    this.#key1 = key1;
    this.#key2 = key2;
    Object.defineProperty(this, 'items', ListedOutcome.#itemsDescriptor);
  }
}

/**
 * fingerprintResult for JSON text that {@link readJsonTextShape} proved is exactly
 * `JSON.stringify(JSON.parse(text))`: the same steps as for the parsed value, read from the
 * scan instead of the value, so the fingerprint is the one the parse → stringify path gives
 * (test/core/result-fingerprint-json-text.test.ts holds them equal on seeded random results).
 * Undefined when a step needs the value itself (an MCP envelope, a volatile field to drop):
 * the caller parses.
 */
function fingerprintJsonText(text: string, policy: ResolvedToolPolicy, volatileKeysScanned: boolean): PrehashedOutcome | undefined {
  const shape = jsonTextShape;
  if (!shape.hasFact) return { outcome: 'empty' };
  if (shape.hasContentMember) return undefined;
  // A status answer's value is parsed only when the scan saw a status saying "moving" where one is read.
  const mayReportProgress = !policy.page && shape.statusSaysMoving;
  // findItems, read from the scan before anything else runs a scan.
  let itemCount = -1;
  let keyCount = 0;
  let key0 = 0;
  let key1 = 0;
  let key2 = 0;
  if (shape.topIsArray) {
    itemCount = shape.topCount;
  } else {
    const levels = shape.levels;
    for (let depth = 0; depth < levels.length; depth++) {
      const level = levels[depth]!;
      if (level.arrays > 0) {
        if (level.nonEmptyArrays >= 2) break;
        const nonEmpty = level.nonEmptyArrays === 1;
        const arrayKey = nonEmpty ? keyPlace(level.nonEmptyArrayKeyStart, level.nonEmptyArrayKeyEnd) : keyPlace(level.firstArrayKeyStart, level.firstArrayKeyEnd);
        // The wrappers' keys (levels above), then the array's.
        keyCount = depth + 1;
        key0 = depth === 0 ? arrayKey : keyPlace(levels[0]!.objectKeyStart, levels[0]!.objectKeyEnd);
        key1 = depth === 1 ? arrayKey : depth > 1 ? keyPlace(levels[1]!.objectKeyStart, levels[1]!.objectKeyEnd) : 0;
        key2 = depth === 2 ? arrayKey : 0;
        itemCount = nonEmpty ? level.nonEmptyArrayCount : level.firstArrayCount;
        break;
      }
      if (level.objects !== 1) break;
    }
  }
  if (volatileKeysScanned ? shape.hasVolatileMember : policy.volatileResultPattern?.test(text)) return undefined;
  // saysNoMorePages reads into `response_metadata`: then from the parsed value (rare).
  const noMorePages = shape.hasResponseMetadata ? saysNoMorePages(JSON.parse(text)) : shape.saysNoMorePages;
  // An envelope around zero items: decided before the noise filter, whose output it does not read.
  // A record with an empty list among its fields is judged whole (MAX_EMPTY_ENVELOPE_TEXT).
  if (itemCount === 0) {
    if (mayReportProgress) return undefined; // a job still moving with nothing to show yet: read from the value
    if (text.length <= MAX_EMPTY_ENVELOPE_TEXT) return noMorePages ? { outcome: 'empty', lastPage: true } : { outcome: 'empty' };
    return undefined; // longer: record or paging envelope, told from the parsed value (isRecordAround)
  }
  const filtered = policy.noiseFilter === undefined ? text : policy.noiseFilter(text, shape.keyedMembersListed ? shape.keyedMemberPlaces : undefined);
  const resultHash = hashPrefixed('j:', filtered);
  if (itemCount >= 0) {
    const listed = new ListedOutcome(resultHash, false, noMorePages, filtered, itemCount, NO_KEYS, text, keyCount, key0, key1, key2);
    // GitHub's combined status (`{"state": "pending", "statuses": [...]}`): a status over its parts.
    if (mayReportProgress && objectSaysInProgress(JSON.parse(text))) listed.inProgress = true;
    return listed;
  }
  // Only short texts can be acknowledgements: parsing them costs little. Parsed once for both questions.
  const mayAcknowledge = filtered.length <= MAX_ACKNOWLEDGEMENT_LENGTH;
  const value: unknown = mayAcknowledge || mayReportProgress ? JSON.parse(text) : undefined;
  const prehashed: PrehashedOutcome = { outcome: 'success', resultHash };
  if (mayAcknowledge && isAcknowledgement(value)) prehashed.acknowledgement = true;
  if (noMorePages) prehashed.lastPage = true;
  if (mayReportProgress && objectSaysInProgress(value)) prehashed.inProgress = true;
  return prehashed;
}

/**
 * An envelope around an empty list is "nothing found" while it is short (`{"results":[],"total":0,
 * "page":3,"next":null}`: ~50 characters) or, longer, while the object holding the list has few
 * facts of its own (isRecordAround): a record that happens to hold an empty list (`{"id":…,
 * "title":…,"labels":[]}`, a new GitHub issue) is judged whole.
 */
const MAX_EMPTY_ENVELOPE_TEXT = 200;

/**
 * Scalar members (non-null strings, numbers, booleans) beside the empty list from which the
 * object holding it is a record: a new GitHub issue has 11, a Jira issue's `fields` more; paging
 * envelopes have few (Notion's list 4, Slack's history 3, Stripe's 3, Tavily's 3) and keep their
 * links and counts in nested objects (Laravel's and JSON:API's `meta` and `links`: 0).
 */
const MIN_RECORD_SCALARS = 5;

/** Is the object holding the (empty) list at `path` a record rather than a paging envelope? */
function isRecordAround(value: unknown, path: readonly string[]): boolean {
  let node = value as Record<string, unknown>;
  for (let depth = 0; depth < path.length - 1; depth++) node = node[path[depth]!] as Record<string, unknown>;
  let scalars = 0;
  for (const key in node) {
    const member = node[key];
    if (typeof member === 'string' || typeof member === 'number' || typeof member === 'boolean') scalars++;
  }
  return scalars >= MIN_RECORD_SCALARS;
}

/** The noise filter's keyed member names, for the JSON text scan to list their keys. */
const KEYED_NAMES = VolatileKeyMatcher.of(KEYED_MEMBER_NAMES);

/** The path of a list found by the scan (its keys are in the key places). */
const NO_KEYS: readonly string[] = [];

function withoutNoise(text: string, policy: ResolvedToolPolicy): string {
  if (policy.noiseFilter === undefined) return text;
  // A parallel test runner's order is the scheduler's (noise/in-test-runner-order.ts); a
  // retry's count in a short answer is the agent's (noise/attempt-counter-in-text.ts).
  return withoutAttemptCounter(policy.noiseFilter(policy.shellArg === undefined ? text : inTestRunnerOrder(text)));
}

/**
 * A field of a thrown or recorded error, undefined when it has none or it cannot be read (a
 * getter or Proxy that throws): describeError runs in instrumentTool's catch, where a throw
 * would reach the caller instead of the tool's own error.
 */
function readField(error: unknown, field: string): unknown {
  if (typeof error !== 'object' || error === null) return undefined;
  try {
    return (error as Record<string, unknown>)[field];
  } catch {
    return undefined;
  }
}

const OVERLOADED_PATTERN = /overload|rate.?limit|too.?many.?requests|throttl|capacity/i;
const TIMEOUT_PATTERN = /time.?out|timed.?out|deadline.?exceeded|abort/i;
/**
 * Failures that may pass by themselves: the server or the network, not the request. Matched
 * on the error's type/name/code only, never its message, so a deterministic error whose text
 * happens to mention a connection stays deterministic.
 */
const TRANSIENT_PATTERN = /unavailable|upstream|internal.?server|bad.?gateway|gateway|temporar|transient|network|connection|socket|ECONNRESET|ECONNREFUSED|ECONNABORTED|EPIPE|EAI_AGAIN|ENETUNREACH|EHOSTUNREACH|ENOTCONN/i;
/**
 * For outcomes that arrive prehashed (OTLP spans, hashes-only transcripts) the error type is
 * all that is left: `error.type` on the span. Same label rule as {@link isTransientError}.
 */
export function isTransientErrorType(errorType: string): boolean {
  return TRANSIENT_PATTERN.test(errorType);
}

/** Phrases in an error's text that say the failure may pass by itself. */
const TRANSIENT_MESSAGE_PATTERN = /\b(?:unavailable|temporar(?:y|ily)|try again|timed? ?out|overloaded|rate.?limit|too many requests|connection (?:reset|refused|closed|aborted)|ECONNRESET|ECONNREFUSED|EPIPE|EAI_AGAIN|ETIMEDOUT|50[234]\b)/i;

/**
 * Sorts a failure into error, overloaded (rate limit, 429, 503, 529) or timeout, from the
 * error's type/name/code and HTTP status. Recorded errors (`{type: "overloaded"}`) and
 * thrown ones (an SDK's `RateLimitError` with `status: 429`) land in the same classes.
 */
export function classifyError(error: unknown): Exclude<OutcomeClass, 'success' | 'empty' | 'refused'> {
  // HTTP clients put the status on the error (fetch wrappers, SDKs) or on its response
  // (got: response.statusCode, axios: response.status).
  const response = readField(error, 'response');
  const status = Number(
    readField(error, 'status') ?? readField(error, 'statusCode') ?? readField(response, 'status') ?? readField(response, 'statusCode') ?? NaN,
  );
  if (status === 429 || status === 503 || status === 529) return 'overloaded';
  if (status === 408 || status === 504) return 'timeout';
  const labels = [readField(error, 'type'), readField(error, 'name'), readField(error, 'code')]
    .filter((label): label is string => typeof label === 'string')
    .join(' ');
  if (OVERLOADED_PATTERN.test(labels)) return 'overloaded';
  if (TIMEOUT_PATTERN.test(labels) || readField(error, 'code') === 'ETIMEDOUT') return 'timeout';
  return 'error';
}

/** Type and message of any thrown or recorded error. */
export function describeError(error: unknown): Required<ToolErrorInfo> {
  const type = readField(error, 'type') ?? readField(error, 'name') ?? readField(error, 'code');
  const message = readField(error, 'message');
  return {
    type: typeof type === 'string' ? type : 'Error',
    message: typeof message === 'string' ? message : readableText(error, 'an error that cannot be read'),
  };
}

/**
 * Is a failure transient (the retry budget applies) rather than deterministic (repeating it
 * unchanged is recursion, document 003)? Overloaded and timed-out calls are transient, and so
 * are 5xx statuses and network failures by type or code. Everything else — a 4xx, a
 * validation error, `command not found`, a syntax error — is deterministic.
 */
export function isTransientError(error: unknown, outcome = classifyError(error)): boolean {
  if (outcome !== 'error') return true;
  const response = readField(error, 'response');
  const status = Number(
    readField(error, 'status') ?? readField(error, 'statusCode') ?? readField(response, 'status') ?? readField(response, 'statusCode') ?? NaN,
  );
  if (status >= 500 && status <= 599) return true;
  const labels = [readField(error, 'type'), readField(error, 'name'), readField(error, 'code')]
    .filter((label): label is string => typeof label === 'string')
    .join(' ');
  if (TRANSIENT_PATTERN.test(labels)) return true;
  // Many tools throw a plain Error whose only clue is its text ("billing ledger unavailable",
  // "connection reset by peer"). Reading the message too errs toward "transient", which keeps
  // the retry budget: the direction document 000 asks for when a case is unclear.
  const message = readField(error, 'message');
  return typeof message === 'string' && TRANSIENT_MESSAGE_PATTERN.test(message.slice(0, 512));
}

/**
 * Errors that say the run's state is wrong rather than the call's arguments: any call would
 * fail the same way until the state changes (a new token), so the same one from several tools
 * is one stuck state. "not found" and validation errors are about the arguments: the agent
 * narrowing down by other ids is learning (issue 18 #3).
 */
const STATE_ERROR_PATTERN = /\b(?:401|403|unauthori[sz]ed|forbidden|expired|invalid[ _-]?(?:api[ _-]?)?(?:key|token|credentials?)|bad credentials|permission denied|not authenticated|authentication (?:failed|required)|access denied|quota|insufficient[ _-]?(?:credit|funds|balance)|billing|suspended)\b/i;

/**
 * A framework's placeholder for any failure of a tool, said instead of the error: the OpenAI
 * Agents SDK's default error function hands the model (and its guardrails, where loopguard reads
 * outcomes) only this text. It says nothing of the cause, so it may be about the arguments
 * (document 000: an unclear case leans to "new fact"): a different call failing so narrows down
 * like a "not found", bounded as those are, and the identical call failing again still counts.
 * Read as any other error, five lookups by five different emails stopped a customer-service run
 * (test/integrations/openai-agents/guarded-agent-run.test.ts).
 */
export const UNEXPLAINED_TOOL_FAILURE = 'An error occurred while running the tool. Please try again.';

/**
 * Errors that say the thing the arguments name does not exist: the agent learns that this id
 * or name is wrong, and a lookup by another one is narrowing down, not a stuck loop.
 */
const NOT_FOUND_PATTERN = /\b(?:404|not found|notfound|(?:could not|cannot|can't|unable to) find|no such|does not exist|doesn't exist|no (?:user|order|record|item|match|matching|results?)\b|unknown (?:id|user|order|item)|invalid (?:id|user|order|email|name))/i;

/**
 * Errors that say an argument's value is not one the tool accepts, or is missing: WorkBench's
 * sandbox tools answer "Value to plot must be one of 'total_visits', …", "Assignee email not
 * valid. Please choose from the list of team members.", "End date not provided." — as plain
 * results, like "Email not found.". Another value after such an answer is the agent narrowing
 * down, as after a "not found" (issue 18 #3): measured on every WorkBench run (eval/WIDE.md), a
 * plot tool switched off after three such answers refused the call with the accepted value.
 */
const ARGUMENT_ERROR_PATTERN = /\b(?:not valid|is not a valid|must be one of|please (?:choose|select) (?:from|one of)|not provided|is required|are required)\b|^(?:invalid|missing)\b/i;

/**
 * "Not found" as plain prose, narrower than NOT_FOUND_PATTERN: what the argument names was not
 * found. "no results", "no match" are a search's zero results (document 000), not a rejection.
 */
const PLAIN_NOT_FOUND_PATTERN = /\b(?:not found|does not exist|doesn't exist|(?:could not|cannot|can't|unable to) find)\b/i;

/**
 * A search that found no page by that name and lists the titles it found instead: the ReAct
 * Wikipedia environment's `Could not find [Powell film]. Similar: ['Adam Clayton Powell III',
 * 'Adam Powell', …].` (HotpotQA, FEVER). What the answer tells is the list; the name it echoes
 * is the question. Judged by the list alone, a reworded search answered with titles already
 * listed is a seen result — document 000's reworded searches returning the same documents —
 * and one answered with new titles is new. Read as a "not found" about its argument, every
 * rewording taught something, and ten of them in a row were never stopped. An empty list is an
 * empty result (a new question finding nothing is exploration).
 */
const SEARCH_SUGGESTIONS = /^Could not find \[[^\n]{1,300}?\]\. Similar: (\[[^\n]*\])\.?$/;

/** The list of a {@link SEARCH_SUGGESTIONS} answer, or undefined. */
function suggestionsOf(text: string): string | undefined {
  // Checked before the regex: every other text is turned away by its first character.
  if (text.charCodeAt(0) !== 67 /* C */ || !text.startsWith('Could not find [')) return undefined;
  return SEARCH_SUGGESTIONS.exec(text)?.[1];
}

/** Past this length a result is data, not an error text (a "not found" answer is one line). */
const MAX_NOT_FOUND_ANSWER_LENGTH = 512;
/**
 * A plain answer this short, on one line, whose first clause says its argument is wrong (`Email
 * not found.`, `Value to plot must be one of …`) is an error text even without an `Error:` lead.
 * Longer, or with the phrase further in or after a `:`, it is data that mentions one.
 */
const MAX_PLAIN_ARGUMENT_ERROR_LENGTH = 240;
const PLAIN_ARGUMENT_ERROR_HEAD = 40;
/** An answer written as an error: `Error: …`, `ERROR …`, `Exception: …`, or JSON text of `{"error": …}`. */
const PROSE_ERROR_LEAD = /^\s*(?:error|exception)\b/i;
const ERROR_ANSWER_LEAD = new RegExp(`${PROSE_ERROR_LEAD.source}|^\\{"error":`, 'i');

/**
 * A successful result that is an error saying what its arguments name does not exist:
 * `"Error: user not found"` as the tool message's text (tau-bench's tools, LangChain's ToolNode
 * and the OpenAI Agents SDK hand a tool's error back this way: the call itself succeeds) or an
 * object `{"error": "Order not found"}`. Marked like the thrown error it stands for
 * (`aboutArguments`, fingerprintError), so a lookup by another email is narrowing down (issue 18
 * #3) rather than the sixth stale answer. Only short answers that lead with the error (or, on
 * one short line, open with it: isPlainArgumentError): a page or a document that mentions "not
 * found" somewhere is data.
 */
function argumentErrorAnswerOf(result: unknown, plainTextCounts: boolean): string | undefined {
  let text = result;
  let isObject = false;
  if (typeof result === 'object' && result !== null && !Array.isArray(result)) {
    text = (result as Record<string, unknown>).error;
    isObject = true;
  }
  if (typeof text !== 'string' || text.length > MAX_NOT_FOUND_ANSWER_LENGTH) return undefined;
  // A "not found" that lists what was found instead is judged by that list (suggestionsOf).
  if (!isObject && suggestionsOf(text.trim()) !== undefined) return undefined;
  if ((isObject || ERROR_ANSWER_LEAD.test(text)) && (NOT_FOUND_PATTERN.test(text) || ARGUMENT_ERROR_PATTERN.test(text))) return text;
  return plainTextCounts && !isObject && isPlainArgumentError(text.trim()) ? text : undefined;
}

/**
 * A short answer written as an error, in prose: `Error executing query: Unknown column 'name' in
 * 'field list'` (InterCode-SQL's tool), `ERROR: …`, `Exception: …` — what a thrown error would have
 * said, handed back as the result. Prose only: JSON text is judged as the value it stands for
 * (json-text-results.test.ts), and an object with an `error` member stays data.
 */
function isErrorAnswer(result: unknown): boolean {
  return typeof result === 'string' && result.length <= MAX_NOT_FOUND_ANSWER_LENGTH && PROSE_ERROR_LEAD.test(result);
}

/** A name in quotes: `'shop.teachers'`, `"bob@example.com"`, `` `users` ``. */
const QUOTED_NAME = /'[^'\n]{1,200}'|"[^"\n]{1,200}"|`[^`\n]{1,200}`/;

/**
 * Does a rejection name what it rejects, before saying it is wrong ("Table 'shop.teachers'
 * doesn't exist", "Error: user 'bob' not found")? Then the same text again, for another call,
 * says the call still carries the rejected name: nothing narrowed (run-guard.ts). A rejection
 * that names only what is accepted ("Value to plot must be one of 'total_visits', …") or nothing
 * ("Email not found.") is as new for every value tried.
 */
function namesWhatItRejects(text: string): boolean {
  const head = text.slice(0, MAX_NOT_FOUND_ANSWER_LENGTH);
  const quoted = QUOTED_NAME.exec(head);
  if (quoted === null) return false;
  const rejection = NOT_FOUND_PATTERN.exec(head) ?? ARGUMENT_ERROR_PATTERN.exec(head);
  return rejection !== null && quoted.index < rejection.index;
}

/** `text`: trimmed. See MAX_PLAIN_ARGUMENT_ERROR_LENGTH. */
function isPlainArgumentError(text: string): boolean {
  // Prose only: JSON text (`[404]`) is judged as the value it stands for, text and value alike.
  if (text.length > MAX_PLAIN_ARGUMENT_ERROR_LENGTH || text.includes('\n') || !/^[A-Za-z]/.test(text)) return false;
  // The first clause only: "Searched the wiki: page not found in index 2" is a report, "Email not found." a refusal.
  // Cut 24 characters past the head, so a phrase that starts at its end ("please choose from") is read whole.
  const clauseEnd = text.search(/[:;.]/);
  const head = text.slice(0, Math.min(clauseEnd < 0 ? text.length : clauseEnd, PLAIN_ARGUMENT_ERROR_HEAD + 24));
  const match = PLAIN_NOT_FOUND_PATTERN.exec(head) ?? ARGUMENT_ERROR_PATTERN.exec(head);
  return match !== null && match.index <= PLAIN_ARGUMENT_ERROR_HEAD;
}

/**
 * Results that report the tool's own transient failure instead of an answer: text that begins
 * `Error` and says the failure may pass ("Error: 503 Service Unavailable", "Error: request timed
 * out"), `{"error": "503 Service Unavailable"}`, `{"error": {"code": 429, "message": …}}`,
 * `{"status": 503, "message": …}`. Chat transcripts (a tool message's content) and many tool
 * wrappers hand a failure back as content rather than throwing it. Read as an answer, the same
 * 503 twice confirmed that the call changes nothing and the third attempt was refused, where
 * document 003's retry (a 503 four times, then success on the fifth) must run. Judged as the
 * failure it reports, it gets the retry budget, and a write that timed out this way is held
 * for a look (checks/unknown-outcome-write.ts) as a thrown timeout is.
 * Only transient failures: a deterministic one in a result ("Error: user not found") stays an
 * answer, as customer-service agents' lookups are judged. Not for shell tools, editors and
 * polls: a program saying "timed out" is the program's output (a failing test), and a shell
 * has its own way to wait (a sleep first makes the line a poll).
 */
function readsFailures(policy: ResolvedToolPolicy): boolean {
  return policy.shellArg === undefined && !policy.editor && policy.poll === undefined;
}

/** Past this a JSON text is an answer, not a failure report, and is not parsed to look. */
const MAX_REPORTED_FAILURE_LENGTH = 1024;
/** A JSON text that may report a failure: an `error` member, or a 408 / 429 / 5xx status. */
const FAILURE_HINT = /"error"|"status(?:_?[cC]ode)?" ?: ?"?(?:408|429|5\d\d)\b/;
const TEXT_REPORTING_ERROR = /^(?:error|Error|ERROR)\b/;
/** An object that reports a failure holds little else: the error, a status, a message, an id. */
const MAX_FAILURE_MEMBERS = 5;

function transientFailureInText(text: string): Required<ToolErrorInfo> & { status?: number } | undefined {
  if (!TEXT_REPORTING_ERROR.test(text)) return undefined;
  const head = text.slice(0, 512);
  if (!TRANSIENT_MESSAGE_PATTERN.test(head)) return undefined;
  return { type: failureTypeOf(head), message: text };
}

function transientFailureInObject(value: unknown): Required<ToolErrorInfo> & { status?: number } | undefined {
  if (typeof value !== 'object' || value === null || Array.isArray(value)) return undefined;
  const record = value as Record<string, unknown>;
  const error = record.error;
  let status = statusOf(record.status ?? record.statusCode ?? record.status_code);
  if ((error === undefined || error === null || error === false) && !(status === 408 || status === 429 || (status !== undefined && status >= 500 && status <= 599))) return undefined;
  if (Object.keys(record).length > MAX_FAILURE_MEMBERS) return undefined;
  let message: unknown = typeof error === 'string' ? error : undefined;
  if (typeof error === 'object' && error !== null && !Array.isArray(error)) {
    const detail = error as Record<string, unknown>;
    message = detail.message ?? detail.detail ?? detail.type;
    status ??= statusOf(detail.code ?? detail.status ?? detail.statusCode);
  }
  message ??= record.message ?? record.detail ?? record.error_description;
  const text = typeof message === 'string' ? message : '';
  const failure = { type: failureTypeOf(text), message: text, status };
  if (!isTransientError(failure)) return undefined;
  if (status === undefined) delete failure.status;
  return failure as Required<ToolErrorInfo> & { status?: number };
}

function statusOf(value: unknown): number | undefined {
  const status = typeof value === 'string' && /^\d{3}$/.test(value) ? Number(value) : value;
  return typeof status === 'number' && Number.isInteger(status) ? status : undefined;
}

/** The class a thrown error with this text would get: timed out and overloaded are their own (document 001). */
function failureTypeOf(text: string): string {
  if (TIMEOUT_PATTERN.test(text)) return 'timeout';
  if (OVERLOADED_PATTERN.test(text)) return 'overloaded';
  return 'tool_error';
}

/**
 * Errors are fingerprinted by type and body (document 003): the same error coming back on
 * every retry is an already-seen result, which is what lets result comparison stop an
 * agent retrying an overloaded tool forever (document 000).
 */
export function fingerprintError(error: unknown): PrehashedOutcome {
  const outcome = classifyError(error);
  const { type, message } = describeError(error);
  // The same error with another request id or timestamp in its body is the same error (issue 24 #1, #3).
  const prehashed: PrehashedOutcome = { outcome, errorType: type, resultHash: hashText(`e:${type}\u0000${withoutAttemptCounter(defaultNoiseFilter(message))}`) };
  if (isTransientError(error, outcome)) prehashed.transient = true;
  const head = `${type} ${message.slice(0, 512)}`;
  // Checked first: its "Please try again" reads as transient (the retry budget for the same call
  // stays), but a failure that says nothing of its cause is not known to be the server's either.
  if (message === UNEXPLAINED_TOOL_FAILURE) prehashed.aboutArguments = true;
  else if (prehashed.transient === true || STATE_ERROR_PATTERN.test(head)) prehashed.argumentIndependent = true;
  else if (NOT_FOUND_PATTERN.test(head)) {
    prehashed.aboutArguments = true;
    if (namesWhatItRejects(message)) prehashed.namesRejected = true;
  }
  if (isStepRejection(type, message)) prehashed.stepRejected = true;
  return prehashed;
}

/** A shell's failure that printed nothing, only its exit code (Claude Code's `Exit code 1`), is an empty answer (isSilentExitMessage). */
function fingerprintFailure(error: unknown, policy: ResolvedToolPolicy): PrehashedOutcome {
  return policy.shellArg !== undefined && isSilentExitMessage(describeError(error).message) ? { outcome: 'empty' } : fingerprintError(error);
}

/** Fingerprints a raw outcome: exactly one of `result` or `error`. */
export function fingerprintOutcome(outcome: CallOutcome, policy: ResolvedToolPolicy, maxBytes: number): PrehashedOutcome {
  const prehashed = 'error' in outcome && outcome.error !== undefined
    ? fingerprintFailure(outcome.error, policy)
    : fingerprintResult(outcome.result, policy, maxBytes);
  if (outcome.endTime !== undefined) prehashed.endTime = outcome.endTime;
  return prehashed;
}
