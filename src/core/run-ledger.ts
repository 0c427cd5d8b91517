import type { ModelUsage, ToolTally } from './types.js';
import type { ReadCoverage } from './world-state/read-coverage.js';

/** Execution state of one distinct call (tool + argument identity). */
export const CallState = { InFlight: 0, Succeeded: 1, Failed: 2, FailedTransient: 3 } as const;
export type CallState = (typeof CallState)[keyof typeof CallState];

/**
 * What the ledger keeps per distinct call. One record per distinct signature, not per call:
 * a run that repeats itself costs no extra memory, which is the case we exist for.
 */
export interface SignatureRecord {
  state: CallState;
  /** The call id the model saw, so a refusal can point at the result already in the conversation. */
  callId: string | undefined;
  round: number;
  /** Write epoch (see RunLedger.writeEpoch) when the call last executed. */
  epoch: number;
  /** Identical retries made since the last success (saturates at 65,535). */
  retries: number;
  firstTime: number;
  lastTime: number;
  /** Executions of this signature still running (saturates at 65,535). */
  inFlight: number;
  /** The run's {@link RunLedger.changeSerial} when the call last finished. */
  changeSerial: number;
  /**
   * A 32-bit tag of the last outcome's fingerprint (0 = none yet), so the next execution can
   * tell whether it returned the same. A tag, not the 22-character hash: one word per
   * distinct call instead of a string. Two different outcomes share a tag with probability
   * 2^-32, and the only consequence is one extra confirmation toward a refusal.
   */
  outcomeTag: number;
  /**
   * Executions in a row that returned the same outcome with nothing else written in between
   * (outcome-confirmed repeats, checks/outcome-confirmed-repeat.ts).
   */
  confirmations: number;
  /**
   * The last outcome said its state is still moving (world-state/says-in-progress.ts): the
   * same answer again is a wait, polled until the poll deadline (run-guard.ts policyOf).
   */
  inProgress: boolean;
  /** The last outcome was an error handed back as the answer (PrehashedOutcome.errorAnswer). */
  answeredError: boolean;
}

/** Tallies of the round being played; closed into the run's streaks when the next round begins. */
export class RoundAccumulator {
  calls = 0;
  executed = 0;
  refused = 0;
  finished = 0;
  /** Calls of this round still running: the round is judged only once they are in. */
  inFlight = 0;
  newFacts = 0;
  /** New facts of this round that were only an empty answer to a new question. */
  emptyNewFacts = 0;
  seen = 0;
  neutral = 0;
  /**
   * Calls of a thought tool (`think`) that ran, and that finished, this round: counted in
   * `executed` and `finished` too. The model thinking is not a call to the world
   * (checks/round-verdict.ts).
   */
  thoughts = 0;
  thoughtsFinished = 0;
  /** Calls refused because their tool is disabled by the escalation ladder. */
  disabledRefusals = 0;
  /** Calls refused as a loop's repeats (`repeat.*`, a cursor that did not advance). */
  repeatRefusals = 0;
  hadOverloadedExemption = false;
  usage: ModelUsage | undefined;
  /** Per tool: did it bring anything new this round (true) or only seen results (false)? */
  readonly toolProgress = new Map<string, boolean>();
  /**
   * A browser action reached a page the run had not seen this round: a new page, not a new line
   * about the action ("Scrolled down 10 pages") nor an empty answer (checks/round-verdict.ts).
   */
  pageNews = false;
}

/**
 * The run ledger: everything the checks read. Plain state, no behaviour beyond bookkeeping;
 * each rule lives in its own file under checks/ and reads or updates these fields.
 */
export class RunLedger {
  round = 0;
  /** One record per distinct call identity (a packed Map<string, SignatureRecord>, see below). */
  readonly signatures = new SignatureTable();
  /**
   * Fingerprints of every result seen in the run since its context was last compacted (all of
   * them when it never was); kept until the run ends (document 000). A packed Set<string>.
   */
  fingerprints = new FingerprintSet();
  /** Item fingerprints of list results seen since the last compaction (53-bit hashes: result-fingerprint.ts). */
  seenItems = new Set<number>();
  /**
   * What the model saw before the last compaction of its context (RunGuard.contextCompacted): still
   * facts of the run, no longer in the conversation. A result found only here is learned again,
   * neither new nor stale. Made on the first compaction: most runs have none. One table for all
   * compactions, not one each: a host reporting a compaction every round (a sliding message
   * window) kept 20,000 tables in a 20,000-round run, 738 B a round against 98, and every
   * lookup walked them all (test/core/context-compaction.test.ts).
   */
  forgotten: { readonly fingerprints: FingerprintSet; readonly items: Set<number> } | undefined = undefined;
  /**
   * Results and items already learned again once after a compaction: a second time they are
   * seen, so a host that reports a compaction every round (a sliding message window) cannot
   * keep a loop neutral forever.
   */
  relearned: { readonly fingerprints: Set<string>; readonly items: Set<number> } | undefined = undefined;
  /**
   * Listings (world-state/listing-key-of.ts) that said they have no further page (issue 24 #2),
   * with the tool that lists them: a call that may write forgets them (the list may have
   * grown), except a call of unknown effect of that same tool, which is its own paging.
   */
  readonly endedListings = new Map<string, string>();
  /**
   * Lines of each file shown since anything was last written (world-state/read-coverage.ts):
   * a window inside them teaches nothing (issue 24 #6). Cleared by every call that may write,
   * except a window read itself (SWE-agent's `goto` moves its viewer, not the file).
   */
  readonly readCoverage: ReadCoverage = new Map();
  /**
   * The last line of each file whose end a read showed since anything was last written (windows
   * past it are empty). Made on first use: most runs never page past a file's end, and an empty
   * Map is ~100 B on every open run (issue 20, memory per run).
   */
  fileEnds: Map<string, number> | undefined = undefined;

  /** Back-to-back check: the last call's identity and how many times in a row it came. */
  lastArgsHash: string | undefined = undefined;
  sameCallStreak = 0;

  /** Consecutive failures per tool; reset when that tool succeeds. */
  readonly failureStreakByTool = new Map<string, number>();
  /**
   * The run's consecutive failures that returned the same error once noise is removed, from
   * any tool (checks/same-failure-across-tools.ts): an expired token failing three tools in
   * turn is one stuck state. Reset by any success or by a different error.
   */
  sameFailure: { resultHash: string; count: number; tools: Set<string> } | undefined = undefined;
  /**
   * The latest call that failed deterministically `times` times in a row as the identical
   * call with nothing written in between, whatever its error text (checks/same-call-failing.ts).
   */
  failingCall: { tool: string; times: number } | undefined = undefined;
  /** Failures in a row that taught something (a new lookup answered "not found"; run-guard.ts finishCall). */
  teachingFailures = 0;
  /** Steps in a row the harness rejected before running them (world-state/is-step-rejection.ts). */
  stepRejections = 0;
  /** The shell tool whose last answer said its command is still running: an empty command to it waits (a poll). */
  commandRunningTool: string | undefined = undefined;
  /** The round in which a wait (`sleep 5` alone) last finished; 0: none. The next round's look is a poll (run-guard.ts factsOf). */
  sleptRound = 0;

  /** Executed calls that count against maxToolCalls. */
  budgetedCalls = 0;
  overloadedExempted = 0;
  /** Rounds that had an overloaded call taken off the budget: the round limit grows by this. */
  overloadedRounds = 0;

  /**
   * The world-state epoch: bumped each time a call that may write (a write or unknown effect
   * under the policy) finishes without a deterministic error. A record from an earlier
   * epoch may be out of date, so that call may run again.
   */
  writeEpoch = 0;
  /**
   * The page epoch (world-state/page-state.ts): bumped by browser actions and by everything
   * that bumps {@link writeEpoch}. Browser actions change the page, not the workspace, so
   * they leave writeEpoch alone: a file listing read again across scrolls is still a repeat.
   */
  pageEpoch = 0;
  /**
   * When the run last learned that the page went somewhere new, in half page epochs: 2 × the
   * {@link pageEpoch} a browser action moved the page to with an answer the run had not seen (a
   * click that went somewhere new), or 2 × the epoch + 1 when a page read found something new on
   * the page there (an extraction of the next page's items), which is after whatever moved it.
   * An action answered by a line about itself ("Scrolled down the page by one page", Stagehand's
   * "Action performed successfully: click the Next page button") says nothing of the page it acted
   * on: run again since such news, it acted on another page, and its old line is no repeat
   * (run-guard.ts judgeNovelty, pageNewsSince).
   */
  pageNewsMark = 0;
  /**
   * Bumped each time a call known to write changed the world in a way not seen before: its
   * first run, or another answer than its last (not a tool of unknown effect, not a browser
   * action). A call answering exactly what it answered last time is stale only when this has not
   * moved since (run-guard.ts finishCall): a test run again after an edit, or a file restored
   * after other edits, is not a loop (document 003: repetition of an outcome without a change of
   * state is). A write repeating itself with its own answer does not bump it, so a cycle of the
   * same edit and the same test run is still caught.
   */
  changeSerial = 0;

  /**
   * Writes whose last execution timed out (document 001: a timeout does not prove the tool
   * never ran), by call identity → {@link executed} when the timeout came in. Created on the
   * first such timeout: most runs never have one.
   */
  writesOfUnknownOutcome: Map<string, number> | undefined = undefined;

  /** An answer tool succeeded after the stop (checks/terminal-tools.ts): nothing more runs. */
  answeredAfterStop = false;

  staleRoundStreak = 0;
  /** Rounds in a row whose only news was an empty answer to a new question (checks/round-verdict.ts). */
  emptyRoundStreak = 0;
  refusedRoundStreak = 0;
  stalledRounds = 0;
  lastStateDigest: string | undefined = undefined;

  /**
   * Escalation ladder, keyed by ladder key (the tool, or `tool(family)` for a shell command
   * family): rounds in a row in which it returned only seen results, and what is disabled.
   */
  readonly staleStreakByTool = new Map<string, number>();
  readonly disabledTools = new Set<string>();
  /** Ladder keys that are a command family of a tool, not a whole tool (ladder key → tool). */
  readonly ladderFamilies = new Map<string, string>();

  current = new RoundAccumulator();
  /** Round counted as closed (so shouldStop and beginRound never close it twice). */
  currentClosed = false;

  readonly tallies = new Map<string, ToolTally>();
  toolCalls = 0;
  executed = 0;
  refused = 0;
  newFacts = 0;
  seenResults = 0;
  wastedTokens = 0;
  lastNewFactRound = 0;
  inFlight = 0;

  startTime: number | undefined = undefined;
  /** Latest time observed on a recorded call (replay feeds recorded times). */
  lastObservedTime: number | undefined = undefined;

  /**
   * The model's context was compacted (RunGuard.contextCompacted): what it saw moves to
   * {@link forgotten}, and every earlier call may run once more, as after a write (its record
   * is of an older epoch). Loop streaks and the run's counters carry on.
   */
  forgetConversation(): void {
    if (this.forgotten === undefined) this.forgotten = { fingerprints: this.fingerprints, items: this.seenItems };
    else {
      // Only what was learned since the last compaction is copied: each entry once per
      // compaction it lived through in the conversation, so the run pays for what it learned.
      this.forgotten.fingerprints.addAll(this.fingerprints);
      for (const item of this.seenItems) this.forgotten.items.add(item);
    }
    this.fingerprints = new FingerprintSet();
    this.seenItems = new Set();
    this.writeEpoch += 1;
    this.pageEpoch += 1;
    // Lines shown, a file's end, a listing's last page, the call just made: all were facts of
    // the conversation, and their checks say "it is in the conversation above".
    this.readCoverage.clear();
    this.fileEnds = undefined;
    this.endedListings.clear();
    this.lastArgsHash = undefined;
    this.sameCallStreak = 0;
    // The ladder switched tools off for answering what the conversation held: reading again needs them.
    this.disabledTools.clear();
    this.staleStreakByTool.clear();
  }

  /**
   * What the run knows of a result it has not seen since the last compaction of the model's
   * context: `first`, seen before a compaction and learned again now for the first time;
   * `again`, learned again once already (seen: a host reporting a compaction every round, a
   * sliding message window, cannot keep a loop neutral forever); `never`, a new result.
   */
  recall(fingerprint: string): 'first' | 'again' | 'never' {
    return recallIn(this, 'fingerprints', fingerprint);
  }

  /** The same for one item of a listed result. */
  recallItem(item: number): 'first' | 'again' | 'never' {
    return recallIn(this, 'items', item);
  }

  tally(tool: string): ToolTally {
    let tally = this.tallies.get(tool);
    if (tally === undefined) {
      tally = { calls: 0, executed: 0, refused: 0, newFacts: 0, seen: 0, failures: 0 };
      this.tallies.set(tool, tally);
    }
    return tally;
  }
}

function recallIn<Kind extends 'fingerprints' | 'items'>(ledger: RunLedger, kind: Kind, key: Kind extends 'items' ? number : string): 'first' | 'again' | 'never' {
  if (ledger.forgotten === undefined || !(ledger.forgotten[kind] as { has(key: unknown): boolean }).has(key)) return 'never';
  const relearned = ((ledger.relearned ??= { fingerprints: new Set(), items: new Set() })[kind]) as Set<typeof key>;
  if (relearned.has(key)) return 'again';
  relearned.add(key);
  return 'first';
}

// ---------------------------------------------------------------------------------------
// Packed identity tables (memory per recorded call is a budget, issue 6: ≤ 150 B).
//
// Call and result identities are 22-character base64url strings (hash.ts: 128 bits). As JS
// strings in a Map/Set each costs a 40 B string plus a 28–39 B table entry (Node builds have
// no pointer compression: 8 B per field). Here a canonical 22-character identity is decoded
// to its 16 bytes and kept in an open-addressing table over a Uint32Array: 16 B per slot at
// a load of 3/8 to 3/4. Anything else (replayed hashes of another format, `empty:tool`
// markers) goes to an ordinary string-keyed Map/Set, so lookups stay exact: two strings are
// the same entry if and only if they are equal.
//
// Measured (bench/memory.ts, 100k runs × 20 distinct calls with distinct results, heap +
// ArrayBuffers after gc): 277 → 224 B per recorded call, 1 828 → 1 733 B per idle run (the
// tables are allocated on first insert). Cost: decoding an identity is ~0.2–0.3 µs per
// lookup (bench/query.ts, shouldRefuse prehashed: median 0.34 → 0.65 µs, p99 < 2.1 µs).

const BASE64URL = 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_';
/** 6-bit value + 1 per character code (0 = not base64url). */
const BASE64URL_VALUE_PLUS_ONE = new Uint8Array(128);
for (let index = 0; index < BASE64URL.length; index++) BASE64URL_VALUE_PLUS_ONE[BASE64URL.charCodeAt(index)] = index + 1;

const IDENTITY_LENGTH = 22;

/** Scratch for the identity being looked up (single-threaded, never held across calls). */
const probe = new Uint32Array(4);
/** The string last decoded into `probe` and whether it was canonical (has then add decode once). */
let lastDecoded: string | undefined;
let lastCanonical = false;

function sixBits(text: string, index: number): number {
  const code = text.charCodeAt(index);
  return code < 128 ? BASE64URL_VALUE_PLUS_ONE[code]! - 1 : -1;
}

/**
 * Decodes a canonical 22-character identity into `probe[0..3]` (big-endian words). Returns
 * false for any other string: wrong length, a character outside base64url, or a last
 * character whose low four bits are set (not the encoding of exactly 16 bytes, so two
 * strings could decode alike). Allocation-free; fixed shifts, since 22 × 6 = 132 bits lay out
 * as 5⅓ characters per 32-bit word.
 */
function decodeIdentity(text: string): boolean {
  if (text === lastDecoded) return lastCanonical;
  lastDecoded = text;
  lastCanonical = false;
  if (text.length !== IDENTITY_LENGTH) return false;
  let invalid = 0;
  const v: number[] = DECODED;
  for (let index = 0; index < IDENTITY_LENGTH; index++) {
    const value = sixBits(text, index);
    invalid |= value;
    v[index] = value;
  }
  // A -1 anywhere sets the sign bit; a set low nibble in the last character is not canonical.
  if (invalid < 0 || (v[21]! & 0x0f) !== 0) return false;
  probe[0] = (v[0]! << 26) | (v[1]! << 20) | (v[2]! << 14) | (v[3]! << 8) | (v[4]! << 2) | (v[5]! >> 4);
  probe[1] = ((v[5]! & 15) << 28) | (v[6]! << 22) | (v[7]! << 16) | (v[8]! << 10) | (v[9]! << 4) | (v[10]! >> 2);
  probe[2] = ((v[10]! & 3) << 30) | (v[11]! << 24) | (v[12]! << 18) | (v[13]! << 12) | (v[14]! << 6) | v[15]!;
  probe[3] = (v[16]! << 26) | (v[17]! << 20) | (v[18]! << 14) | (v[19]! << 8) | (v[20]! << 2) | (v[21]! >> 4);
  lastCanonical = true;
  return true;
}
const DECODED: number[] = new Array<number>(IDENTITY_LENGTH).fill(0);

/**
 * Open addressing with linear probing over 4 words per slot; an all-zero slot is empty, so
 * the all-zero identity is kept aside. Slots are allocated on first insert: an idle run
 * pays nothing. Grows ×2 past 3/4 full.
 */
class PackedIdentityTable {
  private words: Uint32Array | undefined;
  private mask = 0;
  count = 0;

  /** Slot of the identity in `probe`, or -1 - (free slot) when absent. */
  find(): number {
    const words = this.words;
    if (words === undefined) return -1;
    const w0 = probe[0]!;
    const w1 = probe[1]!;
    const w2 = probe[2]!;
    const w3 = probe[3]!;
    // The words are sha256 output: any of them is already a uniform hash.
    let slot = (w3 ^ w0) & this.mask;
    for (;;) {
      const base = slot * 4;
      const s0 = words[base]!;
      const s1 = words[base + 1]!;
      const s2 = words[base + 2]!;
      const s3 = words[base + 3]!;
      if (s0 === w0 && s1 === w1 && s2 === w2 && s3 === w3) return slot;
      if (s0 === 0 && s1 === 0 && s2 === 0 && s3 === 0) return -1 - slot;
      slot = (slot + 1) & this.mask;
    }
  }

  /** Inserts the identity in `probe`, absent: `found` is what `find()` returned. Returns its slot. */
  insert(found: number): number {
    let free = -1 - found;
    if (this.words === undefined || (this.count + 1) * 4 > (this.mask + 1) * 3) {
      this.grow();
      free = -1 - this.find();
    }
    const base = free * 4;
    const words = this.words!;
    words[base] = probe[0]!;
    words[base + 1] = probe[1]!;
    words[base + 2] = probe[2]!;
    words[base + 3] = probe[3]!;
    this.count += 1;
    return free;
  }

  /** Inserts every identity of `other` not yet here. */
  addAllFrom(other: PackedIdentityTable): void {
    const words = other.words;
    if (words === undefined) return;
    const saved = new Uint32Array(probe);
    for (let base = 0; base < words.length; base += 4) {
      if (words[base] === 0 && words[base + 1] === 0 && words[base + 2] === 0 && words[base + 3] === 0) continue;
      probe[0] = words[base]!;
      probe[1] = words[base + 1]!;
      probe[2] = words[base + 2]!;
      probe[3] = words[base + 3]!;
      const found = this.find();
      if (found < 0) this.insert(found);
    }
    probe.set(saved);
  }

  /** Called with the old→new slot of every entry when the table grows. */
  protected moved(_from: number, _to: number): void {}


  private grow(): void {
    const old = this.words;
    const capacity = old === undefined ? 8 : (this.mask + 1) * 2;
    this.words = new Uint32Array(capacity * 4);
    this.mask = capacity - 1;
    this.resized(capacity);
    if (old === undefined) return;
    const saved = new Uint32Array(probe);
    for (let slot = 0; slot < old.length / 4; slot++) {
      const base = slot * 4;
      if (old[base] === 0 && old[base + 1] === 0 && old[base + 2] === 0 && old[base + 3] === 0) continue;
      probe[0] = old[base]!;
      probe[1] = old[base + 1]!;
      probe[2] = old[base + 2]!;
      probe[3] = old[base + 3]!;
      const to = -1 - this.find();
      const words = this.words;
      words[to * 4] = probe[0]!;
      words[to * 4 + 1] = probe[1]!;
      words[to * 4 + 2] = probe[2]!;
      words[to * 4 + 3] = probe[3]!;
      this.moved(slot, to);
    }
    probe.set(saved);
  }

  /** Hook for subclasses keeping per-slot values. */
  protected resized(_capacity: number): void {}
}

function isZeroProbe(): boolean {
  return probe[0] === 0 && probe[1] === 0 && probe[2] === 0 && probe[3] === 0;
}

/**
 * The run's set of result fingerprints: `has` / `add` / `size` of a Set<string>, with the
 * same answers. A fingerprint costs 16 B at a load of 3/8–3/4 instead of a 40 B string and a
 * ~28 B Set entry (measurements above).
 */
export class FingerprintSet {
  private readonly packed = new PackedIdentityTable();
  private hasZero = false;
  private other: Set<string> | undefined;

  has(fingerprint: string): boolean {
    if (!decodeIdentity(fingerprint)) return this.other?.has(fingerprint) ?? false;
    if (isZeroProbe()) return this.hasZero;
    return this.packed.find() >= 0;
  }

  add(fingerprint: string): this {
    if (!decodeIdentity(fingerprint)) {
      (this.other ??= new Set()).add(fingerprint);
      return this;
    }
    if (isZeroProbe()) {
      this.hasZero = true;
      return this;
    }
    const found = this.packed.find();
    if (found < 0) this.packed.insert(found);
    return this;
  }

  /** Adds every fingerprint of `other`. */
  addAll(other: FingerprintSet): this {
    this.packed.addAllFrom(other.packed);
    if (other.hasZero) this.hasZero = true;
    if (other.other !== undefined) for (const fingerprint of other.other) (this.other ??= new Set()).add(fingerprint);
    return this;
  }

  get size(): number {
    return this.packed.count + (this.hasZero ? 1 : 0) + (this.other?.size ?? 0);
  }
}


/**
 * One call record's words: identity (4), round, epoch, retries (low 16 bits) with inFlight
 * (high 16 bits), changeSerial, state (top 2 bits) with confirmations (low 30 bits),
 * outcomeTag, then firstTime and lastTime as the two 32-bit halves of a float64 each.
 * Retries and inFlight share a word so changeSerial fits in the same 14 words (memory per
 * call, issue 20: ≤ 150 B with call ids); both saturate at 65,535, far past any policy's
 * retry budget and any number of identical calls running at once.
 */
const STRIDE = 14;
const ROUND = 4;
const EPOCH = 5;
const RETRIES_AND_IN_FLIGHT = 6;
const CHANGE_SERIAL = 7;
const MAX_HALF_WORD = 0xffff;
const STATE_AND_CONFIRMATIONS = 8;
const OUTCOME_TAG = 9;
const FIRST_TIME = 10;
const LAST_TIME = 12;
/**
 * Confirmations saturate here (28 bits): the checks only ask whether there were two or more
 * (checks/outcome-confirmed-repeat.ts), or ten for a poll, and a run cannot make half a billion
 * identical calls. Bit 28 of the word is `answeredError`, bit 29 `inProgress`, bits 30–31 the state.
 */
const MAX_CONFIRMATIONS = 0x0fffffff;
const ANSWERED_ERROR_BIT = 0x10000000;
const IN_PROGRESS_BIT = 0x20000000;

/** A float64 seen as two 32-bit words, to keep times in the same Uint32Array as the counters. */
const timeBits = new Float64Array(1);
const timeWords = new Uint32Array(timeBits.buffer);

/** Shared empty column: an idle run allocates nothing (insert replaces it on first growth). */
const NO_WORDS = new Uint32Array(0);

/** Call-id characters per word of the id region: 5 × 6 bits (base64url). */
const ID_CHARS_PER_WORD = 5;
/**
 * An id's reference word: (offset + 1) << 12 | prefix << 6 | length of the rest (≤ 63).
 * 0 = no id; ID_AS_STRING = kept as a string (not base64url, a rest over 63 characters, or
 * the region past 2^20 - 2 words).
 */
const MAX_PACKED_ID_REST = 63;
const MAX_ID_OFFSET = 0xffffe;
const ID_AS_STRING = 0xffffffff;
/**
 * Id prefixes up to and including the first `_` or `-` in the first 16 characters (`call_`,
 * `toolu_`, `chatcmpl-`), shared by every run of the process: index + 1 in the reference,
 * 0 for none. Bounded at 63 (a prefix past that is packed with the rest). Measured
 * (bench/memory.ts, 20k runs): 5 characters fewer per OpenAI id, one word less per call.
 */
const ID_PREFIXES: string[] = [];
/** Character codes of the base64url alphabet, and the scratch an id is decoded into. */
const BASE64URL_CODES = Uint8Array.from(BASE64URL, (character) => character.charCodeAt(0));
const ID_SCRATCH = Buffer.allocUnsafe(MAX_PACKED_ID_REST);
const MAX_ID_PREFIXES = 63;

function idPrefixLength(value: string): number {
  const limit = Math.min(value.length - 1, 16);
  for (let index = 0; index < limit; index++) {
    const code = value.charCodeAt(index);
    if (code === 95 /* _ */ || code === 45 /* - */) return index + 1;
  }
  return 0;
}

/** The prefix's number (index + 1), interned on first sight; 0 when there is none or the table is full. */
function idPrefixNumber(value: string, length: number): number {
  if (length === 0) return 0;
  for (let index = 0; index < ID_PREFIXES.length; index++) {
    const prefix = ID_PREFIXES[index]!;
    if (prefix.length === length && value.startsWith(prefix)) return index + 1;
  }
  if (ID_PREFIXES.length >= MAX_ID_PREFIXES) return 0;
  ID_PREFIXES.push(value.slice(0, length));
  return ID_PREFIXES.length;
}

/**
 * Call records as columns: entries are dense (insertion order, never moved), and an
 * open-addressing index maps identity → entry + 1. Everything lives in ONE Uint32Array:
 * [capacity entries | index | call-id references (capacity) | call-id characters], the
 * id regions only once a call id was recorded. A typed array costs an object and a
 * backing-store header (~200 B, replay/growable-typed-array.ts) before its first element, and
 * a run of tens of calls paid for three of them; times sit in the same words (two per
 * float64). Capacity grows ×1.5 (not ×2): the unused tail is a third at worst, not half.
 *
 * Call ids: model APIs write them in base64url characters (`call_…`, `toolu_…`, UUIDs), so
 * one is kept as its interned prefix and 6-bit characters, five per word (a 29-character
 * OpenAI id: 5 words), behind a reference word. A kept string cost ~48 B plus its 8 B slot.
 * An id the same length as the one it replaces (a repeated call) is written in place, so a
 * run repeating itself adds nothing; any other id is kept as a string in `otherIds`.
 *
 * Measured (bench/memory.ts, 20k runs × 20 distinct calls, heap + ArrayBuffers after gc,
 * both builds in the same session): without call ids 196 → 127 B per recorded call (one
 * array, ×1.5, no id column; 122.7 with state and confirmations in one word); with model
 * call ids 243 → 195 B with ids as strings in a lazy array, → 166 packed, → 147 with the
 * prefix interned and the id region sized to the records.
 */
class SignatureColumns {
  data = NO_WORDS;
  capacity = 0;
  count = 0;
  private indexStart = 0;
  private indexMask = 0;
  /** Start of the id references, or -1 while no call id was recorded. */
  private refsStart = -1;
  private charsStart = 0;
  private charsUsed = 0;
  private charCapacity = 0;
  private otherIds: Map<number, string> | undefined;

  find(): number {
    if (this.capacity === 0) return -1;
    const data = this.data;
    const indexStart = this.indexStart;
    const mask = this.indexMask;
    let slot = (probe[3]! ^ probe[0]!) & mask;
    for (;;) {
      const entryPlusOne = data[indexStart + slot]!;
      if (entryPlusOne === 0) return -1 - slot;
      const base = (entryPlusOne - 1) * STRIDE;
      if (data[base] === probe[0] && data[base + 1] === probe[1] && data[base + 2] === probe[2] && data[base + 3] === probe[3]) return entryPlusOne - 1;
      slot = (slot + 1) & mask;
    }
  }

  insert(found: number): number {
    const entry = this.count;
    let slot = -1 - found;
    if (entry === this.capacity) {
      this.layout(this.capacity === 0 ? 4 : Math.ceil(this.capacity * 1.5), this.refsStart >= 0, this.charCapacity);
      slot = -1 - this.find();
    }
    const data = this.data;
    data[this.indexStart + slot] = entry + 1;
    const base = entry * STRIDE;
    data[base] = probe[0]!;
    data[base + 1] = probe[1]!;
    data[base + 2] = probe[2]!;
    data[base + 3] = probe[3]!;
    this.count += 1;
    return entry;
  }

  /** Moves every region into a new array of the given sizes (the index is rebuilt). */
  private layout(capacity: number, withIds: boolean, charCapacity: number): void {
    let indexLength = 8;
    while (capacity * 4 > indexLength * 3) indexLength *= 2; // index load at most 3/4
    const indexStart = capacity * STRIDE;
    const refsStart = withIds ? indexStart + indexLength : -1;
    const charsStart = withIds ? refsStart + capacity : 0;
    const data = new Uint32Array(withIds ? charsStart + charCapacity : indexStart + indexLength);
    const old = this.data;
    data.set(old.subarray(0, this.count * STRIDE));
    const mask = indexLength - 1;
    for (let entry = 0; entry < this.count; entry++) {
      const base = entry * STRIDE;
      let at = (data[base + 3]! ^ data[base]!) & mask;
      while (data[indexStart + at] !== 0) at = (at + 1) & mask;
      data[indexStart + at] = entry + 1;
    }
    if (this.refsStart >= 0) {
      data.set(old.subarray(this.refsStart, this.refsStart + this.count), refsStart);
      data.set(old.subarray(this.charsStart, this.charsStart + this.charsUsed), charsStart);
    }
    this.data = data;
    this.capacity = capacity;
    this.indexStart = indexStart;
    this.indexMask = mask;
    this.refsStart = refsStart;
    this.charsStart = charsStart;
    this.charCapacity = charCapacity;
  }

  time(word: number): number {
    timeWords[0] = this.data[word]!;
    timeWords[1] = this.data[word + 1]!;
    return timeBits[0]!;
  }

  setTime(word: number, value: number): void {
    timeBits[0] = value;
    this.data[word] = timeWords[0]!;
    this.data[word + 1] = timeWords[1]!;
  }

  callId(entry: number): string | undefined {
    if (this.refsStart < 0) return undefined;
    const reference = this.data[this.refsStart + entry]!;
    if (reference === 0) return undefined;
    if (reference === ID_AS_STRING) return this.otherIds?.get(entry);
    const length = reference & MAX_PACKED_ID_REST;
    const prefix = (reference >>> 6) & 63;
    const start = this.charsStart + (reference >>> 12) - 1;
    // Characters into a scratch buffer, then one native latin1 read: a `+=` per character made
    // a refusal that names the previous call id cost more the longer the id. Measured (.tmp
    // node probe, 24 characters, interleaved medians): `+=` 0.161 µs, this 0.094 µs,
    // String.fromCharCode.apply 0.135 µs; bench/query.ts shouldRefuse of a repeat (ids `call_0`
    // … `call_99999`), growth from 10 to 100k calls in the run ×1.40 → ×1.18 (p99 ≤ 1.03 µs).
    // Only a refusal reads an id back.
    for (let index = 0; index < length; index++) {
      const word = this.data[start + Math.floor(index / ID_CHARS_PER_WORD)]!;
      ID_SCRATCH[index] = BASE64URL_CODES[(word >>> (6 * (index % ID_CHARS_PER_WORD))) & 63]!;
    }
    const rest = ID_SCRATCH.toString('latin1', 0, length);
    return prefix === 0 ? rest : ID_PREFIXES[prefix - 1]! + rest;
  }

  setCallId(entry: number, value: string | undefined): void {
    if (this.refsStart < 0) {
      if (value === undefined) return;
      this.layout(this.capacity, true, 0);
    }
    const refAt = this.refsStart + entry;
    const previous = this.data[refAt]!;
    if (previous === ID_AS_STRING) this.otherIds!.delete(entry);
    if (value === undefined) {
      this.data[refAt] = 0;
      return;
    }
    let packable = value.length > 0;
    for (let index = 0; packable && index < value.length; index++) packable = sixBits(value, index) >= 0;
    const prefixLength = packable ? idPrefixLength(value) : 0;
    const prefix = packable ? idPrefixNumber(value, prefixLength) : 0;
    const skip = prefix === 0 ? 0 : prefixLength;
    const length = value.length - skip;
    if (length > MAX_PACKED_ID_REST) packable = false;
    const words = Math.ceil(length / ID_CHARS_PER_WORD);
    let offset: number;
    if (packable && previous !== 0 && previous !== ID_AS_STRING && (previous & MAX_PACKED_ID_REST) === length) {
      offset = (previous >>> 12) - 1; // same length: overwrite in place
    } else if (packable && this.charsUsed + words < MAX_ID_OFFSET) {
      const needed = this.charsUsed + words;
      // Room for one id of this size per record slot (each call has its own id), and at
      // least ×1.25 what is needed: measured (bench/memory.ts, 20k runs, ids of model calls)
      // 151.5 B per call growing ×1.5 from 16 words, 146.9 B this way.
      if (needed > this.charCapacity) this.layout(this.capacity, true, Math.max(this.capacity * words, Math.ceil(needed * 1.25)));
      offset = this.charsUsed;
      this.charsUsed += words;
    } else {
      (this.otherIds ??= new Map()).set(entry, value);
      this.data[refAt] = ID_AS_STRING;
      return;
    }
    const start = this.charsStart + offset;
    for (let word = 0; word < words; word++) {
      let packed = 0;
      for (let index = 0; index < ID_CHARS_PER_WORD; index++) {
        const at = word * ID_CHARS_PER_WORD + index;
        if (at < length) packed |= sixBits(value, skip + at) << (6 * index);
      }
      this.data[start + word] = packed >>> 0;
    }
    this.data[refAt] = (((offset + 1) << 12) | (prefix << 6) | length) >>> 0;
  }
}

class SignatureView implements SignatureRecord {
  constructor(
    private readonly table: SignatureColumns,
    private readonly entry: number,
  ) {}
  get state(): CallState {
    return (this.table.data[this.entry * STRIDE + STATE_AND_CONFIRMATIONS]! >>> 30) as CallState;
  }
  set state(value: CallState) {
    const at = this.entry * STRIDE + STATE_AND_CONFIRMATIONS;
    const data = this.table.data;
    data[at] = ((value << 30) | (data[at]! & (MAX_CONFIRMATIONS | ANSWERED_ERROR_BIT | IN_PROGRESS_BIT))) >>> 0;
  }
  get round(): number {
    return this.table.data[this.entry * STRIDE + ROUND]!;
  }
  set round(value: number) {
    this.table.data[this.entry * STRIDE + ROUND] = value;
  }
  get epoch(): number {
    return this.table.data[this.entry * STRIDE + EPOCH]!;
  }
  set epoch(value: number) {
    this.table.data[this.entry * STRIDE + EPOCH] = value;
  }
  get retries(): number {
    return this.table.data[this.entry * STRIDE + RETRIES_AND_IN_FLIGHT]! & MAX_HALF_WORD;
  }
  set retries(value: number) {
    const at = this.entry * STRIDE + RETRIES_AND_IN_FLIGHT;
    const data = this.table.data;
    data[at] = ((data[at]! & 0xffff0000) | Math.min(value, MAX_HALF_WORD)) >>> 0;
  }
  get inFlight(): number {
    return this.table.data[this.entry * STRIDE + RETRIES_AND_IN_FLIGHT]! >>> 16;
  }
  set inFlight(value: number) {
    const at = this.entry * STRIDE + RETRIES_AND_IN_FLIGHT;
    const data = this.table.data;
    data[at] = ((Math.min(value, MAX_HALF_WORD) << 16) | (data[at]! & MAX_HALF_WORD)) >>> 0;
  }
  get changeSerial(): number {
    return this.table.data[this.entry * STRIDE + CHANGE_SERIAL]!;
  }
  set changeSerial(value: number) {
    this.table.data[this.entry * STRIDE + CHANGE_SERIAL] = value;
  }
  get outcomeTag(): number {
    return this.table.data[this.entry * STRIDE + OUTCOME_TAG]!;
  }
  set outcomeTag(value: number) {
    this.table.data[this.entry * STRIDE + OUTCOME_TAG] = value;
  }
  get confirmations(): number {
    return this.table.data[this.entry * STRIDE + STATE_AND_CONFIRMATIONS]! & MAX_CONFIRMATIONS;
  }
  set confirmations(value: number) {
    const at = this.entry * STRIDE + STATE_AND_CONFIRMATIONS;
    const data = this.table.data;
    data[at] = ((data[at]! & ~MAX_CONFIRMATIONS) | Math.min(value, MAX_CONFIRMATIONS)) >>> 0;
  }
  get inProgress(): boolean {
    return this.flag(IN_PROGRESS_BIT);
  }
  set inProgress(value: boolean) {
    this.setFlag(IN_PROGRESS_BIT, value);
  }
  get answeredError(): boolean {
    return this.flag(ANSWERED_ERROR_BIT);
  }
  set answeredError(value: boolean) {
    this.setFlag(ANSWERED_ERROR_BIT, value);
  }
  /** One of the boolean bits that share the state word with the state and the confirmations. */
  private flag(bit: number): boolean {
    return (this.table.data[this.entry * STRIDE + STATE_AND_CONFIRMATIONS]! & bit) !== 0;
  }
  private setFlag(bit: number, value: boolean): void {
    const at = this.entry * STRIDE + STATE_AND_CONFIRMATIONS;
    const data = this.table.data;
    data[at] = (value ? data[at]! | bit : data[at]! & ~bit) >>> 0;
  }
  get firstTime(): number {
    return this.table.time(this.entry * STRIDE + FIRST_TIME);
  }
  set firstTime(value: number) {
    this.table.setTime(this.entry * STRIDE + FIRST_TIME, value);
  }
  get lastTime(): number {
    return this.table.time(this.entry * STRIDE + LAST_TIME);
  }
  set lastTime(value: number) {
    this.table.setTime(this.entry * STRIDE + LAST_TIME, value);
  }
  get callId(): string | undefined {
    return this.table.callId(this.entry);
  }
  set callId(value: string | undefined) {
    this.table.setCallId(this.entry, value);
  }
}

function copyInto(view: SignatureRecord, fields: SignatureRecord): SignatureRecord {
  view.state = fields.state;
  view.callId = fields.callId;
  view.round = fields.round;
  view.epoch = fields.epoch;
  view.retries = fields.retries;
  view.firstTime = fields.firstTime;
  view.lastTime = fields.lastTime;
  view.inFlight = fields.inFlight;
  view.outcomeTag = fields.outcomeTag;
  view.confirmations = fields.confirmations;
  view.inProgress = fields.inProgress;
  view.answeredError = fields.answeredError;
  view.changeSerial = fields.changeSerial;
  return view;
}

/**
 * The run's call records by identity: `add(hash, fields)` stores the fields and
 * returns the live record (a view over columns); `get` returns a view. Identities that are
 * not canonical keep plain objects in a fallback Map.
 */
export class SignatureTable {
  private readonly columns = new SignatureColumns();
  private zero: SignatureRecord | undefined;
  private other: Map<string, SignatureRecord> | undefined;

  get(argsHash: string): SignatureRecord | undefined {
    if (!decodeIdentity(argsHash)) return this.other?.get(argsHash);
    if (isZeroProbe()) return this.zero;
    const entry = this.columns.find();
    return entry >= 0 ? new SignatureView(this.columns, entry) : undefined;
  }

  /** Stores a new record and returns the live one (for a plain-object fallback, `fields` itself). */
  add(argsHash: string, fields: SignatureRecord): SignatureRecord {
    if (!decodeIdentity(argsHash)) {
      (this.other ??= new Map()).set(argsHash, fields);
      return fields;
    }
    if (isZeroProbe()) {
      this.zero = fields;
      return fields;
    }
    const found = this.columns.find();
    const entry = found >= 0 ? found : this.columns.insert(found);
    return copyInto(new SignatureView(this.columns, entry), fields);
  }

  get size(): number {
    return this.columns.count + (this.zero !== undefined ? 1 : 0) + (this.other?.size ?? 0);
  }
}
