import type { ResolvedOptions } from './policy.js';
import type { PartialResults, RefusalReason } from './types.js';
import { PACED_POLL_MS } from './checks/polling.js';

/** What a refusal message may mention. */
export interface RefusalFacts {
  tool: string;
  previousCallId?: string;
  previousRound?: number;
  facts?: Readonly<Record<string, number | string>>;
  stopReason?: string;
}

function earlierCall(facts: RefusalFacts): string {
  const id = facts.previousCallId ? ` (call ${facts.previousCallId}` : ' (';
  const round = facts.previousRound ? `${facts.previousCallId ? ', ' : ''}round ${facts.previousRound})` : facts.previousCallId ? ')' : '';
  const text = `${id}${round}`;
  return text === ' (' ? '' : text;
}

/**
 * The text the model reads instead of the tool's result. Never a bare code (document 000:
 * a model told only "blocked" reads it as "impossible" and gives up): each says what
 * happened, where the value it needs already is, and what to do next.
 */
export function refusalMessage(reason: RefusalReason, facts: RefusalFacts): string {
  const tool = facts.tool;
  const earlier = earlierCall(facts);
  const f = facts.facts ?? {};
  switch (reason) {
    case 'repeat.run_wide':
      return `Not run: ${tool} was already called with these same arguments in this run${earlier}, and its result is already in the conversation above. Use that result instead of calling again. If you need something different, change the arguments or the approach, or use another tool.`;
    case 'repeat.back_to_back':
      return `Not run: this is call ${f.position ?? 'number 3'} in a row to ${tool} with the same arguments. The result you already received${earlier} is in the conversation above: use that value. To get something different, change the arguments or turn to a different tool.`;
    case 'repeat.unchanged':
      return `Not run: ${tool} was run with these same arguments ${f.times ?? 2} times in a row${earlier} and returned the same result each time, with nothing changed in between, so running it again would return the same. That result is in the conversation above: use it. To learn something new, change something first (edit, write, or run a different command), or use another tool.${f.shell === 1 ? ' If you are waiting for it to change (a build, a deployment, a job), wait before you look again: a command that sleeps first (`sleep 30 && …`) is a poll, and it runs.' : ''}`;
    case 'repeat.same_error':
      return `Not run: ${tool} with these arguments failed ${f.times ?? 2} times in a row with the same error${earlier}, and nothing changed in between, so it would fail the same way again. Read the error message above, then fix the arguments or what they depend on, try another approach, or explain the failure in your answer.`;
    case 'repeat.in_flight':
      return `Not run: an identical call to ${tool}${earlier} is already running; its result will be in the conversation. Do not issue the same call twice.`;
    case 'pagination.cursor_not_advanced':
      return `Not run: ${tool} was already called with this ${f.cursorArg ?? 'cursor'}${earlier}; that page is in the conversation above. Pass the next ${f.cursorArg ?? 'cursor'} from that result to get the next page, or stop paging if there is none.`;
    case 'retry.budget_exhausted':
      return `Not run: ${tool} with these arguments failed and has been retried ${f.retries ?? 'several'} times, its retry budget. Retrying it unchanged will not help: fix the arguments using the error message, try another tool, or explain the failure in your answer.`;
    case 'poll.deadline_passed':
      if (f.unchanged !== undefined) {
        return `Not run: ${tool} with these arguments has answered with the same status ${f.unchanged} times in a row, asked again too soon. To keep waiting, look less often (one look every ${Math.round(Number(f.paceMs ?? PACED_POLL_MS) / 1000)} s, counted from the first); otherwise report the last status you received${earlier}, or take another approach.`;
      }
      return `Not run: polling ${tool} with these arguments has gone past its deadline of ${Math.round(Number(f.deadlineMs ?? 0) / 1000)} s. Stop waiting: report the last status you received${earlier}, or take another approach.`;
    case 'poll.too_soon':
      return `Not run: ${tool} was polled ${f.sinceLastMs ?? 0} ms ago; wait at least ${f.minIntervalMs ?? 0} ms between polls. The last status${earlier} is in the conversation above.`;
    case 'tool.disabled':
      return `Not run: ${tool} is switched off for this run because its last ${f.rounds ?? 'few'} rounds returned only results already seen. Use a different tool, or write your answer from what you have gathered.`;
    case 'budget.tool_calls':
      return `Not run: this run has used its budget of ${f.limit ?? ''} tool calls. Write your answer from what you have gathered.`;
    case 'budget.rounds':
      return `Not run: this run has used its ${f.limit ?? ''} rounds. Write your answer from what you have gathered.`;
    case 'budget.run_time':
      return `Not run: this run has reached its time limit. Write your answer from what you have gathered.`;
    case 'run.stopped':
      return `Not run: tool use has ended for this run (${facts.stopReason ?? 'stopped'}). Write your answer from what you have gathered.`;
    case 'write.outcome_unknown':
      return `Not run: the identical call to ${tool}${earlier} timed out, and a timeout does not mean it did nothing: it may have gone through. Running it again could do it twice (a second message, a duplicate record or payment). First check the existing records (look up or list what it would have created or changed); run it again only if it is not there, or say in your answer that its outcome is unknown.`;
    case 'write.already_done':
      return `Not run: this ${tool} (same business key) was already done${earlier}. It was not done again. Continue from that result.`;
    case 'store.unavailable':
      return `Not run: ${tool} was not run because loopguard's shared store cannot be reached, so it cannot make sure it runs only once. Try again later, or finish without it.`;
  }
}

/**
 * Ladder step 1 for stalled progress (document 002): the reported progress state has not
 * moved, though the calls may each look new — so the nudge names the state, not a tool.
 */
export function stalledProgressNudgeMessage(stalledRounds: number): string {
  const plural = stalledRounds === 1 ? 'round' : `${stalledRounds} rounds`;
  return `Note: in the last ${plural} the task's progress has not changed, even though tools were called. What you are doing is not moving the task forward. Try a different approach or tool, or if you have enough, write your answer now.`;
}

/** Ladder step 1: the nudge injected before the next model call. */
export function nudgeMessage(repeatingTools: readonly string[], staleRounds: number): string {
  const tools = repeatingTools.length > 0 ? repeatingTools.join(', ') : 'your tools';
  const plural = staleRounds === 1 ? 'round' : `${staleRounds} rounds`;
  return `Note: in the last ${plural}, ${tools} returned only results you have already seen, so that path is not producing anything new. Do not repeat it with reworded input. Try a different approach or tool, or if you have enough, write your answer now.`;
}

/**
 * What the model is told when the run stops: tools are gone, answer from what you have. A
 * budget stop says the budget ran out, never that nothing new was being learned: the run may
 * have been learning until the last call, and telling it otherwise is false.
 */
export function stopMessage(detail: string, partial: PartialResults, budget = false): string {
  const why = budget ? `${detail}` : `${detail}, so nothing new was being learned`;
  const learned = budget && partial.lastNewFactRound > 0 ? ` The last new result came in round ${partial.lastNewFactRound}.` : '';
  return `Tool use has ended for this run: ${why}.${learned} Tools are no longer available. Write your final answer now from what you have gathered (${count(partial.newFacts, 'distinct result')} from ${count(partial.executed, 'tool call')}), and say plainly what you could not find.`;
}

/**
 * Appended to the stop message when the model is still offered answer tools
 * (checks/terminal-tools.ts): an agent that answers through a tool must know it may.
 */
export function answerToolsNote(answerTools: readonly string[]): string {
  if (answerTools.length === 0) return '';
  const names = answerTools.map((name) => `\`${name}\``).join(' or ');
  return ` Exception: ${names} ${answerTools.length === 1 ? 'is' : 'are'} still available — deliver your final answer with ${answerTools.length === 1 ? 'it' : 'one of them'}, once.`;
}

/**
 * Text for the end of the system prompt listing which calls will be refused, so the model
 * can avoid them before it is ever refused (document 000).
 */
export function describePolicyText(options: ResolvedOptions): string {
  const lines: string[] = ['Tool-call rules for this run (calls that break them are refused before they run, and you are told why):'];
  if (options.runWideRepeat && options.profile === 'general') {
    lines.push('- Do not repeat a lookup (a read, search, grep, cat, file view) with the same arguments when nothing has changed since: its result is already in the conversation. Such a call is refused; after a write or a script run it may run again.');
  } else if (options.runWideRepeat) {
    lines.push('- Do not repeat a call with the same tool and the same arguments: its result is already in the conversation. Such a call is refused.');
  } else {
    lines.push(`- The same call (same tool, same arguments) ${options.backToBackLimit} times in a row is refused: use the result you already have.`);
  }
  lines.push('- Do not make the same call twice in one response: the second copy is refused while the first runs.');
  lines.push('- Argument order, whitespace and fields such as timestamps, nonces, request ids and attempt counters do not make a call different.');
  if (options.profile === 'general') {
    lines.push('- A command or tool that may change things (a write, running a script) may be run again; once it has returned the same result twice in a row with nothing changed in between, a third identical call is refused.');
    lines.push('- A call that failed twice with the same error is not retried unchanged: fix the arguments or what they depend on. Transient failures (overloaded, timeouts, server errors) may be retried a few times.');
    lines.push(`- To wait for something to finish, ask again while its status says it is still moving (queued, pending, running, in progress): for up to ${Math.round(options.shellPolls.defaultDeadlineMs / 60_000)} min; after ${2 * options.threshold} unchanged answers, one look every ${PACED_POLL_MS / 1000} s. In a shell, wait first: \`sleep 30 && <command>\`.`);
  } else {
    lines.push(`- After a call fails you may retry it unchanged a few times (${options.threshold} by default); after that, change the arguments or the approach.`);
  }
  for (const [name, policy] of Object.entries(options.tools)) {
    if (policy.poll) {
      const interval = policy.poll.minIntervalMs ? `, at most once every ${policy.poll.minIntervalMs} ms` : '';
      lines.push(`- ${name} is a status check: you may call it again with the same arguments for up to ${Math.round(policy.poll.deadlineMs / 1000)} s${interval}.`);
    }
    if (policy.cursorArg) lines.push(`- ${name} pages through results: each call must pass a new \`${policy.cursorArg}\`.`);
    if (policy.exempt) lines.push(`- ${name} may be called again with the same arguments (it waits for work in progress).`);
  }
  if (Number.isFinite(options.staleRounds)) {
    lines.push(`- If ${options.staleRounds} rounds in a row bring back only results you have already seen, tools are removed and you must answer from what you have.`);
  }
  const budgets: string[] = [];
  if (Number.isFinite(options.maxToolCalls)) budgets.push(`${options.maxToolCalls} tool calls`);
  if (Number.isFinite(options.maxRounds)) budgets.push(`${options.maxRounds} rounds`);
  if (Number.isFinite(options.maxRunMs)) budgets.push(`${Math.round(options.maxRunMs / 1000)} s`);
  if (budgets.length > 0) lines.push(`- Budget for this run: ${budgets.join(', ')}.`);
  return lines.join('\n');
}

function count(n: number, noun: string): string {
  return `${n} ${noun}${n === 1 ? '' : 's'}`;
}
