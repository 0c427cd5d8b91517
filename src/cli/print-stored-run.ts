import type { PartialResults, StopDecision } from '../core/types.js';
import type { StoredRunSummary } from '../redis/create-redis-run-store.js';
import { escapeControl, escapeJsonText } from '../replay/escape-terminal.js';
import { formatRunsTable } from './runs-format-table.js';
import { runsIsoTime } from './runs-iso-time.js';
import type { RunTimeline, TimelineCall, TimelineRound } from './runs-timeline.js';

/** Everything `loopguard runs --redis URL RUN` prints about one stored run. */
export interface StoredRunReport {
  readonly runId: string;
  /** The Redis URL with its password hidden. */
  readonly redis: string;
  readonly keyPrefix: string;
  /** The run's summary (describeRun: created from the run hash, last change and entries from the log). */
  readonly summary: StoredRunSummary;
  /** The ledger of a replica that applied the whole log (`run.partial()`). */
  readonly ledger: PartialResults;
  /** The stop latched in the log, if any. */
  readonly stop: StopDecision | undefined;
  readonly ended: boolean;
  readonly timeline: RunTimeline;
  /** The policy file the ledger was judged under; undefined: the library defaults. */
  readonly policy: string | undefined;
  /** Only the last this many rounds of the timeline are printed. Default all. */
  readonly lastRounds?: number;
}

/**
 * One stored run for an SRE: its state and stop, the ledger (rounds, calls, refusals,
 * novelty, streaks, per-tool tallies), refusals by reason, and a per-round timeline of each
 * call's decision and outcome. Text or one JSON object with the same content. Run ids, tool
 * names, messages and details are user data: escaped so they cannot drive the terminal.
 */
export function printStoredRun(report: StoredRunReport, format: 'text' | 'json'): string {
  const { timeline } = report;
  const state = report.stop !== undefined ? 'stopped' : report.ended ? 'ended' : 'running';
  const refusals = new Map<string, number>();
  const processes = new Set<string>();
  for (const round of timeline.rounds) {
    for (const call of round.calls) {
      processes.add(processOf(call));
      if (call.reason !== undefined) refusals.set(call.reason, (refusals.get(call.reason) ?? 0) + 1);
    }
  }
  const shownRounds = report.lastRounds === undefined ? timeline.rounds : timeline.rounds.slice(Math.max(0, timeline.rounds.length - report.lastRounds));
  const omittedRounds = timeline.rounds.length - shownRounds.length;

  if (format === 'json') {
    const body = {
      runId: report.runId,
      redis: report.redis,
      keyPrefix: report.keyPrefix,
      state,
      created: runsIsoTime(report.summary.created),
      updated: runsIsoTime(report.summary.updated),
      events: timeline.entries,
      processes: [...processes],
      policy: report.policy ?? null,
      ledger: report.ledger,
      stop: report.stop === undefined ? null : { reason: report.stop.reason, detail: report.stop.detail, round: report.stop.round, message: report.stop.message },
      refusals: Object.fromEntries(refusals),
      roundsOmitted: omittedRounds,
      rounds: shownRounds.map(roundJson),
      unreadableEntries: timeline.unreadable,
    };
    return `${escapeJsonText(JSON.stringify(body, null, 2))}\n`;
  }

  const out: string[] = [];
  const ledger = report.ledger;
  out.push(`Run ${quoted(report.runId)} under key prefix ${quoted(report.keyPrefix)} at ${escapeControl(report.redis)}`);
  if (report.stop !== undefined) {
    // The stop comes from the log, whose decoder checked its fields (run-event.ts).
    out.push(`  state        stopped: ${escapeControl(report.stop.reason)} at round ${report.stop.round}`);
    out.push(`               ${escapeControl(report.stop.detail)}`);
  } else {
    out.push(`  state        ${state}`);
  }
  out.push(`  created      ${runsIsoTime(report.summary.created) ?? '-'}`);
  out.push(`  last change  ${runsIsoTime(report.summary.updated) ?? '-'}`);
  const unreadable = timeline.unreadable.length > 0 ? ` (${timeline.unreadable.length} unreadable, skipped)` : '';
  out.push(`  log          ${timeline.entries} entries${unreadable}, written by ${processes.size} process${processes.size === 1 ? '' : 'es'}`);
  out.push('');
  out.push(`Ledger (the log applied to a fresh engine, ${report.policy === undefined ? 'default policy; --policy FILE judges novelty by the run\'s own' : `policy ${escapeControl(report.policy)}`})`);
  out.push(`  rounds ${ledger.rounds}, tool calls ${ledger.toolCalls} (executed ${ledger.executed}, refused ${ledger.refused})`);
  out.push(`  new facts ${ledger.newFacts}, seen results ${ledger.seenResults}, last new fact in round ${ledger.lastNewFactRound}`);
  out.push(`  stale-round streak ${ledger.staleRoundStreak}, refused-round streak ${ledger.refusedRoundStreak}, wasted tokens ${ledger.wastedTokens}`);
  const tools = Object.entries(ledger.tools);
  if (tools.length > 0) {
    out.push('', 'Tools');
    out.push(
      ...formatRunsTable(
        ['TOOL', 'CALLS', 'EXECUTED', 'REFUSED', 'NEW FACTS', 'SEEN', 'FAILURES'],
        tools.map(([tool, tally]) => [escapeControl(tool), ...[tally.calls, tally.executed, tally.refused, tally.newFacts, tally.seen, tally.failures].map(String)]),
        [false, true, true, true, true, true, true],
        '  ',
      ),
    );
  }
  if (refusals.size > 0) {
    out.push('', 'Refusals');
    out.push(...formatRunsTable(['REASON', 'CALLS'], [...refusals].map(([reason, count]) => [escapeControl(reason), String(count)]), [false, true], '  '));
  }
  out.push('', `Timeline (${timeline.rounds.length} round${timeline.rounds.length === 1 ? '' : 's'})`);
  if (omittedRounds > 0) out.push(`  … ${omittedRounds} earlier round${omittedRounds === 1 ? '' : 's'} not shown (--limit)`);
  const showProcess = processes.size > 1;
  for (const round of shownRounds) {
    const usage = round.usage === undefined ? '' : `  tokens in ${round.usage.inputTokens ?? 0}, out ${round.usage.outputTokens ?? 0}`;
    out.push(`  ${round.round === 0 ? 'before round 1' : `round ${round.round}`}${round.time === undefined ? '' : `  ${runsIsoTime(round.time)}`}${usage}`);
    // Before the calls: a compaction comes between model responses (the round's calls came after it).
    for (const time of round.compactions) out.push(`    context compacted  ${runsIsoTime(time)}`);
    for (const call of round.calls) out.push(`    ${callLine(call, showProcess)}`);
    for (const digest of round.states) out.push(`    state reported ${escapeControl(digest.slice(0, 12))}`);
    if (round.stop !== undefined) out.push(`  STOP ${escapeControl(round.stop.reason)} at round ${round.stop.round}: ${escapeControl(round.stop.detail)}`);
    if (round.endedAt !== undefined) out.push(`  ENDED ${runsIsoTime(round.endedAt)}`);
  }
  for (const entry of timeline.unreadable.slice(0, 20)) out.push(`  unreadable: ${escapeControl(entry.message)}`);
  if (timeline.unreadable.length > 20) out.push(`  … ${timeline.unreadable.length - 20} more unreadable entries`);
  return `${out.join('\n')}\n`;
}

/** The process that logged a call: the first part of its key (`<process>.<sequence>`). */
function processOf(call: TimelineCall): string {
  const dot = call.key.indexOf('.');
  return dot < 0 ? call.key : call.key.slice(0, dot);
}

function callLine(call: TimelineCall, showProcess: boolean): string {
  const parts = [escapeControl(call.tool)];
  if (call.callId !== undefined) parts.push(`(${escapeControl(call.callId)})`);
  if (showProcess) parts.push(`[${escapeControl(processOf(call))}]`);
  if (call.decision === 'refuse') {
    parts.push(`refused ${escapeControl(call.reason ?? '')}`);
    return parts.join('  ');
  }
  parts.push(`allowed ${escapeControl(call.kind ?? '')}`);
  const outcome = call.outcome;
  if (outcome === undefined) {
    parts.push('-> no outcome logged (running, or its process died)');
    return parts.join('  ');
  }
  let shown = `-> ${outcome.outcome}`;
  if (outcome.errorType !== undefined) shown += ` ${escapeControl(outcome.errorType)}`;
  if (outcome.resultHash !== undefined) shown += `  result ${escapeControl(outcome.resultHash.slice(0, 8))}`;
  if (outcome.finishedInRound !== undefined) shown += `  (finished in round ${outcome.finishedInRound})`;
  parts.push(shown);
  return parts.join('  ');
}

function roundJson(round: TimelineRound): unknown {
  return {
    round: round.round,
    time: round.time === undefined ? null : runsIsoTime(round.time),
    usage: round.usage ?? null,
    calls: round.calls.map((call) => ({
      key: call.key,
      process: processOf(call),
      tool: call.tool,
      argsHash: call.argsHash,
      callId: call.callId ?? null,
      time: runsIsoTime(call.time),
      decision: call.decision,
      kind: call.kind ?? null,
      reason: call.reason ?? null,
      message: call.message ?? null,
      outcome:
        call.outcome === undefined
          ? null
          : {
              outcome: call.outcome.outcome,
              resultHash: call.outcome.resultHash ?? null,
              errorType: call.outcome.errorType ?? null,
              time: runsIsoTime(call.outcome.time),
              finishedInRound: call.outcome.finishedInRound ?? null,
            },
    })),
    states: round.states,
    compactions: round.compactions.map(runsIsoTime),
    stop: round.stop ?? null,
    ended: round.endedAt === undefined ? null : runsIsoTime(round.endedAt),
  };
}

/** In quotes as the list prints it (escapeControl), so an id can be copied from either. */
function quoted(text: string): string {
  return `"${escapeControl(text)}"`;
}
