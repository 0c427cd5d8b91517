import { expect } from 'chai';
import { decodeRunEvent, encodeRunEvent } from '../../../src/core/shared-ledger/run-event.js';

describe('shared-ledger/run-event: issue 24 facts survive the run log', () => {
  it('a shell poll deadline and a listing key on a call, for an allowed and a refused call', () => {
    const call = { tool: 'bash', argsHash: 'h1', effect: 'write' as const, family: 'sleep', pollDeadlineMs: 600_000, listingKey: 'listing:abc' };
    const allowed = decodeRunEvent(encodeRunEvent({ type: 'call', key: 'k1', time: 5, call, decision: { action: 'allow', kind: 'poll', tool: 'bash', argsHash: 'h1' } }), 'test:1');
    expect(allowed).to.nested.include({ 'call.pollDeadlineMs': 600_000, 'call.listingKey': 'listing:abc' });
    const refused = decodeRunEvent(
      encodeRunEvent({ type: 'call', key: 'k2', time: 6, call, decision: { action: 'refuse', reason: 'poll.deadline_passed', tool: 'bash', argsHash: 'h1', message: 'm' } }),
      'test:2',
    );
    expect(refused).to.nested.include({ 'call.pollDeadlineMs': 600_000, 'call.listingKey': 'listing:abc' });
    const plain = decodeRunEvent(encodeRunEvent({ type: 'call', key: 'k3', time: 7, call: { tool: 't', argsHash: 'h2' }, decision: { action: 'allow', kind: 'new', tool: 't', argsHash: 'h2' } }), 'test:3');
    expect(plain.type === 'call' && plain.call.pollDeadlineMs === undefined && plain.call.listingKey === undefined).to.equal(true);
  });

  it('acknowledgement and last-page flags on an outcome', () => {
    const ack = decodeRunEvent(encodeRunEvent({ type: 'finish', key: 'k1', time: 5, outcome: { outcome: 'success', resultHash: 'r', acknowledgement: true } }), 'test:1');
    expect(ack).to.nested.include({ 'outcome.acknowledgement': true });
    expect(ack).not.to.have.nested.property('outcome.lastPage');
    const end = decodeRunEvent(encodeRunEvent({ type: 'finish', key: 'k2', time: 6, outcome: { outcome: 'empty', lastPage: true } }), 'test:2');
    expect(end).to.nested.include({ 'outcome.lastPage': true });
  });

  it('what a failure is about (the run state, or its arguments), and an older entry without it', () => {
    const state = decodeRunEvent(encodeRunEvent({ type: 'finish', key: 'k1', time: 5, outcome: { outcome: 'error', resultHash: 'r', transient: false, argumentIndependent: true } }), 'test:1');
    expect(state).to.nested.include({ 'outcome.argumentIndependent': true, 'outcome.transient': false });
    expect(state).not.to.have.nested.property('outcome.aboutArguments');
    const lookup = decodeRunEvent(encodeRunEvent({ type: 'finish', key: 'k2', time: 6, outcome: { outcome: 'error', resultHash: 'r', aboutArguments: true } }), 'test:2');
    expect(lookup).to.nested.include({ 'outcome.aboutArguments': true });
    expect(lookup).not.to.have.nested.property('outcome.argumentIndependent');
    // "Error: user not found" handed back as the tool's text: a success about its arguments.
    const answered = decodeRunEvent(encodeRunEvent({ type: 'finish', key: 'k4', time: 8, outcome: { outcome: 'success', resultHash: 'r', aboutArguments: true } }), 'test:4');
    expect(answered).to.nested.include({ 'outcome.outcome': 'success', 'outcome.aboutArguments': true });
    // Written by a loopguard before these flags: read as a failure about nothing in particular.
    const older = decodeRunEvent('["f","k3",7,"error","r",4,"Error"]', 'test:3');
    expect(older).to.deep.equal({ type: 'finish', key: 'k3', time: 7, outcome: { outcome: 'error', endTime: 7, resultHash: 'r', transient: false, errorType: 'Error' } });
  });

  it('a step the harness rejected (issue 18), and a browser action answered by a line about itself', () => {
    const rejected = decodeRunEvent(encodeRunEvent({ type: 'finish', key: 'k1', time: 5, outcome: { outcome: 'error', resultHash: 'r', stepRejected: true } }), 'test:1');
    expect(rejected).to.nested.include({ 'outcome.stepRejected': true });
    expect(rejected).not.to.have.nested.property('outcome.describesAction');
    const clicked = decodeRunEvent(encodeRunEvent({ type: 'finish', key: 'k2', time: 6, outcome: { outcome: 'success', resultHash: 'r', describesAction: true } }), 'test:2');
    expect(clicked).to.nested.include({ 'outcome.describesAction': true });
    expect(clicked).not.to.have.nested.property('outcome.stepRejected');
  });

  it('an empty command waiting on a running one, and an answer saying the command still runs', () => {
    const call = { tool: 'execute_bash', argsHash: 'h1', effect: 'read' as const, pollDeadlineMs: 600_000, waitsOnCommand: true };
    const waits = decodeRunEvent(encodeRunEvent({ type: 'call', key: 'k1', time: 5, call, decision: { action: 'allow', kind: 'poll', tool: 'execute_bash', argsHash: 'h1' } }), 'test:1');
    expect(waits).to.nested.include({ 'call.waitsOnCommand': true, 'call.pollDeadlineMs': 600_000 });
    const running = decodeRunEvent(encodeRunEvent({ type: 'finish', key: 'k1', time: 6, outcome: { outcome: 'success', resultHash: 'r', commandRunning: true } }), 'test:2');
    expect(running).to.nested.include({ 'outcome.commandRunning': true });
  });

  it('a wait in a call of its own, and a look that polls after one (a replica without them would judge the look as a repeat)', () => {
    const allow = { action: 'allow', kind: 'new', tool: 'bash', argsHash: 'h1' } as const;
    const wait = decodeRunEvent(encodeRunEvent({ type: 'call', key: 'k1', time: 5, call: { tool: 'bash', argsHash: 'h1', effect: 'read', pollDeadlineMs: 600_000, sleepsOnly: true, pollsAfterSleep: true }, decision: allow }), 'test:1');
    expect(wait).to.nested.include({ 'call.sleepsOnly': true, 'call.pollsAfterSleep': true });
    const look = decodeRunEvent(encodeRunEvent({ type: 'call', key: 'k2', time: 6, call: { tool: 'bash', argsHash: 'h2', effect: 'write', pollsAfterSleep: true }, decision: { ...allow, argsHash: 'h2' } }), 'test:2');
    expect(look).to.nested.include({ 'call.pollsAfterSleep': true });
    expect(look).not.to.have.nested.property('call.sleepsOnly');
  });

  it('a rejection that names what it rejects (a replica without the flag would count it as narrowing down)', () => {
    const named = decodeRunEvent(encodeRunEvent({ type: 'finish', key: 'k1', time: 5, outcome: { outcome: 'success', resultHash: 'r', aboutArguments: true, namesRejected: true } }), 'test:1');
    expect(named).to.nested.include({ 'outcome.aboutArguments': true, 'outcome.namesRejected': true });
    const plain = decodeRunEvent(encodeRunEvent({ type: 'finish', key: 'k2', time: 5, outcome: { outcome: 'success', resultHash: 'r', aboutArguments: true } }), 'test:2');
    expect(plain).not.to.have.nested.property('outcome.namesRejected');
  });

  it('a status still moving (a replica without the flag would refuse the poll its writer allowed)', () => {
    const moving = decodeRunEvent(encodeRunEvent({ type: 'finish', key: 'k1', time: 5, outcome: { outcome: 'success', resultHash: 'r', inProgress: true } }), 'test:1');
    expect(moving).to.nested.include({ 'outcome.inProgress': true });
    const settled = decodeRunEvent(encodeRunEvent({ type: 'finish', key: 'k2', time: 5, outcome: { outcome: 'success', resultHash: 'r' } }), 'test:2');
    expect(settled).not.to.have.nested.property('outcome.inProgress');
  });

  it('an edit the editor did not apply (a replica without the flag would count it as a change and let the same test run again)', () => {
    const unapplied = decodeRunEvent(encodeRunEvent({ type: 'finish', key: 'k1', time: 5, outcome: { outcome: 'success', resultHash: 'r', aboutArguments: true, wroteNothing: true } }), 'test:1');
    expect(unapplied).to.nested.include({ 'outcome.wroteNothing': true, 'outcome.aboutArguments': true });
    const applied = decodeRunEvent(encodeRunEvent({ type: 'finish', key: 'k2', time: 5, outcome: { outcome: 'success', resultHash: 'r' } }), 'test:2');
    expect(applied).not.to.have.nested.property('outcome.wroteNothing');
  });

  it('a read answered with an error (a replica without the flag would refuse its first repeat, which its writer let run)', () => {
    const failed = decodeRunEvent(encodeRunEvent({ type: 'finish', key: 'k1', time: 5, outcome: { outcome: 'success', resultHash: 'r', errorAnswer: true } }), 'test:1');
    expect(failed).to.nested.include({ 'outcome.errorAnswer': true });
    const answered = decodeRunEvent(encodeRunEvent({ type: 'finish', key: 'k2', time: 5, outcome: { outcome: 'success', resultHash: 'r' } }), 'test:2');
    expect(answered).not.to.have.nested.property('outcome.errorAnswer');
  });

  it('the lines a window read returned (issue 24 #6), with and without items; an entry without them has none', () => {
    const window = { resource: '/r/m.py', numbered: true, ranges: [[1, 50], [90, 120]] as Array<[number, number]> };
    const plain = decodeRunEvent(encodeRunEvent({ type: 'finish', key: 'k1', time: 5, outcome: { outcome: 'success', resultHash: 'r', window } }), 'test:1');
    expect(plain.type === 'finish' && plain.outcome.window).to.deep.equal(window);
    const withItems = decodeRunEvent(encodeRunEvent({ type: 'finish', key: 'k2', time: 5, outcome: { outcome: 'success', resultHash: 'r', items: [7, 9], window: { ...window, numbered: false } } }), 'test:2');
    expect(withItems.type === 'finish' && withItems.outcome.items).to.deep.equal([7, 9]);
    expect(withItems.type === 'finish' && withItems.outcome.window).to.deep.equal({ ...window, numbered: false });
    const none = decodeRunEvent('["f","k3",7,"success","r",0,0,[7]]', 'test:3');
    expect(none).not.to.have.nested.property('outcome.window');
  });
});

