import { expect } from 'chai';
import { saysInProgress, MAX_STATUS_TEXT } from '../../../src/core/world-state/says-in-progress.js';
import { fingerprintResult } from '../../../src/core/result-fingerprint.js';
import { resolveOptions } from '../../../src/core/policy.js';

describe('world-state/says-in-progress: a result reporting a state still moving', () => {
  it('reads one status of the result itself, as an object, JSON text, an envelope or a line of text', () => {
    expect(saysInProgress({ job_id: 'j-42', status: 'running' })).to.equal(true);
    expect(saysInProgress('{"id":"dep-1","state":"IN_PROGRESS"}')).to.equal(true);
    expect(saysInProgress({ status: 'success', data: { id: 'exp-9', state: 'pending' } })).to.equal(true);
    expect(saysInProgress({ run: { id: 123, conclusion: null, status: 'queued' } })).to.equal(true);
    expect(saysInProgress('Export 77\nStatus: Processing\n')).to.equal(true);
    expect(saysInProgress({ phase: 'Provisioning' })).to.equal(true);
  });

  it('is false for a finished state, a list of things with their own statuses, a status in prose, or a long result', () => {
    expect(saysInProgress({ job_id: 'j-42', status: 'succeeded' })).to.equal(false);
    expect(saysInProgress({ status: 'ok' })).to.equal(false);
    expect(saysInProgress({ tickets: [{ id: 1, status: 'pending' }, { id: 2, status: 'open' }] })).to.equal(false);
    expect(saysInProgress('[{"status":"running"}]')).to.equal(false);
    expect(saysInProgress('{"status":"running","jobs":[{"status":"done"}]}')).to.equal(false);
    expect(saysInProgress({ job: { status: 'running' }, status: 'failed' })).to.equal(false);
    expect(saysInProgress('The status: running late, says the driver')).to.equal(false);
    expect(saysInProgress(`{"status":"running","log":"${'x'.repeat(MAX_STATUS_TEXT)}"}`)).to.equal(false);
  });

  it('marks the fingerprint of such a success (inProgress), never an error or a listed result', () => {
    const policy = resolveOptions().defaultTool;
    expect(fingerprintResult({ status: 'running' }, policy, 1 << 20).inProgress).to.equal(true);
    expect(fingerprintResult({ status: 'done' }, policy, 1 << 20).inProgress).to.equal(undefined);
    expect(fingerprintResult({ content: [{ type: 'text', text: '{"status":"pending"}' }] }, policy, 1 << 20).inProgress).to.equal(true);
    expect(fingerprintResult({ items: [{ status: 'running' }] }, policy, 1 << 20).inProgress).to.equal(undefined);
  });
});
