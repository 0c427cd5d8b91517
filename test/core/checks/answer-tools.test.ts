import { expect } from 'chai';
import type { RunDecision } from '../../../src/core/types.js';
import { kinds, newRun, playRounds, type ScriptedCall } from '../play.js';

/** A BrowserGym-style click that keeps landing on the same page (a stale loop). */
const sameClick: ScriptedCall = { tool: 'click', args: { bid: '42' }, outcome: { result: 'RootWebArea "Orders" [42] link "Next"' } };
const answer = (text: string): ScriptedCall => ({ tool: 'send_msg_to_user', args: { text }, outcome: { result: 'sent' } });

describe('answer tools are sacred (issue 18 item 1)', () => {
  it('never refuses an answer tool repeated with the same arguments and the same acknowledgement', () => {
    // Claude Code's ExitPlanMode and Cline's plan_mode_respond hand a plan to the user: a revised
    // plan after the user's "no" is the same tool again, and refusing it would swallow the plan.
    for (const tool of ['send_msg_to_user', 'respond', 'transfer_to_human_agents', 'transfer_to_refund_agent', 'final_answer', 'attempt_completion', 'done', 'ExitPlanMode', 'plan_mode_respond']) {
      const log = playRounds(newRun(), [1, 2, 3, 4].map(() => [{ tool, args: { text: 'The order total is $42' }, outcome: { result: 'ok' } }]));
      expect(kinds(log.flatMap((round) => round.decisions)), tool).to.deep.equal(['allow:terminal', 'allow:terminal', 'allow:terminal', 'allow:terminal']);
      expect(log.at(-1)!.after.action, tool).to.equal('continue');
    }
  });

  it('recognises the well-known answer tools in every profile, and a policy `terminal: true` for the rest', () => {
    for (const profile of ['researcher', 'chat'] as const) {
      const log = playRounds(newRun({ profile }), [1, 2, 3].map(() => [{ tool: 'final_answer', args: { answer: 'Paris' }, outcome: { result: 'ok' } }]));
      expect(kinds(log.flatMap((round) => round.decisions)), profile).to.deep.equal(['allow:terminal', 'allow:terminal', 'allow:terminal']);
    }
    // Names the table does not list but that say "final answer" in the usual words.
    const general = newRun();
    for (const tool of ['submit_final_answer', 'provideFinalAnswer', 'give_answer', 'final_response', 'FinalOutput', 'return_final_result']) {
      expect(general.isAnswerTool(tool), tool).to.equal(true);
    }
    // Hand-offs between agents (OpenAI Agents SDK, LangGraph swarm and supervisor): never refused.
    for (const tool of ['transfer_to_refund_agent', 'transfer_to_triage_agent', 'transfer_back_to_supervisor', 'transfer_to_billing_assistant', 'handoff_to_flight_specialist']) {
      expect(general.isAnswerTool(tool), tool).to.equal(true);
    }
    // Money moved is a write, whatever its verb says.
    for (const tool of ['transfer_to_savings', 'transfer_to_account', 'transfer_funds', 'transfer_to_agent_account_balance']) {
      expect(general.isAnswerTool(tool), tool).to.equal(false);
    }
    for (const tool of ['get_final_answer_status', 'final_answer_draft_search', 'answer_lookup', 'search_answers', 'finalize_order']) {
      expect(general.isAnswerTool(tool), tool).to.equal(false);
    }
    const custom = newRun({ profile: 'researcher', tools: { reply_to_customer: { terminal: true } } });
    expect(custom.isAnswerTool('reply_to_customer')).to.equal(true);
    expect(custom.isAnswerTool('search')).to.equal(false);
    const log = playRounds(custom, [1, 2].map(() => [{ tool: 'reply_to_customer', args: { text: 'hi' }, outcome: { result: 'ok' } }]));
    expect(kinds(log.flatMap((round) => round.decisions))).to.deep.equal(['allow:terminal', 'allow:terminal']);
  });

  it('never lets the ladder disable an answer tool, and its repeated acknowledgement does not make a round stale', () => {
    const run = newRun();
    const log = playRounds(run, [1, 2, 3, 4].map(() => [sameClick, answer('still looking')]));
    for (const round of log) {
      if (round.after.action === 'continue') expect(round.after.disabledTools).to.not.include('send_msg_to_user');
    }
    expect(kinds(log.flatMap((round) => round.decisions)).filter((kind) => kind.startsWith('refuse'))).to.not.include('refuse:tool.disabled');
    // Rounds with only answers repeating and nothing else are not stale either.
    const answersOnly = newRun();
    const repeated = playRounds(answersOnly, [1, 2, 3, 4, 5, 6].map(() => [answer('anything else?')]));
    expect(repeated.at(-1)!.after.action).to.equal('continue');
    expect(answersOnly.staleRoundStreak).to.equal(0);
  });

  it('delivers the answer the model gives after a stop, refuses everything else, and ends with the stop (WebArena: send_msg_to_user after the stop)', () => {
    const run = newRun();
    let after: RunDecision = { action: 'continue', disabledTools: [] };
    let rounds = 0;
    while (after.action === 'continue' && rounds < 10) {
      rounds += 1;
      run.beginRound();
      const ticket = run.startCall({ tool: sameClick.tool, args: sameClick.args });
      if (ticket.decision.action === 'allow') run.finishCall(ticket, sameClick.outcome!);
      after = run.shouldStop();
    }
    expect(after.action).to.equal('stop');
    // The model's next step carries another click and the answer.
    run.beginRound();
    const click = run.startCall({ tool: 'click', args: { bid: '43' } });
    const delivered = run.startCall({ tool: 'send_msg_to_user', args: { text: 'The cheapest order is #1234' } });
    expect(click.decision).to.include({ action: 'refuse', reason: 'run.stopped' });
    expect(delivered.decision).to.include({ action: 'allow', kind: 'terminal' });
    run.finishCall(delivered, { result: 'sent' });
    // Delivered: the run ends after it, and a model that keeps "answering" is refused.
    expect(run.shouldStop()).to.equal(after);
    expect(run.startCall({ tool: 'send_msg_to_user', args: { text: 'again' } }).decision).to.include({ action: 'refuse', reason: 'run.stopped' });
  });

  it('lets an answer that failed after the stop be given again, until one is delivered', () => {
    const run = newRun({ maxToolCalls: 2 });
    playRounds(run, [[{ tool: 'lookup', args: { id: 1 }, outcome: { result: 'a' } }], [{ tool: 'lookup', args: { id: 2 }, outcome: { result: 'b' } }]]);
    expect(run.shouldStop()).to.include({ action: 'stop', reason: 'max_tool_calls' });
    run.beginRound();
    const failed = run.startCall({ tool: 'respond', args: { content: 'Your refund is on its way' } });
    expect(failed.decision).to.include({ action: 'allow', kind: 'terminal' });
    run.finishCall(failed, { error: new Error('socket closed') });
    const retried = run.startCall({ tool: 'respond', args: { content: 'Your refund is on its way' } });
    expect(retried.decision).to.include({ action: 'allow', kind: 'terminal' });
    run.finishCall(retried, { result: 'delivered' });
    expect(run.startCall({ tool: 'respond', args: { content: 'bye' } }).decision).to.include({ action: 'refuse', reason: 'run.stopped' });
  });

  it('runs an answer past a call budget that refuses every other call, before the stop is latched', () => {
    const run = newRun({ maxToolCalls: 1 });
    run.beginRound();
    run.finishCall(run.startCall({ tool: 'lookup', args: { id: 1 } }), { result: 'a' });
    expect(run.startCall({ tool: 'lookup', args: { id: 2 } }).decision).to.include({ action: 'refuse', reason: 'budget.tool_calls' });
    expect(run.startCall({ tool: 'transfer_to_human_agents', args: { summary: 'refund' } }).decision).to.include({ action: 'allow', kind: 'terminal' });
  });

  it('answers nothing once the host ended the run', () => {
    const run = newRun();
    run.beginRound();
    run.end();
    expect(run.startCall({ tool: 'send_msg_to_user', args: { text: 'late' } }).decision).to.include({ action: 'refuse', reason: 'run.stopped' });
  });
});
